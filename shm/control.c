/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's side of the replay handshake: steps 1, 4 and 6 of the
 * diagram in proto/caret_segment.h, and the status a controller reads. */
#include <errno.h>

#include "shm/caret_shm.h"
#include "shm/futex.h"

/* Compare-and-swap: a controller acts on the state it read, so a state
 * the agent (or another controller) changed meanwhile is never
 * overwritten by a decision made for the old one. */
static int move_state(struct caret_shm_header *h, enum caret_state from, enum caret_state to)
{
	uint32_t seen = (uint32_t)from;
	/* Sequentially consistent: an agent that reads the old state after
	 * counting a record leaves it to a pass this controller then sees
	 * counted (the exactly-once handshake, proto/caret_segment.h). */
	if (!__atomic_compare_exchange_n(&h->state, &seen, (uint32_t)to, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return -ESTALE;
	caret_futex_wake(&h->state);
	return 0;
}

int caret_drive_set_state(struct caret_seg *s, enum caret_state from, enum caret_state to)
{
	if (from > CARET_STATE_MAX || to > CARET_STATE_MAX)
		return -EINVAL;
	int r = move_state(s->shared_hdr, from, to);
	/* After the move, not before: a refused End must not take the
	 * filter from under the recording that goes on. */
	if (r == 0 && to == CARET_STATE_WAIT)
		caret_drive_clear_filter(s);
	return r;
}

/* The next pass's epoch; 0 means "never" and is skipped on wrap-around. */
static uint32_t next_epoch(const struct caret_shm_header *h)
{
	uint32_t epoch = CARET_EPOCH_OF(__atomic_load_n(&h->grant, __ATOMIC_ACQUIRE)) + 1;
	return epoch ? epoch : 1;
}

static void ring(struct caret_shm_header *h)
{
	__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->doorbell);
}

/* A pass for an agent that keeps its state (RECORD: runtime events keep
 * flowing while a newer session gets the whole cache). */
int64_t caret_drive_begin_pass(struct caret_seg *s)
{
	struct caret_shm_header *h = s->shared_hdr;
	uint32_t epoch = next_epoch(h);
	__atomic_store_n(&h->grant, CARET_EPOCH_COUNT(epoch, 0), __ATOMIC_RELEASE);
	ring(h);
	return epoch;
}

int64_t caret_drive_begin_replay(struct caret_seg *s, enum caret_state from)
{
	struct caret_shm_header *h = s->shared_hdr;
	if (from != CARET_STATE_WAIT && from != CARET_STATE_PREPARE)
		return -EINVAL;
	/* No new epoch for an agent that is not where the caller thinks. */
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != (uint32_t)from)
		return -ESTALE;
	uint32_t epoch = next_epoch(h);
	/* The new epoch first, then PREPARE (release: whoever sees PREPARE
	 * sees the epoch). A controller killed between the two leaves the
	 * agent in its old state (WAIT or PREPARE: no runtime events flow in
	 * either) with an unused epoch, which the next start skips; in the
	 * other order it would leave PREPARE with the finished pass's epoch
	 * and cursor, which a restarted caretd takes for a completed replay
	 * and moves to RECORD without replaying. A state changed between
	 * the check above and the move leaves the same unused epoch. */
	__atomic_store_n(&h->grant, CARET_EPOCH_COUNT(epoch, 0), __ATOMIC_RELEASE);
	if (move_state(h, from, CARET_STATE_PREPARE) < 0)
		return -ESTALE;
	ring(h);
	return epoch;
}

int caret_drive_grant(struct caret_seg *s, uint32_t epoch, uint32_t count)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_store_n(&h->grant, CARET_EPOCH_COUNT(epoch, count), __ATOMIC_RELEASE);
	__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->doorbell);
	return 0;
}

void caret_drive_set_flags(struct caret_seg *s, uint32_t flags)
{
	__atomic_store_n(&s->shared_hdr->ctrl_flags, flags, __ATOMIC_RELEASE);
}

int caret_drive_wait_progress(struct caret_seg *s, uint32_t seen, int timeout_ms)
{
	return caret_futex_wait(&s->shared_hdr->progress, seen, timeout_ms);
}

void caret_seg_read_status(const struct caret_seg *s, struct caret_seg_status *st)
{
	const struct caret_shm_header *h = s->shared_hdr;
	st->state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
	st->tp_enabled_epoch = __atomic_load_n(&h->tp_enabled_epoch, __ATOMIC_ACQUIRE);
	st->progress = __atomic_load_n(&h->progress, __ATOMIC_ACQUIRE);
	st->agent_flags = __atomic_load_n(&h->agent_flags, __ATOMIC_ACQUIRE);
	st->ctrl_flags = __atomic_load_n(&h->ctrl_flags, __ATOMIC_ACQUIRE);
	st->grant = __atomic_load_n(&h->grant, __ATOMIC_ACQUIRE);
	st->cursor = __atomic_load_n(&h->cursor, __ATOMIC_ACQUIRE);
	st->records = __atomic_load_n(&h->records, __ATOMIC_SEQ_CST);
	st->dropped = __atomic_load_n(&h->dropped, __ATOMIC_ACQUIRE);
	st->dropped_bytes = __atomic_load_n(&h->dropped_bytes, __ATOMIC_ACQUIRE);
	st->replayed = __atomic_load_n(&h->replayed, __ATOMIC_ACQUIRE);
	st->tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
}

void caret_seg_read_cpus(const struct caret_seg *s, uint64_t *out, unsigned n)
{
	const uint64_t *slot =
		(const uint64_t *)((const uint8_t *)s->shared_hdr + CARET_SHM_CPU_OFFSET);
	for (unsigned c = 0; c < n && c < CARET_SHM_CPUS; c++)
		out[c] = __atomic_load_n(&slot[c], __ATOMIC_RELAXED);
}

uint64_t caret_seg_read_skipped(const struct caret_seg *s)
{
	const uint64_t *w =
		(const uint64_t *)((const uint8_t *)s->shared_hdr + CARET_SHM_SKIPPED_OFFSET);
	return __atomic_load_n(w, __ATOMIC_RELAXED);
}

uint32_t caret_seg_state(const struct caret_seg *s)
{
	return __atomic_load_n(&s->shared_hdr->state, __ATOMIC_ACQUIRE);
}
