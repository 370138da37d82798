/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The feedback pacing's view of the consumer (daemon/agents/pacer.h): what
 * the recording's packet index says (daemon/lttng/lttng_drain.h) of how
 * far each CPU's ring is drained, the discarded events and the trace's
 * bytes per estimated byte, read at most 1 / PACER_READ_DUTY of the time.
 * The tick that turns this into a room is pacer.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/agents/pacer_fb.h"
#include "proto/caret_ctl.h"

/* A stream without a packet for this long while another produced some is
 * no longer written (lttng_drain_horizon). */
#define STREAM_STALE_NS (200LL * 1000000)
/* No packet on any stream for this long: the consumer drained every full
 * sub-buffer, the streams hold partly filled ones only
 * (lttng_drain_pacing_horizon). Well above the consumer's wake-up on a
 * delivered sub-buffer, well below STALL_NS's trickle. The consumer
 * (strace of lttng-consumerd during a replay of 100 x 2,000 records)
 * writes a delivered 512 KiB packet and its index entry 0.3-1 ms after
 * its poll returns; the replay waited for this rule once per window,
 * so at 20 ms it ran at 35-70 MB/s against a drain of 440 MB/s, and at
 * 5 ms at 140-150 MB/s, nothing discarded with two busy processes, 64 KiB
 * sub-buffers, or the consumer held to 2 % of a CPU (bench P4, P6, P7). A
 * full sub-buffer the consumer has not taken after this long is still
 * covered by the window's margin unless the whole next window lands on
 * that CPU; a discard halves the window (fb_discards). */
#define QUIET_NS (5LL * 1000000)
/* The calibrated estimate widens the window by at most 1 / RATIO_MIN
 * (measured: 0.78 trace bytes per estimated byte over a whole replay of
 * the bench's stand-ins), and only once the measured bytes are at least a
 * window's: the ratio is an average over the pass so far, while the
 * records in flight may be of other kinds (their header and contexts
 * weigh more on small records); the window's margin of a sub-buffer
 * covers the difference. */
#define RATIO_MIN 0.7
/* An index unreadable this long is said (a new chunk's streams may not be
 * there for a moment). */
#define BLIND_SAY_NS (1000LL * 1000000)

/* The estimate's error, learned from the trace (lttng_drain_ratio): the
 * estimate (sched_record_bytes) adds the largest event header and the
 * contexts to the cached record, ~30 % above what the trace holds (23.8 MB
 * estimated for an 18.5 MB trace, bench P6), which left a third of the
 * window unused. The ratio only ever overstates the trace (packets whole,
 * a partly filled sub-buffer per stream the horizon leaves out counted as
 * full, other processes' events in the sum), is read only when the base
 * saw no packet of the pass, and is kept within [RATIO_MIN, 1]: never a
 * window wider than 1 / RATIO_MIN, nor narrower than before. */
static void calibrate(struct pacer_fb *f, const struct lttng_drain *d)
{
	if (f->calib == 0) {
		/* a packet that ended after the pass began may hold replayed
		 * records: bytes0 must be from before any */
		f->calib = d->horizon_ns <= f->busy_ns ? 1 : -1;
		f->bytes0 = d->bytes;
		f->chunk0 = d->chunk;
		return;
	}
	if (f->calib > 0 && (d->chunk != f->chunk0 || d->truncated)) {
		/* a rotation: the new chunk's streams began empty, so its
		 * bytes tell nothing against bytes0; or a read that did not
		 * see every stream: what was learned so far stays (the
		 * records and the channel are the same) */
		f->calib = -1;
	}
	if (f->calib < 0)
		return;
	int64_t h = lttng_drain_horizon(d, f->since_ns, STREAM_STALE_NS);
	uint64_t est = h >= 0 ? pacer_hist_before(&f->hist, h) : 0;
	if (est < f->window)
		return; /* too little to tell from a few packets */
	double r = lttng_drain_ratio(d, f->bytes0, h, f->subbuf, est);
	if (r <= 0)
		return;
	f->ratio = r < RATIO_MIN ? RATIO_MIN : r > 1 ? 1 : r;
}

void pacer_fb_close(struct pacer_fb *f)
{
	if (f->dir_open)
		close(f->dirfd);
	f->dir_open = false;
}

/* Whose the files of r's trace are: lttng-sessiond writes them as the
 * session's owner, the requester when caretd (root) could act as them,
 * else caretd itself (lib/lttng/session.h). */
static uid_t trace_owner(const struct lttng_view_pub *r)
{
	return geteuid() == 0 ? r->uid : geteuid();
}

/* The trace directory of r, opened once (and again at most every
 * second after a failure); false when it cannot be read. */
bool pacer_fb_dir(struct pacer_fb *f, const struct lttng_view_pub *r, int64_t now)
{
	if (f->dir_open)
		return true;
	if (now < f->dir_retry_ns)
		return false;
	/* only the directory created for the recording, whose (dev, ino)
	 * caretd knows: where its path leads now is its owner's choice */
	int fd = r->dir_dev || r->dir_ino ? lttng_drain_open(r->path, r->dir_dev, r->dir_ino,
								    trace_owner(r))
					  : -ENOENT;
	if (fd < 0) {
		log_debug_errno(fd, "pacing %s: trace directory not read", r->name);
		f->dir_retry_ns = now + 1000000000;
		return false;
	}
	f->dirfd = fd;
	f->dir_open = true;
	return true;
}

/* The discarded-event sum of this read: a rise halves the window (once
 * per read), said at most once a second; a fall (a stream gone, or a
 * lie) is only the new base. */
