/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd shared-memory contract, layout version 2 (1 had no record claim
 * word: see struct caret_rec_hdr).
 *
 * One POSIX shm segment per traced process, created by the agent
 * (libcaret-agent.so) and attached by caretd / caret-agentctl. The agent
 * owns the segment; every other process must treat its bytes as hostile:
 * the agent may be buggy, dead mid-write, or malicious. Readers copy a word
 * once, then bounds-check it (shm/ does this; nothing else parses a segment).
 *
 * Layout:
 *   [0, CARET_SHM_HEADER_SIZE)        struct caret_shm_header (one page)
 *   [CARET_SHM_HEADER_SIZE, capacity) record area, records back to back
 *                                     (proto/caret_seg_records.h), then
 *                                     `top`'s counter area (caret_seg_counters.h)
 *
 * All multi-byte values are native-endian (segments never leave the host).
 * Fields marked "atomic" are accessed only with __atomic builtins; fields
 * marked "futex" are 32-bit aligned words used with FUTEX_WAIT/FUTEX_WAKE
 * (non-private: the waiters are in different processes).
 */
#ifndef CARET_PROTO_SEGMENT_H
#define CARET_PROTO_SEGMENT_H

#include <stdint.h>

/* The record area's encoding and kinds, and `top`'s counter area: parts of
 * the same layout, each in a header of its own. */
#include "proto/caret_seg_counters.h"
#include "proto/caret_seg_records.h"

/* "CARETSHM" little-endian; a reader rejects anything else. */
#define CARET_SHM_MAGIC 0x4d48535445524143ULL
#define CARET_SHM_LAYOUT_VERSION 2u

/*
 * Segment name: "/<prefix>.<pid>.<start_time>" where start_time is field 22
 * of /proc/<pid>/stat (clock ticks since boot). pid + start time names one
 * process forever, even after pid reuse. Such names are predictable and
 * /dev/shm is world-writable: when another user holds the name, the agent
 * uses "/<prefix>.<pid>.<start_time>.<suffix>", suffix CARET_SHM_SUFFIX_LEN
 * random lowercase hex digits. A file of its own user under the name is a
 * previous image of the same process (exec keeps pid and start time): the
 * agent replaces it. The prefix defaults to
 * CARET_SHM_DEFAULT_PREFIX and may be overridden by $CARET_SHM_PREFIX
 * (letters, digits, '-', '_' only) so tests can isolate themselves.
 */
#define CARET_SHM_DEFAULT_PREFIX "caret-agent"
/* Where POSIX shm objects appear as files (scanned and watched by caretd). */
#define CARET_SHM_DIR "/dev/shm"
#define CARET_SHM_PREFIX_MAX 32
#define CARET_SHM_NAME_MAX 96
#define CARET_SHM_SUFFIX_LEN 16

/*
 * The armed marker, "/<prefix>-armed" in CARET_SHM_DIR (not a segment name:
 * no '.' after the prefix): caretd keeps it while a recording is armed open
 * (its LTTng channel enabled before Enter, issue 24) or records with a
 * node/topic filter. A process starting then sees its tracepoints enabled,
 * yet must start in WAIT, for caretd's pass (after Enter; with the filter): the agent believes the marker only when it is root's, whole, and
 * names a live caretd (pid and start time), so a stale or forged one makes
 * no process wait for a caretd that is not there.
 */
#define CARET_ARMED_SUFFIX "-armed"
#define CARET_ARMED_MAGIC 0x64656d7261746163ULL /* "caretarmed" LE, cut */
struct caret_armed_marker {
	uint64_t magic;
	uint32_t version; /* 1 */
	int32_t pid;      /* caretd's */
	uint64_t start_time; /* field 22 of /proc/<pid>/stat */
};
_Static_assert(sizeof(struct caret_armed_marker) == 24, "caret_armed_marker size");

