/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/lttng_drain: what the feedback pacing derives from the consumer's
 * packet index, on index files laid out as lttng-tools writes them: each
 * stream's horizon and each CPU's, the discard ratio, a read's cost. The
 * index itself: check_drain.c.
 */
#include <check.h>
#include <errno.h>
#include <time.h>
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng/lttng_drain.h"
#include "tests/unit/drain_fixture.h"
#include "tests/unit/unit.h"

/* The 16 CPUs of the tests below, one index each in ix, 2 packets a CPU
 * (`written` on the written ones) 1 us apart. Last packet ends: idle CPUs
 * before the base (1 ms + cpu ns); written CPUs 3 (50 ms), 7 (48 ms), 9
 * (40 ms); CPU 12 written after the base, silent since 15 ms (its writers
 * moved). */
static void index_16_cpus(const char *ix, int written)
{
	const int64_t ms = 1000000;
	for (int cpu = 0; cpu < 16; cpu++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/caret_%d.idx", ix, cpu);
		int64_t end = cpu == 3 ? 50 * ms : cpu == 7 ? 48 * ms : cpu == 9 ? 40 * ms
			      : cpu == 12 ? 15 * ms : 1 * ms + cpu;
		int np = cpu == 3 || cpu == 7 || cpu == 9 ? written : 2;
		index_file(p, 0xC1F1DCC1, np, (uint64_t)end - (uint64_t)(np - 1) * 1000, 0, 0);
	}
}

/* A 16-CPU machine: the replay writes on a few CPUs, the consumer has
 * drained them to different points, most CPUs are idle. The drain point
 * is the slowest written buffer, not the newest packet of any CPU: what a
 * writer put in CPU 9's buffer after 40 ms is still there, however far
 * the consumer got on CPU 3. */
START_TEST(horizon_per_stream_16_cpus)
{
	new_dir("16");
	const char *ix = index_dir(dir, 0);
	const int64_t ms = 1000000, base = 10 * ms;
	index_16_cpus(ix, 4);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 16);
	ck_assert_int_eq(d.horizon_ns, 50 * ms); /* the newest of any CPU */
	/* per stream: the slowest written one, CPU 12, while it may still be
	 * written (35 ms behind the newest, within 200 ms) */
	ck_assert_int_eq(lttng_drain_horizon(&d, base, 200 * ms), 15 * ms);
	/* silent 35 ms while others produced packets: no longer written,
	 * CPU 9 is the slowest */
	ck_assert_int_eq(lttng_drain_horizon(&d, base, 30 * ms), 40 * ms);
	/* with a base before every packet, idle CPUs count too: CPU 0 */
	ck_assert_int_eq(lttng_drain_horizon(&d, 0, 1000 * ms), 1 * ms);
	/* nothing after the base: not known */
	ck_assert_int_eq(lttng_drain_horizon(&d, 60 * ms, 200 * ms), -1);
	/* the newest stream alone after the base */
	ck_assert_int_eq(lttng_drain_horizon(&d, 49 * ms, 200 * ms), 50 * ms);
	/* The pacing's horizon: per stream while packets flow; once no stream
	 * produced one for the quiet time (the newest end unchanged), what
	 * the streams hold are partly filled sub-buffers (a full one is
	 * drained at once), which the window's margin covers: the newest.
	 * Per stream only, CPU 12's half packet held every replay back until
	 * the stall rule's trickle filled it (0.5 to 0.8 s at 48 processes). */
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, base, 200 * ms, 0, 50 * ms, -1), 15 * ms);
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, base, 200 * ms, 49 * ms, 50 * ms, -1),
			 15 * ms);
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, base, 200 * ms, 51 * ms, 50 * ms, -1),
			 50 * ms);
	/* quiet, but nothing after the base: still not known */
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, 60 * ms, 200 * ms, 500 * ms, 50 * ms, -1),
			 -1);
	/* Never back: once the quiet rule gave the newest end, a new packet
	 * on one stream (not quiet any more) leaves CPU 12's half packet
	 * covered by the margin, not counted in flight again */
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, base, 200 * ms, 0, 50 * ms, 50 * ms),
			 50 * ms);
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, base, 200 * ms, 0, 50 * ms, 20 * ms),
			 20 * ms);
	ck_assert_int_eq(lttng_drain_pacing_horizon(&d, 60 * ms, 200 * ms, 0, 50 * ms, 55 * ms),
			 55 * ms);
	remove_dirs("");
}
END_TEST

