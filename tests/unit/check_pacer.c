/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/agents/pacer.c's reaction to the tracer's discards (issue 31, item 6):
 * the pacer fed index reads (written as lttng-tools writes them, read by
 * daemon/lttng/lttng_drain.c as the pacer reads them) whose discarded-event
 * count rises must halve its replay window at every rise, down to half a
 * sub-buffer, and leave it alone when the count stays or falls. The
 * pacer's state functions are static: pacer.c and pacer_fb.c are included
 * here, their collaborators linked as caretd links them.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/agents/pacer.c"
#include "daemon/agents/pacer_fb.c"
#include "tests/unit/index_fixture.h"
#include "tests/unit/unit.h"

static char dir[64];

/* <dir>/ust/uid/0/64-bit/index/caret_<cpu>.idx (CTF index 1.1): npackets
 * packets of 64 KiB ending every µs from ts0, the last carrying the
 * stream's discarded count d (a stream's total since the session began). */
static void stream(int cpu, int npackets, uint64_t ts0, uint64_t d)
{
	char p[256];
	snprintf(p, sizeof(p), "mkdir -p %s/ust/uid/0/64-bit/index", dir);
	ck_assert_int_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_%d.idx", dir, cpu);
	index_file(p, 0xC1F1DCC1, npackets, ts0, d, 0);
}

/* One read of the index as the pacer makes it, fed to the pacer. */
static void read_and_feed(struct pacer_fb *f, int64_t now)
{
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read(dir, CARET_CTL_DEFAULT_CHANNEL, &d), 0);
	ck_assert_int_ge(d.streams, 1);
	fb_seen(f, "s", &d, now);
}

/* A target as feedback() sets one up: 4 sub-buffers of 64 KiB, a window
 * of three. */
static void target(struct pacer_fb *f)
{
	*f = (struct pacer_fb){ .on = true, .serial = 1, .subbuf = 65536 };
	snprintf(f->session, sizeof(f->session), "s");
	f->window = f->subbuf * 3;
	fb_base(f, &(struct sched){ 0 }, 1);
	f->emitted = 4096; /* replaying: a discard is said */
}

