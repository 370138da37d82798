/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared-memory cache library: the only code that creates, attaches,
 * appends to, walks and validates a caret segment (layout: proto/caret_segment.h).
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure.
 */
#ifndef CARET_SHM_LIB_H
#define CARET_SHM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/caret_segment.h"
#include "util/caret_util.h"

/* The identity of a segment's owner, copied once from a validated private
 * copy of the header: constant, so callers read it without touching the
 * shared page (whose bytes the owner could change after validation). */
struct caret_seg_identity {
	int32_t pid;
	uint32_t uid;
	uint64_t start_time;
	uint64_t capacity;
	int64_t created_ns;
	uint32_t ctr_slots;    /* top's counter area: slots, 0 none */
	uint64_t ctr_offset;   /* its offset in the file */
	char procname[16];     /* NUL-terminated */
	char distribution[16]; /* NUL-terminated */
};

/* A process-local handle on a mapped segment. */
struct caret_seg {
	int fd;
	uint8_t *base;
	uint64_t map_len;
	/* The mapped, shared header: shm/ only. Every other file reads it
	 * through the functions below (tests/unit/check_layers.py checks). */
	struct caret_shm_header *shared_hdr;
	struct caret_seg_identity id;
	uint8_t *area;     /* base + CARET_SHM_HEADER_SIZE; NULL when attached
			    * (attachers map the header only, read with pread) */
	uint64_t area_cap; /* capacity - CARET_SHM_HEADER_SIZE */
	char name[CARET_SHM_NAME_MAX];
	bool owner;
};

/* One decoded field: integers in u, strings in s (NUL-terminated, inside
 * the buffer that was decoded). */
union caret_arg {
	uint64_t u;
	const char *s;
};

/* Initialisers for union caret_arg arrays. */
#define CARET_P(x) { .u = (uint64_t)(uintptr_t)(x) }
#define CARET_I(x) { .u = (uint64_t)(x) }
#define CARET_S(x) { .s = (x) }

struct caret_rec_view {
	uint32_t kind;
	uint32_t size;
	int64_t init_timestamp;
	/* the record's claim word as read (proto/caret_segment.h): the
	 * agent's alone; caretd only looks at it when it adopts an agent
	 * after a restart (daemon/agents/sched_pass.c's sched_pass_cut) */
	uint64_t claim;
	unsigned nfields;
	union caret_arg args[CARET_MAX_FIELDS];
};

/* ---- kinds and states (schema from proto) ---- */
const char *caret_state_name(uint32_t state); /* "INVALID" if unknown */
int caret_state_by_name(const char *name);    /* any case; -ENOENT */
const char *caret_kind_name(uint32_t kind);   /* NULL if unknown */
const char *caret_kind_sig(uint32_t kind);    /* NULL if unknown */
const char *caret_kind_fields(uint32_t kind); /* comma-separated names */
int caret_kind_by_name(const char *name);     /* kind or -ENOENT */

/* ---- naming ---- */
/* The segment name prefix: $CARET_SHM_PREFIX if valid, else the default. */
const char *caret_shm_prefix(void);
int caret_proc_start_time(pid_t pid, uint64_t *out);

/* The armed marker (proto/caret_segment.h, shm/armed.c). caretd: set while
 * a recording is armed open, 0 or -errno. The agent: whether a live caretd
 * says so now (false for anything else: absent, not root's, malformed,
 * its caretd gone). */
int caret_armed_set(bool on);
bool caret_armed_now(void);
int caret_seg_name(char *buf, size_t len, pid_t pid, uint64_t start_time);
/* Parses "<prefix>.<pid>.<start>" (no leading '/'); -EINVAL if not ours. */
int caret_seg_parse_name(const char *name, pid_t *pid, uint64_t *start_time);
/* Calls cb for every name in CARET_SHM_DIR that parses as one of ours (the
 * segment is not opened). cb returns non-zero to stop, and that value is
 * returned; 0 after a full scan; -errno when the directory cannot be read. */
int caret_seg_scan(int (*cb)(const char *name, pid_t pid, uint64_t start_time, void *ctx),
		   void *ctx);

/* ---- owner side (agent) ---- */
/* Creates /<prefix>.<pid>.<start> with O_EXCL|O_NOFOLLOW, mode 0600, sparse
 * `capacity` bytes, identity filled in, state UNINITIALIZED. */
int caret_seg_create(struct caret_seg *s, uint64_t capacity,
		     const char *procname, const char *distribution);
