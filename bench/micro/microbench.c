/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-microbench: the timing loops of bench/micro/micro.py (which owns
 * the LTTng sessions, the environment and the statistics). One mode per
 * run; results are JSON objects, one per line, on stdout; the rest goes to
 * stderr.
 *
 *   p1 --iters N --reps R [--chunk C] [--only 1|2]
 *      WAIT-state hook: ros_trace_callback_start(cb, false) through the
 *      first definition in the process (the agent when it is preloaded)
 *      versus the same function of libtracetools.so itself, each called
 *      through a function pointer from a loop of its own. --only runs one
 *      variant (diagnosis).
 *   p2 --iters N --reps R [--chunk C] [--drain-ms D] [--wait-ms W]
 *      RECORD-state hook versus a bare tracepoint caret_micro:callback_start
 *      with the same payload. Prints {"ready": pid} and waits for a line on
 *      stdin (the driver creates and starts its sessions meanwhile), then
 *      waits until both events are enabled in this process.
 *   p2count --count N --only 1|2
 *      exactly N calls inside record_loop(), for callgrind: --only 1 the
 *      agent's hook in RECORD (agent -> tracetools), --only 2 libtracetools'
 *      own function; no session, so the tracepoint is the disabled branch
 *      and the count is the agent's path, not lttng-ust's ring buffer write
 *      (the same for any caller: P2 times it).
 *   pw --iters N --reps R [--chunk C]
 *      `caretctl top`'s cost: a callback_start + callback_end pair through
 *      the agent (WAIT) while its segment is watched (A: counted) versus
 *      the same pair unwatched (B), the watched word set before each chunk.
 *   p3 --iters N --reps R
 *      caret_seg_append of one rcl_publisher_init record into a large
 *      segment (fresh pages and pre-faulted pages), caret_now_ns, and both.
 *   p3count --count N
 *      exactly N captures inside capture_loop(), for callgrind
 *      (--toggle-collect=capture_loop; subtract a run with N = 0).
 *
 * In p1 and p2 every rep runs N calls of variant A and N of variant B,
 * interleaved in chunks of C calls (A B, B A, ...), so a change of the
 * machine's speed hits both; each rep prints the median ns per call over
 * its chunks (a, b), the median of the chunk pairs' ratios (ratio), the
 * means over the rep (amean, bmean) and the fastest chunks (amin, bmin).
 *
 * Here: the options and the dispatch. The runtime hooks' modes are in
 * micro_hooks.c, the capture's in micro_capture.c, the A/B interleaving in
 * micro_alt.c, the hooks and the agent's segment found in micro_rt.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/micro/micro.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: caret-microbench p1|p2|pw|p3 [--iters N] [--reps R] [--chunk C] "
		"[--drain-ms D] [--wait-ms W]\n"
		"       caret-microbench p1 --only 1|2 ...   (only variant A or B)\n"
		"       caret-microbench p2count --count N --only 1|2\n"
		"       caret-microbench p3count --count N\n"
		"The timing loops of bench/micro/micro.py; run that instead.\n");
}

static bool num_arg(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	struct opts o = { .iters = 2000000, .reps = 7, .count = 0,
			  .drain_ms = 100, .wait_ms = 10000 };
	if (argc < 2) {
		usage();
		return 2;
	}
	const char *mode = argv[1];
	for (int i = 2; i < argc; i++) {
		uint64_t v;
		if (i + 1 >= argc || !num_arg(argv[i + 1], &v)) {
			usage();
			return 2;
		}
		if (strcmp(argv[i], "--iters") == 0 && v > 0)
			o.iters = v;
		else if (strcmp(argv[i], "--reps") == 0 && v > 0)
			o.reps = v;
		else if (strcmp(argv[i], "--count") == 0)
			o.count = v;
		else if (strcmp(argv[i], "--only") == 0 && v <= 2)
			o.only = v;
		else if (strcmp(argv[i], "--chunk") == 0)
			o.chunk = v;
		else if (strcmp(argv[i], "--drain-ms") == 0 && v < 100000)
			o.drain_ms = (unsigned)v;
		else if (strcmp(argv[i], "--wait-ms") == 0 && v < 1000000)
			o.wait_ms = (unsigned)v;
		else {
			usage();
			return 2;
		}
		i++;
	}
	if (strcmp(mode, "p1") == 0)
		return mode_p1(&o);
	if (strcmp(mode, "p2") == 0)
		return mode_p2(&o);
	if (strcmp(mode, "pw") == 0)
		return mode_pw(&o);
	if (strcmp(mode, "p2count") == 0)
		return mode_p2count(&o);
	if (strcmp(mode, "p3") == 0)
		return mode_p3(&o);
	if (strcmp(mode, "p3count") == 0)
		return mode_p3count(&o);
	usage();
	return 2;
}