/* The per-CPU horizons of the per-CPU windows (issue 34), on the same 16
 * CPUs: each CPU's own last packet while it is written; a CPU silent for
 * the stale time while the pass's packets come elsewhere, and every CPU
 * once all are quiet, at the newest end; -1 where nothing of the pass is
 * drained; never back. The CPU is the index file's own (caret_<cpu>.idx). */
static bool all_but_12(void *arg, int cpu, int64_t h_ns)
{
	(void)arg;
	(void)h_ns;
	return cpu != 12;
}

START_TEST(horizons_per_cpu)
{
	new_dir("pc");
	const char *ix = index_dir(dir, 0);
	const int64_t ms = 1000000, base = 10 * ms;
	index_16_cpus(ix, 2);
	/* another uid's stream of CPU 3, behind: CPU 3 is drained to the slower */
	char p[256];
	snprintf(p, sizeof(p), "%s/caret_3.idx", index_dir(dir, 1000));
	index_file(p, 0xC1F1DCC1, 2, (uint64_t)(45 * ms) - 1000, 0, 0);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 17);
	int64_t none[16], h[16];
	for (int c = 0; c < 16; c++)
		none[c] = -1;
	lttng_drain_cpu_horizons(&d, base, 200 * ms, 0, 50 * ms, none, NULL, h, 16);
	ck_assert_int_eq(h[3], 45 * ms);
	ck_assert_int_eq(h[7], 48 * ms);
	ck_assert_int_eq(h[9], 40 * ms);
	ck_assert_int_eq(h[12], 15 * ms);
	ck_assert_int_eq(h[0], -1); /* idle since before the pass */
	/* CPU 12 silent 35 ms, the idle CPUs ~49 ms, while CPU 3 produced:
	 * no longer written, at most a partial sub-buffer each: the newest */
	lttng_drain_cpu_horizons(&d, base, 30 * ms, 0, 50 * ms, none, NULL, h, 16);
	ck_assert_int_eq(h[12], 50 * ms);
	ck_assert_int_eq(h[0], 50 * ms);
	ck_assert_int_eq(h[9], 40 * ms);
	/* quiet: every CPU at the newest end */
	lttng_drain_cpu_horizons(&d, base, 200 * ms, 51 * ms, 50 * ms, none, NULL, h, 16);
	for (int c = 0; c < 16; c++)
		ck_assert_int_eq(h[c], 50 * ms);
	/* nothing after the base: not known, quiet or not */
	lttng_drain_cpu_horizons(&d, 60 * ms, 200 * ms, 500 * ms, 50 * ms, none, NULL, h, 16);
	for (int c = 0; c < 16; c++)
		ck_assert_int_eq(h[c], -1);
	/* but only where the pacer's counts say a CPU holds at most a partly
	 * filled sub-buffer past its horizon: here CPU 12 holds more (a
	 * consumer too slow to drain it, not writers gone) */
	struct lttng_drain_partial part = { .fn = all_but_12 };
	lttng_drain_cpu_horizons(&d, base, 30 * ms, 0, 50 * ms, none, &part, h, 16);
	ck_assert_int_eq(h[12], 15 * ms);
	ck_assert_int_eq(h[0], 50 * ms);
	lttng_drain_cpu_horizons(&d, base, 200 * ms, 51 * ms, 50 * ms, none, &part, h, 16);
	ck_assert_int_eq(h[12], 15 * ms);
	ck_assert_int_eq(h[9], 50 * ms);
	/* never back */
	int64_t prev[16];
	for (int c = 0; c < 16; c++)
		prev[c] = 47 * ms;
	lttng_drain_cpu_horizons(&d, base, 200 * ms, 0, 50 * ms, prev, NULL, h, 16);
	ck_assert_int_eq(h[9], 47 * ms);
	ck_assert_int_eq(h[7], 48 * ms);
	remove_dirs("");
}
END_TEST

