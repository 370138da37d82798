/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/agents/dups.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/pacer_hist.h"
#include "shm/caret_shm.h"

/* The feedback reacts once per busy tick: the window must cover what
 * the consumer drains in about that long for the replay to keep up with
 * it. Packets complete at sub-buffer granularity, so up to a sub-buffer
 * per CPU of the window sits in partly filled packets; a 1 ms tick
 * refills the rest sooner than 4 ms did (bench/NOTES.md). */
#define TICK_BUSY_USEC (1 * USEC_PER_MS)
#define TICK_IDLE_USEC (50 * USEC_PER_MS)
/* Every replaying agent has its whole pass granted: the tick only waits
 * to see the passes done, and each of its periods was on average half a
 * period of every requester's wait (bench P6: a few ms of replay at
 * N = 25). Only that last stretch ticks this often, no grant is made in
 * it, and sd-event may fire up to LOOP_ACCURACY_USEC late. */
#define TICK_LAST_USEC 250
/* The window, not the replays, holds the pass back (busy_tick_usec):
 * what the consumer drains waits for the next tick to be granted again. */
#define TICK_WINDOW_USEC 250
/* ... but a tick then takes at most 1 / TICK_DUTY of a CPU: its walks of
 * every agent cost in proportion to N, and on 2 cores its time is taken
 * from the replay threads and the consumer. At 250 us at N = 400 (the
 * default channel) the replay proper went from 0.096-0.113 s to
 * 0.114-0.131 s (bench/NOTES.md). */
#define TICK_DUTY 4
/* No session active and no replay: nothing changes until the LTTng view
 * does (pacer_kick), a command moves agents itself, or an agent appears
 * (in WAIT, it needs nothing then); the tick only re-checks. */
#define TICK_QUIET_USEC (1000 * USEC_PER_MS)
/* Packets in flight on a CPU whose writers stopped (a partly filled
 * sub-buffer is drained only when full): after this long without a new
 * packet, a little more is granted so that one fills. */
#define STALL_NS (100LL * 1000000)

/*
 * How long after caretd first sees a session active before a process that
 * already has its ros2_caret tracepoints enabled (for an older session)
 * replays for it. Such a process cannot tell from its tracepoint state
 * when the new session's events are enabled in it (LTTng enables UST
 * events asynchronously, DESIGN.md section 4): caretd gives the session
 * daemon this long to push the new session to every registered app. A
 * process in WAIT needs no delay: it waits for its own tracepoints.
 */
#define SETTLE_NS (250LL * 1000000)

void pacer_sched_lttng(const struct lttng_view *v, int64_t now, struct sched_lttng *l)
{
	*l = (struct sched_lttng){ .any = false };
	for (int i = 0; i < v->n_active && l->n < SCHED_MAX_SESSIONS; i++) {
		const struct lttng_view_session *e = &v->sess[i];
		struct sched_session *s = &l->sess[l->n++];
		*s = (struct sched_session){ .rules = e->rules, .serial = e->serial,
					     .settled = now - e->since_ns >= SETTLE_NS };
		/* a member's recording tracks their uid only (lttng_record.c) */
		const struct lttng_view_pub *pub = lttng_view_pub(v, i);
		if (pub && pub->uid != 0 && geteuid() == 0) {
			s->scoped = true;
			s->uid = pub->uid;
		}
		l->scoped = l->scoped || s->scoped;
	}
	sched_lttng_sum(l, false, 0);
}

/* The records granted to an agent and not walked yet, in its pass. */
static uint64_t agent_pending(const struct caret_seg_status *st)
{
	uint32_t g = CARET_COUNT_OF(st->grant);
	if (CARET_EPOCH_OF(st->cursor) != CARET_EPOCH_OF(st->grant))
		return g;
	uint32_t done = CARET_COUNT_OF(st->cursor);
	return g > done ? g - done : 0;
}

/* Records an agent replays land in every session enabling ros2_caret
 * events; those that already held them get them twice. Counted per
 * session for the summary at stop (the analyzer tolerates them; see
 * daemon/agents/dups.h). Returns the estimated bytes replayed into the
 * trace since the last call, per CPU in cpu->tick (pacer_cpus_count), and
 * in *skipped those the pass filters kept out. */
