/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s counting (count.h). */
#include <stddef.h>

#include "agent/count.h"
#include "agent/state.h"

static struct caret_seg *count_seg;

void caret_count_use(struct caret_seg *s)
{
	static const uint32_t unwatched;
	__atomic_store_n(&count_seg, s, __ATOMIC_RELEASE);
	__atomic_store_n(&caret_watched_word, s ? caret_own_watched_word(s) : &unwatched,
			 __ATOMIC_RELEASE);
}

/* The callbacks running on this thread, innermost last: an executor may
 * run a callback from inside another (spin_some in a callback). */
#define NEST_MAX 8
static __thread struct {
	const void *cb[NEST_MAX];
	int64_t t0[NEST_MAX];
	uint32_t watch[NEST_MAX]; /* `watched` at the start */
	unsigned depth;
} tls_calls __attribute__((tls_model("initial-exec")));

void caret_count_callback_start(const void *callback, uint32_t watch)
{
	unsigned d = tls_calls.depth;
	/* entries whose end came while unwatched stay behind: beyond a
	 * nesting no executor makes, they are those, and go */
	if (d >= NEST_MAX)
		d = 0;
	tls_calls.cb[d] = callback;
	tls_calls.t0[d] = caret_now_ns();
	tls_calls.watch[d] = watch;
	tls_calls.depth = d + 1;
}

void caret_count_callback_end(const void *callback, uint32_t generation)
{
	unsigned d = tls_calls.depth;
	if (!d)
		return; /* started while unwatched */
	tls_calls.depth = --d;
	if (tls_calls.cb[d] != callback ||
	    CARET_CTR_WATCH_SESSION(tls_calls.watch[d]) != CARET_CTR_WATCH_SESSION(generation)) {
		/* a start missed (this watch began inside the call): forget
		 * what this thread holds rather than pair the wrong ones, or
		 * a start of an earlier watch (whose end came unwatched) with
		 * this end, seconds or minutes later */
		tls_calls.depth = 0;
		return;
	}
	int64_t dt = caret_now_ns() - tls_calls.t0[d];
	struct caret_seg *s = __atomic_load_n(&count_seg, __ATOMIC_ACQUIRE);
	caret_own_count(s, CARET_CTR_CALLBACK, callback, dt > 0 ? (uint64_t)dt : 0, generation);
}

void caret_count_message(enum caret_ctr_kind kind, const void *handle, uint32_t generation)
{
	caret_own_count(__atomic_load_n(&count_seg, __ATOMIC_ACQUIRE), kind, handle, 0, generation);
}
