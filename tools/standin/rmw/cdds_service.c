/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Services and clients of the stand-in's rmw_cyclonedds, as
 * ros2/rmw_cyclonedds rmw_cyclonedds_cpp/src/rmw_node.cpp (humble
 * 7cb3b38a, jazzy 2ec6f21c, same on both) does them: a service is a reader
 * on "rq<name>Request" and a writer on "rr<name>Reply", a client the
 * reverse (make_fqtopic(ROS_SERVICE_REQUESTER_PREFIX / ..._RESPONSE_PREFIX,
 * name, "Request" / "Reply")), over sertypes with the request header in
 * the CDR stream. Every request and response is a plain
 * dds_write(cs->pub->enth, &wrap) of a cdds_request_wrapper_t
 * (rmw_send_response_request), with header.guid = the client's request
 * writer instance handle and header.seq = ++next_request_id (a process-wide
 * counter); rmw_take_request reports writer_guid = header.guid followed by
 * the sample's publication_handle; a client keeps the responses whose
 * header.guid is its own request writer's handle. Not reproduced: the
 * wait of up to 100 ms in rmw_send_response for the client's response
 * reader to be matched (a response sent earlier is lost; tests count what
 * arrives, not that all does).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/standin/rmw/cdds_common.h"
#include "tools/standin/rmw/cdds_serdata.h"

static const char request_type[] = "standin_msgs::srv::dds_::Echo_Request_";
static const char response_type[] = "standin_msgs::srv::dds_::Echo_Response_";

/* CddsCS: one writer, one reader, and the wake-up the executor set. */
struct cdds_cs {
	dds_entity_t pub, sub;
	dds_instance_handle_t pubiid;
	_Atomic(rmw_event_callback_t) cb;
	const void *_Atomic user;
};

static void on_data(dds_entity_t reader, void *arg)
{
	struct cdds_cs *cs = arg;
	rmw_event_callback_t cb = atomic_load(&cs->cb);

	(void)reader;
	if (cb)
		cb(atomic_load(&cs->user), 1);
}

static struct cdds_cs *create_cs(const rmw_node_t *node, const char *name,
	const rmw_qos_profile_t *qos, bool is_service)
{
	dds_entity_t pp = cdds_participant(node);
	char rq[300], rr[300];
	struct cdds_cs *cs = calloc(1, sizeof(*cs));
	dds_entity_t t_rq, t_rr;
	dds_qos_t *q;
	dds_listener_t *l;

	if (!cs)
		return NULL;
	snprintf(rq, sizeof(rq), "rq%sRequest", name);
	snprintf(rr, sizeof(rr), "rr%sReply", name);
	t_rq = cdds_create_topic(pp, rq, request_type, true, NULL);
	t_rr = cdds_create_topic(pp, rr, response_type, true, NULL);
	if (t_rq < 0 || t_rr < 0) {
		fprintf(stderr, "rmw_cyclonedds: no topics for service %s\n", name);
		free(cs);
		return NULL;
	}
	q = cdds_endpoint_qos(qos->depth);
	l = dds_create_listener(cs);
	dds_lset_data_available(l, on_data);
	cs->pub = dds_create_writer(pp, is_service ? t_rr : t_rq, q, NULL);
	cs->sub = dds_create_reader(pp, is_service ? t_rq : t_rr, q, l);
	dds_delete_listener(l);
	dds_delete_qos(q);
	if (cs->pub < 0 || cs->sub < 0 ||
	    dds_get_instance_handle(cs->pub, &cs->pubiid) != DDS_RETCODE_OK) {
		fprintf(stderr, "rmw_cyclonedds: no endpoints for service %s\n", name);
		free(cs);
		return NULL;
	}
	return cs;
}

rmw_service_t *rmw_create_service(const rmw_node_t *node, const void *type_support,
	const char *service_name, const rmw_qos_profile_t *qos_profile)
{
	rmw_service_t *s = calloc(1, sizeof(*s));
	struct cdds_cs *cs = create_cs(node, service_name, qos_profile, true);

	(void)type_support;
	if (!s || !cs) {
		free(s);
		free(cs);
		return NULL;
	}
	s->implementation_identifier = cdds_identifier;
	s->data = cs;
	s->service_name = service_name;
	return s;
}