START_TEST(discards_halve_the_window)
{
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-pacer-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	struct pacer_fb f;
	target(&f);
	const uint64_t w0 = f.window;

	/* the first read's count is the base, whatever it is (earlier chunks'
	 * discards, before this pacing): the window stays */
	stream(0, 3, 5000000, 12);
	stream(1, 2, 5000000, 0);
	read_and_feed(&f, 10);
	ck_assert_uint_eq(f.discarded, 12);
	ck_assert_msg(f.window == w0, "the base read changed the window: %llu, not %llu",
		      (unsigned long long)f.window, (unsigned long long)w0);
	/* the same count again: nothing new was discarded */
	read_and_feed(&f, 20);
	ck_assert_msg(f.window == w0, "an unchanged discard count changed the window: %llu",
		      (unsigned long long)f.window);

	/* a rise (on another stream): the window halves */
	stream(1, 3, 5000000, 3);
	read_and_feed(&f, 30);
	ck_assert_uint_eq(f.discarded, 15);
	ck_assert_msg(f.window == w0 / 2,
		      "the pacer ignored the tracer's discards: window %llu after 3 discarded, "
		      "not %llu", (unsigned long long)f.window, (unsigned long long)(w0 / 2));
	/* a second rise halves it again; once per read, however many */
	stream(0, 4, 5000000, 1012);
	read_and_feed(&f, 40);
	ck_assert_msg(f.window == w0 / 4, "second rise: window %llu, not %llu",
		      (unsigned long long)f.window, (unsigned long long)(w0 / 4));
	/* never below half a sub-buffer */
	for (int i = 0; i < 6; i++) {
		stream(0, 4, 5000000, 2000 + (uint64_t)i);
		read_and_feed(&f, 50 + i);
	}
	ck_assert_msg(f.window == f.subbuf / 2, "window %llu, not half a sub-buffer",
		      (unsigned long long)f.window);

	/* a fall (a stream gone) is the new base, not a rise */
	target(&f);
	f.disc_base = true;
	f.discarded = 5000;
	read_and_feed(&f, 60);
	ck_assert_uint_eq(f.discarded, 3 + 2005);
	ck_assert_uint_eq(f.window, w0);
	stream(1, 4, 5000000, 4);
	read_and_feed(&f, 70);
	ck_assert_uint_eq(f.window, w0 / 2);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The per-CPU accounting of a tick's new records (issue 34): each slot's
 * growth is its CPU's, at most what `replayed` grew by; the rest (an older
 * agent's, a CPU beyond the slots) may be on any CPU. */
START_TEST(split_counts_per_cpu)
{
	uint64_t dc[3] = { 3, 4, 0 };
	ck_assert_uint_eq(pacer_cpus_split(10, dc, 3), 3);
	ck_assert_uint_eq(dc[0], 3);
	ck_assert_uint_eq(dc[1], 4);
	/* slots ahead of `replayed` (the next advance, or a lie): never more
	 * than it grew by */
	uint64_t ahead[2] = { 8, 5 };
	ck_assert_uint_eq(pacer_cpus_split(10, ahead, 2), 0);
	ck_assert_uint_eq(ahead[0], 8);
	ck_assert_uint_eq(ahead[1], 2);
	/* an older agent: no slot grows, all of it on any CPU */
	uint64_t none[2] = { 0, 0 };
	ck_assert_uint_eq(pacer_cpus_split(7, none, 2), 7);
}
END_TEST

/* A pacing target of 2 CPUs, 4 sub-buffers of 64 KiB (a window of three),
 * its base at t = 1. */
static void target_cpus(struct pacer_fb *f)
{
	*f = (struct pacer_fb){ .on = true, .serial = 1, .subbuf = 65536 };
	pacer_cpus_alloc(&f->cpu, 2);
	ck_assert_int_eq(f->cpu.n, 2);
	snprintf(f->session, sizeof(f->session), "s");
	f->window = f->subbuf * 3;
	fb_base(f, &(struct sched){ 0 }, 1);
}

/* A tick's emission: b[c] estimated bytes replayed on CPU c, sampled at t. */
static void emit(struct pacer_fb *f, int64_t t, uint64_t b0, uint64_t b1)
{
	f->cpu.tick[0] = b0;
	f->cpu.tick[1] = b1;
	f->emitted += b0 + b1;
	for (int c = 0; c < 2; c++)
		f->cpu.now[c] += f->cpu.tick[c];
	fb_sample(f, t);
}

/* The pacer's per-CPU decision (issue 34): each CPU's ring is held to its
 * own window, so the bytes in flight that bound the room are the fullest
 * CPU's (plus what is granted and not yet emitted, which may land on any),
 * not the sum over the CPUs, which would keep the replay to one ring's
 * worth for the whole machine. */
START_TEST(per_cpu_windows)
{
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-pacer-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	struct pacer_fb f;
	target_cpus(&f);
	const uint64_t w = f.window, sixth = w / 6;
	/* 0.6 of a window on each CPU, all emitted, nothing drained yet */
	emit(&f, 1000, 0, 0);
	emit(&f, 2000, 3 * sixth + sixth / 2, 3 * sixth + sixth / 2);
	uint64_t in = fb_inflight(&f, f.emitted, 0);
	ck_assert_msg(in == 3 * sixth + sixth / 2,
		      "in flight %llu: the CPUs' sum (%llu), not the fullest CPU's (%llu)",
		      (unsigned long long)in, (unsigned long long)f.emitted,
		      (unsigned long long)(3 * sixth + sixth / 2));
	/* granted but not emitted yet may land on either CPU: on each */
	ck_assert_uint_eq(fb_inflight(&f, f.emitted + 100, 0), in + 100);

	/* CPU 0 gets one sixth more; the consumer's packets show CPU 0's
	 * ring drained to t = 2000 (its first 0.6 window), CPU 1's not at
	 * all (its last packet is from before the pass) */
	emit(&f, 3000, sixth, 0);
	stream(0, 3, 0, 0); /* packets ending at 0, 1000, 2000 */
	stream(1, 1, 0, 0); /* one packet, ending at 0 */
	read_and_feed(&f, 3000);
	ck_assert_int_eq(f.cpu.h[0], 2000);
	ck_assert_int_eq(f.cpu.h[1], -1);
	in = fb_inflight(&f, f.emitted, 0);
	ck_assert_msg(in == 3 * sixth + sixth / 2,
		      "in flight %llu, not CPU 1's %llu (CPU 0 holds %llu)", (unsigned long long)in,
		      (unsigned long long)(3 * sixth + sixth / 2), (unsigned long long)sixth);
	/* no packet for longer than the quiet time: a CPU holding less than a
	 * sub-buffer past its last packet holds a partly filled one at most,
	 * drained as far as the newest packet; CPU 1 holds 1.8 sub-buffers:
	 * whole ones the consumer has not taken (a slow consumer), not
	 * counted drained */
	f.newest_seen_ns = 3000 - QUIET_NS - 1;
	read_and_feed(&f, 3000);
	ck_assert_int_eq(f.cpu.h[0], 2000);
	ck_assert_msg(f.cpu.h[1] == -1, "CPU 1's whole sub-buffers counted drained by the quiet "
		      "rule (horizon %lld)", (long long)f.cpu.h[1]);
	/* an older agent's records (no slot): on every CPU */
	emit(&f, 4000, 0, 0);
	f.cpu.now[0] += 50;
	f.cpu.now[1] += 50;
	f.emitted += 50;
	fb_sample(&f, 4000);
	ck_assert_uint_eq(fb_inflight(&f, f.emitted, 0), in + 50);
	/* without per-CPU counts: one window for all, as before */
	pacer_cpus_free(&f.cpu);
	ck_assert_uint_eq(fb_inflight(&f, 1000, 400), 600);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The room of a tick with each grant counted where its agent's thread
 * writes (issue 34, item 1): the tightest CPU's own room, its bytes in
 * flight and the grants homed on it counted, less what may land anywhere.
 * Two CPUs, each with half a window written and not drained and three
 * tenths granted to its own threads: a fifth of a window is left on each,
 * where one window for all (the pending counted on every CPU) left none:
 * with threads on both CPUs, more than a window is in flight at once. */
START_TEST(room_counts_grants_on_their_cpu)
{
	const uint64_t w = 1000000;
	uint64_t in[2] = { w / 2, w / 2 }, home[2] = { 3 * w / 10, 3 * w / 10 };
	uint64_t room = pacer_cpus_room(in, home, 2, 0, w);
	ck_assert_msg(room == w / 5, "room %llu, not %llu: a grant counted on every CPU "
		      "(one window per tick for the machine)", (unsigned long long)room,
		      (unsigned long long)(w / 5));
	/* in flight on the two CPUs together: more than one window */
	ck_assert_uint_gt(in[0] + in[1] + home[0] + home[1] + room, w);
	/* what no CPU is known for (an agent not seen writing yet) counts on
	 * each */
	ck_assert_uint_eq(pacer_cpus_room(in, home, 2, w / 10, w), w / 10);
	ck_assert_uint_eq(pacer_cpus_room(in, home, 2, w, w), 0);
}
END_TEST

/* Never a grant that overfills one CPU's ring: the room is bounded by the
 * fullest CPU (its bytes in flight and its homed grants), whatever room
 * the others have; the new grant itself may land on any CPU. */
START_TEST(room_never_overfills_a_cpu)
{
	const uint64_t w = 1000000;
	uint64_t in[3] = { 9 * w / 10, w / 10, 0 }, home[3] = { w / 20, 4 * w / 10, 0 };
	uint64_t room = pacer_cpus_room(in, home, 3, 0, w);
	ck_assert_msg(room == w / 20, "room %llu: CPU 0 holds %llu of its %llu window",
		      (unsigned long long)room, (unsigned long long)(in[0] + home[0]),
		      (unsigned long long)w);
	for (int c = 0; c < 3; c++)
		ck_assert_uint_le(in[c] + home[c] + room, w);
	/* a CPU over its window (a lie, or a thread moved): nothing */
	in[1] = w;
	ck_assert_uint_eq(pacer_cpus_room(in, home, 3, 0, w), 0);
}
END_TEST

/* The pacer's room end to end (fb_room): the grants the agents' segments
 * place on a CPU (cpu.home) are not counted on the other, what the pass
 * filters kept out counts nowhere. */
START_TEST(fb_room_places_pending)
{
	struct pacer_fb f;
	target_cpus(&f);
	const uint64_t w = f.window, tenth = w / 10;
	emit(&f, 1000, 0, 0);
	emit(&f, 2000, 4 * tenth, 4 * tenth); /* nothing drained yet */
	/* 4 tenths more granted, 2 on each CPU's threads */
	uint64_t granted = f.emitted + 4 * tenth;
	f.cpu.home[0] = f.cpu.home[1] = 2 * tenth;
	uint64_t room = fb_room(&f, granted, 0, w);
	ck_assert_msg(room == w - 6 * tenth, "room %llu, not %llu", (unsigned long long)room,
		      (unsigned long long)(w - 6 * tenth));
	/* nothing placed: all pending on each CPU, as one window for all */
	f.cpu.home[0] = f.cpu.home[1] = 0;
	ck_assert_uint_eq(fb_room(&f, granted, 0, w), w - 8 * tenth);
	/* the agents place more than is pending (read later): scaled to it */
	f.cpu.home[0] = 8 * tenth;
	f.cpu.home[1] = 0;
	ck_assert_uint_eq(fb_room(&f, granted, 0, w), w - 8 * tenth);
	/* granted records the pass filter kept out wrote nothing */
	f.cpu.home[0] = 0;
	f.skipped = 4 * tenth;
	ck_assert_uint_eq(fb_room(&f, granted, 0, w), w - 4 * tenth);
	pacer_cpus_free(&f.cpu);
}
END_TEST

/* An agent's counts as the pacer takes them (pacer_cpus_count): records
 * its slots place go to their CPU, filtered ones (CARET_SHM_SKIPPED_OFFSET)
 * to none, the rest to every CPU; its pending grant to the CPU whose slot
 * grew most. */
START_TEST(count_places_records)
{
	struct pacer_cpus c;
	pacer_cpus_alloc(&c, 2);
	pacer_cpus_margin(&c, 4096); /* a quarter: 1 KiB of a grant placed */
	struct agent a = { .pid = 1 };
	ck_assert_int_eq(caret_seg_create(&a.seg, 1 << 16, "unit", "jazzy"), 0);
	uint64_t sk;
	/* first seen: its base, nothing counted */
	caret_own_count_cpu(&a.seg, 0, 5);
	ck_assert_uint_eq(pacer_cpus_count(&c, &a, 5, 10, 0, &sk), 0);
	ck_assert_uint_eq(c.tick[0] + c.tick[1], 0);
	/* 10 records: 6 on CPU 1, 3 filtered, 1 unplaced */
	caret_own_count_cpu(&a.seg, 1, 6);
	caret_own_count_skipped(&a.seg, 3);
	uint64_t written = pacer_cpus_count(&c, &a, 10, 10, 5000, &sk);
	ck_assert_uint_eq(written, 70);
	ck_assert_msg(sk == 30, "filtered bytes %llu, not 30", (unsigned long long)sk);
	ck_assert_msg(c.tick[0] == 10 && c.tick[1] == 70,
		      "CPU 0 %llu (not 10), CPU 1 %llu (not 70): a filtered record counted on a "
		      "CPU", (unsigned long long)c.tick[0], (unsigned long long)c.tick[1]);
	ck_assert_msg(c.home[1] == 1024, "%llu of a 5000-byte grant placed on its CPU, not a "
		      "quarter sub-buffer", (unsigned long long)c.home[1]);
	ck_assert_uint_eq(c.home[0], 0);
	agent_state_free(&a);
	char name[CARET_SHM_NAME_MAX];
	snprintf(name, sizeof(name), "%s", a.seg.name);
	caret_seg_close(&a.seg);
	caret_seg_unlink(name);
	pacer_cpus_free(&c);
}
END_TEST

/* What the pacer learned of the trace's bytes per estimated byte stays
 * across the passes of one recording (issue 34, item 3): a rotation's next
 * chunk replays the same caches into the same channel, and starting again
 * from 1 narrowed its window until the new chunk's packets said it again
 * (bench P11). A pass begins (fb_base), and a rotation is seen mid-pass
 * (a read of another chunk): the ratio stays, calibration stops. */
START_TEST(ratio_kept_across_chunks)
{
	struct pacer_fb f;
	target(&f);
	f.ratio = 0.8;
	fb_base(&f, &(struct sched){ 0 }, 100);
	ck_assert_msg(f.ratio == 0.8, "a new pass forgot the ratio: %.3f", f.ratio);
	ck_assert_int_eq(f.calib, 0);
	f.calib = 1;
	f.chunk0 = 3;
	struct lttng_drain d = { .chunk = 4, .horizon_ns = -1 };
	calibrate(&f, &d);
	ck_assert_int_eq(f.calib, -1);
	ck_assert_msg(f.ratio == 0.8, "a new chunk forgot the ratio: %.3f", f.ratio);
}
END_TEST

/* A pacer in a loop over one agent of 10 records, under one settled
 * session enabling ros2_caret events, with frequency pacing that grants
 * a whole pass at once; beside it a report job standing for the server's
 * waits (due every 10 ms while a client waits, brought forward by the
 * pacer's `completed`). */
struct ploop {
	struct agent a;
	struct registry r;
	struct lttng_view v;
	struct sched_cfg freq;
	struct sched s;
	struct pacer p;
	sd_event *ev;
	struct loop l;
	struct loop_job waits;
	int waits_ran;
	uint64_t t;
	uint32_t epoch;
};

static uint64_t waits_run(void *arg)
{
	((struct ploop *)arg)->waits_ran++;
	return 10 * USEC_PER_MS;
}

static void waits_now(void *arg)
{
	loop_job_soon(&((struct ploop *)arg)->waits, 0);
}

/* Up to the tick that begins the pass; the agent's tracepoints on. */
static void ploop_open(struct ploop *x)
{
	char pfx[48];
	snprintf(pfx, sizeof(pfx), "caret-ut-pdone-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", pfx, 1);
	x->a = (struct agent){ .pid = getpid() };
	ck_assert_int_eq(caret_seg_create(&x->a.seg, 1 << 16, "unit", "jazzy"), 0);
	const char *sig = caret_kind_sig(1);
	union caret_arg args[CARET_MAX_FIELDS];
	for (unsigned i = 0; sig[i]; i++) {
		if (sig[i] == 's')
			args[i].s = "/node";
		else
			args[i].u = i;
	}
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(caret_seg_append(&x->a.seg, 1, i, args), 0);
	caret_own_set_state(&x->a.seg, CARET_STATE_WAIT);
	x->r = (struct registry){ .head = &x->a, .count = 1 };
	x->v.n_active = 1;
	x->v.sess[0] = (struct lttng_view_session){ .rules = CARET_LTTNG_RULE_CARET, .serial = 1 };
	x->freq = (struct sched_cfg){ .pacing = PACING_FREQUENCY, .frequency = 1000000000 };
	ck_assert_int_ge(sd_event_new(&x->ev), 0);
	ck_assert_int_ge(loop_open(&x->l, x->ev), 0);
	const struct pacer_ops ops = { .sched = &x->s, .reg = &x->r, .lttng = &x->v,
				       .defaults = &x->freq, .completed = waits_now,
				       .completed_arg = x };
	ck_assert_int_eq(pacer_start(&x->p, &x->l, &ops), 0);
	x->waits = LOOP_JOB("waits", LOOP_REPORT, waits_run, x);
	ck_assert_int_eq(loop_add(&x->l, &x->waits), 0);

	x->t = loop_now(&x->l);
	loop_tick(&x->l, x->t); /* the Start: a pass begins */
	ck_assert_uint_eq(caret_seg_state(&x->a.seg), CARET_STATE_PREPARE);
	ck_assert_int_eq(x->waits_ran, 1); /* a client waits from here on */
	struct caret_seg_status st;
	caret_seg_read_status(&x->a.seg, &st);
	x->epoch = CARET_EPOCH_OF(st.grant);
	caret_own_set_flags(&x->a.seg, CARET_AGENT_REPLAY_THREAD, 0);
	caret_own_begin_pass(&x->a.seg, x->epoch);
	caret_own_tp_enabled(&x->a.seg, x->epoch);
}

static void ploop_close(struct ploop *x)
{
	pacer_stop(&x->p);
	loop_remove(&x->waits);
	loop_close(&x->l);
	sd_event_unref(x->ev);
	agent_state_free(&x->a);
	char name[CARET_SHM_NAME_MAX];
	snprintf(name, sizeof(name), "%s", x->a.seg.name);
	caret_seg_close(&x->a.seg);
	caret_seg_unlink(name);
}

/* A pass done is heard of in the tick that saw it (issue 34, bench P6):
 * the pacer tells its `completed` collaborator (caretd's: the server's
 * waits), whose job then runs in the same tick's report stage. A waiting
 * client was told at the waits' own 10 ms poll before: a 6 ms replay at
 * N = 25 measured 10 ms. */
START_TEST(pass_done_reported_in_its_tick)
{
	static struct ploop x;
	memset(&x, 0, sizeof(x));
	ploop_open(&x);
	loop_tick(&x.l, x.t += 2 * USEC_PER_MS); /* the grant */
	struct caret_seg_status st;
	caret_seg_read_status(&x.a.seg, &st);
	ck_assert_uint_eq(CARET_COUNT_OF(st.grant), 10);
	caret_own_advance(&x.a.seg, x.epoch, 10, 10); /* the agent's whole pass */
	loop_tick(&x.l, x.t += 2 * USEC_PER_MS);
	ck_assert_uint_eq(caret_seg_state(&x.a.seg), CARET_STATE_RECORD);
	ck_assert_msg(x.waits_ran == 2, "the pass done was not reported in the tick that saw "
		      "it: the waits ran %d times, not 2 (their next poll is %llu us away)",
		      x.waits_ran, (unsigned long long)(loop_job_due(&x.waits) - x.t));
	ploop_close(&x);
}
END_TEST

/* Once every replaying agent has its whole pass granted, the pacer only
 * waits to see the passes done: it looks every TICK_LAST_USEC, not every
 * ms (half a period of every requester's wait on average). While grants
 * remain (tracepoints not on yet: none made), the 1 ms tick. */
START_TEST(last_turns_tick_faster)
{
	static struct ploop x;
	memset(&x, 0, sizeof(x));
	ploop_open(&x);
	ck_assert_uint_eq(loop_job_due(&x.p.tick) - x.t, TICK_BUSY_USEC);
	loop_tick(&x.l, x.t += 2 * USEC_PER_MS); /* the whole pass granted */
	ck_assert_msg(loop_job_due(&x.p.tick) - x.t == TICK_LAST_USEC,
		      "with every pass granted whole the pacer looks again in %llu us, not %d",
		      (unsigned long long)(loop_job_due(&x.p.tick) - x.t), TICK_LAST_USEC);
	caret_own_advance(&x.a.seg, x.epoch, 4, 4); /* walking: still the short tick */
	loop_tick(&x.l, x.t += TICK_LAST_USEC);
	ck_assert_uint_eq(loop_job_due(&x.p.tick) - x.t, TICK_LAST_USEC);
	caret_own_advance(&x.a.seg, x.epoch, 10, 6);
	loop_tick(&x.l, x.t += TICK_LAST_USEC); /* done: no replay, a session active */
	ck_assert_uint_eq(loop_job_due(&x.p.tick) - x.t, TICK_IDLE_USEC);
	ploop_close(&x);
}
END_TEST

/* While the window holds the replays back, the pacer looks again every
 * TICK_WINDOW_USEC, or TICK_DUTY times the tick's own CPU time (bench P7
 * (b): with a window of 192 KiB per CPU the 1 ms tick held the replay to
 * ~80 MB/s against a drain of 430-760 MB/s); not when the consumer drained
 * nothing lately (a slow one) or the room was not spent. */
START_TEST(window_bound_tick_faster)
{
	const int64_t now = 5000000000;
	struct pacer_fb f = { .horizon_seen_ns = now - 400000 };
	struct sched s = { .room_known = true, .room = 200000, .budget_left = 1000 };
	ck_assert_msg(busy_tick_usec(&s, &f, false, now, 10000) == TICK_WINDOW_USEC,
		      "a tick that spent its room, the consumer draining, looks again in %llu us, "
		      "not %d", (unsigned long long)busy_tick_usec(&s, &f, false, now, 10000),
		      TICK_WINDOW_USEC);
	s.room = 0; /* spent by the tick before; a read may open it */
	ck_assert_uint_eq(busy_tick_usec(&s, &f, false, now, 10000), TICK_WINDOW_USEC);
	ck_assert_uint_eq(busy_tick_usec(&s, &f, true, now, 10000), TICK_LAST_USEC);
	/* a tick that cost more: at most 1 / TICK_DUTY of a CPU (its walks
	 * of every agent grow with N), never slower than the busy tick */
	ck_assert_msg(busy_tick_usec(&s, &f, false, now, 100000) == 100 * TICK_DUTY,
		      "a tick of 100 us of CPU comes again after %llu us, not %d",
		      (unsigned long long)busy_tick_usec(&s, &f, false, now, 100000),
		      100 * TICK_DUTY);
	ck_assert_uint_eq(busy_tick_usec(&s, &f, false, now, 1000000), TICK_BUSY_USEC);
	ck_assert_uint_eq(busy_tick_usec(&s, &f, false, now, 0), TICK_WINDOW_USEC);
	/* a slow consumer: nothing drained for over a busy period */
	f.horizon_seen_ns = now - (int64_t)TICK_BUSY_USEC * 1000 - 1;
	ck_assert_msg(busy_tick_usec(&s, &f, false, now, 10000) == TICK_BUSY_USEC,
		      "with nothing drained for %lld ns the pacer looks again in %llu us",
		      (long long)(now - f.horizon_seen_ns),
		      (unsigned long long)busy_tick_usec(&s, &f, false, now, 10000));
	f.horizon_seen_ns = now;
	/* the replays wanted less than the room */
	s.room = 200000;
	s.budget_left = SCHED_MIN_GRANT;
	ck_assert_uint_eq(busy_tick_usec(&s, &f, false, now, 10000), TICK_BUSY_USEC);
	/* no room measured: the byte budget paces, once a ms */
	s.budget_left = 0;
	s.room_known = false;
	ck_assert_uint_eq(busy_tick_usec(&s, &f, false, now, 10000), TICK_BUSY_USEC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pacer");
	unit_case(s, "discards", discards_halve_the_window);
	unit_case(s, "split", split_counts_per_cpu);
	unit_case(s, "per-cpu", per_cpu_windows);
	unit_case(s, "room-home", room_counts_grants_on_their_cpu);
	unit_case(s, "room-overfill", room_never_overfills_a_cpu);
	unit_case(s, "fb-room", fb_room_places_pending);
	unit_case(s, "count", count_places_records);
	unit_case(s, "ratio", ratio_kept_across_chunks);
	unit_case(s, "pass-done", pass_done_reported_in_its_tick);
	unit_case(s, "last-turns", last_turns_tick_faster);
	unit_case(s, "window-bound", window_bound_tick_faster);
	return unit_run(s);
}
