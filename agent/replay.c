/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The replay thread: sleeps on the segment's doorbell; when a controller
 * opens a replay pass (new epoch) it waits for the ros2_caret tracepoints
 * to be enabled in this process, emits caret_init, then emits cached
 * records with their original init_timestamp as far as the grant allows,
 * but for those their own thread emitted live since the pass began (the
 * claims of proto/caret_segment.h). Each pass is bracketed in the trace
 * by ros2_caret:caret_replay_begin/end with its record counts, so a pass
 * the recording cut short shows in the trace itself.
 */
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/filter.h"
#include "agent/provider.h"
#include "agent/replay.h"
#include "agent/state.h"

struct replay {
	struct caret_seg *seg;
	char distribution[24];
	int tp_wait_ms;
};

static struct replay rp;

static void mark(int end, uint32_t epoch, uint64_t records)
{
	if (caret_tp->replay_mark)
		caret_tp->replay_mark(end, epoch, records);
}

/* Whether the walk at `off` has reached the last committed record: the
 * pass has emitted all it will (records committed later are live). */
static bool walked_all(const struct caret_seg *s, uint64_t off)
{
	struct caret_rec_view rec;
	return caret_own_next_record(s, &off, &rec) != 1;
}

/* LTTng enables UST events some milliseconds after `lttng start` returns;
 * replaying before that would lose the records. Gives up early when the
 * controller moves to another epoch. */
static bool wait_tp_enabled(const struct caret_seg *s, uint32_t epoch)
{
	const struct timespec tick = { 0, 1000000 };
	for (int waited = 0; waited <= rp.tp_wait_ms; waited++) {
		if (caret_tp->enabled())
			return true;
		if (caret_own_grant_epoch(s) != epoch)
			return false;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* The Start's filter for pass `epoch`, if caretd staged one (struct
 * caret_shm_filter): taken before the pass begins, so no record of the
 * pass is emitted without it. A malformed block counts as no filter, as
 * caret_trace treats a filter it cannot read (get_env_var gives ""), and
 * is flagged for caretd to report. */
static void adopt_filter(struct caret_seg *s, uint32_t epoch)
{
	struct caret_filter_text ft;
	int r = caret_own_read_filter(s, epoch, &ft);
	bool on = caret_filter_pass_set(r > 0 ? &ft.f : NULL, caret_own_filter_word(s), epoch);
	uint32_t set = (on ? CARET_AGENT_PASS_FILTER : 0) | (r < 0 ? CARET_AGENT_FILTER_BAD : 0);
	caret_own_set_flags(s, set, (CARET_AGENT_PASS_FILTER | CARET_AGENT_FILTER_BAD) & ~set);
	if (r < 0)
		caret_warn("caret-agent: the filter of replay pass %u is malformed: not applied",
			   epoch);
}

/* Records emitted back to back on one CPU (claimed and let through by
 * the pass filter), counted in the segment's slot
 * of that CPU once the thread moves or the batch ends (caretd keeps each
 * CPU's ring within its own window: daemon/agents/pacer.c). lttng-ust
 * writes an event into the ring of the CPU its thread runs on, read the
 * same way (sched_getcpu(), a vDSO call) just before. */
struct cpu_run {
	int cpu;
	uint32_t n;
};

static void run_count(struct caret_seg *s, struct cpu_run *r)
{
	int cpu = sched_getcpu();
	if (cpu != r->cpu) {
		caret_own_count_cpu(s, r->cpu, r->n);
		r->cpu = cpu;
		r->n = 0;
	}
	r->n++;
}

/* The agent's column of the handshake in proto/caret_segment.h (steps 2, 3
 * and 5); every shared word is moved by shm/owner.c. */
static void *replay_main(void *arg)
{
	(void)arg;
	struct caret_seg *s = rp.seg;
	uint32_t epoch = 0, done = 0;
	uint64_t off = 0, emitted = 0;
	bool ended = false;

	/* Not renamed: LTTng's procname context of replayed events must stay
	 * the process's name, as for its other events. */
	caret_own_set_flags(s, CARET_AGENT_REPLAY_THREAD, 0);
	for (;;) {
		struct caret_own_view v;
		caret_own_read(s, &v);

		if (v.epoch != 0 && v.epoch != epoch) {
			epoch = v.epoch;
			done = 0;
			off = 0;
			emitted = 0;
			ended = false;
			adopt_filter(s, epoch);
			caret_own_begin_pass(s, epoch);
		}
		if (epoch != 0 && v.tp_enabled_epoch != epoch) {
			/* A late recording: the provider on its first pass */
			if (!caret_provider_load())
				caret_own_set_flags(s, CARET_AGENT_NO_TRACEPOINTS, 0);
			else if (wait_tp_enabled(s, epoch)) {
				caret_tp->caret_init(caret_now_ns(), rp.distribution);
				caret_own_tp_enabled(s, epoch);
				/* Read after step 3: every record counted here is
				 * the pass's to walk, every later one is live. */
				mark(0, epoch, caret_own_records(s));
				continue; /* re-read grant: it may have moved meanwhile */
			}
			/* Retry at the controller's next doorbell, not in a loop. */
			caret_own_tp_timeout(s);
			caret_own_wait_doorbell(s, v.doorbell);
			continue;
		}
		if (epoch != 0 && v.count > done) {
			struct caret_rec_view rec;
			uint32_t walked = 0, n = 0, skipped = 0;
			uint64_t at = off;
			struct cpu_run run = { .cpu = -1 };
			while (done < v.count && caret_own_next_record(s, &off, &rec) == 1) {
				/* Not when its thread emitted it live since this
				 * pass began: that copy is in this pass's sessions. */
				if (caret_own_claim_replay(s, at, epoch)) {
					/* a filtered record writes nothing: on no
					 * CPU's ring, or caretd would count it in
					 * flight there */
					if (caret_filter_record_allowed(rec.kind, rec.args)) {
						run_count(s, &run);
						caret_tp->emit_record(rec.kind, rec.init_timestamp,
								      rec.args);
						emitted++;
					} else {
						skipped++;
					}
					n++;
				}
				at = off;
				done++;
				walked++;
			}
			/* Before the advance that lets the controller end
			 * the pass: a whole pass has its end in the trace. */
			if (!ended && walked_all(s, off)) {
				mark(1, epoch, emitted);
				ended = true;
			}
			caret_own_count_cpu(s, run.cpu, run.n);
			caret_own_count_skipped(s, skipped);
			if (walked)
				caret_own_advance(s, epoch, done, n);
		} else if (epoch != 0 && !ended && walked_all(s, off)) {
			mark(1, epoch, emitted); /* a pass with nothing to walk */
			ended = true;
		}
		caret_own_wait_doorbell(s, v.doorbell);
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
