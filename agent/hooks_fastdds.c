/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FastDDS write hooks (rmw_fastrtps_cpp, the default RMW of Humble and
 * Jazzy). Facts:
 *   - ros2/rmw_fastrtps rmw_fastrtps_shared_cpp/src/rmw_publish.cpp:
 *     humble publishes with `data_writer_->write(&data)`
 *     (eprosima::fastdds::dds::DataWriter::write(void*), returns bool);
 *     jazzy with `write_w_timestamp(&data, HANDLE_NIL, stamp)` where stamp
 *     is an eprosima::fastrtps::Time_t from Time_t::now().
 *   - Fast-DDS 2.6.x / 2.9.x / 2.14.x src/cpp/rtps/common/Time_t.cpp:
 *     rtps::Time_t::set_nanosec picks the wire fraction so that
 *     frac_to_nano(fraction) == nanosec, so the reader's
 *     SampleInfo::source_timestamp (what rmw_take reports) is exactly the
 *     seconds/nanosec given to write_w_timestamp.
 *   - fastrtps::Time_t is { int32_t seconds; uint32_t nanosec; }
 *     (fastdds/rtps/common/Time_t.h); ReturnCode_t wraps one uint32_t,
 *     RETCODE_OK = 0 (fastrtps/types/TypesBase.h), returned in a register.
 *   - libfastrtps.so.2.9 (Debian 12) exports both DataWriter functions and
 *     eprosima::fastdds::dds::HANDLE_NIL (nm -D).
 * caret_trace binds in WriterHistory::set_fragments reading
 * CacheChange_t::sourceTimestamp, a layout that differs between FastDDS
 * versions; the public write path needs no layout. The analyzer joins
 * dds_bind_addr_to_stamp by thread and time (caret_analyze
 * records_source.py merge_sequential on tid), not by address, and
 * caret_trace writes a null addr there (it has no message address in
 * set_fragments): so do we. `data` would be rmw_fastrtps's serialization
 * wrapper on the publishing thread's stack, an address that can equal a
 * dds_write message address of the same process by chance (seen on
 * Humble) and so mislead a tool that joins by address.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/resolve.h"
#include "agent/state.h"

#define SYM_DW_WRITE "_ZN8eprosima7fastdds3dds10DataWriter5writeEPv"
#define SYM_DW_WRITE_TS \
	"_ZN8eprosima7fastdds3dds10DataWriter17write_w_timestampEPvRKNS_8fastrtps4rtps16InstanceHandle_tERKNS4_6Time_tE"
#define SYM_HANDLE_NIL "_ZN8eprosima7fastdds3dds10HANDLE_NILE"

struct fastrtps_time {
	int32_t seconds;
	uint32_t nanosec;
};

typedef bool (*dw_write_fn)(void *, void *);
typedef uint32_t (*dw_write_ts_fn)(void *, void *, const void *, const struct fastrtps_time *);

static struct caret_fn real_write, real_write_ts, handle_nil;

CARET_EXPORT bool caret_hook_dw_write(void *self, void *data) __asm__(SYM_DW_WRITE);
CARET_EXPORT uint32_t caret_hook_dw_write_ts(void *self, void *data, const void *handle,
					     const struct fastrtps_time *ts)
	__asm__(SYM_DW_WRITE_TS);

/* caret_trace's set_fragments hook binds only after a recorded
 * rcl_publish on this thread. */
static bool binding(void)
{
	return caret_recording() && caret_tp && caret_tls_publish_kept;
}

static uint64_t ns_of(const struct fastrtps_time *t)
{
	return (uint64_t)((int64_t)t->seconds * 1000000000LL + t->nanosec);
}

/* write(data) is write_w_timestamp(data, HANDLE_NIL, now) with the clock
 * Time_t::now reads (system_clock): take it here so it is known. */
bool caret_hook_dw_write(void *self, void *data)
{
	if (binding()) {
		dw_write_ts_fn f = (dw_write_ts_fn)caret_real(&real_write_ts, SYM_DW_WRITE_TS);
		const void *nil = caret_global(&handle_nil, SYM_HANDLE_NIL);
		if (f && nil) {
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			struct fastrtps_time t = { (int32_t)now.tv_sec, (uint32_t)now.tv_nsec };
			caret_tp->dds_bind_addr_to_stamp(NULL, ns_of(&t));
			return f(self, data, nil, &t) == 0;
		}
	}
	dw_write_fn f = (dw_write_fn)caret_real(&real_write, SYM_DW_WRITE);
	return f ? f(self, data) : false;
}

uint32_t caret_hook_dw_write_ts(void *self, void *data, const void *handle,
				const struct fastrtps_time *ts)
{
	if (binding() && ts)
		caret_tp->dds_bind_addr_to_stamp(NULL, ns_of(ts));
	dw_write_ts_fn f = (dw_write_ts_fn)caret_real(&real_write_ts, SYM_DW_WRITE_TS);
	return f ? f(self, data, handle, ts) : 1u /* RETCODE_ERROR */;
}