static void fb_discards(struct pacer_fb *f, const char *session, uint64_t sum, int64_t now)
{
	if (sum <= f->discarded) {
		f->discarded = sum;
		return;
	}
	bool say = f->discarded || f->emitted;
	f->unwarned += sum - f->discarded;
	f->discarded = sum;
	f->window = f->window / 2 > f->subbuf / 2 ? f->window / 2 : f->subbuf / 2;
	if (say && now - f->warned_ns >= 1000000000) {
		log_warn("session %s: %llu events discarded in its buffers: replay window "
			 "now %llu bytes", session, (unsigned long long)f->unwarned,
			 (unsigned long long)f->window);
		f->warned_ns = now;
		f->unwarned = 0;
	}
}

/* Whether CPU cpu got less than a sub-buffer of trace after h_ns (the
 * estimate times the calibrated ratio, which never understates it): what
 * its ring holds beyond its last packet is then at most a partly filled
 * sub-buffer. */
static bool fb_partial(void *arg, int cpu, int64_t h_ns)
{
	const struct pacer_fb *f = arg;
	uint64_t e = f->cpu.now[cpu];
	uint64_t d = h_ns >= f->since_ns ? pacer_hist_at(&f->hist, &f->cpu, cpu, h_ns) : 0;
	double ratio = f->ratio > 0 && f->ratio <= 1 ? f->ratio : 1;
	return (double)(e - (d < e ? d : e)) * ratio < (double)f->subbuf;
}

/* What one read of the index says: the discards, and how far the
 * consumer drained. */
static void fb_seen(struct pacer_fb *f, const char *session, const struct lttng_drain *d,
		    int64_t now)
{
	/* the counts are the streams' totals since the session began: those
	 * of the first read of a target (a new chunk's streams carry the
	 * previous chunks' too) are where this pacing starts from */
	if (!f->disc_base) {
		f->disc_base = true;
		f->discarded = d->discarded;
	}
	fb_discards(f, session, d->discarded, now);
	calibrate(f, d);
	/* per stream: the slowest drained buffer that is written, until
	 * no packet comes for QUIET_NS */
	if (d->horizon_ns != f->newest_ns) {
		f->newest_ns = d->horizon_ns;
		f->newest_seen_ns = now;
	}
	int64_t h = lttng_drain_pacing_horizon(d, f->since_ns, STREAM_STALE_NS,
					       now - f->newest_seen_ns, QUIET_NS, f->horizon_ns);
	if (h > f->horizon_ns)
		f->horizon_seen_ns = now;
	if (h >= 0)
		f->horizon_ns = h;
	int64_t hc[CARET_SHM_CPUS];
	struct lttng_drain_partial part = { .fn = fb_partial, .arg = f };
	lttng_drain_cpu_horizons(d, f->since_ns, STREAM_STALE_NS, now - f->newest_seen_ns, QUIET_NS,
				 f->cpu.h, &part, hc, f->cpu.n);
	for (int c = 0; c < f->cpu.n; c++) {
		if (hc[c] > f->cpu.h[c])
			f->horizon_seen_ns = now; /* a CPU drained more: no stall */
		f->cpu.h[c] = hc[c];
	}
}

/* The index cannot be read now (the directory replaced, its owner's
 * lie, a chunk not there yet): nothing more counts as drained, so the
 * replays keep at most the window in flight, plus the stall rule's
 * trickle, until a read sees the consumer again. The host-wide byte budget
 * instead put 22 MB in flight against a 1.5 MiB ring while a rotated
 * session's chunk went unseen (issue 23, bench P11). Said once a target
 * when it lasts. */
void pacer_fb_blind(struct pacer_fb *f, const char *session, int err, int64_t now)
{
	if (!f->blind_ns) {
		f->blind_ns = now;
		if (err == -EBADF)
			log_debug("pacing %s: index not read: trace directory not open", session);
		else
			log_debug_errno(err, "pacing %s: index not read", session);
	}
	if (!f->blind_said && now - f->blind_ns >= BLIND_SAY_NS) {
		f->blind_said = true;
		log_warn("session %s: the consumer's progress cannot be read (%s): the replays "
			 "keep at most %llu bytes in its buffers, and go slowly", session,
			 err == -EBADF ? "its trace directory cannot be opened" : strerror(-err),
			 (unsigned long long)f->window);
	}
}

/* This thread's CPU time and voluntary context switches. */
static int64_t thread_cpu_ns(long *blocked)
{
	struct timespec ts;
	struct rusage ru;
	*blocked = getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : -1;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return caret_now_ns();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Reads the recording's packet index now, and when to read it next: its
 * cost (CPU time, or wall time when the read blocked) times the duty
 * factor, so the reads take at most 1/PACER_READ_DUTY of caretd. */
void pacer_fb_read(struct pacer_fb *f, const struct lttng_view_pub *r, int64_t now)
{
	struct lttng_drain d;
	long v0, v1;
	int64_t t0 = caret_now_ns(), c0 = thread_cpu_ns(&v0);
	int rc = lttng_drain_read_at(f->dirfd, CARET_CTL_DEFAULT_CHANNEL, trace_owner(r), t0, &d);
	int64_t cpu = thread_cpu_ns(&v1) - c0, wall = caret_now_ns() - t0;
	int64_t took = lttng_drain_read_cost(wall, cpu, v0 < 0 || v1 < 0 ? -1 : v1 - v0);
	log_debug("pacing %s: index read in %.3f ms (%.3f ms of CPU, %s time counts)", r->name,
		  (double)wall / 1e6, (double)cpu / 1e6, took == wall ? "wall" : "CPU");
	f->next_read_ns = now + PACER_READ_DUTY * took;
	if (rc < 0) {
		pacer_fb_blind(f, r->name, rc, now);
	} else {
		f->blind_ns = 0;
		fb_seen(f, r->name, &d, now);
	}
}
