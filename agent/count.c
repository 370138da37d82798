/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s counting (count.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/count.h"
#include "agent/state.h"

static struct caret_seg *count_seg;

void caret_count_use(struct caret_seg *s)
{
	static const uint32_t unwatched;
	__atomic_store_n(&count_seg, s, __ATOMIC_RELEASE);
	__atomic_store_n(&caret_watched_word, s ? caret_own_watched_word(s) : &unwatched,
			 __ATOMIC_RELEASE);
}

/* The callbacks running on this thread, innermost last: an executor may
 * run a callback from inside another (spin_some in a callback). */
#define NEST_MAX 8
static __thread struct {
	const void *cb[NEST_MAX];
	int64_t t0[NEST_MAX];
	uint32_t watch[NEST_MAX]; /* `watched` at the start */
	unsigned depth;
} tls_calls __attribute__((tls_model("initial-exec")));

void caret_count_callback_start(const void *callback, uint32_t watch)
{
	unsigned d = tls_calls.depth;
	/* entries whose end came while unwatched stay behind: beyond a
	 * nesting no executor makes, they are those, and go */
	if (d >= NEST_MAX)
		d = 0;
	tls_calls.cb[d] = callback;
	tls_calls.t0[d] = caret_now_ns();
	tls_calls.watch[d] = watch;
	tls_calls.depth = d + 1;
}

void caret_count_callback_end(const void *callback, uint32_t generation)
{
	unsigned d = tls_calls.depth;
	if (!d)
		return; /* started while unwatched */
	tls_calls.depth = --d;
	if (tls_calls.cb[d] != callback ||
	    CARET_CTR_WATCH_SESSION(tls_calls.watch[d]) != CARET_CTR_WATCH_SESSION(generation)) {
		/* a start missed (this watch began inside the call): forget
		 * what this thread holds rather than pair the wrong ones, or
		 * a start of an earlier watch (whose end came unwatched) with
		 * this end, seconds or minutes later */
		tls_calls.depth = 0;
		return;
	}
	int64_t dt = caret_now_ns() - tls_calls.t0[d];
	struct caret_seg *s = __atomic_load_n(&count_seg, __ATOMIC_ACQUIRE);
	caret_own_count(s, CARET_CTR_CALLBACK, callback, dt > 0 ? (uint64_t)dt : 0, generation);
}

void caret_count_message(enum caret_ctr_kind kind, const void *handle, uint32_t generation)
{
	caret_own_count(__atomic_load_n(&count_seg, __ATOMIC_ACQUIRE), kind, handle, 0, generation);
}

/*
 * The clock of rmw_take's source_timestamp is the writer's CLOCK_REALTIME
 * on both RMWs, so it is read here too:
 *   - CycloneDDS: rmw_cyclonedds rmw_node.cpp stamps with dds_time()
 *     (humble l.1834 dds_write, which stamps dds_time() itself; jazzy
 *     l.1967-1969 dds_write_ts(.., dds_time())), "the current time in
 *     nanoseconds since the UNIX Epoch" (dds/ddsrt/time.h:94-99, 0.10.2);
 *     rmw_node.cpp computes this same difference for its late-message
 *     report (humble l.3161-3162, jazzy l.3314-3315).
 *   - Fast DDS 2.14.6: Time_t::now reads std::chrono::system_clock
 *     (src/cpp/rtps/common/Time_t.cpp:48, :121, :279), used when the
 *     writer gives no stamp (src/cpp/rtps/history/WriterHistory.cpp:91,
 *     humble's write(&data), rmw_publish.cpp l.61) and by jazzy's
 *     rmw_publish.cpp l.63-65 (Time_t::now then write_w_timestamp);
 *     rmw_take.cpp l.53 reports SampleInfo::source_timestamp.to_ns().
 * CLOCK_REALTIME is also the one clock time namespaces leave alone, so
 * containers on one host share it. Whether the writer is on this host
 * is caretd's to decide (daemon/server/top_scope.c): the agent measures.
 */
void caret_count_take(const void *subscription, int64_t source_timestamp, uint32_t generation)
{
	struct caret_seg *s = __atomic_load_n(&count_seg, __ATOMIC_ACQUIRE);
	int64_t lat = 0;
	if (source_timestamp) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		lat = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - source_timestamp;
	}
	caret_own_take(s, subscription, source_timestamp != 0, lat, generation);
}

static bool set(const char *v)
{
	return v && v[0];
}

/*
 * rcl's rules (rcl 9.2.0, jazzy): ROS_LOCALHOST_ONLY=1 makes the range
 * LOCALHOST and drops the static peers (src/rcl/init.c:188-193, the
 * value read in localhost.c:45-49); otherwise ROS_AUTOMATIC_DISCOVERY_
 * RANGE=LOCALHOST or OFF (discovery_options.c:68-71) with no
 * ROS_STATIC_PEERS. Humble knows ROS_LOCALHOST_ONLY only. A DDS
 * configuration file may name other interfaces or peers whatever rcl
 * says: then nothing is proven.
 */
bool caret_count_host_only(const struct caret_discovery_env *e)
{
	if (set(e->cyclonedds_uri) || set(e->fastrtps_xml) || set(e->fastdds_xml))
		return false;
	if (e->localhost_only && !strcmp(e->localhost_only, "1"))
		return true;
	if (!e->jazzy || set(e->static_peers) || !e->range)
		return false;
	return !strcmp(e->range, "LOCALHOST") || !strcmp(e->range, "OFF");
}

void caret_count_scope(struct caret_seg *s, bool jazzy)
{
	struct caret_discovery_env e = {
		.localhost_only = getenv("ROS_LOCALHOST_ONLY"),
		.range = getenv("ROS_AUTOMATIC_DISCOVERY_RANGE"),
		.static_peers = getenv("ROS_STATIC_PEERS"),
		.cyclonedds_uri = getenv("CYCLONEDDS_URI"),
		.fastrtps_xml = getenv("FASTRTPS_DEFAULT_PROFILES_FILE"),
		.fastdds_xml = getenv("FASTDDS_DEFAULT_PROFILES_FILE"),
		.jazzy = jazzy,
	};
	if (caret_count_host_only(&e))
		caret_own_set_flags(s, CARET_AGENT_HOST_DISCOVERY, 0);
}
