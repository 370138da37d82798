/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of `caretctl check`'s model apart from babeltrace2: the links
 * between init records (what a replay cut short leaves out), the report's
 * wire format with them, the words shared with stop, and the reason taken
 * from babeltrace2's metadata parser log (Check).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/caretctl/check_discards.h"
#include "tools/caretctl/check_links.h"
#include "tools/caretctl/check_map.h"
#include "tools/caretctl/check_pass.h"
#include "tools/caretctl/check_wire.h"
#include "tools/caretctl/complete.h"

struct rec {
	const char *kind;
	uint64_t v[CHECK_LINK_OPS];
};

/* A Jazzy process as the stand-in records it: a node with a timer, a
 * subscription and a service, their callbacks, one callback group, an
 * executor and its collector, in the order rclcpp makes them (an entity
 * joins its callback group as it is created; groups are tied to the
 * executor when it spins). Values are the handles of each op in
 * check_links.c's order. */
static const struct rec jazzy[] = {
	{ "rcl_node_init", { 0x10 } },
	{ "rcl_publisher_init", { 0x10 } },
	{ "rcl_subscription_init", { 0x20, 0x10 } },
	{ "rclcpp_subscription_init", { 0x21, 0x21 } },
	{ "rclcpp_subscription_callback_added", { 0x21, 0x21, 0x22 } },
	{ "rclcpp_callback_register", { 0x22, 0x22 } },
	{ "callback_group_add_subscription", { 0x20, 0x50 } },
	{ "rcl_service_init", { 0x10 } },
	{ "rclcpp_service_callback_added", { 0x32 } },
	{ "rclcpp_callback_register", { 0x32, 0x32 } },
	{ "callback_group_add_service", { 0x50 } },
	{ "rcl_timer_init", { 0x40 } },
	{ "rclcpp_timer_callback_added", { 0x40, 0x42 } },
	{ "rclcpp_callback_register", { 0x42, 0x42 } },
	{ "rclcpp_timer_link_node", { 0x40, 0x10 } },
	{ "callback_group_add_timer", { 0x40, 0x50 } },
	{ "construct_executor", { 0x60 } },
	{ "executor_entity_collector_to_executor", { 0 } },
	{ "callback_group_to_executor_entity_collector", { 0x50 } },
};
#define NJAZZY (sizeof(jazzy) / sizeof(jazzy[0]))

static size_t link_index(const char *name)
{
	for (size_t i = 0; check_link_name(i); i++)
		if (strcmp(check_link_name(i), name) == 0)
			return i;
	ck_abort_msg("no link %s", name);
	return 0;
}

/* Feeds recs[0..n) except skip (or none: SIZE_MAX) as process 0. */
static struct check_proc run(const struct rec *recs, size_t n, size_t skip, bool caret_init)
{
	struct check_links l = { 0 };
	struct check_proc p = { .vpid = 42, .caret_init = caret_init };
	for (size_t i = 0; i < n; i++) {
		if (i == skip)
			continue;
		bool have[CHECK_LINK_OPS];
		for (int k = 0; k < CHECK_LINK_OPS; k++)
			have[k] = check_link_field(recs[i].kind, k) != NULL;
		ck_assert_int_eq(check_links_record(&l, recs[i].kind, recs[i].v, have, 0, 42), 0);
	}
	check_links_finish(&l, &p, 1);
	check_links_free(&l);
	return p;
}

/* The Jazzy process on a static executor (Humble's records). */
static const struct rec *stat_executor(void)
{
	static struct rec stat[NJAZZY];
	memcpy(stat, jazzy, sizeof(jazzy));
	stat[NJAZZY - 3] = (struct rec){ "construct_static_executor", { 0x61 } };
	stat[NJAZZY - 2] = (struct rec){ "add_callback_group_static_executor", { 0x61, 0x50 } };
	stat[NJAZZY - 1] = stat[NJAZZY - 2];
	return stat;
}

