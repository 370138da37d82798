/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`'s rotation and disk-bound fields (issue 23), and their limits,
 * checked by both caretctl (a usage error) and caretd (any client may
 * send anything: proto/caret_ctl_req.c decodes them into the typed record
 * request). Every name here is part of the control protocol.
 *
 *  "record" {..., "rotate_size"? bytes, "rotate_every_ms"? int,
 *            "keep"? int, "max_size"? bytes}
 *     rotate_size / rotate_every_ms: LTTng size / periodic rotation
 *     schedules; every archived chunk gets a full replay of every live
 *     process's init records. keep / max_size bound the archived chunks
 *     (only with a rotation).
 *  "status" result: "rotations": [{"session", "mode": "rotating",
 *     "rotate_size", "rotate_every_ms", "keep", "max_size", "chunks":
 *     [{"name", "index", "bytes", "complete", "why"?}], "chunks_bytes",
 *     "rotations", "removed", "incomplete": [chunk names], "error"?}]
 *     A chunk is complete when it holds every live process's init records
 *     once (what `caretctl check` calls complete); "why" says what it may
 *     lack or hold twice.
 *     "rotations_ended": [{"session", "error"}]: rotating recordings caretd
 *     stopped itself (their disk about to fill), the newest 8.
 *  "stop" result: the same object for its session, as "rotation".
 */
#ifndef CARET_CTL_ROTATION_H
#define CARET_CTL_ROTATION_H

#include <stdint.h>
#include <stdio.h>

#define CARET_CTL_K_ROTATE_SIZE "rotate_size"
#define CARET_CTL_K_ROTATE_EVERY_MS "rotate_every_ms"
#define CARET_CTL_K_KEEP "keep"
#define CARET_CTL_K_MAX_SIZE "max_size"
#define CARET_CTL_K_ROTATIONS "rotations"
#define CARET_CTL_K_ROTATION "rotation"
/* in a status's rotations: the chunk being written has every live process's replay */
#define CARET_CTL_K_PASS_COMPLETE "pass_complete"
#define CARET_CTL_K_ROTATIONS_ENDED "rotations_ended"

/* A chunk smaller than a few sub-buffers is all headers; LTTng's own
 * size schedule needs at least one packet. */
#define CARET_CTL_ROTATE_SIZE_MIN (64ull << 10)
#define CARET_CTL_ROTATE_SIZE_MAX (1ull << 49) /* replies carry counts below 10^15 */
/* Each chunk gets a replay pass: a period shorter than a second leaves
 * none for it. */
#define CARET_CTL_ROTATE_EVERY_MIN_MS 1000ll
#define CARET_CTL_ROTATE_EVERY_MAX_MS (366ll * 24 * 3600 * 1000)
/* caretd looks at this many archived chunks per recording (daemon/recording/chunks.h) */
#define CARET_CTL_KEEP_MAX 256u
#define CARET_CTL_MAX_SIZE_MIN (1ull << 20)
#define CARET_CTL_MAX_SIZE_MAX (1ull << 49)

static inline int caret_ctl_check_range(uint64_t v, uint64_t lo, uint64_t hi, const char *unit,
					char *why, size_t len)
{
	if (v >= lo && v <= hi)
		return 0;
	if (why && len)
		snprintf(why, len, "must be from %llu to %llu %s", (unsigned long long)lo,
			 (unsigned long long)hi, unit);
	return -22; /* -EINVAL */
}

static inline int caret_ctl_check_rotate_size(uint64_t v, char *why, size_t len)
{
	return caret_ctl_check_range(v, CARET_CTL_ROTATE_SIZE_MIN, CARET_CTL_ROTATE_SIZE_MAX,
				     "bytes", why, len);
}

/* LTTng's size schedule sees a recording grow as its sub-buffers are
 * consumed, a full one at a time: a threshold below the sub-buffer size
 * brings no rotation before one fills (none at all at a low event rate)
 * and a chunk per sub-buffer after; the least size is the sub-buffer's
 * (issue 33 L11). subbuf_size: the recording's UST sub-buffer size. */
static inline int caret_ctl_check_rotate_size_subbuf(uint64_t size, uint64_t subbuf_size,
						     char *why, size_t len)
{
	if (!size || size >= subbuf_size)
		return 0;
	if (why && len)
		snprintf(why, len, "--rotate-size %llu is below the channel's sub-buffer size: "
			 "LTTng sees the trace grow a full sub-buffer at a time, so it would "
			 "not rotate before one fills; the least size is %llu (%lluK), or give a "
			 "smaller --subbuffer-size-ust", (unsigned long long)size,
			 (unsigned long long)subbuf_size, (unsigned long long)(subbuf_size >> 10));
	return -22; /* -EINVAL */
}

static inline int caret_ctl_check_rotate_every_ms(uint64_t v, char *why, size_t len)
{
	return caret_ctl_check_range(v, CARET_CTL_ROTATE_EVERY_MIN_MS,
				     CARET_CTL_ROTATE_EVERY_MAX_MS, "ms", why, len);
}

static inline int caret_ctl_check_keep(uint64_t v, char *why, size_t len)
{
	return caret_ctl_check_range(v, 1, CARET_CTL_KEEP_MAX, "chunks", why, len);
}

static inline int caret_ctl_check_max_size(uint64_t v, char *why, size_t len)
{
	return caret_ctl_check_range(v, CARET_CTL_MAX_SIZE_MIN, CARET_CTL_MAX_SIZE_MAX, "bytes",
				     why, len);
}

#endif
