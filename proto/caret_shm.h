/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd shared-memory contract, layout version 1.
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
 *
 * All multi-byte values are native-endian (segments never leave the host).
 * Fields marked "atomic" are accessed only with __atomic builtins; fields
 * marked "futex" are 32-bit aligned words used with FUTEX_WAIT/FUTEX_WAKE
 * (non-private: the waiters are in different processes).
 */
#ifndef CARET_PROTO_SHM_H
#define CARET_PROTO_SHM_H

#include <stdint.h>

/* "CARETSHM" little-endian; a reader rejects anything else. */
#define CARET_SHM_MAGIC 0x4d48535445524143ULL
#define CARET_SHM_LAYOUT_VERSION 1u

/*
 * Segment name: "/<prefix>.<pid>.<start_time>" where start_time is field 22
 * of /proc/<pid>/stat (clock ticks since boot). pid + start time names one
 * process forever, even after pid reuse. The prefix defaults to
 * CARET_SHM_DEFAULT_PREFIX and may be overridden by $CARET_SHM_PREFIX
 * (letters, digits, '-', '_' only) so tests can isolate themselves.
 */
#define CARET_SHM_DEFAULT_PREFIX "caret-agent"
#define CARET_SHM_PREFIX_MAX 32
#define CARET_SHM_NAME_MAX 96

#define CARET_SHM_HEADER_SIZE 4096u
/* Smallest and largest segment a reader accepts (the agent's default is
 * CARET_SHM_DEFAULT_CAPACITY, sparse: only touched pages use memory). */
#define CARET_SHM_MIN_CAPACITY (CARET_SHM_HEADER_SIZE + 4096u)
#define CARET_SHM_MAX_CAPACITY (1ULL << 34)
#define CARET_SHM_DEFAULT_CAPACITY (64ULL << 20)

/* Agent state, the values of CARET's Status.msg. */
enum caret_state {
	CARET_STATE_UNINITIALIZED = 0,
	CARET_STATE_WAIT = 1,
	CARET_STATE_PREPARE = 2,
	CARET_STATE_RECORD = 3,
};

/* agent_flags bits (agent writes, atomic). */
enum caret_agent_flags {
	/* Replay thread is running and waits on `doorbell`. */
	CARET_AGENT_REPLAY_THREAD = 1u << 0,
	/* The ros2_caret provider could not be loaded: nothing is emitted. */
	CARET_AGENT_NO_TRACEPOINTS = 1u << 1,
	/* The last PREPARE timed out waiting for tracepoints to be enabled. */
	CARET_AGENT_TP_TIMEOUT = 1u << 2,
};

/* ctl_flags bits (controller writes, atomic). */
enum caret_ctl_flags {
	/* The controller knows the active sessions' event rules and decided
	 * CARET_CTL_INIT_ROS2; without it the agent decides alone. */
	CARET_CTL_INIT_DECIDED = 1u << 0,
	/* Also emit live init events as the real tracetools ros2:<name>: an
	 * active session records ros2: init events but not ros2_caret ones,
	 * and none records both (a session never gets both kinds). */
	CARET_CTL_INIT_ROS2 = 1u << 1,
};

/* Pack/unpack the (epoch, count) pairs of `grant` and `cursor`. */
#define CARET_EPOCH_COUNT(epoch, count) \
	(((uint64_t)(uint32_t)(epoch) << 32) | (uint64_t)(uint32_t)(count))
#define CARET_EPOCH_OF(v) ((uint32_t)((uint64_t)(v) >> 32))
#define CARET_COUNT_OF(v) ((uint32_t)(v))

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
	/* atomic, written by the controller: enum caret_ctl_flags (was
	 * reserved, zero: old agents ignore it, old controllers leave it 0) */
	uint32_t ctl_flags;
	uint64_t reserved[32];  /* zero; room for compatible growth */
};

_Static_assert(sizeof(struct caret_shm_header) <= CARET_SHM_HEADER_SIZE,
	       "header must fit its page");
_Static_assert(__builtin_offsetof(struct caret_shm_header, state) % 8 == 0,
	       "futex words stay naturally aligned");