START_TEST(complete_process_lacks_nothing)
{
	struct check_proc p = run(jazzy, NJAZZY, SIZE_MAX, true);
	ck_assert_uint_eq(p.missing_total, 0);
	/* Humble ties groups with add_callback_group, a static executor with
	 * add_callback_group_static_executor */
	struct rec humble[NJAZZY];
	memcpy(humble, jazzy, sizeof(jazzy));
	humble[NJAZZY - 2] = (struct rec){ "add_callback_group", { 0x50 } };
	humble[NJAZZY - 1] = humble[NJAZZY - 2];
	ck_assert_uint_eq(run(humble, NJAZZY, SIZE_MAX, true).missing_total, 0);
	ck_assert_uint_eq(run(stat_executor(), NJAZZY, SIZE_MAX, true).missing_total, 0);
	/* a Jazzy EventsExecutor (real Jazzy): no construct_executor, and
	 * its groups tied to a collector of its own */
	struct rec events[NJAZZY];
	memcpy(events, jazzy, sizeof(jazzy));
	events[NJAZZY - 3] = (struct rec){ "rcl_init", { 0 } };
	ck_assert_uint_eq(run(events, NJAZZY, SIZE_MAX, true).missing_total, 0);
}
END_TEST

START_TEST(every_cut_replay_is_seen)
{
	/* A replay emits records in the order the process made them. Cut
	 * after the first entity joined its group, something is always
	 * missing (the group's executor, until the last record); before, only
	 * where a record expects the next one. */
	for (size_t n = 1; n < NJAZZY; n++) {
		struct check_proc p = run(jazzy, n, SIZE_MAX, true);
		if (n >= 7 || n == 4 || n == 5)
			ck_assert_msg(p.missing_total > 0, "cut after %zu records: nothing missing",
				      n);
		else
			ck_assert_msg(p.missing_total == 0, "cut after %zu records: %llu missing", n,
				      (unsigned long long)p.missing_total);
	}
	/* the records of D6's trace: the executor's are not there */
	struct check_proc p = run(jazzy, NJAZZY - 3, SIZE_MAX, true);
	ck_assert_uint_eq(p.missing[link_index("callback_group:executor")], 1);
}
END_TEST

START_TEST(each_record_is_needed)
{
	/* Leave any one record out: what refers to it, or what it expected,
	 * is named. */
	for (size_t skip = 0; skip < NJAZZY; skip++) {
		struct check_proc p = run(jazzy, NJAZZY, skip, true);
		/* nothing refers to these, and none is expected: rclcpp may
		 * make a timer without a node, an entity's group record is
		 * rclcpp's (an rclpy process with the agent has none), a
		 * service's rclcpp records may name a copy of its handle, and
		 * only the executors CARET knows by name are constructed */
		if (strcmp(jazzy[skip].kind, "rcl_publisher_init") == 0 ||
		    strcmp(jazzy[skip].kind, "rcl_service_init") == 0 ||
		    strcmp(jazzy[skip].kind, "construct_executor") == 0 ||
		    strcmp(jazzy[skip].kind, "executor_entity_collector_to_executor") == 0 ||
		    strcmp(jazzy[skip].kind, "rclcpp_timer_link_node") == 0 ||
		    strncmp(jazzy[skip].kind, "callback_group_add_", 19) == 0) {
			ck_assert_uint_eq(p.missing_total, 0);
			continue;
		}
		/* a timer's or service's callback registered without being
		 * added: what a node filter leaves (caret_trace keeps
		 * callbacks without a topic), a note */
		if (strcmp(jazzy[skip].kind, "rclcpp_timer_callback_added") == 0 ||
		    strcmp(jazzy[skip].kind, "rclcpp_service_callback_added") == 0) {
			ck_assert_uint_eq(p.missing_total, 0);
			ck_assert_uint_eq(p.filtered_registers, 1);
			continue;
		}
		ck_assert_msg(p.missing_total > 0, "without %s: nothing missing", jazzy[skip].kind);
	}
	struct check_proc p = run(jazzy, NJAZZY, 0, true);
	ck_assert_uint_eq(p.missing[link_index("rcl_publisher_init:rcl_node_init")], 1);
	ck_assert_uint_eq(p.missing[link_index("rclcpp_timer_link_node:rcl_node_init")], 1);
	p = run(jazzy, NJAZZY, 5, true);
	ck_assert_uint_eq(p.missing[link_index("callback:rclcpp_callback_register")], 1);
	/* construct_static_executor: both records naming its collector */
	p = run(stat_executor(), NJAZZY, NJAZZY - 3, true);
	ck_assert_uint_eq(p.missing[link_index("add_callback_group_static_executor:"
					       "construct_static_executor")], 2);
}
END_TEST

