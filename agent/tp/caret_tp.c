/* SPDX-License-Identifier: Apache-2.0 */
/* libcaret-agent-tp.so and libcaret-agent-tp-humble.so (CARET_TP_PRE_JAZZY):
 * the ros2_caret probes and their C entry points. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "agent/tp/caret_tp.h"

#include "agent/tp/caret_tp_api.h"

static int tp_enabled(void)
{
	return lttng_ust_tracepoint_enabled(ros2_caret, caret_init) ||
	       lttng_ust_tracepoint_enabled(ros2_caret, rcl_node_init);
}

static void tp_emit_record(uint32_t kind, int64_t ts, const union caret_arg *v)
{
	switch (kind) {
#include "caret_tp_emit.h"
	default:
		break;
	}
}

static void tp_caret_init(int64_t clock_offset, const char *distribution)
{
	lttng_ust_tracepoint(ros2_caret, caret_init, clock_offset, distribution);
}

static void tp_replay_mark(int end, uint64_t pass, uint64_t records)
{
	if (end)
		lttng_ust_tracepoint(ros2_caret, caret_replay_end, pass, records);
	else
		lttng_ust_tracepoint(ros2_caret, caret_replay_begin, pass, records);
}

static void tp_dds_write(const void *pub, const void *msg, int64_t ts)
{
	lttng_ust_tracepoint(ros2_caret, dds_write, pub, msg, ts);
}

static void tp_bind(const void *addr, uint64_t stamp)
{
	lttng_ust_tracepoint(ros2_caret, dds_bind_addr_to_stamp, addr, stamp);
}

__attribute__((visibility("default")))
const struct caret_tp_api caret_tp_api_v1 = {
	.version = CARET_TP_API_VERSION,
	.enabled = tp_enabled,
	.emit_record = tp_emit_record,
	.caret_init = tp_caret_init,
	.dds_write = tp_dds_write,
	.dds_bind_addr_to_stamp = tp_bind,
	.replay_mark = tp_replay_mark,
};