static uint64_t count_duplicates(struct registry *r, struct lttng_view *v, struct pacer_cpus *cpu,
				 uint64_t *skipped)
{
	uint64_t bytes = 0, sk;
	*skipped = 0;
	for (struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		uint64_t now_rep = st.replayed;
		struct sched_agent *sa = sched_agent(a);
		if (!sa)
			continue; /* out of memory: not scheduled either */
		if (!sa->seen || now_rep <= sa->acct_replayed) {
			if (!sa->seen) /* where its replay is now */
				dups_charge(v, a, &st, 0);
			sa->acct_replayed = now_rep;
			pacer_cpus_count(cpu, a, 0, 0, 0, &sk);
			continue;
		}
		uint64_t d = now_rep - sa->acct_replayed, rb = sched_record_bytes(&st);
		sa->acct_replayed = now_rep;
		bytes += pacer_cpus_count(cpu, a, d, rb, agent_pending(&st) * rb, &sk);
		*skipped += sk;
		dups_charge(v, a, &st, d);
	}
	return bytes;
}

/* The recording the replays are for, if caretd made it to a local
 * directory with a known geometry; NULL otherwise. */
static const struct lttng_view_pub *feedback_target(const struct lttng_view *v, bool *others)
{
	int newest = -1, n = 0;
	for (int i = 0; i < v->n_active; i++)
		if (v->sess[i].rules & CARET_LTTNG_RULE_CARET) {
			n++;
			if (newest < 0 || v->sess[i].serial > v->sess[newest].serial)
				newest = i;
		}
	*others = n > 1;
	if (newest < 0)
		return NULL;
	const struct lttng_view_pub *r = lttng_view_pub(v, newest);
	return r && r->path[0] == '/' && r->subbuf_size && r->subbuf_count >= 2 ? r : NULL;
}

static void fb_base(struct pacer_fb *f, const struct sched *s, int64_t now)
{
	f->granted0 = s->granted_bytes;
	f->emitted = 0;
	pacer_hist_reset(&f->hist);
	f->since_ns = now;
	f->horizon_ns = -1;
	f->horizon_seen_ns = now;
	f->newest_seen_ns = now; /* quiet is counted from the base */
	f->blind_ns = 0;         /* and an unreadable index from the next read */
	f->skipped = 0;
	/* the ratio stays: the next pass (a new chunk's) replays the same
	 * caches into the same channel, and it is learned anew from there */
	f->calib = 0;
	f->busy_ns = 0;
	for (int c = 0; c < f->cpu.n; c++) {
		f->cpu.now[c] = 0;
		f->cpu.h[c] = -1;
	}
}

static void fb_sample(struct pacer_fb *f, int64_t now)
{
	pacer_hist_sample(&f->hist, &f->cpu, f->emitted, now);
}

/* CPU c's bytes written and not drained yet. */
static uint64_t fb_cpu_inflight(const struct pacer_fb *f, int c)
{
	uint64_t e = f->cpu.now[c];
	uint64_t dc = f->cpu.h[c] >= f->since_ns ? pacer_hist_at(&f->hist, &f->cpu, c, f->cpu.h[c])
						 : 0;
	return e > dc ? e - dc : 0;
}

/* The bytes in flight the window must hold: the fullest CPU's. What was
 * granted and not yet emitted (pending) may land on any CPU, so counts on
 * each; what was emitted counts on its CPU until that CPU's ring is
 * drained past it. Without per-CPU counts (cpu.n 0), granted less what
 * the slowest stream drained, as one ring for all. */
static uint64_t fb_inflight(const struct pacer_fb *f, uint64_t granted, uint64_t drained)
{
	/* what the pass filters kept out was granted and wrote nothing */
	granted = granted > f->skipped ? granted - f->skipped : 0;
	if (f->cpu.n == 0)
		return granted > drained ? granted - drained : 0;
	uint64_t pending = granted > f->emitted ? granted - f->emitted : 0, most = 0;
	for (int c = 0; c < f->cpu.n; c++) {
		uint64_t in = fb_cpu_inflight(f, c);
		if (in > most)
			most = in;
	}
	return pending + most;
}

/* The room of this tick in estimated bytes, against window: per CPU, each
 * grant not yet written counted on the CPU its agent's thread writes on
 * (pacer_cpus_room); without per-CPU counts, the window less all in
 * flight. */
static uint64_t fb_room(const struct pacer_fb *f, uint64_t granted, uint64_t drained,
			uint64_t window)
{
	if (f->cpu.n == 0) {
		uint64_t in = fb_inflight(f, granted, drained);
		return in < window ? window - in : 0;
	}
	granted = granted > f->skipped ? granted - f->skipped : 0;
	uint64_t pending = granted > f->emitted ? granted - f->emitted : 0, homed = 0;
	uint64_t in[CARET_SHM_CPUS], home[CARET_SHM_CPUS];
	for (int c = 0; c < f->cpu.n; c++) {
		in[c] = fb_cpu_inflight(f, c);
		home[c] = f->cpu.home[c];
		homed += home[c];
	}
	/* the agents' own grants read after the pacer's count: never more
	 * placed than is pending */
	if (homed > pending)
		for (int c = 0; c < f->cpu.n; c++)
			home[c] = (uint64_t)((double)home[c] * ((double)pending / (double)homed));
	uint64_t loose = pending > homed ? pending - homed : 0;
	return pacer_cpus_room(in, home, f->cpu.n, loose, window);
}

