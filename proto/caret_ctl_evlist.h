/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a `record` session enables: the UST event patterns (full or light)
 * and the context fields added to the channel. caretd enables exactly
 * these (lib/lttng/lttng_record.c); caretctl shows them with `record --list`
 * without asking caretd.
 */
#ifndef CARET_PROTO_CTL_EVLIST_H
#define CARET_PROTO_CTL_EVLIST_H

#include <stdbool.h>

/* NULL-terminated list of event name patterns. `light` is CARET's
 * `ros2 caret record --light` list; `rcl_publish` adds ros2:rcl_publish to
 * it, as CARET does from Iron on (caretd leaves it out only when every
 * process it knows reports an older distribution). */
const char *const *caret_ctl_evlist(bool light, bool rcl_publish);

/* NULL-terminated list of LTTng context names, as `lttng add-context`
 * spells them. */
extern const char *const caret_ctl_contexts[];

#endif
