/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's side of the replay handshake, and the futex helpers. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm/caret_shm.h"

int caret_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms)
{
	struct timespec ts, *tp = NULL;
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tp = &ts;
	}
	long r = syscall(SYS_futex, word, FUTEX_WAIT, expected, tp, NULL, 0);
	if (r < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return 0;
}

int caret_futex_wake(uint32_t *word)
{
	long r = syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return r < 0 ? -errno : (int)r;
}

int caret_ctl_set_state(struct caret_seg *s, enum caret_state st)
{
	if (st > CARET_STATE_RECORD)
		return -EINVAL;
	__atomic_store_n(&s->hdr->state, (uint32_t)st, __ATOMIC_RELEASE);
	caret_futex_wake(&s->hdr->state);
	return 0;
}

int64_t caret_ctl_begin_pass(struct caret_seg *s)
{
	struct caret_shm_header *h = s->hdr;
	uint32_t epoch = CARET_EPOCH_OF(__atomic_load_n(&h->grant, __ATOMIC_ACQUIRE)) + 1;
	/* Epoch 0 means "never": skip it on wrap-around. */
	if (epoch == 0)
		epoch = 1;
	__atomic_store_n(&h->grant, CARET_EPOCH_COUNT(epoch, 0), __ATOMIC_RELEASE);
	__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->doorbell);
	return epoch;
}

int64_t caret_ctl_begin_replay(struct caret_seg *s)
{
	/* PREPARE before the new epoch: the agent must not see the pass
	 * while its runtime events still flow in a state meant to stop them. */
	__atomic_store_n(&s->hdr->state, (uint32_t)CARET_STATE_PREPARE, __ATOMIC_RELEASE);
	return caret_ctl_begin_pass(s);
}

int caret_ctl_grant(struct caret_seg *s, uint32_t epoch, uint32_t count)
{
	struct caret_shm_header *h = s->hdr;
	__atomic_store_n(&h->grant, CARET_EPOCH_COUNT(epoch, count), __ATOMIC_RELEASE);
	__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->doorbell);
	return 0;
}

void caret_ctl_set_flags(struct caret_seg *s, uint32_t flags)
{
	__atomic_store_n(&s->hdr->ctl_flags, flags, __ATOMIC_RELEASE);
}

int caret_ctl_wait_progress(struct caret_seg *s, uint32_t seen, int timeout_ms)
{
	return caret_futex_wait(&s->hdr->progress, seen, timeout_ms);
}

void caret_seg_read_status(const struct caret_seg *s, struct caret_seg_status *st)
{
	const struct caret_shm_header *h = s->hdr;
	st->state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
	st->tp_enabled_epoch = __atomic_load_n(&h->tp_enabled_epoch, __ATOMIC_ACQUIRE);
	st->progress = __atomic_load_n(&h->progress, __ATOMIC_ACQUIRE);
	st->agent_flags = __atomic_load_n(&h->agent_flags, __ATOMIC_ACQUIRE);
	st->ctl_flags = __atomic_load_n(&h->ctl_flags, __ATOMIC_ACQUIRE);
	st->grant = __atomic_load_n(&h->grant, __ATOMIC_ACQUIRE);
	st->cursor = __atomic_load_n(&h->cursor, __ATOMIC_ACQUIRE);
	st->records = __atomic_load_n(&h->records, __ATOMIC_ACQUIRE);
	st->dropped = __atomic_load_n(&h->dropped, __ATOMIC_ACQUIRE);
	st->dropped_bytes = __atomic_load_n(&h->dropped_bytes, __ATOMIC_ACQUIRE);
	st->replayed = __atomic_load_n(&h->replayed, __ATOMIC_ACQUIRE);
	st->tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
}