/* Sets the scheduler's room for this tick (or leaves it unknown). */
static void feedback(struct pacer *p, uint64_t emitted, uint64_t skipped, int64_t now, double dt)
{
	struct pacer_fb *f = &p->fb;
	struct sched *s = p->sched;
	bool others;
	const struct lttng_view_pub *r =
		s->cfg.pacing == PACING_ADAPTIVE ? feedback_target(p->lttng, &others) : NULL;
	s->room_known = false;
	if (!r) {
		pacer_fb_close(f);
		f->on = false;
		return;
	}
	const struct lttng_view_session *e = lttng_view_find(p->lttng, r->name);
	if (!f->on || !e || e->serial != f->serial || strcmp(f->session, r->name)) {
		pacer_fb_close(f);
		struct pacer_cpus cpu = f->cpu;
		/* the estimate as it is, until the trace says */
		*f = (struct pacer_fb){ .on = true, .serial = e ? e->serial : 0, .cpu = cpu,
					.ratio = 1 };
		snprintf(f->session, sizeof(f->session), "%s", r->name);
		f->subbuf = r->subbuf_size;
		pacer_cpus_margin(&f->cpu, f->subbuf);
		f->window = r->subbuf_size * (r->subbuf_count - 1);
		fb_base(f, s, now);
	}
	if (!sched_busy(p->reg)) {
		fb_base(f, s, now); /* nothing in flight that we know of */
		return;
	}
	if (!f->busy_ns)
		f->busy_ns = now;
	f->emitted += emitted;
	f->skipped += skipped;
	for (int c = 0; c < f->cpu.n; c++)
		f->cpu.now[c] += f->cpu.tick[c];
	fb_sample(f, now);

	/* a recording whose directory caretd cannot tell from another (no
	 * identity kept) is not read at all: the byte budget paces it */
	if (!r->dir_dev && !r->dir_ino)
		return;
	if (!pacer_fb_dir(f, r, now))
		pacer_fb_blind(f, r->name, -EBADF, now);
	else if (now >= f->next_read_ns)
		pacer_fb_read(f, r, now);
	uint64_t granted = s->granted_bytes - f->granted0;
	uint64_t drained = f->horizon_ns >= f->since_ns
				   ? pacer_hist_at(&f->hist, &f->cpu, -1, f->horizon_ns)
				   : 0;
	/* what was drained was granted first: more is a lie */
	if (drained > granted)
		drained = granted;
	uint64_t inflight = fb_inflight(f, granted, drained);
	/* the window in estimated bytes: what the trace holds per estimated
	 * byte (calibrate) */
	uint64_t window = f->ratio > 0 ? (uint64_t)((double)f->window / f->ratio) : f->window;
	uint64_t room = fb_room(f, granted, drained, window);
	/* a room smaller than a record grants nothing: a stall too */
	if (room < f->subbuf / 4 && now - f->horizon_seen_ns > STALL_NS) {
		room = f->subbuf / 4;
		f->horizon_seen_ns = now;
	}
	/* the buffers of other sessions enabling ros2_caret events are
	 * not ours to see: the byte budget caps the rate for them */
	uint64_t budget = (uint64_t)((double)s->cfg.bandwidth * dt);
	if (others && room > budget)
		room = budget;
	s->room = room;
	s->room_known = true;
	log_debug("pacing %s: granted %llu emitted %llu drained %llu in flight %llu room %llu, "
		  "newest packet %.1f ms old, %.3f trace bytes per estimated byte", r->name,
		  (unsigned long long)granted, (unsigned long long)f->emitted, (unsigned long long)drained,
		  (unsigned long long)inflight, (unsigned long long)room,
		  f->horizon_ns >= 0 ? (double)(now - f->horizon_ns) / 1e6 : -1.0, f->ratio);
}

