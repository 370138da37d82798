/* SPDX-License-Identifier: Apache-2.0 */
/*
 * librmw_cyclonedds_cpp.so: the rmw API over CycloneDDS, with the publish
 * and take paths of ros2/rmw_cyclonedds (rmw_cyclonedds_cpp/src/rmw_node.cpp):
 *   humble (7cb3b38a): TRACEPOINT(rmw_publish, ros_message);
 *                      dds_write(pub->enth, ros_message)
 *   jazzy  (2ec6f21c): tstamp = dds_time();
 *                      TRACETOOLS_TRACEPOINT(rmw_publish, publisher,
 *                        ros_message, tstamp);
 *                      dds_write_ts(pub->enth, ros_message, tstamp)
 *   take (both): rmw_take(subscription, ros_message,
 *                         info.source_timestamp, taken)
 * and rmw_publish_serialized_message:
 *   humble: d = serdata_rmw_from_serialized_message(pub->sertype, ...);
 *           dds_writecdr(pub->enth, d)          (no tracepoint)
 *   jazzy:  tstamp = dds_time();
 *           TRACETOOLS_TRACEPOINT(rmw_publish, publisher,
 *             serialized_message, tstamp);
 *           d = serdata_rmw_from_serialized_message(...);
 *           d->timestamp.v = tstamp; d->statusinfo = 0;
 *           dds_forwardcdr(pub->enth, d)
 * Every topic uses the RMW's own sertype (dds_create_topic_sertype, as
 * upstream's create_topic), kept per publisher for the serialized path.
 * Built once per distribution (STANDIN_HUMBLE selects the Humble path and
 * the Humble tracetools signature).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "tools/standin/rmw/cdds_common.h"
#include "tools/standin/rmw/cdds_serdata.h"
#include "tools/standin/rmw/rmw.h"
#include "tools/standin/rmw/standin_cdr.h"
#include "tools/standin/tracetools/tracetools.h"

const char cdds_identifier[] = "rmw_cyclonedds_cpp";
/* What rmw_cyclonedds names a ROS type: pkg::msg::dds_::Type_. */
static const char type_name[] = "standin_msgs::msg::dds_::Sample_";

/*
 * Used only when CYCLONEDDS_URI is unset: keep discovery and data on the
 * loopback interface (as ROS_LOCALHOST_ONLY does) so tests neither depend
 * on nor leak onto the host network.
 */
static const char localhost_config[] =
	"<CycloneDDS><Domain><General><Interfaces>"
	"<NetworkInterface address=\"127.0.0.1\" multicast=\"true\"/>"
	"</Interfaces></General></Domain></CycloneDDS>";

/* CddsPublisher: the writer and the sertype actually used by its topic. */
struct cdds_pub {
	dds_entity_t enth;
	struct ddsi_sertype *sertype;
};

struct cdds_sub {
	dds_entity_t reader;
	rmw_event_callback_t cb;
	const void *user;
};

const char *rmw_get_implementation_identifier(void)
{
	return cdds_identifier;
}

rmw_ret_t rmw_init(const rmw_init_options_t *options, rmw_context_t *context)
{
	dds_domainid_t id = (dds_domainid_t)options->domain_id;
	const char *uri = getenv("CYCLONEDDS_URI");
	dds_entity_t pp;

	if (!uri || !*uri) {
		dds_entity_t d = dds_create_domain(id, localhost_config);

		if (d < 0) {
			fprintf(stderr, "rmw_cyclonedds: dds_create_domain: %s\n",
				dds_strretcode(d));
			return RMW_RET_ERROR;
		}
	}
	pp = dds_create_participant(id, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "rmw_cyclonedds: dds_create_participant: %s\n",
			dds_strretcode(pp));
		return RMW_RET_ERROR;
	}
	context->implementation_identifier = cdds_identifier;
	context->impl = (void *)(intptr_t)pp;
	return RMW_RET_OK;
}

rmw_ret_t rmw_shutdown(rmw_context_t *context)
{
	/* Deleting everything also tells remote readers we are gone. */
	dds_delete(DDS_CYCLONEDDS_HANDLE);
	context->impl = NULL;
	return RMW_RET_OK;
}