/* Appends one record; never blocks, never takes a lock. -ENOSPC when the
 * area is full (counted in dropped/dropped_bytes), -EINVAL on a bad kind. */
int caret_seg_append(struct caret_seg *s, uint32_t kind, int64_t ts,
		     const union caret_arg *args);
/* The same, and *at = the record's offset in the area (for the claim
 * functions below). */
int caret_seg_append_at(struct caret_seg *s, uint32_t kind, int64_t ts,
			const union caret_arg *args, uint64_t *at);
/* Bytes the record would take (header + fields + padding). */
uint32_t caret_rec_encoded_size(uint32_t kind, const union caret_arg *args);
/* Encodes into buf (size >= caret_rec_encoded_size); kind stored last. */
void caret_rec_encode(uint8_t *buf, uint32_t size, uint32_t kind, int64_t ts,
		      const union caret_arg *args);

/* ---- owner side of the handshake (the agent; proto/caret_segment.h) ---- */
/* The state word, for the runtime hooks' one relaxed load. */
const uint32_t *caret_own_state_word(const struct caret_seg *s);
/* The start state, stored once before any controller acts. */
void caret_own_set_state(struct caret_seg *s, enum caret_state st);
/* The controller's enum caret_ctrl_flags (how live init events go). */
uint32_t caret_own_ctrl_flags(const struct caret_seg *s);
void caret_own_set_flags(struct caret_seg *s, uint32_t set, uint32_t clear);
/* What the replay thread acts on. Read doorbell first: a change of grant
 * after this read rings the bell again, so waiting on `doorbell` cannot
 * miss it. */
struct caret_own_view {
	uint32_t doorbell;
	uint32_t epoch, count; /* the grant */
	uint32_t tp_enabled_epoch;
};
void caret_own_read(const struct caret_seg *s, struct caret_own_view *v);
/* The grant's epoch alone (to give up a wait when a new pass starts). */
uint32_t caret_own_grant_epoch(const struct caret_seg *s);
/* Step 2: a new pass starts at record 0. */
void caret_own_begin_pass(struct caret_seg *s, uint32_t epoch);
/* Step 3: tracepoints enabled for `epoch` (caret_init already emitted),
 * or gave up waiting for them. */
void caret_own_tp_enabled(struct caret_seg *s, uint32_t epoch);
void caret_own_tp_timeout(struct caret_seg *s);
/* Records committed so far (every one committed after the step 3 that
 * precedes this read is emitted live, not by the pass). */
uint64_t caret_own_records(const struct caret_seg *s);
/* Step 5: `done` records of this pass walked so far, n more of them
 * replayed (claimed by the pass: emitted unless filtered out). */
void caret_own_advance(struct caret_seg *s, uint32_t epoch, uint32_t done, uint32_t n);
/* Agent: n more records claimed while on CPU `cpu` (the per-CPU counts of
 * proto/caret_segment.h), before the caret_own_advance that adds them to
 * `replayed`; a CPU the slots do not cover (or -1) is left to `replayed`. */
void caret_own_count_cpu(struct caret_seg *s, int cpu, uint32_t n);
/* Agent: n more records claimed that the pass filter kept out of the
 * trace (proto/caret_segment.h, CARET_SHM_SKIPPED_OFFSET), counted in no
 * CPU's slot, before the caret_own_advance that adds them to `replayed`. */
void caret_own_count_skipped(struct caret_seg *s, uint32_t n);
/* The exactly-once handshake (proto/caret_segment.h), on the record at
 * offset `at` of the owner's own area. After appending it: whether the
 * creating thread emits it live now (claimed for the grant's epoch), false
 * when a pass replays (or replayed) it. In pass `epoch`: whether the
 * replay emits it (claimed), false when it was emitted live since the
 * pass began. */
bool caret_own_claim_live(struct caret_seg *s, uint64_t at);
bool caret_own_claim_replay(struct caret_seg *s, uint64_t at, uint32_t epoch);
/* Sleeps until `doorbell` differs from `seen`. */
void caret_own_wait_doorbell(struct caret_seg *s, uint32_t seen);
/* Decodes the owner's own record at *off (caret_rec_next over the area). */
int caret_own_next_record(const struct caret_seg *s, uint64_t *off, struct caret_rec_view *v);

/* ---- any side ---- */
/* Attaches read-write to an existing segment by name (without '/'):
 * refuses symlinks and non-regular files, checks file size, validates a
 * private copy of the header and keeps its identity in s->id. Maps the
 * header page only: records are read with caret_seg_snapshot /
 * caret_seg_walk. */
