/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin_msg.h"
#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/rmw.h"

static const char rmw_identifier[] = "rmw_cyclonedds_cpp";

/*
 * Used only when CYCLONEDDS_URI is unset: keep discovery and data on the
 * loopback interface (as ROS_LOCALHOST_ONLY does) so tests neither depend
 * on nor leak onto the host network.
 */
static const char localhost_config[] =
	"<CycloneDDS><Domain><General><Interfaces>"
	"<NetworkInterface address=\"127.0.0.1\" multicast=\"true\"/>"
	"</Interfaces></General></Domain></CycloneDDS>";

static dds_domainid_t pick_domain(int domain)
{
	const char *env = getenv("ROS_DOMAIN_ID");

	if (domain >= 0)
		return (dds_domainid_t)domain;
	if (env && *env)
		return (dds_domainid_t)strtoul(env, NULL, 10);
	return 0;
}

int wl_rmw_init(struct wl_rmw_context *ctx, int domain)
{
	dds_domainid_t id = pick_domain(domain);
	const char *uri = getenv("CYCLONEDDS_URI");

	ctx->implementation_identifier = rmw_identifier;
	if (!uri || !*uri) {
		dds_entity_t d = dds_create_domain(id, localhost_config);

		if (d < 0) {
			fprintf(stderr, "caret-standin: dds_create_domain: %s\n",
				dds_strretcode(d));
			return -1;
		}
	}
	ctx->participant = dds_create_participant(id, NULL, NULL);
	if (ctx->participant < 0) {
		fprintf(stderr, "caret-standin: dds_create_participant: %s\n",
			dds_strretcode(ctx->participant));
		return -1;
	}
	return 0;
}

void wl_rmw_shutdown(struct wl_rmw_context *ctx)
{
	/* Deleting everything also tells remote readers we are gone. */
	dds_delete(DDS_CYCLONEDDS_HANDLE);
	ctx->participant = 0;
}

struct wl_rmw_handle *wl_rmw_create_handle(const char *name)
{
	struct wl_rmw_handle *h = calloc(1, sizeof(*h));

	if (h) {
		h->implementation_identifier = rmw_identifier;
		h->name = name;
	}
	return h;
}

/* ROS topic "/a/b" is DDS topic "rt/a/b", as in every DDS-based rmw. */
static dds_entity_t create_topic(struct wl_rmw_context *ctx, const char *topic)
{
	char name[256];

	snprintf(name, sizeof(name), "rt%s", topic);
	return dds_create_topic(ctx->participant,
		&standin_msgs_msg_dds__Sample__desc, name, NULL, NULL);
}

static dds_qos_t *endpoint_qos(unsigned depth)
{
	dds_qos_t *q = dds_create_qos();

	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, (int32_t)depth);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	return q;
}

/* The gid is the DDS GUID, zero-padded to the rmw storage size. */
static void fill_gid(dds_entity_t e, uint8_t gid[WL_GID_SIZE])
{
	dds_guid_t guid;

	memset(gid, 0, WL_GID_SIZE);
	if (dds_get_guid(e, &guid) == DDS_RETCODE_OK)
		memcpy(gid, guid.v, sizeof(guid.v));
}

struct wl_rmw_publisher *wl_rmw_create_publisher(struct wl_rmw_context *ctx,
	const char *topic, unsigned depth)
{
	struct wl_rmw_publisher *p = calloc(1, sizeof(*p));
	dds_entity_t t = create_topic(ctx, topic);
	dds_qos_t *q = endpoint_qos(depth);

	if (!p || t < 0)
		goto fail;
	p->implementation_identifier = rmw_identifier;
	p->writer = dds_create_writer(ctx->participant, t, q, NULL);
	if (p->writer < 0)
		goto fail;
	dds_delete_qos(q);
	fill_gid(p->writer, p->gid);
	ros_trace_rmw_publisher_init(p, p->gid);
	return p;
fail:
	fprintf(stderr, "caret-standin: cannot create writer for %s\n", topic);
	dds_delete_qos(q);
	free(p);
	return NULL;
}

struct wl_rmw_subscription *wl_rmw_create_subscription(
	struct wl_rmw_context *ctx, const char *topic, unsigned depth)
{
	struct wl_rmw_subscription *s = calloc(1, sizeof(*s));
	dds_entity_t t = create_topic(ctx, topic);
	dds_qos_t *q = endpoint_qos(depth);

	if (!s || t < 0)
		goto fail;
	s->implementation_identifier = rmw_identifier;
	s->reader = dds_create_reader(ctx->participant, t, q, NULL);
	if (s->reader < 0)
		goto fail;
	s->readcond = dds_create_readcondition(s->reader, DDS_ANY_STATE);
	if (s->readcond < 0)
		goto fail;
	dds_delete_qos(q);
	fill_gid(s->reader, s->gid);
	ros_trace_rmw_subscription_init(s, s->gid);
	return s;
fail:
	fprintf(stderr, "caret-standin: cannot create reader for %s\n", topic);
	dds_delete_qos(q);
	free(s);
	return NULL;
}

/*
 * Jazzy's rmw_cyclonedds stamps the sample itself so the trace and the
 * DDS source timestamp agree. Humble had no timestamp in rmw_publish; a
 * CARET agent interposes dds_write there and takes its own.
 */
int wl_rmw_publish(struct wl_rmw_publisher *pub, const void *msg,
	enum wl_distro distro)
{
	dds_return_t rc;

	if (distro == WL_DISTRO_HUMBLE) {
		ros_trace_rmw_publish(pub, msg, 0);
		rc = dds_write(pub->writer, msg);
	} else {
		int64_t ts = dds_time();

		ros_trace_rmw_publish(pub, msg, ts);
		rc = dds_write_ts(pub->writer, msg, ts);
	}
	return rc == DDS_RETCODE_OK ? 0 : -1;
}

/* Invalid samples (writer gone) are consumed silently, as rmw does. */
bool wl_rmw_take(struct wl_rmw_subscription *sub, void *msg)
{
	void *samples[1] = { msg };
	dds_sample_info_t info;
	bool taken = false;
	int64_t source_ts = 0;

	while (dds_take(sub->reader, samples, &info, 1, 1) == 1) {
		if (info.valid_data) {
			taken = true;
			source_ts = info.source_timestamp;
			break;
		}
	}
	ros_trace_rmw_take(sub, msg, source_ts, taken);
	return taken;
}