#define CARET_SHM_HEADER_SIZE 4096u
/* Smallest and largest segment a reader accepts (the agent's default is
 * CARET_SHM_DEFAULT_CAPACITY, sparse: only touched pages use memory). */
#define CARET_SHM_MIN_CAPACITY (CARET_SHM_HEADER_SIZE + 4096u)
#define CARET_SHM_MAX_CAPACITY (1ULL << 34)
#define CARET_SHM_DEFAULT_CAPACITY (64ULL << 20)

/* Agent state, the values of CARET's Status.msg: X(value, name). The names
 * are the ones caretd, caretctl and caret-agentctl print. */
#define CARET_STATES(X)         \
	X(0, UNINITIALIZED)     \
	X(1, WAIT)              \
	X(2, PREPARE)           \
	X(3, RECORD)

enum caret_state {
#define CARET_STATE_ENUM_(v, name) CARET_STATE_##name = v,
	CARET_STATES(CARET_STATE_ENUM_)
#undef CARET_STATE_ENUM_
};
#define CARET_STATE_MAX CARET_STATE_RECORD

/* agent_flags bits (agent writes, atomic). */
enum caret_agent_flags {
	/* Replay thread is running and waits on `doorbell`. */
	CARET_AGENT_REPLAY_THREAD = 1u << 0,
	/* The ros2_caret provider could not be loaded: nothing is emitted. */
	CARET_AGENT_NO_TRACEPOINTS = 1u << 1,
	/* The last PREPARE timed out waiting for tracepoints to be enabled. */
	CARET_AGENT_TP_TIMEOUT = 1u << 2,
	/* The current pass has a pass filter (struct caret_shm_filter) and
	 * the agent applies it. */
	CARET_AGENT_PASS_FILTER = 1u << 3,
	/* The current pass's filter block was malformed: the agent records as
	 * its environment says (see struct caret_shm_filter). */
	CARET_AGENT_FILTER_BAD = 1u << 4,
	/* Set at start: the process's DDS discovers this host only (agent/
	 * count.c's caret_count_host_only), so every writer it takes from
	 * stamps with this host's clock: `top` shows its take latencies. */
	CARET_AGENT_HOST_DISCOVERY = 1u << 5,
};

/* ctrl_flags bits (controller writes, atomic). */
enum caret_ctrl_flags {
	/* The controller knows the active sessions' event rules and decided
	 * CARET_CTRL_INIT_ROS2; without it the agent decides alone. */
	CARET_CTRL_INIT_DECIDED = 1u << 0,
	/* Also emit live init events as the real tracetools ros2:<name>: an
	 * active session records ros2: init events but not ros2_caret ones,
	 * and none records both (a session never gets both kinds). */
	CARET_CTRL_INIT_ROS2 = 1u << 1,
};

/* Pack/unpack the (epoch, count) pairs of `grant` and `cursor`. */
#define CARET_EPOCH_COUNT(epoch, count) \
	(((uint64_t)(uint32_t)(epoch) << 32) | (uint64_t)(uint32_t)(count))
#define CARET_EPOCH_OF(v) ((uint32_t)((uint64_t)(v) >> 32))
#define CARET_COUNT_OF(v) ((uint32_t)(v))

