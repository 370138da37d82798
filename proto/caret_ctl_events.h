/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a `record` session enables: the UST event patterns (full or light)
 * and the context fields added to the channel. caretd enables exactly
 * these (daemon/lttng.c); caretctl shows them with `record --list`
 * without asking caretd. The light list is the place where CARET's
 * `ros2 caret record --light` list is kept.
 */
#ifndef CARET_PROTO_CTL_EVENTS_H
#define CARET_PROTO_CTL_EVENTS_H

#include <stdbool.h>

/* NULL-terminated list of event name patterns. */
const char *const *caret_ctl_events(bool light);

/* NULL-terminated list of LTTng context names, as `lttng add-context`
 * spells them. */
extern const char *const caret_ctl_contexts[];

#endif
