/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The record area of a caret segment (proto/caret_segment.h, which
 * includes this): how each init record is encoded, and the one list of
 * their kinds. Layout version 2 as the segment's header says it.
 */
#ifndef CARET_PROTO_SEG_RECORDS_H
#define CARET_PROTO_SEG_RECORDS_H

#include <stdint.h>

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
 *   uint64_t claim;           atomic, the agent's alone: 0 until the record
 *                             is first emitted, then 1 + the epoch of the
 *                             pass it was last emitted for (the exactly-once
 *                             handshake of proto/caret_segment.h). It
 *                             changes after commit, so
 *                             readers other than the agent ignore it.
 *
 * followed by the fields of the kind, in the order of its signature string
 * (CARET_KINDS below), packed without padding:
 *   'p' pointer, 'i' int64, 'u' uint64 : 8 bytes
 *   's' string : uint32 length L (bytes, no NUL, L <= CARET_STR_MAX),
 *                then L bytes, then one NUL byte
 * and zero padding up to `size`. Records are appended at `tail` and never
 * move or change once committed, but for `claim`.
 */
struct caret_rec_hdr {
	uint32_t kind;
	uint32_t size;
	int64_t init_timestamp;
	uint64_t claim;
};
_Static_assert(sizeof(struct caret_rec_hdr) == 24 &&
		       __builtin_offsetof(struct caret_rec_hdr, claim) == 16,
	       "caret_rec_hdr is part of layout version 2");

#define CARET_REC_ALIGN 8u
#define CARET_REC_MAX 65536u
#define CARET_STR_MAX 4096u
#define CARET_MAX_FIELDS 6u

/*
 * Init record kinds: X(id, event name, field signature, field names[,
 * TRACETOOLS]). The one list of kinds: the build generates from it (see
 * proto/gen/gen_kinds.c, output in build/gen) the ros2_caret event
 * declarations, the provider's emit switch, the typed capture functions
 * caret_capture_<name>(), the agent's tracetools hooks (for the kinds
 * marked TRACETOOLS: ros_trace_<name>, ros_trace_do_<name>,
 * ros_trace_enabled_<name>) and the Python tests' kind list. Unmarked
 * kinds are captured by the agent's own code (rclcpp hooks, rcl_init's
 * hook, which also records rmw_implementation).
 * The event is emitted as ros2_caret:<name> with these fields (CARET's
 * names; 'p' as integer_hex, 'i' int64, 'u' uint64, 's' string) followed
 * by int64 init_timestamp: tests/unit/check_tp_layout.c compares them with
 * CARET's event definitions. Ids are part of the layout and dense: never
 * renumber, only append.
 */
#define CARET_KINDS(X)                                                        \
	X(1, rcl_init, "p", "context_handle")                                 \
	X(2, rcl_node_init, "ppss", "node_handle,rmw_handle,node_name,namespace", TRACETOOLS) \
	X(3, rcl_publisher_init, "pppsu",                                     \
	  "publisher_handle,node_handle,rmw_publisher_handle,topic_name,queue_depth", TRACETOOLS) \
	X(4, rcl_subscription_init, "pppsu",                                  \
	  "subscription_handle,node_handle,rmw_subscription_handle,topic_name,queue_depth", TRACETOOLS) \
	X(5, rclcpp_subscription_init, "pp", "subscription_handle,subscription", TRACETOOLS) \
	X(6, rclcpp_subscription_callback_added, "pp", "subscription,callback", TRACETOOLS) \
	X(7, rcl_service_init, "ppps",                                        \
	  "service_handle,node_handle,rmw_service_handle,service_name", TRACETOOLS)       \
	X(8, rclcpp_service_callback_added, "pp", "service_handle,callback", TRACETOOLS)  \
	X(9, rcl_client_init, "ppps",                                         \
	  "client_handle,node_handle,rmw_client_handle,service_name", TRACETOOLS)         \
	X(10, rcl_timer_init, "pi", "timer_handle,period", TRACETOOLS)                    \
	X(11, rclcpp_timer_callback_added, "pp", "timer_handle,callback", TRACETOOLS)     \
	X(12, rclcpp_timer_link_node, "pp", "timer_handle,node_handle", TRACETOOLS)       \
	X(13, rclcpp_callback_register, "ps", "callback,symbol", TRACETOOLS)              \
	X(14, rcl_lifecycle_state_machine_init, "pp", "node_handle,state_machine", TRACETOOLS) \
	X(15, rclcpp_construct_ring_buffer, "pu", "buffer,capacity", TRACETOOLS)          \
	X(16, rclcpp_buffer_to_ipb, "pp", "buffer,ipb", TRACETOOLS)                       \
	X(17, rclcpp_ipb_to_subscription, "pp", "ipb,subscription", TRACETOOLS)           \
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
	X(26, callback_group_add_client, "pp", "callback_group_addr,client_handle") \
	X(27, executor_entity_collector_to_executor, "pp",                    \
	  "executor_addr,entities_collector_addr")                            \
	X(28, callback_group_to_executor_entity_collector, "pps",             \
	  "entities_collector_addr,callback_group_addr,group_type_name")

enum caret_kind {
	CARET_KIND_NONE = 0,
#define CARET_KIND_ENUM_(id, name, sig, fields, ...) CARET_KIND_##name = id,
	CARET_KINDS(CARET_KIND_ENUM_)
#undef CARET_KIND_ENUM_
	CARET_KIND_COUNT
};

#endif