START_TEST(without_agent_only_references)
{
	/* ros2_tracing's trace: no caret_init, no executor records; what
	 * rclcpp emits after a record is not expected of it */
	struct check_proc p = run(jazzy, 16, SIZE_MAX, false);
	ck_assert_uint_eq(p.missing_total, 0);
	p = run(jazzy, 16, 11, false); /* no rcl_timer_init */
	ck_assert_uint_eq(p.missing[link_index("rclcpp_timer_callback_added:rcl_timer_init")], 1);
	ck_assert_uint_eq(p.missing[link_index("rclcpp_timer_link_node:rcl_timer_init")], 1);
	/* an intra-process subscription has no rcl subscription */
	static const struct rec ipc[] = {
		{ "rclcpp_subscription_init", { 0x91, 0x91 } },
		{ "rclcpp_subscription_callback_added", { 0x91, 0x91, 0x92 } },
		{ "rclcpp_callback_register", { 0x92, 0x92 } },
	};
	ck_assert_uint_eq(run(ipc, 3, SIZE_MAX, true).missing_total, 0);
	/* a lifecycle node's services (real Humble): rclcpp wraps the rcl
	 * services of the state machine in copies of their handles, which
	 * no rcl_service_init names; the analyzer never joins them either */
	static const struct rec lifecycle[] = {
		{ "rcl_node_init", { 0x10 } },
		{ "rcl_lifecycle_state_machine_init", { 0x10 } },
		{ "rclcpp_service_callback_added", { 0x72 } },
		{ "callback_group_add_service", { 0x50 } },
		{ "rclcpp_callback_register", { 0x72, 0x72 } },
		{ "construct_executor", { 0x60 } },
		{ "add_callback_group", { 0x50 } },
	};
	ck_assert_uint_eq(run(lifecycle, 7, SIZE_MAX, true).missing_total, 0);
}
END_TEST

START_TEST(processes_apart)
{
	/* the same handle in two processes is two objects */
	struct check_links l = { 0 };
	struct check_proc p[2] = { { .vpid = 1, .caret_init = true },
				   { .vpid = 2, .caret_init = true } };
	bool have[CHECK_LINK_OPS] = { true, true, true };
	uint64_t node[CHECK_LINK_OPS] = { 0x10 }, pub[CHECK_LINK_OPS] = { 0x10 };
	ck_assert_int_eq(check_links_record(&l, "rcl_node_init", node, have, 0, 1), 0);
	ck_assert_int_eq(check_links_record(&l, "rcl_publisher_init", pub, have, 1, 2), 0);
	check_links_finish(&l, p, 2);
	check_links_free(&l);
	ck_assert_uint_eq(p[0].missing_total, 0);
	ck_assert_uint_eq(p[1].missing_total, 1);
}
END_TEST