/* The pacer's calibration of its byte estimate (issue 24): the trace's
 * bytes per estimated byte, from the index, must never come out below the
 * truth, or the window would be wider than the ring. A replay emitted 4 MB
 * (estimated) by the horizon, 3.12 MB in the trace (0.78 per estimated
 * byte, as in bench P6). Stream 0 drained 5 packets of 512 KiB after the
 * base; stream 1's last packet is from before the horizon, so the rest,
 * 498,560 bytes, sits in its partly filled sub-buffer, not in any index;
 * stream 2 has no packet yet (it might hold one too). Counting only the
 * packets would say 0.655 and widen the window by half instead of 28 %. */
START_TEST(ratio_never_below_the_trace)
{
	const int64_t ms = 1000000;
	const uint64_t sb = 512 * 1024, bytes0 = 1000000;
	struct lttng_drain d = { .streams = 2, .files = 3, .horizon_ns = 30 * ms,
				 .bytes = bytes0 + 5 * sb, .ends = { 30 * ms, 8 * ms } };
	int64_t h = lttng_drain_horizon(&d, 10 * ms, 200 * ms); /* stream 1 ended before the base */
	ck_assert_int_eq(h, 30 * ms);
	double truth = 3120000.0 / 4000000.0;
	double r = lttng_drain_ratio(&d, bytes0, h, sb, 4000000);
	ck_assert_double_ge(r, truth);
	ck_assert_double_le(r, 1.0);                /* still worth it */
	ck_assert_double_lt(5.0 * sb / 4000000, truth); /* the packets alone: too low */
	/* every stream counted by the horizon: the packets say it all */
	struct lttng_drain all = { .streams = 2, .files = 2, .horizon_ns = 30 * ms,
				   .bytes = bytes0 + 6 * sb, .ends = { 30 * ms, 29 * ms } };
	h = lttng_drain_horizon(&all, 10 * ms, 200 * ms);
	ck_assert_int_eq(h, 29 * ms);
	ck_assert_double_eq_tol(lttng_drain_ratio(&all, bytes0, h, sb, 4000000), 6.0 * sb / 4e6,
				1e-9);
	/* nothing to tell from */
	ck_assert_double_lt(lttng_drain_ratio(&d, bytes0, h, sb, 0), 0);
	ck_assert_double_lt(lttng_drain_ratio(&d, d.bytes + 1, h, sb, 4000000), 0); /* fewer bytes */
	ck_assert_double_lt(lttng_drain_ratio(&d, bytes0, -1, sb, 4000000), 0);
	d.truncated = true; /* streams not seen may hold partial sub-buffers */
	ck_assert_double_lt(lttng_drain_ratio(&d, bytes0, h, sb, 4000000), 0);
}
END_TEST

/* The pacer's index reads wait 20 times what a read cost: its CPU time
 * when it only waited for a CPU (a loaded machine must not space the reads
 * out: the replay waits for the packets they see), its wall time when it
 * slept (a slow or hostile file system must not hold caretd's loop more
 * than a twentieth of the time). */
START_TEST(read_cost_cpu_unless_it_slept)
{
	ck_assert_int_eq(lttng_drain_read_cost(800000, 60000, 0), 60000); /* preempted */
	ck_assert_int_eq(lttng_drain_read_cost(900000000, 60000, 3), 900000000); /* slept */
	ck_assert_int_eq(lttng_drain_read_cost(900000000, 60000, -1), 900000000); /* unknown */
	ck_assert_int_eq(lttng_drain_read_cost(50000, 60000, 0), 50000); /* clocks' skew */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drain_horizon");
	unit_case(s, "horizon", horizon_per_stream_16_cpus, ratio_never_below_the_trace,
		  read_cost_cpu_unless_it_slept, horizons_per_cpu);
	return unit_run(s);
}
