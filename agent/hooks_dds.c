/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CycloneDDS write hooks. In RECORD each written sample is bound to the
 * source timestamp the reader will see (dds_sample_info.source_timestamp,
 * which rmw_take reports), emitted on the publishing thread right after
 * ros2_caret:dds_write. Only the exported entry points can be hooked:
 * dds_write_impl / dds_writecdr_impl are hidden in CycloneDDS 0.10.
 */
#include <time.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

#include "agent/agent.h"
#include "agent/filter.h"
#include "agent/resolve.h"
#include "agent/state.h"

CARET_EXPORT dds_return_t dds_write(dds_entity_t writer, const void *data);
CARET_EXPORT dds_return_t dds_write_ts(dds_entity_t writer, const void *data,
				       dds_time_t timestamp);
CARET_EXPORT dds_return_t dds_writecdr(dds_entity_t writer, struct ddsi_serdata *serdata);

static struct caret_fn real_write, real_write_ts, real_writecdr, real_forwardcdr;
static struct caret_fn real_publish_serialized;

typedef dds_return_t (*write_fn)(dds_entity_t, const void *);
typedef dds_return_t (*write_ts_fn)(dds_entity_t, const void *, dds_time_t);
typedef dds_return_t (*writecdr_fn)(dds_entity_t, struct ddsi_serdata *);

/* dds_time() without linking ddsc: the agent is preloaded everywhere. */
static dds_time_t wallclock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (dds_time_t)ts.tv_sec * DDS_NSECS_IN_SEC + ts.tv_nsec;
}

static bool binding(void)
{
	return caret_recording() && caret_tp;
}

/* caret_trace (hooked_trace_points.cpp): dds_write and dds_writecdr bind
 * only after a recorded rcl_publish on Jazzy and later, always before;
 * dds_write_ts (Jazzy's path) always follows rcl_publish. */
static bool kept_by_distro(void)
{
	return !caret_jazzy_or_later || caret_tls_publish_kept;
}

dds_return_t dds_write(dds_entity_t writer, const void *data)
{
	if (binding() && kept_by_distro()) {
		/* Take the timestamp ourselves so it is known before the
		 * sample leaves: the same call CycloneDDS would make. */
		write_ts_fn f = (write_ts_fn)caret_real(&real_write_ts, "dds_write_ts");
		if (f) {
			dds_time_t ts = wallclock_ns();
			caret_tp->dds_bind_addr_to_stamp(data, (uint64_t)ts);
			return f(writer, data, ts);
		}
	}
	write_fn f = (write_fn)caret_real(&real_write, "dds_write");
	return f ? f(writer, data) : DDS_RETCODE_ERROR;
}

dds_return_t dds_write_ts(dds_entity_t writer, const void *data, dds_time_t timestamp)
{
	if (binding() && caret_tls_publish_kept)
		caret_tp->dds_bind_addr_to_stamp(data, (uint64_t)timestamp);
	write_ts_fn f = (write_ts_fn)caret_real(&real_write_ts, "dds_write_ts");
	return f ? f(writer, data, timestamp) : DDS_RETCODE_ERROR;
}

/*
 * rmw_publish_serialized_message (rcl_publish_serialized_message's callee;
 * rclcpp's publish(const SerializedMessage &)). Facts:
 *   - rcl humble and 9.2.0 (jazzy) src/rcl/publisher.c: no rcl_publish
 *     tracepoint on this path, so nothing else decides for it whether
 *     this thread's publish is recorded;
 *   - rmw_cyclonedds rmw_node.cpp: humble writes with dds_writecdr(enth, d)
 *     and no rmw_publish tracepoint; jazzy traces rmw_publish(publisher,
 *     serialized_message, tstamp), sets d->timestamp.v = tstamp and writes
 *     with dds_forwardcdr (not hooked: the stamp is already in dds_write);
 *   - rmw_fastrtps rmw_publish.cpp: DataWriter::write / write_w_timestamp
 *     of a CDR-buffer SerializedData (hooks_fastdds.c binds those);
 *   - caret_trace hooked_trace_points.cpp hooks this function only to keep
 *     the serialized message's address thread-locally: its dds_writecdr
 *     hook binds that address, not the serdata's.
 * caret_trace leaves the thread's previous rcl_publish decision in place
 * here; the agent decides from this publisher's own filter verdict (the
 * filter keeps one per rmw publisher handle too) and restores the previous
 * decision afterwards, so the other write paths of the thread are as
 * before.
 */
static __thread const void *tls_serialized_message __attribute__((tls_model("initial-exec")));

typedef int32_t (*publish_serialized_fn)(const void *, const void *, void *);
CARET_EXPORT int32_t rmw_publish_serialized_message(const void *publisher,
						    const void *serialized_message,
						    void *allocation);

int32_t rmw_publish_serialized_message(const void *publisher, const void *serialized_message,
				       void *allocation)
{
	publish_serialized_fn f = (publish_serialized_fn)caret_real(
		&real_publish_serialized, "rmw_publish_serialized_message");
	if (!f)
		return 1; /* RMW_RET_ERROR */
	if (__builtin_expect(!caret_recording(), 1))
		return f(publisher, serialized_message, allocation);
	bool kept = caret_tls_publish_kept;
	const void *outer = tls_serialized_message;
	caret_tls_publish_kept = caret_filter_rmw_subscription_allowed(publisher);
	tls_serialized_message = serialized_message;
	int32_t ret = f(publisher, serialized_message, allocation);
	tls_serialized_message = outer;
	caret_tls_publish_kept = kept;
	return ret;
}

/*
 * dds_writecdr stamps the sample itself with dds_time() and then consumes
 * the caller's reference (CycloneDDS 0.10.2 src/core/ddsc/src/dds_write.c:
 * dds_writecdr = statusinfo 0, timestamp dds_time(), dds_writecdr_impl;
 * dds_forwardcdr = dds_writecdr_impl alone). Stamp here and hand it to
 * dds_forwardcdr: the stamp is known before the sample leaves, and the
 * serdata is never read after the reference is gone (caret_trace reads
 * serdata->timestamp.v after the call). The address bound is the
 * serialized message's when the call comes from
 * rmw_publish_serialized_message (as caret_trace), else the serdata's.
 */
dds_return_t dds_writecdr(dds_entity_t writer, struct ddsi_serdata *serdata)
{
	if (binding() && kept_by_distro() && serdata) {
		writecdr_fn fw = (writecdr_fn)caret_real(&real_forwardcdr, "dds_forwardcdr");
		if (fw) {
			const void *addr = tls_serialized_message;
			serdata->statusinfo = 0;
			serdata->timestamp.v = wallclock_ns();
			caret_tp->dds_bind_addr_to_stamp(addr ? addr : (const void *)serdata,
							 (uint64_t)serdata->timestamp.v);
			return fw(writer, serdata);
		}
	}
	writecdr_fn f = (writecdr_fn)caret_real(&real_writecdr, "dds_writecdr");
	return f ? f(writer, serdata) : DDS_RETCODE_ERROR;
}