rmw_node_t *rmw_create_node(rmw_context_t *context, const char *name,
	const char *namespace_)
{
	rmw_node_t *n = calloc(1, sizeof(*n));

	if (n) {
		n->implementation_identifier = cdds_identifier;
		n->name = name;
		n->namespace_ = namespace_;
		n->context = context;
	}
	return n;
}

dds_entity_t cdds_participant(const rmw_node_t *node)
{
	return (dds_entity_t)(intptr_t)node->context->impl;
}

/* dds_create_topic_sertype takes the reference over on success and
 * returns the sertype actually used (maybe an earlier equal one). */
dds_entity_t cdds_create_topic(dds_entity_t pp, const char *dds_name,
	const char *dds_type, bool request_header, struct ddsi_sertype **used)
{
	struct ddsi_sertype *st = standin_sertype_new(dds_type, request_header);
	dds_entity_t tp;

	if (!st)
		return DDS_RETCODE_OUT_OF_RESOURCES;
	tp = dds_create_topic_sertype(pp, dds_name, &st, NULL, NULL, NULL);
	if (tp < 0)
		ddsi_sertype_unref(st);
	else if (used)
		*used = st;
	return tp;
}

/* ROS topic "/a/b" is DDS topic "rt/a/b", as in every DDS-based rmw. */
static dds_entity_t create_topic(dds_entity_t pp, const char *topic,
	struct ddsi_sertype **used)
{
	char name[256];

	snprintf(name, sizeof(name), "rt%s", topic);
	return cdds_create_topic(pp, name, type_name, false, used);
}

dds_qos_t *cdds_endpoint_qos(size_t depth)
{
	dds_qos_t *q = dds_create_qos();

	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, (int32_t)depth);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	return q;
}

/* The gid is the DDS GUID, zero-padded to the rmw storage size. */
static void fill_gid(dds_entity_t e, uint8_t gid[STANDIN_RMW_GID_SIZE])
{
	dds_guid_t guid;

	memset(gid, 0, STANDIN_RMW_GID_SIZE);
	if (dds_get_guid(e, &guid) == DDS_RETCODE_OK)
		memcpy(gid, guid.v, sizeof(guid.v));
}

rmw_publisher_t *rmw_create_publisher(const rmw_node_t *node,
	const void *type_support, const char *topic_name,
	const rmw_qos_profile_t *qos_profile, const void *publisher_options)
{
	rmw_publisher_t *p = calloc(1, sizeof(*p));
	struct cdds_pub *cp = calloc(1, sizeof(*cp));
	struct ddsi_sertype *st = NULL;
	dds_entity_t t = create_topic(cdds_participant(node), topic_name, &st);
	dds_qos_t *q = cdds_endpoint_qos(qos_profile->depth);
	dds_entity_t w = -1;

	(void)type_support;
	(void)publisher_options;
	if (p && cp && t >= 0)
		w = dds_create_writer(cdds_participant(node), t, q, NULL);
	dds_delete_qos(q);
	if (w < 0) {
		fprintf(stderr, "rmw_cyclonedds: no writer for %s\n",
			topic_name);
		free(p);
		free(cp);
		return NULL;
	}
	cp->enth = w;
	cp->sertype = st;
	p->implementation_identifier = cdds_identifier;
	p->data = cp;
	p->topic_name = topic_name;
	fill_gid(w, p->gid);
	ros_trace_rmw_publisher_init(p, p->gid);
	return p;
}

static void on_data_available(dds_entity_t reader, void *arg)
{
	struct cdds_sub *s = arg;
	rmw_event_callback_t cb = __atomic_load_n(&s->cb, __ATOMIC_ACQUIRE);

	(void)reader;
	if (cb)
		cb(s->user, 1);
}

