/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How far the consumer daemon has drained a local trace, read from the
 * CTF packet index files it writes after every packet
 * (<trace>/ust/uid/<uid>/64-bit/index/<channel>_<cpu>.idx, or in the
 * current chunk <trace>/<begin>-<N>/ust/... of a rotating session): the drain side
 * of the feedback pacing. lttng-ctl exposes no buffer positions in 2.13;
 * these files are the consumer's own, up-to-date account of what it took
 * from the ring buffers, with the time of each packet's end (the UST
 * clock, CLOCK_MONOTONIC ns, like caret_now_ns()) and the events the
 * writers discarded so far in that stream.
 *
 * The trace directory belongs to the requester, who can write anything
 * there: never follows a symbolic link, reads the directory created for
 * the recording through one descriptor opened once, bounds the work of a
 * read and does not believe a packet from the future.
 */
#ifndef CARETD_LTTNG_DRAIN_H
#define CARETD_LTTNG_DRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What one read may cost at most, whatever the trace holds: directory
 * entries looked at, and index files opened (a real trace has one per
 * CPU and uid). */
#define LTTNG_DRAIN_MAX_ENTRIES 1024
#define LTTNG_DRAIN_MAX_FILES 256

struct lttng_drain {
	int streams;        /* index files with at least one packet */
	int files;          /* believed index files, with a packet or not yet */
	uint64_t chunk;     /* N of the rotating session's chunk read, 0: <trace>/ust */
	int64_t horizon_ns; /* newest packet end over the streams (-1: none) */
	uint64_t bytes;     /* sum over streams of the end of their last packet */
	uint64_t discarded; /* sum of the streams' discarded-event counts (each
			     * a stream's total since the session began) */
	uint64_t chunk_discarded; /* of those, the ones discarded while the
				   * chunk read was written (lttng_drain_read_chunk) */
	int ignored;        /* index files not believed (bad header, another
			     * owner, a packet ending after now, a count
			     * beyond 2^48) */
	bool truncated;     /* the read stopped at its bounds */
	/* each believed stream's last packet end, streams entries: what
	 * lttng_drain_horizon() reads */
	int64_t ends[LTTNG_DRAIN_MAX_FILES];
	/* and its CPU, from the file's name (<channel>_<cpu>.idx; -1: none) */
	int16_t cpus[LTTNG_DRAIN_MAX_FILES];
};

/*
 * How far the consumer drained every stream the writers use, per stream
 * (per CPU buffer and uid), rather than the newest packet of any: what a
 * writer put in a buffer after that buffer's last packet is still in it,
 * whatever the other CPUs' consumers did. The oldest last-packet end among
 * the streams that produced a packet after since_ns (the others were not
 * written since, or hold less than one sub-buffer, the margin the pacing
 * keeps) and whose last packet ended within stale_ns of the newest
 * stream's: one consumer drains all of a channel's streams in turn, so a
 * stream silent that long while another produced packets is no longer
 * written (its writers moved to other CPUs). -1 when no stream qualifies.
 */
int64_t lttng_drain_horizon(const struct lttng_drain *d, int64_t since_ns, int64_t stale_ns);

/*
 * The horizon the pacing uses: lttng_drain_horizon(), unless no stream has
 * produced a packet for quiet_ns (quiet_for_ns: how long, in wall time,
 * d->horizon_ns has not changed). A full sub-buffer is drained as soon as
 * it is delivered, so once nothing moves for that long the streams hold
 * only partly filled sub-buffers, which the pacing window's margin of one
 * sub-buffer covers: then the newest packet end after since_ns. Without
 * this, one stream's half packet that no writer fills holds the horizon
 * back, the replay gets no room to fill it, and nothing moves.
 * Never before prev_ns, the horizon an earlier read gave (-1: none): what
 * a stream held before it was drained, or is a partly filled sub-buffer
 * the margin covers, until that stream's next packet moves it on. Going
 * back to a stream's older packet when another stream produced a newer
 * one (the quiet rule no longer applying) stalled the replay 20-50 ms with
 * the window counted twice (bench P6, caretd's debug log).
 */
int64_t lttng_drain_pacing_horizon(const struct lttng_drain *d, int64_t since_ns,
				   int64_t stale_ns, int64_t quiet_for_ns, int64_t quiet_ns,
				   int64_t prev_ns);