/*
 * The handshake. "ctrl" is the controller that drives the agent (caretd,
 * or caret-agentctl in tests), "agent" the segment's owner. Each move is
 * atomic stores (release) then a FUTEX_WAKE of the word named in brackets,
 * so the other side may sleep on it. Ctl moves `state` by compare-and-swap
 * from the state it read (caret_drive_set_state's `from`): it never
 * overwrites a state the agent, or another controller, changed meanwhile.
 * shm/ implements both columns: caret_drive_* (shm/control.c) and
 * caret_own_* (shm/owner.c); nothing else touches these words.
 *
 *   state (ctrl writes; agent writes it once at start)
 *
 *     UNINITIALIZED --agent: start, no session records ros2_caret--> WAIT
 *     UNINITIALIZED --agent: start, a session already records it---> RECORD
 *                   (both before any ctrl acts: no wake)
 *     WAIT    --ctrl: a session enabling ros2_caret is active
 *                    (begin_replay)--------------------------------> PREPARE
 *     WAIT    --ctrl: only sessions without ros2_caret events------> RECORD
 *     PREPARE --ctrl: cursor of this epoch reached `records`-------> RECORD
 *     PREPARE --ctrl: no session active any more (End)-------------> WAIT
 *     RECORD  --ctrl: no session active any more (End)-------------> WAIT
 *
 *   (caret-agentctl `state` may also set any state by hand, for tests:
 *   from the state it reads, refused when that changed meanwhile.)
 *
 *   one replay pass (epoch e), in order:
 *
 *     1. ctrl    grant = (e, 0), then state = PREPARE, doorbell++
 *               [state, doorbell] (begin_replay; the epoch first, so
 *               whoever sees PREPARE sees the new pass). For an agent
 *               already in RECORD when another session becomes active:
 *               grant = (e, 0), doorbell++ with state left RECORD
 *               (begin_pass: runtime events keep flowing; step 6 then
 *               changes nothing).
 *     2. agent  sees grant's epoch change: cursor = (e, 0),
 *               progress++                                     [progress]
 *     3. agent  waits until its ros2_caret tracepoints are enabled, emits
 *               caret_init, clears TP_TIMEOUT,
 *               tp_enabled_epoch = e, progress++               [progress]
 *               (or, after $CARET_AGENT_TP_WAIT_MS, sets TP_TIMEOUT,
 *               progress++, and retries at the next doorbell, which
 *               ctrl rings now and then while it sees TP_TIMEOUT)
 *     4. ctrl    grant = (e, n) with n growing at the paced rate,
 *               doorbell++                                     [doorbell]
 *     5. agent  emits records up to n, replayed += k,
 *               cursor = (e, n), progress++                    [progress]
 *     6. ctrl    when cursor == (e, records): state = RECORD    [state]
 *
 *   A new epoch (step 1 again) abandons the pass in flight: the agent
 *   restarts from the first record. Epoch 0 means "no pass yet".
 *
 *   Every init record reaches each session a pass is for exactly once:
 *   either live (emitted by the application thread that created it) or
 *   replayed, never both. The agent alone decides, per record, through the
 *   record's claim word (struct caret_rec_hdr; no controller writes it,
 *   and caretd reads it only when it adopts an agent found in RECORD after
 *   a restart, to tell a pass it cut: daemon/agents/sched_pass.c sched_pass_cut).
 *   With G the grant's epoch the agent reads after committing the record:
 *
 *     state     tracepoints          live                  replayed by
 *     WAIT      any                  no                    the next pass
 *     PREPARE   tp_enabled_epoch!=G  no                    pass G
 *     PREPARE   tp_enabled_epoch==G  yes, claimed for G    - (pass G skips it)
 *     RECORD    any                  yes, claimed for G    passes after G
 *
 *   (A record the filters keep from its live emission is not claimed: the
 *   passes decide with theirs. Without a segment or a replay thread, or
 *   when the cache is full, a record is live in every state, as nothing
 *   could replay it.)
 *
 *   Live: compare-and-swap of claim 0 -> G+1, and emitted only when it
 *   succeeds. Replay in pass e: compare-and-swap of a claim below e+1 ->
 *   e+1, and emitted only when it succeeds; a claim of e+1 or above was
 *   emitted live since pass e began (in every session pass e is for) and is
 *   skipped. So a live emission racing the replay of the same record emits
 *   it once. None is lost: the agent commits a record, increments
 *   `records`, then reads `state`, `grant` and `tp_enabled_epoch` (all
 *   sequentially consistent, as the controller's state moves and the
 *   agent's store of tp_enabled_epoch). A record it leaves to pass G was
 *   counted before the controller moved WAIT -> PREPARE, or before step 3,
 *   after which the pass walks every committed record; step 6 needs step 3
 *   first, and from step 3 on every new record is live. A record created
 *   in WAIT while a session already records (`lttng start` before
 *   caretd's Start) is replayed once by the pass that follows, not also
 *   emitted live.
 *
 *   Still twice: a record emitted live after a new session's tracepoints
 *   are on in this process but before the controller opens the pass for
 *   it (a process cannot tell when LTTng enabled another session's events
 *   in it; caretd waits until it surely did), and, with a rotating
 *   session, one emitted live between the rotation and the next pass: the
 *   pass replays it into the session, or the new chunk, again.
 *
 *   ctrl_flags (ctrl writes, agent reads at each live init event): whether
 *   live init events also go to the real tracetools (ros2:), decided from
 *   the active sessions' event rules (enum caret_ctrl_flags).
 */
