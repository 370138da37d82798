/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's counting for `caretctl top` (agent/count.c): a call is
 * paired with its own start, in its own watch, whatever came before. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/count.h"
#include "agent/state.h"
#include "tests/unit/unit.h"

static struct caret_seg seg;
static int cb_a, cb_b;

static void setup(void)
{
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "caret-ucount-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
	ck_assert_int_eq(caret_seg_create(&seg, 1 << 20, "unit", "jazzy"), 0);
	caret_count_use(&seg);
}

static void teardown(void)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, seg.name);
	caret_count_use(NULL);
	caret_seg_close(&seg);
	caret_seg_unlink(name);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

/* The slot of cb, as caretd reads it. */
static struct caret_ctr_slot slot(const void *cb)
{
	static struct caret_ctr_slot t[CARET_CTR_SLOTS];
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++)
		if (t[i].key == CARET_CTR_KEY(CARET_CTR_CALLBACK, (uintptr_t)cb))
			return t[i];
	return (struct caret_ctr_slot){ 0 };
}

START_TEST(count_follows_the_watched_word)
{
	ck_assert_uint_eq(caret_watched(), 0);
	caret_drive_watch(&seg, CARET_CTR_WATCH(1, 1));
	ck_assert_uint_eq(caret_watched(), CARET_CTR_WATCH(1, 1));
	caret_count_use(NULL); /* a forked child: its own 0 */
	ck_assert_uint_eq(caret_watched(), 0);
	caret_count_use(&seg);
}
END_TEST

START_TEST(nested_calls_each_their_duration)
{
	uint32_t w = CARET_CTR_WATCH(1, 1);
	caret_count_callback_start(&cb_a, w);
	sleep_ms(2);
	caret_count_callback_start(&cb_b, w);
	sleep_ms(3);
	caret_count_callback_end(&cb_b, w);
	caret_count_callback_end(&cb_a, w);
	struct caret_ctr_slot a = slot(&cb_a), b = slot(&cb_b);
	ck_assert_uint_eq(a.count, 1);
	ck_assert_uint_eq(b.count, 1);
	ck_assert_uint_ge(b.total_ns, 3000000);
	ck_assert_uint_ge(a.total_ns, b.total_ns + 2000000);
	/* an end without its start (the watch began inside the call) */
	caret_count_callback_end(&cb_a, w);
	ck_assert_uint_eq(slot(&cb_a).count, 1);
}
END_TEST

/* A start whose end came while unwatched is never paired with an end of
 * a later watch: a call in progress when that watch begins is not
 * counted, not counted from the old start. */
START_TEST(start_of_an_earlier_watch_not_paired)
{
	caret_count_callback_start(&cb_a, CARET_CTR_WATCH(1, 5));
	/* unwatched: its end is not seen; then a new watch (session 2)
	 * begins while cb_a runs again, started unwatched */
	sleep_ms(20);
	caret_count_callback_end(&cb_a, CARET_CTR_WATCH(2, 6));
	ck_assert_uint_eq(slot(&cb_a).count, 0);
	/* and the thread counts normally afterwards, however many ends it
	 * missed before */
	for (int i = 0; i < 3 * 8; i++)
		caret_count_callback_start(&cb_b, CARET_CTR_WATCH(2, 6));
	caret_count_callback_start(&cb_a, CARET_CTR_WATCH(2, 6));
	caret_count_callback_end(&cb_a, CARET_CTR_WATCH(2, 7));
	struct caret_ctr_slot a = slot(&cb_a);
	ck_assert_uint_eq(a.count, 1);
	ck_assert_uint_lt(a.total_ns, 10000000);
	/* its max belongs to the generation of its end */
	ck_assert_uint_eq(CARET_CTR_MAX_GEN(a.max), 7);
}
END_TEST

START_TEST(messages_counted_per_handle)
{
	static int pub, sub;
	caret_count_message(CARET_CTR_PUBLISHER, &pub, CARET_CTR_WATCH(1, 1));
	caret_count_message(CARET_CTR_PUBLISHER, &pub, CARET_CTR_WATCH(1, 1));
	caret_count_message(CARET_CTR_SUBSCRIPTION, &sub, CARET_CTR_WATCH(1, 1));
	static struct caret_ctr_slot t[CARET_CTR_SLOTS];
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	uint64_t p = 0, s = 0;
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++) {
		if (t[i].key == CARET_CTR_KEY(CARET_CTR_PUBLISHER, (uintptr_t)&pub))
			p = t[i].count;
		if (t[i].key == CARET_CTR_KEY(CARET_CTR_SUBSCRIPTION, (uintptr_t)&sub))
			s = t[i].count;
	}
	ck_assert_uint_eq(p, 2);
	ck_assert_uint_eq(s, 1);
}
END_TEST

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct caret_ctr_slot sub_slot(const void *sub)
{
	static struct caret_ctr_slot t[CARET_CTR_SLOTS];
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++)
		if (t[i].key == CARET_CTR_KEY(CARET_CTR_SUBSCRIPTION, (uintptr_t)sub))
			return t[i];
	return (struct caret_ctr_slot){ 0 };
}