/*
 * lttng_drain_pacing_horizon() per CPU, for the per-CPU windows of the
 * pacing (issue 34): h[c] for CPUs 0..ncpu-1, how far the consumer drained
 * that CPU's ring, the writers' bytes in it before h[c] being out of it.
 * The oldest last-packet end among c's streams (one per uid) that produced
 * a packet after since_ns and within stale_ns of the newest stream's; a
 * CPU whose streams are all that stale while the pass's packets come
 * elsewhere (its writers moved, or never came: what it holds is at most a
 * partly filled sub-buffer, the window's margin) and, once no
 * stream produced a packet for quiet_ns, every CPU, at the newest packet
 * end, as long as some stream qualifies at all; -1 where nothing of the
 * pass is drained yet. Never before prev[c] (-1: none). Both rules move a
 * CPU only where part says its ring holds no more than a partly filled
 * sub-buffer past its own horizon (NULL: everywhere): a consumer held to
 * 2 % of a CPU goes quiet for tens of milliseconds with whole sub-buffers
 * waiting, and the quiet rule counted them drained (1,393 events
 * discarded in bench P7 (c) with 8 sub-buffers of 512 KiB).
 */
struct lttng_drain_partial {
	/* whether CPU cpu's ring holds at most a partly filled sub-buffer
	 * written after h_ns (-1: since the pass began) */
	bool (*fn)(void *arg, int cpu, int64_t h_ns);
	void *arg;
};
#define LTTNG_DRAIN_MAX_CPUS 1024
void lttng_drain_cpu_horizons(const struct lttng_drain *d, int64_t since_ns, int64_t stale_ns,
			      int64_t quiet_for_ns, int64_t quiet_ns, const int64_t *prev,
			      const struct lttng_drain_partial *part, int64_t *h, int ncpu);

/*
 * What the trace holds per byte the pacing estimated (sched_record_bytes()
 * units), never less than the truth: `est` estimated bytes were emitted
 * by h_ns (a lower bound) since a base where the streams' packets summed
 * to bytes0 (d->bytes of a read that saw no packet of the replay yet),
 * and h_ns is lttng_drain_horizon()'s: every byte a stream it counts
 * received by then is in a drained packet (d->bytes, whole packets,
 * header and padding included). Each other stream (a packet only before
 * h_ns, or none yet) may hold a partly filled sub-buffer of it, counted
 * as full. Other writers' events only raise it. -1 when nothing tells
 * (est 0, fewer bytes than at the base, a truncated read). bytes0 must be of the same
 * chunk (d->chunk): a new chunk's streams begin empty.
 */
double lttng_drain_ratio(const struct lttng_drain *d, uint64_t bytes0, int64_t h_ns,
			 uint64_t subbuf, uint64_t est);

/*
 * What a read cost its thread, for a duty cycle (the pacer reads again
 * only after 20 times that): its CPU time, unless it slept (sleeps:
 * voluntary context switches during it, -1 unknown), then its wall time: a
 * slow or hostile file system holds the caller that long. Wall time alone
 * also counts the time the read waited for a CPU: on 2 cores loaded by
 * hundreds of replaying processes a read of 0.05-0.1 ms of CPU sometimes
 * took 0.4-0.8 ms (bench P6, N = 400; up to 2.8 ms at N = 1,000), and put
 * the next read 8-56 ms later while the replay waited for the consumer's
 * next packet.
 */
int64_t lttng_drain_read_cost(int64_t wall_ns, int64_t cpu_ns, long sleeps);

/*
 * Opens a recording's trace directory for lttng_drain_read_at(): the
 * directory path leads to must be the one created for it, (dev, ino)
 * (0, 0: any), and belong to owner ((uid_t)-1: anyone). The last
 * component is never a link. fd, or -ESTALE (another directory now),
 * -EPERM (another owner), -errno.
 */
int lttng_drain_open(const char *trace_dir, uint64_t dev, uint64_t ino, uid_t owner);

/*
 * Reads the index files of the UST per-UID buffers of channel `channel`
 * below the trace directory dirfd, by file descriptor only (no link is
 * followed), within LTTNG_DRAIN_MAX_*: every directory and file must
 * belong to owner ((uid_t)-1: anyone) and a stream whose last packet ends
 * after now_ns (CLOCK_MONOTONIC) or claims counts beyond 2^48 is ignored.
 * 0 (streams may be 0: nothing consumed yet) or -errno.
 */
int lttng_drain_read_at(int dirfd, const char *channel, uid_t owner, int64_t now_ns,
			struct lttng_drain *out);

/*
 * Reads the index files of every channel of the archived chunk
 * archives/<name> (one name, no path) below the trace directory dirfd, as
 * lttng_drain_read_at() does but without the time bound, for
 * out->chunk_discarded: the events the tracer discarded while that chunk
 * was written. 0 or -errno (-ENOENT: no such chunk).
 */
int lttng_drain_read_chunk(int dirfd, const char *name, uid_t owner, struct lttng_drain *out);

/* lttng_drain_open(trace_dir, 0, 0, -1) then lttng_drain_read_at() with
 * no owner or time bound: for tools and tests. */
int lttng_drain_read(const char *trace_dir, const char *channel, struct lttng_drain *out);

#endif