int caret_seg_attach(struct caret_seg *s, const char *name);
void caret_seg_close(struct caret_seg *s);
int caret_seg_unlink(const char *name);

/* Validates a header snapshot against the file size it came from. */
int caret_hdr_validate(const struct caret_shm_header *h, uint64_t file_size);

/*
 * Decodes the record at *off in area[0, len). Returns 1 and advances *off
 * when a committed, valid record was decoded; 0 at the end (no more room or
 * the next record is not committed yet); -EBADMSG when the bytes are
 * corrupt. Strings in `v` point into `area`.
 */
int caret_rec_next(const uint8_t *area, uint64_t len, uint64_t *off,
		   struct caret_rec_view *v);

/* A header word (offsetof(struct caret_shm_header, ...)) read with pread,
 * not through the mapping: the owner may truncate its file at any time,
 * and a load through the shared page would then raise SIGBUS (B2). A copy
 * by the kernel is not one atomic load, so the value is taken when two
 * reads agree. -EBADMSG: truncated; -EAGAIN: moving too fast to agree. */
int caret_seg_hdr_word(const struct caret_seg *s, size_t off, uint64_t *out);

/* Copies area[off, off + len) with pread. -EBADMSG: truncated under us. */
int caret_seg_read_area(const struct caret_seg *s, void *buf, uint64_t len, uint64_t off);

/* Copies the committed prefix of the record area into a private buffer
 * (malloc'd, *out), so a hostile owner cannot change it while it is parsed.
 * Returns the byte count or a negative errno. */
int64_t caret_seg_snapshot(const struct caret_seg *s, uint8_t **out);

/* Walks the committed records with bounded memory (pread in chunks: no
 * SIGBUS on a truncated file, no copy of the whole cache). cb returns
 * non-zero to stop. Returns the number of records visited or -EBADMSG. */
int64_t caret_seg_walk(const struct caret_seg *s,
		       int (*cb)(const struct caret_rec_view *v, void *ctx), void *ctx);

/* ---- pass filters (struct caret_shm_filter in proto/caret_segment.h) ---- */
/* The four lists of a Start (enum caret_filter_list order); NULL is "". */
struct caret_filter_lists {
	const char *list[CARET_FILTER_LISTS];
};
/* A decoded block: lists NUL-terminated in buf. */
struct caret_filter_text {
	struct caret_filter_lists f;
	char buf[CARET_SHM_FILTER_TEXT_MAX + CARET_FILTER_LISTS];
};
/* 0 if the lists fit a block (valid UTF-8 without NUL, together at most
 * CARET_SHM_FILTER_TEXT_MAX bytes); -E2BIG or -EILSEQ. */
int caret_filter_check(const struct caret_filter_lists *f);
/* Whether every list is empty (no filter: CARET records everything). */
bool caret_filter_empty(const struct caret_filter_lists *f);
int caret_filter_encode(const struct caret_filter_lists *f, struct caret_shm_filter *out);
/* Checks a private copy of a block: -EBADMSG if malformed. */
int caret_filter_decode(const struct caret_shm_filter *in, struct caret_filter_text *out);
/* Controller: the filter of the next pass (the epoch the next
 * caret_drive_begin_replay / caret_drive_begin_pass will use, which it
 * returns), or a negative errno from caret_filter_check. */
int64_t caret_drive_stage_filter(struct caret_seg *s, const struct caret_filter_lists *f);
/* Controller: no filter (any pass). */
void caret_drive_clear_filter(struct caret_seg *s);
/* Agent: 1 and the lists when the block is for `epoch`, 0 when it is not
 * (no filter for this pass), -EBADMSG when it is for `epoch` but
 * malformed. */
int caret_own_read_filter(const struct caret_seg *s, uint32_t epoch,
			  struct caret_filter_text *out);
/* Agent: the block's epoch word, for the runtime hooks' one relaxed load
 * (the filter of pass e holds while it reads e). */
const uint32_t *caret_own_filter_word(const struct caret_seg *s);

/* ---- controller side (caretd, caret-agentctl): caret_drive_*, not to be
 * confused with the control protocol's caret_ctl_* (proto/caret_ctl.h) ---- */
/* Moves the state from `from` to `to` if it still is `from` (compare and
 * swap): 0, -ESTALE when it is not (nothing changed: the agent or another
 * controller moved it meanwhile), -EINVAL for a value that is no state.
 * Moving to WAIT also clears the pass filter (End: that recording is
 * over). */
