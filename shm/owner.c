/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The owner's (agent's) side of the replay handshake: steps 2, 3 and 5 of
 * the diagram in proto/caret_segment.h. Each move publishes with release order
 * and wakes `progress` so a controller sleeping on it sees the change.
 */
#include "shm/caret_shm.h"
#include "shm/futex.h"

static void bump_progress(struct caret_shm_header *h)
{
	__atomic_fetch_add(&h->progress, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->progress);
}

const uint32_t *caret_own_state_word(const struct caret_seg *s)
{
	return &s->shared_hdr->state;
}

void caret_own_set_state(struct caret_seg *s, enum caret_state st)
{
	__atomic_store_n(&s->shared_hdr->state, (uint32_t)st, __ATOMIC_RELEASE);
}

void caret_own_set_flags(struct caret_seg *s, uint32_t set, uint32_t clear)
{
	if (clear)
		__atomic_fetch_and(&s->shared_hdr->agent_flags, ~clear, __ATOMIC_RELEASE);
	if (set)
		__atomic_fetch_or(&s->shared_hdr->agent_flags, set, __ATOMIC_RELEASE);
}

void caret_own_read(const struct caret_seg *s, struct caret_own_view *v)
{
	const struct caret_shm_header *h = s->shared_hdr;
	v->doorbell = __atomic_load_n(&h->doorbell, __ATOMIC_ACQUIRE);
	uint64_t g = __atomic_load_n(&h->grant, __ATOMIC_ACQUIRE);
	v->epoch = CARET_EPOCH_OF(g);
	v->count = CARET_COUNT_OF(g);
	v->tp_enabled_epoch = __atomic_load_n(&h->tp_enabled_epoch, __ATOMIC_ACQUIRE);
}

uint32_t caret_own_grant_epoch(const struct caret_seg *s)
{
	return CARET_EPOCH_OF(__atomic_load_n(&s->shared_hdr->grant, __ATOMIC_ACQUIRE));
}

void caret_own_begin_pass(struct caret_seg *s, uint32_t epoch)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_store_n(&h->cursor, CARET_EPOCH_COUNT(epoch, 0), __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_tp_enabled(struct caret_seg *s, uint32_t epoch)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_fetch_and(&h->agent_flags, ~(uint32_t)CARET_AGENT_TP_TIMEOUT, __ATOMIC_RELEASE);
	__atomic_store_n(&h->tp_enabled_epoch, epoch, __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_tp_timeout(struct caret_seg *s)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_fetch_or(&h->agent_flags, CARET_AGENT_TP_TIMEOUT, __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_advance(struct caret_seg *s, uint32_t epoch, uint32_t done, uint32_t n)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_fetch_add(&h->replayed, n, __ATOMIC_RELAXED);
	__atomic_store_n(&h->cursor, CARET_EPOCH_COUNT(epoch, done), __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_wait_doorbell(struct caret_seg *s, uint32_t seen)
{
	caret_futex_wait(&s->shared_hdr->doorbell, seen, -1);
}

int caret_own_next_record(const struct caret_seg *s, uint64_t *off, struct caret_rec_view *v)
{
	return caret_rec_next(s->area, s->area_cap, off, v);
}

uint32_t caret_own_ctl_flags(const struct caret_seg *s)
{
	return __atomic_load_n(&s->shared_hdr->ctl_flags, __ATOMIC_ACQUIRE);
}