struct caret_shm_header {
	/* ---- identity: written once by the agent before `state` leaves
	 * UNINITIALIZED; constant afterwards ---- */
	uint64_t magic;          /* CARET_SHM_MAGIC */
	uint32_t layout_version; /* CARET_SHM_LAYOUT_VERSION */
	uint32_t header_size;    /* CARET_SHM_HEADER_SIZE: record area offset */
	uint64_t capacity;       /* segment size in bytes (== file size) */
	int32_t pid;             /* getpid() of the owner */
	uint32_t uid;            /* getuid() of the owner */
	uint64_t start_time;     /* /proc/<pid>/stat field 22 of the owner */
	char procname[16];       /* comm of the owner, NUL-terminated */
	char distribution[16];   /* $ROS_DISTRO at agent start, NUL-terminated */
	int64_t created_ns;      /* CLOCK_MONOTONIC ns when the segment was made */

	/* ---- control, written by the controller (caretd) ---- */
	/* futex, atomic: enum caret_state. The agent also writes it once, at
	 * start (RECORD if a session already records ros2_caret events, else
	 * WAIT). Runtime hooks read it with one relaxed load. */
	uint32_t state;
	/* futex, atomic: the controller increments it after every change of
	 * `grant`; the replay thread sleeps on it. */
	uint32_t doorbell;
	/* atomic: CARET_EPOCH_COUNT(epoch, n). A new epoch starts a replay pass
	 * from the first record; n is how many records of the cache the agent
	 * may have emitted in this pass (a rate limiter, may exceed `records`). */
	uint64_t grant;

	/* ---- replay progress, written by the agent ---- */
	/* atomic: CARET_EPOCH_COUNT(epoch, n): n records of pass `epoch` have
	 * been emitted. */
	uint64_t cursor;
	/* futex, atomic: epoch whose ros2_caret tracepoints the agent saw
	 * enabled (LTTng enables UST events asynchronously after `lttng
	 * start`; replaying earlier loses events). caret_init has been emitted
	 * for that epoch when this is set. */
	uint32_t tp_enabled_epoch;
	/* futex, atomic: incremented by the agent after it changes `cursor` or
	 * `tp_enabled_epoch`; controllers may sleep on it. */
	uint32_t progress;

	/* ---- cache counters, written by the agent (atomic) ---- */
	uint64_t tail;          /* bytes of the record area reserved so far */
	uint64_t records;       /* records committed */
	uint64_t dropped;       /* records not cached because the area was full */
	uint64_t dropped_bytes; /* their encoded size */
	uint64_t replayed;      /* records emitted by replay, all epochs */
	uint32_t agent_flags;   /* enum caret_agent_flags */
	/* atomic, written by the controller: enum caret_ctrl_flags (was
	 * reserved, zero: old agents ignore it, old controllers leave it 0) */
	uint32_t ctrl_flags;
	/* ---- `top`'s counters (issue 35), in what was reserved: zero in
	 * an older agent's segment, so it has none and an older caretd
	 * never watches; no layout version change (caret_hdr_validate
	 * refuses every other version, which would cut old agents off) ---- */
	/* atomic, written by the controller: 0 unwatched, else
	 * CARET_CTR_WATCH(session, generation): the watch (a new session each
	 * time one begins: a call that started in another is not paired
	 * with an end in this one) and the generation the per-generation
	 * maxima belong to. Runtime hooks read it with one relaxed load, like
	 * `state`. */
	uint32_t watched;
	/* identity (written before `magic`): slots of the counter area,
	 * 0: none (the segment is too small, or an older agent) */
	uint32_t ctr_slots;
	/* identity: byte offset of the counter area, the file's last
	 * ctr_slots * sizeof(struct caret_ctr_slot) bytes; the record area
	 * ends there */
	uint64_t ctr_offset;
	/* atomic, agent: events not counted because every slot was taken */
	uint64_t ctr_lost;
	uint64_t reserved[29];  /* zero; room for compatible growth */
};

