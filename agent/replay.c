/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The replay thread: sleeps on the segment's doorbell; when a controller
 * opens a replay pass (new epoch) it waits for the ros2_caret tracepoints
 * to be enabled in this process, emits caret_init, then emits cached
 * records with their original init_timestamp as far as the grant allows.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/filter.h"

struct replay {
	struct caret_seg *seg;
	char distribution[24];
	int tp_wait_ms;
};

static struct replay rp;

static void bump_progress(struct caret_shm_header *h)
{
	__atomic_fetch_add(&h->progress, 1, __ATOMIC_RELEASE);
	caret_futex_wake(&h->progress);
}

/* LTTng enables UST events some milliseconds after `lttng start` returns;
 * replaying before that would lose the records. Gives up early when the
 * controller moves to another epoch. */
static bool wait_tp_enabled(struct caret_shm_header *h, uint32_t epoch)
{
	const struct timespec tick = { 0, 1000000 };
	for (int waited = 0; waited <= rp.tp_wait_ms; waited++) {
		if (caret_tp->enabled())
			return true;
		if (CARET_EPOCH_OF(__atomic_load_n(&h->grant, __ATOMIC_ACQUIRE)) != epoch)
			return false;
		nanosleep(&tick, NULL);
	}
	return false;
}

static void *replay_main(void *arg)
{
	(void)arg;
	struct caret_seg *s = rp.seg;
	struct caret_shm_header *h = s->hdr;
	uint32_t epoch = 0, done = 0;
	uint64_t off = 0;

	/* Not renamed: LTTng's procname context of replayed events must stay
	 * the process's name, as for its other events. */
	__atomic_fetch_or(&h->agent_flags, CARET_AGENT_REPLAY_THREAD, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t bell = __atomic_load_n(&h->doorbell, __ATOMIC_ACQUIRE);
		uint64_t g = __atomic_load_n(&h->grant, __ATOMIC_ACQUIRE);
		uint32_t ge = CARET_EPOCH_OF(g), gc = CARET_COUNT_OF(g);

		if (ge != 0 && ge != epoch) {
			epoch = ge;
			done = 0;
			off = 0;
			__atomic_store_n(&h->cursor, CARET_EPOCH_COUNT(epoch, 0), __ATOMIC_RELEASE);
			bump_progress(h);
		}
		if (epoch != 0 &&
		    __atomic_load_n(&h->tp_enabled_epoch, __ATOMIC_ACQUIRE) != epoch) {
			if (wait_tp_enabled(h, epoch)) {
				caret_tp->caret_init(caret_now_ns(), rp.distribution);
				__atomic_fetch_and(&h->agent_flags, ~CARET_AGENT_TP_TIMEOUT,
						   __ATOMIC_RELEASE);
				__atomic_store_n(&h->tp_enabled_epoch, epoch, __ATOMIC_RELEASE);
				bump_progress(h);
				continue; /* re-read grant: it may have moved meanwhile */
			}
			/* Retry at the controller's next doorbell, not in a loop. */
			__atomic_fetch_or(&h->agent_flags, CARET_AGENT_TP_TIMEOUT,
					  __ATOMIC_RELEASE);
			bump_progress(h);
			caret_futex_wait(&h->doorbell, bell, -1);
			continue;
		}
		if (epoch != 0 && gc > done) {
			struct caret_rec_view v;
			uint32_t n = 0;
			while (done < gc && caret_rec_next(s->area, s->area_cap, &off, &v) == 1) {
				if (caret_filter_record_allowed(v.kind, v.args))
					caret_tp->emit_record(v.kind, v.init_timestamp, v.args);
				done++;
				n++;
			}
			if (n) {
				__atomic_fetch_add(&h->replayed, n, __ATOMIC_RELAXED);
				__atomic_store_n(&h->cursor, CARET_EPOCH_COUNT(epoch, done),
						 __ATOMIC_RELEASE);
				bump_progress(h);
			}
		}
		caret_futex_wait(&h->doorbell, bell, -1);
	}
	return NULL;
}

int caret_replay_start(struct caret_seg *seg, const char *distribution)
{
	rp.seg = seg;
	strncpy(rp.distribution, distribution, sizeof(rp.distribution) - 1);
	const char *w = getenv("CARET_AGENT_TP_WAIT_MS");
	rp.tp_wait_ms = (w && *w) ? atoi(w) : 5000;
	if (rp.tp_wait_ms < 0 || rp.tp_wait_ms > 600000)
		rp.tp_wait_ms = 5000;

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* The application's signal handlers must never run on our thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int r = pthread_create(&t, &attr, replay_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -r;
}
