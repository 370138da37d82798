/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stand-in's rmw API: the slice of ros2/rmw's rmw/rmw.h the workload
 * needs, under the real function names with the real argument order, and
 * reduced types (the stand-in has one message type and no rosidl).
 *
 * Three libraries define these functions, as in ROS 2:
 *   librmw_implementation.so  what rcl links; forwards every call to the
 *                             RMW library it loads (rmw_implementation's
 *                             functions.cpp: dlsym on a handle from
 *                             rcutils' dlopen(path, RTLD_LAZY), local scope);
 *   librmw_cyclonedds_cpp.so  over CycloneDDS (libddsc);
 *   librmw_fastrtps_cpp.so    over Fast DDS 2.9 (libfastrtps).
 */
#ifndef STANDIN_RMW_H
#define STANDIN_RMW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t rmw_ret_t;
#define RMW_RET_OK 0
#define RMW_RET_ERROR 1

#define STANDIN_RMW_GID_SIZE 24	/* RMW_GID_STORAGE_SIZE */
#define STANDIN_RMW_PAYLOAD 32

/* The one message type (standin_msgs/msg/Sample): plain C layout, the
 * same as the idlc-generated CycloneDDS type. */
struct standin_sample {
	uint64_t seq;
	int64_t stamp_ns;
	uint32_t publisher_id;
	uint8_t data[STANDIN_RMW_PAYLOAD];
};

/* rmw_init_options_t reduced to the domain. */
typedef struct rmw_init_options_t {
	size_t domain_id;
} rmw_init_options_t;

/* Like rmw's handles: identifier first, implementation data second. */
typedef struct rmw_context_t {
	const char *implementation_identifier;
	void *impl;
} rmw_context_t;

typedef struct rmw_node_t {
	const char *implementation_identifier;
	void *data;
	const char *name;
	const char *namespace_;
	rmw_context_t *context;
} rmw_node_t;

typedef struct rmw_publisher_t {
	const char *implementation_identifier;
	void *data;
	const char *topic_name;
	uint8_t gid[STANDIN_RMW_GID_SIZE];
} rmw_publisher_t;

typedef struct rmw_subscription_t {
	const char *implementation_identifier;
	void *data;
	const char *topic_name;
	uint8_t gid[STANDIN_RMW_GID_SIZE];
} rmw_subscription_t;

/* rmw_qos_profile_t reduced to what the stand-in sets. */
typedef struct rmw_qos_profile_t {
	size_t depth;
} rmw_qos_profile_t;

typedef struct rmw_message_info_t {
	int64_t source_timestamp;
	int64_t received_timestamp;
} rmw_message_info_t;

/* rmw_serialized_message_t is rcutils_uint8_array_t (rcutils
 * types/uint8_array.h): buffer, length, capacity and an allocator; the
 * stand-in's caller owns the buffer, so the allocator is left out. */
typedef struct rmw_serialized_message_t {
	uint8_t *buffer;
	size_t buffer_length;
	size_t buffer_capacity;
} rmw_serialized_message_t;

/* Services (one type: standin_msgs/srv/Echo, request and response both a
 * Sample). Handles as rmw_service_t / rmw_client_t: identifier first,
 * implementation data second, then the name. */
typedef struct rmw_service_t {
	const char *implementation_identifier;
	void *data;
	const char *service_name;
} rmw_service_t;

typedef struct rmw_client_t {
	const char *implementation_identifier;
	void *data;
	const char *service_name;
} rmw_client_t;

typedef struct rmw_request_id_t {
	int8_t writer_guid[16];
	int64_t sequence_number;
} rmw_request_id_t;

typedef struct rmw_service_info_t {
	int64_t source_timestamp;
	int64_t received_timestamp;
	rmw_request_id_t request_id;
} rmw_service_info_t;

typedef void (*rmw_event_callback_t)(const void *user_data,
	size_t number_of_events);

const char *rmw_get_implementation_identifier(void);
rmw_ret_t rmw_init(const rmw_init_options_t *options, rmw_context_t *context);
rmw_ret_t rmw_shutdown(rmw_context_t *context);
rmw_node_t *rmw_create_node(rmw_context_t *context, const char *name,
	const char *namespace_);
/* type_support and publisher_options are unused (one message type). */
rmw_publisher_t *rmw_create_publisher(const rmw_node_t *node,
	const void *type_support, const char *topic_name,
	const rmw_qos_profile_t *qos_profile, const void *publisher_options);
rmw_subscription_t *rmw_create_subscription(const rmw_node_t *node,
	const void *type_support, const char *topic_name,
	const rmw_qos_profile_t *qos_policies,
	const void *subscription_options);
rmw_ret_t rmw_publish(const rmw_publisher_t *publisher,
	const void *ros_message, void *allocation);
/* rclcpp's Publisher::publish(const SerializedMessage &) reaches this
 * through rcl_publish_serialized_message (no rcl_publish tracepoint). */
rmw_ret_t rmw_publish_serialized_message(const rmw_publisher_t *publisher,
	const rmw_serialized_message_t *serialized_message, void *allocation);
/* What rclcpp::Serialization::serialize_message calls; type_support is
 * unused. Fails when the buffer's capacity is too small. */
rmw_ret_t rmw_serialize(const void *ros_message, const void *type_support,
	rmw_serialized_message_t *serialized_message);
rmw_ret_t rmw_take_with_info(const rmw_subscription_t *subscription,
	void *ros_message, bool *taken, rmw_message_info_t *message_info,
	void *allocation);
rmw_service_t *rmw_create_service(const rmw_node_t *node,
	const void *type_support, const char *service_name,
	const rmw_qos_profile_t *qos_profile);
rmw_client_t *rmw_create_client(const rmw_node_t *node,
	const void *type_support, const char *service_name,
	const rmw_qos_profile_t *qos_profile);
rmw_ret_t rmw_send_request(const rmw_client_t *client,
	const void *ros_request, int64_t *sequence_id);
rmw_ret_t rmw_take_request(const rmw_service_t *service,
	rmw_service_info_t *request_header, void *ros_request, bool *taken);
rmw_ret_t rmw_send_response(const rmw_service_t *service,
	rmw_request_id_t *request_header, void *ros_response);
rmw_ret_t rmw_take_response(const rmw_client_t *client,
	rmw_service_info_t *request_header, void *ros_response, bool *taken);
rmw_ret_t rmw_service_set_on_new_request_callback(rmw_service_t *service,
	rmw_event_callback_t callback, const void *user_data);
rmw_ret_t rmw_client_set_on_new_response_callback(rmw_client_t *client,
	rmw_event_callback_t callback, const void *user_data);
rmw_ret_t rmw_subscription_set_on_new_message_callback(
	rmw_subscription_t *subscription, rmw_event_callback_t callback,
	const void *user_data);

#ifdef __cplusplus
}
#endif

#endif