rmw_subscription_t *rmw_create_subscription(const rmw_node_t *node,
	const void *type_support, const char *topic_name,
	const rmw_qos_profile_t *qos_policies,
	const void *subscription_options)
{
	rmw_subscription_t *r = calloc(1, sizeof(*r));
	struct cdds_sub *s = calloc(1, sizeof(*s));
	dds_entity_t t = create_topic(cdds_participant(node), topic_name, NULL);
	dds_qos_t *q = cdds_endpoint_qos(qos_policies->depth);
	dds_listener_t *l = dds_create_listener(s);

	(void)type_support;
	(void)subscription_options;
	s->reader = -1;
	dds_lset_data_available(l, on_data_available);
	if (r && t >= 0)
		s->reader = dds_create_reader(cdds_participant(node), t, q, l);
	dds_delete_qos(q);
	dds_delete_listener(l);
	if (s->reader < 0) {
		fprintf(stderr, "rmw_cyclonedds: no reader for %s\n",
			topic_name);
		free(r);
		free(s);
		return NULL;
	}
	r->implementation_identifier = cdds_identifier;
	r->data = s;
	r->topic_name = topic_name;
	fill_gid(s->reader, r->gid);
	ros_trace_rmw_subscription_init(r, r->gid);
	return r;
}

rmw_ret_t rmw_subscription_set_on_new_message_callback(
	rmw_subscription_t *subscription, rmw_event_callback_t callback,
	const void *user_data)
{
	struct cdds_sub *s = subscription->data;

	s->user = user_data;
	__atomic_store_n(&s->cb, callback, __ATOMIC_RELEASE);
	return RMW_RET_OK;
}

rmw_ret_t rmw_publish(const rmw_publisher_t *publisher,
	const void *ros_message, void *allocation)
{
	dds_entity_t w = ((const struct cdds_pub *)publisher->data)->enth;
	dds_return_t rc;

	(void)allocation;
#ifdef STANDIN_HUMBLE
	ros_trace_rmw_publish(ros_message);
	rc = dds_write(w, ros_message);
#else
	{
		const dds_time_t tstamp = dds_time();

		ros_trace_rmw_publish(publisher, ros_message, tstamp);
		rc = dds_write_ts(w, ros_message, tstamp);
	}
#endif
	return rc >= 0 ? RMW_RET_OK : RMW_RET_ERROR;
}

rmw_ret_t rmw_publish_serialized_message(const rmw_publisher_t *publisher,
	const rmw_serialized_message_t *serialized_message, void *allocation)
{
	const struct cdds_pub *pub = publisher->data;
	struct ddsi_serdata *d;
	dds_return_t rc;

	(void)allocation;
#ifdef STANDIN_HUMBLE
	d = standin_serdata_from_serialized(pub->sertype,
		serialized_message->buffer, serialized_message->buffer_length);
	if (!d)
		return RMW_RET_ERROR;
	rc = dds_writecdr(pub->enth, d);
#else
	{
		const dds_time_t tstamp = dds_time();

		ros_trace_rmw_publish(publisher, serialized_message, tstamp);
		d = standin_serdata_from_serialized(pub->sertype,
			serialized_message->buffer,
			serialized_message->buffer_length);
		if (!d)
			return RMW_RET_ERROR;
		d->timestamp.v = tstamp;
		d->statusinfo = 0;
		rc = dds_forwardcdr(pub->enth, d);
	}
#endif
	return rc >= 0 ? RMW_RET_OK : RMW_RET_ERROR;
}

/* rmw_cyclonedds: serialize with the type's CDR writer into the buffer. */
rmw_ret_t rmw_serialize(const void *ros_message, const void *type_support,
	rmw_serialized_message_t *serialized_message)
{
	(void)type_support;
	if (serialized_message->buffer_capacity < STANDIN_CDR_SIZE)
		return RMW_RET_ERROR;
	standin_cdr_write(ros_message, serialized_message->buffer);
	serialized_message->buffer_length = STANDIN_CDR_SIZE;
	return RMW_RET_OK;
}

/* Invalid samples (writer gone) are consumed silently, as rmw does. */
rmw_ret_t rmw_take_with_info(const rmw_subscription_t *subscription,
	void *ros_message, bool *taken, rmw_message_info_t *message_info,
	void *allocation)
{
	struct cdds_sub *s = subscription->data;
	void *samples[1] = { ros_message };
	dds_sample_info_t info;

	(void)allocation;
	*taken = false;
	while (dds_take(s->reader, samples, &info, 1, 1) == 1) {
		if (info.valid_data) {
			*taken = true;
			message_info->source_timestamp = info.source_timestamp;
			message_info->received_timestamp = dds_time();
			break;
		}
	}
	ros_trace_rmw_take(subscription, ros_message,
		*taken ? message_info->source_timestamp : 0, *taken);
	return RMW_RET_OK;
}
