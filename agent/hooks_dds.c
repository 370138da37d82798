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

CARET_EXPORT dds_return_t dds_write(dds_entity_t writer, const void *data);
CARET_EXPORT dds_return_t dds_write_ts(dds_entity_t writer, const void *data,
				       dds_time_t timestamp);
CARET_EXPORT dds_return_t dds_writecdr(dds_entity_t writer, struct ddsi_serdata *serdata);

static struct caret_fn real_write, real_write_ts, real_writecdr, real_forwardcdr;

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

/* dds_writecdr stamps the sample itself with dds_time(); do that here and
 * hand it to dds_forwardcdr, which sends it with the timestamp as is. */
dds_return_t dds_writecdr(dds_entity_t writer, struct ddsi_serdata *serdata)
{
	if (binding() && kept_by_distro() && serdata) {
		writecdr_fn fw = (writecdr_fn)caret_real(&real_forwardcdr, "dds_forwardcdr");
		if (fw) {
			serdata->statusinfo = 0;
			serdata->timestamp.v = wallclock_ns();
			caret_tp->dds_bind_addr_to_stamp(serdata,
							 (uint64_t)serdata->timestamp.v);
			return fw(writer, serdata);
		}
	}
	writecdr_fn f = (writecdr_fn)caret_real(&real_writecdr, "dds_writecdr");
	return f ? f(writer, serdata) : DDS_RETCODE_ERROR;
}
