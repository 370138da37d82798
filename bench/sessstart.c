/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-sessstart DIR NAME [SUBBUF_SIZE]: the session start `caretctl
 * record` pays, alone: creates, configures and starts a session through
 * caretd's own LTTng code (lib/lttng/session.c, the same calls and rules),
 * with whatever applications are registered, then stops and destroys it.
 * Prints {"start_s": ..., "stop_s": ...}. bench/run.py runs it while its
 * caretd is stopped (SIGSTOP), so that nothing is replayed: the "session
 * start with nothing to replay" of the limit.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/lttng/session.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: caret-sessstart DIR NAME [SUBBUF_SIZE]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct caret_lttng_cfg cfg = { .session = argv[2], .path = argv[1],
				       .subbuf_size = argc > 3 ? strtoull(argv[3], NULL, 0) : 0 };
	char name[CARET_LTTNG_NAME_MAX], path[4096], err[512];
	double t0 = now_s();
	int r = caret_lttng_record(&cfg, name, sizeof(name), path, sizeof(path), err, sizeof(err));
	double t1 = now_s();
	if (r < 0) {
		fprintf(stderr, "caret-sessstart: %s\n", err);
		return 1;
	}
	struct caret_lttng_chan_stats st[4];
	r = caret_lttng_stop(name, st, 4, path, sizeof(path), err, sizeof(err));
	double t2 = now_s();
	if (r < 0) {
		fprintf(stderr, "caret-sessstart: %s\n", err);
		return 1;
	}
	printf("{\"start_s\": %.6f, \"stop_s\": %.6f}\n", t1 - t0, t2 - t1);
	return 0;
}
