/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How far the consumer daemon has drained a local trace, read from the
 * CTF packet index files it writes after every packet
 * (<trace>/ust/uid/<uid>/64-bit/index/<channel>_<cpu>.idx): the drain side
 * of the feedback pacing. lttng-ctl exposes no buffer positions in 2.13;
 * these files are the consumer's own, up-to-date account of what it took
 * from the ring buffers, with the time of each packet's end (the UST
 * clock, CLOCK_MONOTONIC ns, like caret_now_ns()) and the events the
 * writers discarded so far in that stream.
 *
 * The trace directory belongs to the requester: never follows a
 * symbolic link, and bounds what it reads.
 */
#ifndef CARETD_LTTNG_DRAIN_H
#define CARETD_LTTNG_DRAIN_H

#include <stdint.h>

struct lttng_drain {
	int streams;        /* index files with at least one packet */
	int64_t horizon_ns; /* newest packet end over the streams (-1: none) */
	uint64_t bytes;     /* sum over streams of the end of their last packet */
	uint64_t discarded; /* sum of the streams' discarded-event counts */
};

/* Reads the index files of trace_dir's UST per-UID buffers of channel
 * `channel`. 0 (streams may be 0: nothing consumed yet) or -errno. */
int lttng_drain_read(const char *trace_dir, const char *channel, struct lttng_drain *out);

#endif
