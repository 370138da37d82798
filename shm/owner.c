/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The owner's (agent's) side of the replay handshake: steps 2, 3 and 5 of
 * the diagram in proto/caret_segment.h, and the per-record claims that
 * make every init record reach a session once. Each move publishes with
 * release order and wakes `progress` so a controller sleeping on it sees
 * the change.
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
	__atomic_store_n(&h->tp_enabled_epoch, epoch, __ATOMIC_SEQ_CST);
	/* From here on every new record is emitted live; the pass walks
	 * every record committed by a thread that read the old value
	 * (caret_own_claim_live). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bump_progress(h);
}

void caret_own_tp_timeout(struct caret_seg *s)
{
	struct caret_shm_header *h = s->shared_hdr;
	__atomic_fetch_or(&h->agent_flags, CARET_AGENT_TP_TIMEOUT, __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_count_cpu(struct caret_seg *s, int cpu, uint32_t n)
{
	if (cpu < 0 || (unsigned)cpu >= CARET_SHM_CPUS || !n)
		return;
	uint64_t *slot = (uint64_t *)((uint8_t *)s->shared_hdr + CARET_SHM_CPU_OFFSET) + cpu;
	__atomic_fetch_add(slot, n, __ATOMIC_RELAXED);
}

void caret_own_count_skipped(struct caret_seg *s, uint32_t n)
{
	if (!n)
		return;
	uint64_t *w = (uint64_t *)((uint8_t *)s->shared_hdr + CARET_SHM_SKIPPED_OFFSET);
	__atomic_fetch_add(w, n, __ATOMIC_RELAXED);
}

void caret_own_advance(struct caret_seg *s, uint32_t epoch, uint32_t done, uint32_t n)
{
	struct caret_shm_header *h = s->shared_hdr;
	/* release: the per-CPU counts of these records are seen with them */
	__atomic_fetch_add(&h->replayed, n, __ATOMIC_RELEASE);
	__atomic_store_n(&h->cursor, CARET_EPOCH_COUNT(epoch, done), __ATOMIC_RELEASE);
	bump_progress(h);
}

void caret_own_wait_doorbell(struct caret_seg *s, uint32_t seen)
{
	caret_futex_wait(&s->shared_hdr->doorbell, seen, -1);
}

uint64_t caret_own_records(const struct caret_seg *s)
{
	return __atomic_load_n(&s->shared_hdr->records, __ATOMIC_SEQ_CST);
}

int caret_own_next_record(const struct caret_seg *s, uint64_t *off, struct caret_rec_view *v)
{
	return caret_rec_next(s->area, s->area_cap, off, v);
}

uint32_t caret_own_ctrl_flags(const struct caret_seg *s)
{
	return __atomic_load_n(&s->shared_hdr->ctrl_flags, __ATOMIC_ACQUIRE);
}

static uint64_t *claim_word(struct caret_seg *s, uint64_t at)
{
	return &((struct caret_rec_hdr *)(s->area + at))->claim;
}

bool caret_own_claim_live(struct caret_seg *s, uint64_t at)
{
	const struct caret_shm_header *h = s->shared_hdr;
	/* After the sequentially consistent `records` increment of the
	 * append: a controller that has not moved the state yet counts this
	 * record before it moves it (proto/caret_segment.h). */
	uint32_t st = __atomic_load_n(&h->state, __ATOMIC_SEQ_CST);
	if (st != CARET_STATE_RECORD && st != CARET_STATE_PREPARE)
		return false; /* WAIT: the next pass replays it */
	uint32_t g = CARET_EPOCH_OF(__atomic_load_n(&h->grant, __ATOMIC_SEQ_CST));
	/* In PREPARE only once this pass saw its tracepoints enabled (and
	 * emitted caret_init): before that a live event could be lost, and
	 * the pass has not walked anything yet. */
	if (st == CARET_STATE_PREPARE && __atomic_load_n(&h->tp_enabled_epoch, __ATOMIC_SEQ_CST) != g)
		return false;
	uint64_t none = 0;
	return __atomic_compare_exchange_n(claim_word(s, at), &none, (uint64_t)g + 1, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

bool caret_own_claim_replay(struct caret_seg *s, uint64_t at, uint32_t epoch)
{
	uint64_t *w = claim_word(s, at), mine = (uint64_t)epoch + 1;
	uint64_t c = __atomic_load_n(w, __ATOMIC_ACQUIRE);
	do {
		/* Emitted live since pass `epoch` (or a newer one) began: it
		 * is in every session this pass is for already. Epochs only
		 * grow (caret_drive_*: 2^32 passes before one wraps). */
		if (c >= mine)
			return false;
	} while (!__atomic_compare_exchange_n(w, &c, mine, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return true;
}
