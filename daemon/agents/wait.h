/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `wait` request, which outlives its request line: progress lines until
 * every agent records or the deadline passes, then the result. The server
 * polls it; it never writes anywhere itself.
 */
#ifndef CARETD_WAIT_H
#define CARETD_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "daemon/agents/registry.h"

struct wait_req;

/* NULL when out of memory. */
struct wait_req *wait_begin(const struct registry *r, int64_t timeout_ms, int64_t now_ns);
/*
 * The next reply line due at now_ns, or NULL if none is. *done is set
 * when that reply is the result: the request is over, free it.
 */
cJSON *wait_poll(struct wait_req *w, int64_t now_ns, bool *done);
void wait_free(struct wait_req *w);

/*
 * Another long-running request, polled as a wait is (daemon/recording/snapshot.h):
 * poll returns the next reply line due or NULL, and sets *done with the
 * last one; release frees arg. NULL when out of memory (arg is then
 * released).
 */
struct wait_custom {
	cJSON *(*poll)(void *arg, int64_t now_ns, bool *done);
	void (*release)(void *arg);
};
struct wait_req *wait_custom(const struct wait_custom *ops, void *arg);

/*
 * Adds "dropped" (every agent's records its cache could not hold) and
 * "drops" (per process, at most CARET_CTL_MAX_DROPS) to a wait or stop
 * result, and logs each process once per call when log is set. 0 or
 * -ENOMEM.
 */
int wait_add_drops(const struct registry *r, cJSON *o, bool log);

#endif
