/* SPDX-License-Identifier: Apache-2.0 */
/* Probes and tracepoint definitions of the caret_micro provider, linked
 * into caret-microbench itself. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench/micro/micro_tp.h"