/* The header is shared by programs built separately (an old agent, a new
 * caretd): every offset is part of the layout version. Futex words (state,
 * doorbell, tp_enabled_epoch, progress) are 4-byte aligned, 64-bit atomics
 * 8-byte aligned, as these offsets show. */
#define CARET_HDR_AT_(field, off)                                              \
	_Static_assert(__builtin_offsetof(struct caret_shm_header, field) == off, \
		       "caret_shm_header." #field " moved");
CARET_HDR_AT_(magic, 0)
CARET_HDR_AT_(layout_version, 8)
CARET_HDR_AT_(header_size, 12)
CARET_HDR_AT_(capacity, 16)
CARET_HDR_AT_(pid, 24)
CARET_HDR_AT_(uid, 28)
CARET_HDR_AT_(start_time, 32)
CARET_HDR_AT_(procname, 40)
CARET_HDR_AT_(distribution, 56)
CARET_HDR_AT_(created_ns, 72)
CARET_HDR_AT_(state, 80)
CARET_HDR_AT_(doorbell, 84)
CARET_HDR_AT_(grant, 88)
CARET_HDR_AT_(cursor, 96)
CARET_HDR_AT_(tp_enabled_epoch, 104)
CARET_HDR_AT_(progress, 108)
CARET_HDR_AT_(tail, 112)
CARET_HDR_AT_(records, 120)
CARET_HDR_AT_(dropped, 128)
CARET_HDR_AT_(dropped_bytes, 136)
CARET_HDR_AT_(replayed, 144)
CARET_HDR_AT_(agent_flags, 152)
CARET_HDR_AT_(ctrl_flags, 156)
CARET_HDR_AT_(watched, 160)
CARET_HDR_AT_(ctr_slots, 164)
CARET_HDR_AT_(ctr_offset, 168)
CARET_HDR_AT_(ctr_lost, 176)
CARET_HDR_AT_(reserved, 184)
#undef CARET_HDR_AT_
_Static_assert(sizeof(struct caret_shm_header) == 416, "caret_shm_header size");
_Static_assert(sizeof(struct caret_shm_header) <= CARET_SHM_HEADER_SIZE,
	       "header must fit its page");

/*
 * The pass filter: the node/topic filters of the Start that began a replay
 * pass (CARET's Start message fields select_nodes, ignore_nodes,
 * select_topics, ignore_topics; caretctl record's --select-nodes ...), in
 * the header page after struct caret_shm_header, at
 * CARET_SHM_FILTER_OFFSET. Written by the controller only, before the
 * pass's epoch is stored in `grant`; zero (epoch 0: no filter) in a new
 * segment, so old controllers never filter and old agents ignore it.
 *
 *   ctrl    epoch = 0, then len[] and text, then epoch = e (release), then
 *          begin_replay with that same epoch e (caret_drive_stage_filter).
 *          Setting state WAIT (End) stores epoch = 0: the recording the
 *          filter was for is over.
 *   agent  at the start of pass e: epoch == e (acquire), copy, epoch still
 *          e after the copy (else the block was rewritten: no filter);
 *          validates the copy; while RECORD, its runtime hooks apply the
 *          filter as long as epoch still reads e (one relaxed load).
 *
 * Each list is what the environment variable of the same name holds
 * (CARET_SELECT_NODES ...: ':'-separated regular expressions, "*" for
 * everything), UTF-8, no NUL; len[i] bytes of list i follow those of
 * list i-1 in text, sum(len) <= CARET_SHM_FILTER_TEXT_MAX. The agent
 * combines them with its environment's filters: a node/topic is recorded
 * only if both allow it (environment filters are per process, a Start's
 * filters narrow one recording). A block that fails these checks is
 * treated as no filter, as caret_trace treats a filter variable it cannot
 * read (tracing_controller.cpp get_env_var: ""), and flagged
 * (CARET_AGENT_FILTER_BAD).
 */
enum caret_filter_list {
	CARET_FILTER_SELECT_NODES,
	CARET_FILTER_IGNORE_NODES,
	CARET_FILTER_SELECT_TOPICS,
	CARET_FILTER_IGNORE_TOPICS,
	CARET_FILTER_LISTS
};
#define CARET_SHM_FILTER_OFFSET 2048u
#define CARET_SHM_FILTER_TEXT_MAX 2032u
struct caret_shm_filter {
	uint32_t epoch;                  /* atomic: the pass it is for; 0: none */
	uint32_t reserved;               /* zero */
	uint16_t len[CARET_FILTER_LISTS]; /* bytes of each list in text */
	char text[CARET_SHM_FILTER_TEXT_MAX];
};
_Static_assert(sizeof(struct caret_shm_filter) == 2048, "caret_shm_filter size");
_Static_assert(CARET_SHM_FILTER_OFFSET >= sizeof(struct caret_shm_header) &&
		       CARET_SHM_FILTER_OFFSET + sizeof(struct caret_shm_filter) <=
			       CARET_SHM_HEADER_SIZE,
	       "the pass filter lies in the header page, after the header");

/*
 * Replayed records per CPU (issue 34), in the header page between the
 * header and the pass filter: slot c counts, of the records `replayed`
 * counts, those the replay thread emitted while it ran on CPU c (claimed
 * and let through by the pass filter; sched_getcpu() before
 * each: lttng-ust writes an event into the ring of the CPU its thread runs
 * on), for CPUs below CARET_SHM_CPUS. The agent adds to the slots (relaxed)
 * before it adds the same records to `replayed` (release), so a controller
 * that reads `replayed` (acquire) and then the slots sees every record
 * `replayed` counts in some slot, or in none: what `replayed` grew by
 * beyond the slots' growth (and the filtered count's, below) ran on a CPU the slots do not cover, or was
 * replayed by an agent that has none (an older one leaves them zero), and
 * may be on any CPU. No layout version change: zero in an older agent's
 * segment, ignored by an older controller.
 */
#define CARET_SHM_CPUS 64u
#define CARET_SHM_CPU_OFFSET 1024u
_Static_assert(CARET_SHM_CPU_OFFSET >= sizeof(struct caret_shm_header) &&
		       CARET_SHM_CPU_OFFSET + CARET_SHM_CPUS * sizeof(uint64_t) <=
			       CARET_SHM_FILTER_OFFSET,
	       "the per-CPU counts lie in the header page, between the header and the filter");
/*
 * Replayed records the pass filter kept out of the trace, after the CPU
 * slots: counted, like them, before the `replayed` that includes them, so
 * that a controller tells a record that wrote nothing from one on a CPU
 * no slot covers (which may be on any CPU). Zero in an older agent's
 * segment (its filtered records then count on their CPU, as they did).
 */
#define CARET_SHM_SKIPPED_OFFSET (CARET_SHM_CPU_OFFSET + CARET_SHM_CPUS * 8u)
_Static_assert(CARET_SHM_SKIPPED_OFFSET + sizeof(uint64_t) <= CARET_SHM_FILTER_OFFSET,
	       "the filtered count lies in the header page, before the filter");

#endif