/* A take's latency is on the writer's clock, CLOCK_REALTIME: a sample
 * stamped 5 ms ago reads 5 ms (and a little); one stamped on another
 * clock (CLOCK_MONOTONIC: decades off) is counted apart, never in the
 * latencies; no stamp, the take alone. */
START_TEST(take_latency_on_the_writers_clock)
{
	static int sub;
	uint32_t w = CARET_CTR_WATCH(1, 1);
	caret_count_take(&sub, realtime_ns() - 5000000, w);
	struct caret_ctr_slot c = sub_slot(&sub);
	ck_assert_uint_eq(c.count, 1);
	ck_assert_uint_eq(c.lat_n, 1);
	ck_assert_uint_eq(c.lat_apart, 0);
	ck_assert_uint_ge(c.total_ns, 5000000);
	ck_assert_uint_lt(c.total_ns, 5000000 + 50000000);
	ck_assert_uint_eq(CARET_CTR_MAX_NS(c.max), c.total_ns);
	ck_assert_uint_eq(c.hist[caret_ctr_bucket(c.total_ns)], 1);
	caret_count_take(&sub, caret_now_ns() - 5000000, w); /* a monotonic stamp */
	caret_count_take(&sub, realtime_ns() + 1000000000, w); /* ahead of us */
	caret_count_take(&sub, 0, w);
	struct caret_ctr_slot d = sub_slot(&sub);
	ck_assert_uint_eq(d.count, 4);
	ck_assert_uint_eq(d.lat_n, 1);
	ck_assert_uint_eq(d.lat_apart, 2);
	ck_assert_uint_eq(d.total_ns, c.total_ns);
	ck_assert_uint_eq(d.max, c.max);
}
END_TEST

/* The environment that confines DDS discovery to this host, as rcl reads
 * it; a DDS configuration file proves nothing. */
START_TEST(host_only_discovery)
{
	struct caret_discovery_env e = { 0 };
	ck_assert(!caret_count_host_only(&e));
	e.localhost_only = "1";
	ck_assert(caret_count_host_only(&e));
	e.localhost_only = "0";
	ck_assert(!caret_count_host_only(&e));
	/* Jazzy's range: LOCALHOST or OFF, without static peers */
	e = (struct caret_discovery_env){ .range = "LOCALHOST", .jazzy = true };
	ck_assert(caret_count_host_only(&e));
	e.range = "OFF";
	ck_assert(caret_count_host_only(&e));
	e.range = "SUBNET";
	ck_assert(!caret_count_host_only(&e));
	e.range = "LOCALHOST";
	e.static_peers = "10.0.0.2";
	ck_assert(!caret_count_host_only(&e));
	/* ROS_LOCALHOST_ONLY=1 drops the static peers (rcl init.c) */
	e.localhost_only = "1";
	ck_assert(caret_count_host_only(&e));
	/* Humble has no range */
	e = (struct caret_discovery_env){ .range = "LOCALHOST", .jazzy = false };
	ck_assert(!caret_count_host_only(&e));
	e = (struct caret_discovery_env){ .localhost_only = "1", .cyclonedds_uri = "file://x" };
	ck_assert(!caret_count_host_only(&e));
	e = (struct caret_discovery_env){ .localhost_only = "1", .fastrtps_xml = "p.xml" };
	ck_assert(!caret_count_host_only(&e));
	e = (struct caret_discovery_env){ .localhost_only = "1", .fastdds_xml = "p.xml" };
	ck_assert(!caret_count_host_only(&e));
	/* into the segment's agent_flags */
	unsetenv("CYCLONEDDS_URI");
	unsetenv("FASTRTPS_DEFAULT_PROFILES_FILE");
	unsetenv("FASTDDS_DEFAULT_PROFILES_FILE");
	setenv("ROS_LOCALHOST_ONLY", "1", 1);
	caret_count_scope(&seg, false);
	unsetenv("ROS_LOCALHOST_ONLY");
	struct caret_seg_status st;
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_ne(st.agent_flags & CARET_AGENT_HOST_DISCOVERY, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("count");
	TCase *t = unit_case(s, "core", count_follows_the_watched_word,
			     nested_calls_each_their_duration, start_of_an_earlier_watch_not_paired,
			     messages_counted_per_handle, take_latency_on_the_writers_clock,
			     host_only_discovery);
	tcase_add_checked_fixture(t, setup, teardown);
	return unit_run(s);
}