void pacer_effective_cfg(const struct lttng_view *v, const struct sched_cfg *defaults,
			 struct sched_cfg *out)
{
	*out = *defaults;
	/* Replay passes are for the newest session enabling ros2_caret
	 * events: its options, if it is a recording that chose some. */
	int newest = -1;
	for (int i = 0; i < v->n_active; i++)
		if ((v->sess[i].rules & CARET_LTTNG_RULE_CARET) &&
		    (newest < 0 || v->sess[i].serial > v->sess[newest].serial))
			newest = i;
	const struct lttng_view_pub *best = newest >= 0 ? lttng_view_pub(v, newest) : NULL;
	if (!best)
		return;
	if (best->pacing >= 0)
		out->pacing = (enum pacing)best->pacing;
	if (best->frequency)
		out->frequency = best->frequency;
}

/* The period of a busy tick after this tick's grants, which took cost_ns
 * of caretd's CPU. The grants spent the room, and the consumer drained
 * more within the last busy period: what it drains next waits for the
 * next tick to be granted again. With 64 KiB x 4 sub-buffers (a window
 * of 192 KiB per CPU) the 1 ms tick, 1.2-1.3 ms apart with its work, held
 * the replay to ~80 MB/s of trace against a drain of 430-760 MB/s (bench
 * P7 (b)). Between two index reads the room still opens as grants are
 * written on their CPUs (fb_room). A consumer that drained nothing lately
 * (a slow one) gains nothing from looking sooner, nor does a room left
 * over. */
static uint64_t busy_tick_usec(const struct sched *s, const struct pacer_fb *f, bool last_turns,
			       int64_t now, int64_t cost_ns)
{
	if (last_turns)
		return TICK_LAST_USEC;
	if (!s->room_known || s->budget_left >= SCHED_MIN_GRANT ||
	    now - f->horizon_seen_ns > (int64_t)TICK_BUSY_USEC * 1000)
		return TICK_BUSY_USEC;
	uint64_t duty = cost_ns > 0 ? (uint64_t)cost_ns * TICK_DUTY / 1000 : 0;
	return duty >= TICK_BUSY_USEC ? TICK_BUSY_USEC
	       : duty > TICK_WINDOW_USEC ? duty : TICK_WINDOW_USEC;
}

/* This thread's CPU time, for the tick's own cost. */
static int64_t tick_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t on_tick(void *arg)
{
	struct pacer *p = arg;
	int64_t now = caret_now_ns(), cpu0 = tick_cpu_ns();
	struct sched_lttng l;
	/* An unreachable session daemon has no active session (its sessions
	 * died with it): agents End and return to WAIT. */
	pacer_sched_lttng(p->lttng, now, &l);
	for (int c = 0; c < p->fb.cpu.n; c++)
		p->fb.cpu.tick[c] = p->fb.cpu.home[c] = 0;
	uint64_t skipped;
	uint64_t emitted = count_duplicates(p->reg, p->lttng, &p->fb.cpu, &skipped);
	pacer_effective_cfg(p->lttng, p->defaults, &p->sched->cfg);
	double dt = p->sched->last_tick_ns ? (double)(now - p->sched->last_tick_ns) / 1e9 : 0.01;
	feedback(p, emitted, skipped, now, dt > 0.5 ? 0.5 : dt);
	sched_tick(p->sched, p->reg, &l, now);
	if (sched_busy(p->reg)) {
		bool last = sched_last_turns(p->reg);
		int64_t cpu1 = tick_cpu_ns();
		return busy_tick_usec(p->sched, &p->fb, last, now,
				      cpu0 >= 0 && cpu1 >= cpu0 ? cpu1 - cpu0 : 0);
	}
	return l.any || p->fb.on ? TICK_IDLE_USEC : TICK_QUIET_USEC;
}

void pacer_kick(void *arg)
{
	struct pacer *p = arg;
	loop_job_soon(&p->tick, 0);
}

int pacer_start(struct pacer *p, struct loop *loop, const struct pacer_ops *ops)
{
	struct sched *s = ops->sched;
	p->defaults = ops->defaults;
	p->sched = s;
	p->reg = ops->reg;
	p->lttng = ops->lttng;
	p->tick = LOOP_JOB("pacer", LOOP_SCHEDULE, on_tick, p);
	pacer_cpus_alloc(&p->fb.cpu, sysconf(_SC_NPROCESSORS_CONF));
	s->hint = pacer_kick;
	s->hint_arg = p;
	s->pass_filter = ops->pass_filter;
	s->pass_filter_arg = ops->pass_filter_arg;
	s->completed = ops->completed;
	s->completed_arg = ops->completed_arg;
	return loop_add(loop, &p->tick);
}

void pacer_stop(struct pacer *p)
{
	pacer_fb_close(&p->fb);
	pacer_cpus_free(&p->fb.cpu);
	loop_remove(&p->tick);
}