rmw_client_t *rmw_create_client(const rmw_node_t *node, const void *type_support,
	const char *service_name, const rmw_qos_profile_t *qos_profile)
{
	rmw_client_t *c = calloc(1, sizeof(*c));
	struct cdds_cs *cs = create_cs(node, service_name, qos_profile, false);

	(void)type_support;
	if (!c || !cs) {
		free(c);
		free(cs);
		return NULL;
	}
	c->implementation_identifier = cdds_identifier;
	c->data = cs;
	c->service_name = service_name;
	return c;
}

static rmw_ret_t send_wrapped(const struct cdds_cs *cs, uint64_t guid, int64_t seq, const void *data)
{
	const struct standin_request_wrapper wrap = { { guid, seq }, (void *)data };

	return dds_write(cs->pub, &wrap) >= 0 ? RMW_RET_OK : RMW_RET_ERROR;
}

rmw_ret_t rmw_send_request(const rmw_client_t *client, const void *ros_request,
	int64_t *sequence_id)
{
	static atomic_uint next_request_id;
	const struct cdds_cs *cs = client->data;

	*sequence_id = (int64_t)(atomic_fetch_add(&next_request_id, 1) + 1);
	return send_wrapped(cs, cs->pubiid, *sequence_id, ros_request);
}

rmw_ret_t rmw_send_response(const rmw_service_t *service, rmw_request_id_t *request_header,
	void *ros_response)
{
	uint64_t guid;

	memcpy(&guid, request_header->writer_guid, sizeof(guid));
	return send_wrapped(service->data, guid, request_header->sequence_number, ros_response);
}

/* rmw_take_response_request: srcfilter 0 takes everything. */
static rmw_ret_t take(const struct cdds_cs *cs, rmw_service_info_t *info, void *data,
	bool *taken, dds_instance_handle_t srcfilter)
{
	struct standin_request_wrapper wrap = { { 0, 0 }, data };
	void *ptr = &wrap;
	dds_sample_info_t si;

	*taken = false;
	while (dds_take(cs->sub, &ptr, &si, 1, 1) == 1) {
		if (!si.valid_data)
			continue;
		memcpy(info->request_id.writer_guid, &wrap.header.guid, 8);
		memcpy(info->request_id.writer_guid + 8, &si.publication_handle, 8);
		info->request_id.sequence_number = wrap.header.seq;
		info->source_timestamp = si.source_timestamp;
		info->received_timestamp = 0;
		if (srcfilter == 0 || srcfilter == wrap.header.guid) {
			*taken = true;
			break;
		}
	}
	return RMW_RET_OK;
}

rmw_ret_t rmw_take_request(const rmw_service_t *service, rmw_service_info_t *request_header,
	void *ros_request, bool *taken)
{
	return take(service->data, request_header, ros_request, taken, 0);
}

rmw_ret_t rmw_take_response(const rmw_client_t *client, rmw_service_info_t *request_header,
	void *ros_response, bool *taken)
{
	const struct cdds_cs *cs = client->data;

	return take(cs, request_header, ros_response, taken, cs->pubiid);
}

static void set_callback(struct cdds_cs *cs, rmw_event_callback_t cb, const void *user)
{
	atomic_store(&cs->user, user);
	atomic_store(&cs->cb, cb);
}

rmw_ret_t rmw_service_set_on_new_request_callback(rmw_service_t *service,
	rmw_event_callback_t callback, const void *user_data)
{
	set_callback(service->data, callback, user_data);
	return RMW_RET_OK;
}

rmw_ret_t rmw_client_set_on_new_response_callback(rmw_client_t *client,
	rmw_event_callback_t callback, const void *user_data)
{
	set_callback(client->data, callback, user_data);
	return RMW_RET_OK;
}