/*
 * Record encoding. A record is 8-byte aligned and starts with:
 *
 *   uint32_t kind;            enum caret_kind; 0 while the record is being
 *                             written. The writer stores `kind` last with
 *                             release order: a reader that sees it non-zero
 *                             (acquire) sees the whole record.
 *   uint32_t size;            whole record in bytes, header included,
 *                             multiple of 8, <= CARET_REC_MAX.
 *   int64_t  init_timestamp;  CLOCK_MONOTONIC ns (the LTTng UST clock) read
 *                             when the hook ran.
 *
 * followed by the fields of the kind, in the order of its signature string
 * (CARET_KINDS below), packed without padding:
 *   'p' pointer, 'i' int64, 'u' uint64 : 8 bytes
 *   's' string : uint32 length L (bytes, no NUL, L <= CARET_STR_MAX),
 *                then L bytes, then one NUL byte
 * and zero padding up to `size`. Records are appended at `tail` and never
 * move or change once committed.
 */
struct caret_rec_hdr {
	uint32_t kind;
	uint32_t size;
	int64_t init_timestamp;
};

#define CARET_REC_ALIGN 8u
#define CARET_REC_MAX 65536u
#define CARET_STR_MAX 4096u
#define CARET_MAX_FIELDS 6u

/*
 * Init record kinds: X(id, event name, field signature, field names).
 * The event is emitted as ros2_caret:<name> with these fields (CARET's
 * names) followed by int64 init_timestamp. Ids are part of the layout:
 * never renumber, only append.
 */
#define CARET_KINDS(X)                                                        \
	X(1, rcl_init, "p", "context_handle")                                 \
	X(2, rcl_node_init, "ppss", "node_handle,rmw_handle,node_name,namespace") \
	X(3, rcl_publisher_init, "pppsu",                                     \
	  "publisher_handle,node_handle,rmw_publisher_handle,topic_name,queue_depth") \
	X(4, rcl_subscription_init, "pppsu",                                  \
	  "subscription_handle,node_handle,rmw_subscription_handle,topic_name,queue_depth") \
	X(5, rclcpp_subscription_init, "pp", "subscription_handle,subscription") \
	X(6, rclcpp_subscription_callback_added, "pp", "subscription,callback") \
	X(7, rcl_service_init, "ppps",                                        \
	  "service_handle,node_handle,rmw_service_handle,service_name")       \
	X(8, rclcpp_service_callback_added, "pp", "service_handle,callback")  \
	X(9, rcl_client_init, "ppps",                                         \
	  "client_handle,node_handle,rmw_client_handle,service_name")         \
	X(10, rcl_timer_init, "pi", "timer_handle,period")                    \
	X(11, rclcpp_timer_callback_added, "pp", "timer_handle,callback")     \
	X(12, rclcpp_timer_link_node, "pp", "timer_handle,node_handle")       \
	X(13, rclcpp_callback_register, "ps", "callback,symbol")              \
	X(14, rcl_lifecycle_state_machine_init, "pp", "node_handle,state_machine") \
	X(15, rclcpp_construct_ring_buffer, "pu", "buffer,capacity")          \
	X(16, rclcpp_buffer_to_ipb, "pp", "buffer,ipb")                       \
	X(17, rclcpp_ipb_to_subscription, "pp", "ipb,subscription")           \
	X(18, rmw_implementation, "s", "rmw_impl")                            \
	X(19, construct_executor, "ps", "executor_addr,executor_type_name")   \
	X(20, construct_static_executor, "pps",                               \
	  "executor_addr,entities_collector_addr,executor_type_name")         \
	X(21, add_callback_group, "pps",                                      \
	  "executor_addr,callback_group_addr,group_type_name")                \
	X(22, add_callback_group_static_executor, "pps",                      \
	  "entities_collector_addr,callback_group_addr,group_type_name")      \
	X(23, callback_group_add_timer, "pp", "callback_group_addr,timer_handle") \
	X(24, callback_group_add_subscription, "pp",                          \
	  "callback_group_addr,subscription_handle")                          \
	X(25, callback_group_add_service, "pp", "callback_group_addr,service_handle") \
	X(26, callback_group_add_client, "pp", "callback_group_addr,client_handle")

enum caret_kind {
	CARET_KIND_NONE = 0,
#define CARET_KIND_ENUM_(id, name, sig, fields) CARET_KIND_##name = id,
	CARET_KINDS(CARET_KIND_ENUM_)
#undef CARET_KIND_ENUM_
	CARET_KIND_COUNT
};

#endif