int caret_drive_set_state(struct caret_seg *s, enum caret_state from, enum caret_state to);
/* Starts a replay pass: new epoch with grant 0, then state PREPARE if it
 * still is `from` (WAIT, or PREPARE to start over). Returns the epoch,
 * -ESTALE when the state is not `from` (the epoch may then be used up,
 * unseen), -EINVAL when `from` is neither. */
int64_t caret_drive_begin_replay(struct caret_seg *s, enum caret_state from);
/* Starts a replay pass (new epoch, grant 0) without touching `state`: an
 * agent in RECORD replays its cache again for a session that became active
 * after its last pass, while its runtime events keep flowing. The agent's
 * replay thread never looks at `state`, so this needs no agent change.
 * Returns the epoch. */
int64_t caret_drive_begin_pass(struct caret_seg *s);
int caret_drive_grant(struct caret_seg *s, uint32_t epoch, uint32_t count);
/* Stores enum caret_ctrl_flags bits (read by the agent's init hooks). */
void caret_drive_set_flags(struct caret_seg *s, uint32_t flags);
/* Sleeps until `progress` differs from `seen` (0) or timeout_ms passes
 * (-ETIMEDOUT; timeout_ms < 0 waits forever). */
int caret_drive_wait_progress(struct caret_seg *s, uint32_t seen, int timeout_ms);

/* Relaxed snapshot of the words a controller reads. */
struct caret_seg_status {
	uint32_t state, tp_enabled_epoch, progress, agent_flags, ctrl_flags;
	uint64_t grant, cursor, records, dropped, dropped_bytes, replayed, tail;
};
void caret_seg_read_status(const struct caret_seg *s, struct caret_seg_status *st);
/* Controller: the per-CPU replayed counts, the first n (<= CARET_SHM_CPUS)
 * slots, read after st's `replayed` (caret_seg_read_status): their growth
 * never lags the growth of `replayed` that they account for. The agent's
 * words: a caller bounds their use (a slot's growth beyond `replayed`'s is
 * a lie or the next advance). */
void caret_seg_read_cpus(const struct caret_seg *s, uint64_t *out, unsigned n);
/* Controller: the records the pass filter kept out of the trace, read
 * like the slots (caret_own_count_skipped). */
uint64_t caret_seg_read_skipped(const struct caret_seg *s);
/* The state word alone. */
uint32_t caret_seg_state(const struct caret_seg *s);

/* ---- top's counters (the counter area, proto/caret_segment.h;
 * shm/counters.c) ---- */
/* Agent: the `watched` word, for the runtime hooks' one relaxed load. */
const uint32_t *caret_own_watched_word(const struct caret_seg *s);
/* Agent: one event of (kind, key) counted; ns: a callback's duration
 * (ignored for the others), generation: `watched` as the hook read it. A full
 * table counts it in ctr_lost. Lock-free, never blocks, no syscall. */
void caret_own_count(struct caret_seg *s, enum caret_ctr_kind kind, const void *key,
		     uint64_t ns, uint32_t generation);
/* Agent: one message taken by subscription sub. timed: the sample had a
 * source timestamp, lat_ns its latency (take's CLOCK_REALTIME minus it):
 * in [0, CARET_CTR_LAT_ABSURD_NS] it is counted as a callback's duration
 * is, else in lat_apart only. As caret_own_count otherwise. */
void caret_own_take(struct caret_seg *s, const void *sub, bool timed, int64_t lat_ns,
		    uint32_t generation);
/* The histogram bucket of a duration. */
unsigned caret_ctr_bucket(uint64_t ns);
/* The q-quantile (0 < q <= 1) of n calls whose histogram is hist,
 * interpolated inside its bucket and never above max_ns (0: no bound). */
uint64_t caret_ctr_quantile(const uint32_t hist[CARET_CTR_BUCKETS], double q, uint64_t max_ns);
/* Controller: watch with this generation (its low 24 bits, never 0), or 0:
 * unwatched (the hooks cost what they cost before). */
void caret_drive_watch(struct caret_seg *s, uint32_t generation);
/* Controller: the `watched` word, read with pread (caret_seg_hdr_word's
 * rules): 0 or a negative errno. */
int caret_seg_watched(const struct caret_seg *s, uint32_t *out);
/* Copies the counter area (id.ctr_slots slots, at most max) with pread
 * into out and the header's ctr_lost into *lost: the slot count, 0 when
 * the segment has no counters, -EBADMSG when truncated under us. The
 * bytes are the owner's: check every value before use. */
int caret_seg_read_counters(const struct caret_seg *s, struct caret_ctr_slot *out,
			    uint32_t max, uint64_t *lost);

#endif
