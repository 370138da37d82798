/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The feedback pacing's state of one target recording, and its reads of
 * the recording's packet index (pacer_fb.c): the consumer's progress per
 * CPU, the discards, the calibrated estimate. daemon/agents/pacer.h says
 * how the pacer uses them.
 */
#ifndef CARETD_PACER_FB_H
#define CARETD_PACER_FB_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/lttng/lttng_drain.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/pacer_cpus.h"
#include "daemon/agents/pacer_hist.h"

#define PACER_READ_DUTY 20

struct pacer_fb {
	bool on;
	char session[CARET_LTTNG_NAME_MAX];
	uint32_t serial;
	uint64_t window, subbuf;  /* bytes */
	uint64_t granted0;        /* sched->granted_bytes at the base */
	uint64_t emitted;         /* estimated replayed bytes since the base */
	uint64_t skipped;         /* of the granted ones, those the pass filters kept out */
	uint64_t discarded;       /* last sum seen in the index */
	int64_t horizon_ns, horizon_seen_ns, since_ns;
	int64_t newest_ns, newest_seen_ns; /* the newest packet end, and since when (wall) */
	/* the trace's bytes per estimated byte (pacer.c, calibrate()), from
	 * the index's bytes at a read before the pass's first packet */
	double ratio;
	uint64_t bytes0, chunk0;  /* the index's bytes at the base, in that chunk */
	int calib;                /* 0: no read yet, 1: bytes0 holds, -1: off */
	int64_t busy_ns;          /* the pass's first busy tick */
	/* the recording's trace directory, opened once per target and
	 * checked to be the one created for it (daemon/lttng/lttng_drain.h) */
	int dirfd;
	bool dir_open;
	int64_t dir_retry_ns;     /* when to try opening it again */
	/* the index is read at most this often: a read that took t of CPU waits
	 * PACER_READ_DUTY * t, so reading never takes more than about
	 * 1 / PACER_READ_DUTY of a CPU, whatever the trace holds */
	int64_t next_read_ns;
	bool disc_base;           /* discarded holds a read's sum */
	int64_t blind_ns;         /* since when no read succeeded (0: one did) */
	bool blind_said;
	int64_t warned_ns;        /* last discard warning */
	uint64_t unwarned;        /* discards seen since */
	/* the emitted bytes at a packet's end time */
	struct pacer_hist hist;
	struct pacer_cpus cpu;    /* kept across targets */
};

/* The trace directory of r, opened once (and again at most every second
 * after a failure); false when it cannot be read. */
bool pacer_fb_dir(struct pacer_fb *f, const struct lttng_view_pub *r, int64_t now);
/* Reads r's packet index now (its directory opened by pacer_fb_dir), and
 * when to read it next. */
void pacer_fb_read(struct pacer_fb *f, const struct lttng_view_pub *r, int64_t now);
/* The index cannot be read now (err: negative errno; -EBADF: the
 * directory is not open). */
void pacer_fb_blind(struct pacer_fb *f, const char *session, int err, int64_t now);
void pacer_fb_close(struct pacer_fb *f);

#endif
