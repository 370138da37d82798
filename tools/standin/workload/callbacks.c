/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Callback bodies and the rclcpp end of the message path. Messages are
 * heap-allocated per call, as rclcpp's default memory strategy does, so
 * message addresses in the trace behave like real ones (and get reused).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/rcl.h"
#include "tools/standin/workload/util.h"

typedef struct standin_sample wl_msg;

/*
 * rclcpp humble/jazzy publisher.hpp publish(const SerializedMessage &) ->
 * do_serialized_publish -> rcl_publish_serialized_message: no
 * rclcpp_publish tracepoint on this path. The message is serialized first
 * (rclcpp::Serialization -> rmw_serialize), as a relay or bag player has.
 */
static void publish_serialized(struct wl_publisher *p, const wl_msg *msg)
{
	rmw_serialized_message_t *ser = &p->serialized;

	ser->buffer = p->serialized_buf;
	ser->buffer_capacity = sizeof(p->serialized_buf);
	ser->buffer_length = 0;
	if (rmw_serialize(msg, NULL, ser) != RMW_RET_OK) {
		wl_count_publish_result(RMW_RET_ERROR);
		return;
	}
	wl_rcl_publish_serialized(p, ser);
}

static void publish_one(struct wl_publisher *p)
{
	wl_msg *msg = calloc(1, sizeof(*msg));

	if (!msg)
		return;
	msg->seq = ++p->seq;
	msg->stamp_ns = wl_now_ns();
	msg->publisher_id = p->id;
	memset(msg->data, (int)(msg->seq & 0xff), sizeof(msg->data));
	if (p->node->opt->serialized) {
		publish_serialized(p, msg);
		free(msg);
		return;
	}
	/* rclcpp passes no publisher handle here (publisher.hpp,
	 * humble l.455 and jazzy l.452: rclcpp_publish(nullptr, &msg)). */
	ros_trace_rclcpp_publish(NULL, msg);
	wl_rcl_publish(p, msg);
	free(msg);
}

/* rclcpp Client::async_send_request -> rcl_send_request: the request
 * is the client's to keep until rmw_send_request returns. */
static void call_one(struct wl_service *c)
{
	wl_msg req = { .seq = 0 };

	req.stamp_ns = wl_now_ns();
	wl_rcl_send_request(c, &req);
}

void wl_execute_timer(struct wl_timer *t)
{
	ros_trace_callback_start(t->callback, false);
	if (t->publishes)
		for (unsigned i = 0; i < t->node->opt->pubs; i++)
			publish_one(t->node->pubs[i]);
	if (t->calls)
		for (unsigned i = 0; i < t->node->opt->clients; i++)
			call_one(t->node->clients[i]);
	/* the user's work runs between the two tracepoints, as in rclcpp's
	 * GenericTimer::execute_callback (include/rclcpp/timer.hpp: humble
	 * l.229-231, jazzy l.291-293: callback_start, the callback through
	 * execute_callback_delegate, callback_end) */
	if (t->node->opt->timer_work_ms)
		wl_sleep_ns((int64_t)t->node->opt->timer_work_ms * 1000000);
	ros_trace_callback_end(t->callback);
}

/*
 * rclcpp Executor::execute_service: take_type_erased_request
 * (rcl_take_request), handle_request -> AnyServiceCallback::dispatch
 * (callback_start/callback_end around the user callback, with the
 * registered AnyServiceCallback as identity), then send_response.
 */
bool wl_execute_service(struct wl_service *s)
{
	wl_msg req, resp;
	rmw_request_id_t id;

	if (!wl_rcl_take_request(s, &req, &id))
		return false;
	wl_count_served();
	ros_trace_callback_start(s->callback, false);
	resp = req;
	ros_trace_callback_end(s->callback);
	wl_rcl_send_response(s, &id, &resp);
	return true;
}

/* Executor::execute_client: take_type_erased_response, handle_response
 * (no callback tracepoints). */
bool wl_execute_client(struct wl_service *c)
{
	wl_msg resp;

	if (!wl_rcl_take_response(c, &resp))
		return false;
	wl_count_answered();
	return true;
}

bool wl_execute_subscription(struct wl_subscription *s)
{
	wl_msg *msg = calloc(1, sizeof(*msg));
	int64_t source_ts = 0;
	bool taken;

	if (!msg)
		return false;
	taken = wl_rcl_take(s, msg, &source_ts);
	if (taken) {
		ros_trace_rclcpp_take(msg);
		wl_count_taken();
		/* Upstream rclcpp calls no dispatch_subscription_callback
		 * (only CARET's fork does): subscription.hpp handle_message ->
		 * AnySubscriptionCallback::dispatch -> callback_start. */
		ros_trace_callback_start(s->callback, false);
		ros_trace_callback_end(s->callback);
	}
	free(msg);
	return taken;
}