START_TEST(map_keys)
{
	struct check_map m = { 0 };
	bool added;
	for (uint64_t k = 0; k < 5000; k++) {
		uint64_t *v = check_map_slot(&m, k * 0x10000, &added);
		ck_assert_ptr_nonnull(v);
		ck_assert(added);
		*v = k;
	}
	for (uint64_t k = 0; k < 5000; k++) {
		ck_assert(check_map_has(&m, k * 0x10000));
		ck_assert_uint_eq(*check_map_slot(&m, k * 0x10000, &added), k);
		ck_assert(!added);
	}
	ck_assert(!check_map_has(&m, 1));
	check_map_free(&m);
}
END_TEST

START_TEST(wire_carries_missing)
{
	struct check_proc pr = { .vpid = 7, .procname = "talker", .caret_init = true };
	pr.missing[3] = 5;
	pr.missing[CHECK_MAX_LINKS - 1] = UINT64_MAX;
	pr.missing_total = 9;
	pr.dup_total = 1ull << 60;
	struct check_report r = { .procs = &pr, .nprocs = 1, .events = 3,
				  .first_ns = INT64_MAX - 1, .last_ns = INT64_MAX,
				  .no_context = { 3, 0, UINT64_MAX } };
	struct check_buf b = { 0 };
	check_wire_report(&b, &r);
	ck_assert_int_eq(b.err, 0);
	struct check_report out;
	char err[256];
	ck_assert_int_eq(check_wire_decode(b.p, b.n, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(out.nprocs, 1);
	ck_assert_uint_eq(out.procs[0].missing[3], 5);
	ck_assert_uint_eq(out.procs[0].missing[CHECK_MAX_LINKS - 1], UINT64_MAX);
	ck_assert_uint_eq(out.procs[0].missing_total, 9);
	ck_assert_uint_eq(out.procs[0].dup_total, 1ull << 60);
	ck_assert_int_eq(out.last_ns, INT64_MAX);
	ck_assert_uint_eq(out.no_context[CHECK_CTX_VPID], 3);
	ck_assert_uint_eq(out.no_context[CHECK_CTX_VTID], 0);
	ck_assert_uint_eq(out.no_context[CHECK_CTX_PROCNAME], UINT64_MAX);
	check_wire_free(&out);
	/* one byte short anywhere: refused, never read past */
	for (size_t n = 0; n < b.n; n += 7)
		ck_assert_int_lt(check_wire_decode(b.p, n, &out, err, sizeof(err)), 0);
	free(b.p);
}
END_TEST

/* The summaries (issue 33 L13) cross the pipe whole, in their order; a
 * count claiming more rows than the bytes hold is refused. */
START_TEST(wire_carries_summaries)
{
	struct check_evcount tp[] = { { "ros2:callback_start", UINT64_MAX },
				      { "ros2:rcl_init", 0 } };
	struct check_evcount nodes[] = { { "/talker", 7 } };
	struct check_evcount topics[] = { { "/chatter", 3 }, { "/a", 2 }, { "/b", 1 } };
	struct check_report r = { .tracepoints = tp, .ntracepoints = 2, .node_events = nodes,
				  .nnode_events = 1, .topic_events = topics, .ntopic_events = 3 };
	struct check_buf b = { 0 };
	check_wire_report(&b, &r);
	ck_assert_int_eq(b.err, 0);
	struct check_report out;
	char err[256];
	ck_assert_int_eq(check_wire_decode(b.p, b.n, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(out.ntracepoints, 2);
	ck_assert_str_eq(out.tracepoints[0].name, "ros2:callback_start");
	ck_assert_uint_eq(out.tracepoints[0].count, UINT64_MAX);
	ck_assert_uint_eq(out.tracepoints[1].count, 0);
	ck_assert_uint_eq(out.nnode_events, 1);
	ck_assert_str_eq(out.node_events[0].name, "/talker");
	ck_assert_uint_eq(out.ntopic_events, 3);
	ck_assert_str_eq(out.topic_events[2].name, "/b");
	ck_assert_uint_eq(out.topic_events[0].count, 3);
	check_wire_free(&out);
	for (size_t n = 0; n < b.n; n++)
		ck_assert_int_lt(check_wire_decode(b.p, n, &out, err, sizeof(err)), 0);
	/* the topic list's count (the last u32 before its 3 rows) made 4 */
	size_t rows = 3 * (4 + 8) + strlen("/chatter") + strlen("/a") + strlen("/b");
	b.p[b.n - rows - 4] = 4;
	ck_assert_int_eq(check_wire_decode(b.p, b.n, &out, err, sizeof(err)), -EBADMSG);
	free(b.p);
}
END_TEST

/* Issue 33 C2: a pass the recording cut short is seen from its marks
 * alone, with its count, however whole the records it kept look; one
 * that ended with all its records, or a whole one beside a cut one, is
 * not; records of other threads (live ones) are not the pass's. */
START_TEST(cut_pass_counted)
{
	struct check_proc p = { .vpid = 9, .procname = "talker", .caret_init = true };
	check_pass_begin(&p, 100, 1, 34);
	for (int i = 0; i < 7; i++)
		check_pass_record(&p, 100);
	check_pass_record(&p, 101); /* live, on the application's thread */
	check_pass_end(&p, 100, 2, 34); /* another pass's end: not this one's */
	check_pass_finish(&p);
	ck_assert(check_pass_cut(&p));
	ck_assert_uint_eq(p.cut_pass, 1);
	ck_assert_uint_eq(p.cut_arrived, 7);
	ck_assert_uint_eq(p.cut_records, 34);
	ck_assert_uint_eq(p.cut_ended, 0);
	char *line = complete_missing_line(&p);
	ck_assert_str_eq(line, "pid 9 (talker): init records missing: replay pass 1 cut short: 7 "
			       "of its 34 records in the trace (a replay cut short, e.g. by a "
			       "--timeout or --duration shorter than the replay?)");
	free(line);

	/* through the wire as stop reads it */
	struct check_report r = { .procs = &p, .nprocs = 1, .events = 9 };
	struct check_buf b = { 0 };
	check_wire_report(&b, &r);
	struct check_report out;
	char err[256];
	ck_assert_int_eq(check_wire_decode(b.p, b.n, &out, err, sizeof(err)), 0);
	ck_assert(check_pass_cut(&out.procs[0]));
	ck_assert_uint_eq(out.procs[0].cut_arrived, 7);
	ck_assert_uint_eq(out.procs[0].cut_records, 34);
	check_wire_free(&out);
	free(b.p);

	/* ended, all its records in: whole; a later cut pass then leaves
	 * nothing out (the whole one put every record in) */
	struct check_proc q = { .vpid = 10, .procname = "l", .caret_init = true };
	check_pass_begin(&q, 5, 3, 2);
	check_pass_record(&q, 5);
	check_pass_end(&q, 5, 3, 1); /* a filter kept one of the two */
	ck_assert(!check_pass_cut(&q));
	check_pass_begin(&q, 5, 4, 2);
	check_pass_finish(&q);
	ck_assert(!check_pass_cut(&q));
	ck_assert_uint_eq(q.passes, 2);

	/* ended with fewer in the trace than it emitted: lost in the tracer */
	struct check_proc d = { .vpid = 11, .procname = "d", .caret_init = true };
	check_pass_begin(&d, 5, 1, 3);
	check_pass_record(&d, 5);
	check_pass_end(&d, 5, 1, 3);
	ck_assert(check_pass_cut(&d));
	ck_assert_uint_eq(d.cut_ended, 1);
	line = complete_missing_line(&d);
	ck_assert_ptr_nonnull(strstr(line, "replay pass 1 lost records: 1 of its 3 records"));
	free(line);

	/* an abandoned pass then a whole one: not cut; no marks: not judged */
	struct check_proc e = { .vpid = 12, .procname = "e", .caret_init = true };
	check_pass_begin(&e, 5, 1, 2);
	check_pass_begin(&e, 5, 2, 2);
	check_pass_record(&e, 5);
	check_pass_record(&e, 5);
	check_pass_end(&e, 5, 2, 2);
	check_pass_finish(&e);
	ck_assert(!check_pass_cut(&e));
	struct check_proc none = { .vpid = 13 };
	check_pass_end(&none, 5, 1, 3);
	check_pass_finish(&none);
	ck_assert(!check_pass_cut(&none));
}
END_TEST

START_TEST(shared_words)
{
	char *one = complete_dup_sentence(1), *many = complete_dup_sentence(36);
	ck_assert_str_eq(one, "1 replayed initialization record appears twice (a session that "
			      "started during this one got a replay of its own); the analyzer "
			      "ignores duplicates: they do not make the trace incomplete");
	ck_assert_ptr_nonnull(strstr(many, "36 replayed initialization records appear twice"));
	free(one);
	free(many);
	/* stop with nothing counted by caretd: no trace read, nothing said */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	complete_stop_report(f, NULL, "/nonexistent", 0, NULL);
	complete_stop_report(f, NULL, "net://somewhere", 3, NULL);
	fclose(f);
	ck_assert_str_eq(buf, "  caretd saw replays reach this recording twice (3 records); "
			      "'caretctl check net://somewhere' counts the copies (the analyzer "
			      "ignores them)\n");
	free(buf);
}
END_TEST

START_TEST(parser_reason)
{
	const char *log =
		"11-27 02:17:24.275   771   771 I PLUGIN/CTF/META/DECODER x@d.c:1 [src0] fine\n"
		"11-27 02:17:24.275   771   771 E PLUGIN/CTF/META/PARSER yyerror@parser.y:943 At "
		"line 2 in metadata stream: syntax error,\tunexpected CTF_SEMICOLON: token=\";\"\n"
		"11-27 02:17:24.275   771   771 E PLUGIN/CTF/META/DECODER a@d.c:288 [src0] "
		"Cannot create the metadata AST\n";
	char err[512] = "not a CTF trace: babeltrace2 cannot read /t/metadata (babeltrace2: x)";
	check_bt_log_reason(log, err, sizeof(err));
	ck_assert_str_eq(err, "not a CTF trace: babeltrace2 cannot read /t/metadata (metadata: "
			      "At line 2 in metadata stream: syntax error, unexpected "
			      "CTF_SEMICOLON: token=\";\")");
	/* a long reason is cut, and says so */
	char longlog[2000];
	snprintf(longlog, sizeof(longlog), "x E PLUGIN/CTF/META/PARSER f@p.y:1 %01500d\n", 0);
	char e2[1024] = "bad";
	check_bt_log_reason(longlog, e2, sizeof(e2));
	ck_assert_uint_lt(strlen(e2), 230);
	ck_assert_ptr_nonnull(strstr(e2, "...)"));
	char e3[64] = "unchanged";
	check_bt_log_reason("no error lines\n", e3, sizeof(e3));
	ck_assert_str_eq(e3, "unchanged");
}
END_TEST

/* Issue 33 C3: a stream file babeltrace2 cannot index, and why (its
 * warning, as babeltrace 2.0's ctf plugin words it). */
START_TEST(stream_reason)
{
	const char *log =
		"11-28 23:08:46.716 29190 29190 W PLUGIN/SRC.CTF.FS/DS build_index_from_stream_"
		"file@data-stream-file.c:882 [src0] Invalid packet size reported in file: "
		"stream=\"/t/ust/uid/0/64-bit/caret_0\", packet-offset=4096, "
		"packet-size-bytes=94208, file-size=51207\n"
		"11-28 23:08:46.716 29190 29190 E PLUGIN/SRC.CTF.FS add_ds_file@fs.c:803 [src0] "
		"Failed to index CTF stream file '/t/ust/uid/0/64-bit/caret_0'\n";
	char err[512] = "stream file /t/ust/uid/0/64-bit/caret_0 cannot be read";
	check_bt_stream_reason(log, err, sizeof(err));
	ck_assert_str_eq(err, "stream file /t/ust/uid/0/64-bit/caret_0 cannot be read; "
			      "truncated: the packet at byte 4096 holds 94208 bytes but the file "
			      "ends 47111 bytes into it");
	char e2[64] = "unchanged";
	check_bt_stream_reason("x Invalid packet size reported in file: nothing\n", e2,
			       sizeof(e2));
	check_bt_stream_reason("no such line\n", e2, sizeof(e2));
	ck_assert_str_eq(e2, "unchanged");
}
END_TEST

/* A chunk after one with discards: babeltrace2 reports a record of
 * unknown count before each stream's opening packet that carries the
 * earlier chunks' total (check called such a chunk incomplete); that
 * packet holds no time (LTTng's opener): the record is not this chunk's.
 * Before a first packet that holds events, or between packets, it is. */
START_TEST(discards_per_stream)
{
	struct check_discards d = { 0 };
	/* two streams open with LTTng's empty packet after an uncounted record */
	for (uint64_t k = 1; k <= 2; k++) {
		ck_assert_int_eq(check_discards_uncounted(&d, k), 0);
		ck_assert_int_eq(check_discards_begin(&d, k, true, 500), 0);
		ck_assert_int_eq(check_discards_end(&d, k, true, 500), 0);
		ck_assert_int_eq(check_discards_begin(&d, k, true, 600), 0);
		ck_assert_int_eq(check_discards_end(&d, k, true, 900), 0);
	}
	ck_assert_uint_eq(check_discards_unknown(&d), 0);
	ck_assert_uint_eq(d.opening, 2);
	/* a stream whose first packet holds events: its own, unknown */
	ck_assert_int_eq(check_discards_uncounted(&d, 3), 0);
	ck_assert_int_eq(check_discards_begin(&d, 3, true, 500), 0);
	ck_assert_int_eq(check_discards_end(&d, 3, true, 700), 0);
	ck_assert_uint_eq(check_discards_unknown(&d), 1);
	/* an uncounted record after a first packet: this trace's */
	ck_assert_int_eq(check_discards_uncounted(&d, 1), 0);
	ck_assert_uint_eq(check_discards_unknown(&d), 2);
	/* no clock on the packets: cannot be told, unknown */
	ck_assert_int_eq(check_discards_uncounted(&d, 4), 0);
	ck_assert_int_eq(check_discards_begin(&d, 4, false, 0), 0);
	ck_assert_int_eq(check_discards_end(&d, 4, false, 0), 0);
	ck_assert_uint_eq(check_discards_unknown(&d), 3);
	/* a stream whose first packet never ended (a truncated trace) */
	ck_assert_int_eq(check_discards_uncounted(&d, 5), 0);
	ck_assert_int_eq(check_discards_begin(&d, 5, true, 10), 0);
	ck_assert_uint_eq(check_discards_unknown(&d), 4);
	ck_assert_uint_eq(d.opening, 2);
	check_discards_free(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, complete_process_lacks_nothing);
	tcase_add_test(tc, stream_reason);
	tcase_add_test(tc, every_cut_replay_is_seen);
	tcase_add_test(tc, each_record_is_needed);
	tcase_add_test(tc, without_agent_only_references);
	tcase_add_test(tc, processes_apart);
	tcase_add_test(tc, map_keys);
	tcase_add_test(tc, wire_carries_missing);
	tcase_add_test(tc, shared_words);
	tcase_add_test(tc, cut_pass_counted);
	tcase_add_test(tc, wire_carries_summaries);
	tcase_add_test(tc, parser_reason);
	tcase_add_test(tc, discards_per_stream);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
