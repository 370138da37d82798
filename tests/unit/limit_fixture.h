/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge's size-bound ops (struct bridge_limit_ops) faked for the
 * relay session's tests: each call is written to `limits` ("size NAME
 * BYTES", "remove NAME"; the last 8 kept, `n_limits` counting all); a
 * size bound fails with `fail_size` when it is set (negative errno).
 */
#ifndef CARET_TEST_LIMIT_FIXTURE_H
#define CARET_TEST_LIMIT_FIXTURE_H

#include "daemon/bridge/bridge.h"

extern char limits[8][128];
extern int n_limits, fail_size;
extern const struct bridge_limit_ops fake_limit;

#endif
