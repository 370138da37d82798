/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Provider `caret_micro`: the reference of micro-benchmark P2, a bare
 * lttng-ust tracepoint with exactly the payload of ros2:callback_start
 * (tools/standin/tracetools/tp_call.h): callback as a hex pointer, then
 * is_intra_process as an int.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER caret_micro

#undef LTTNG_UST_TRACEPOINT_INCLUDE
/* Resolved through -I. : lttng re-includes us from its own directory. */
#define LTTNG_UST_TRACEPOINT_INCLUDE "bench/micro/micro_tp.h"

#if !defined(CARET_MICRO_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CARET_MICRO_TP_H

#include <stdbool.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(caret_micro, callback_start,
	LTTNG_UST_TP_ARGS(const void *, callback, const bool, is_intra_process),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback, callback)
		lttng_ust_field_integer(int, is_intra_process,
			(is_intra_process ? 1 : 0))))

#endif /* CARET_MICRO_TP_H */

#include <lttng/tracepoint-event.h>
