/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LTTng start helper's side of its socket (daemon/lttng/lttng_helper.h),
 * for tests whose helper is the test binary itself in the helper's mode:
 * each message is answered with a result that reply() may change, from
 * -EIO (0 for a drop, which finds no session); req is the start asked
 * for, NULL for a drop or a message that does not unpack. A 1-byte
 * message (a ping) gets no answer; the socket's end ends the process.
 */
#ifndef CARET_TEST_HELPER_FIXTURE_H
#define CARET_TEST_HELPER_FIXTURE_H

#include "daemon/lttng/lttng_start_msg.h"

typedef void helper_reply_fn(const struct lttng_start_req *req, struct lttng_start_result *res);

_Noreturn void helper_serve(helper_reply_fn *reply);

#endif
