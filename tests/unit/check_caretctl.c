/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of caretctl's pure parts: option values, the trace-path rule,
 * and the checks every caretd reply goes through (Check). */
#include <check.h>
#include <errno.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "util/caret_util.h"
#include "tools/caretctl/parse.h"
#include "tools/caretctl/progress.h"
#include "tools/caretctl/progress_text.h"
#include "proto/caret_ctl_reply.h"
#include "tools/caretctl/tracedir.h"

START_TEST(size_suffixes)
{
	uint64_t v;
	ck_assert_int_eq(cli_parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cli_parse_size("64K", &v), 0);
	ck_assert_uint_eq(v, 64u << 10);
	ck_assert_int_eq(cli_parse_size("8m", &v), 0);
	ck_assert_uint_eq(v, 8u << 20);
	ck_assert_int_eq(cli_parse_size("1G", &v), 0);
	ck_assert_uint_eq(v, 1u << 30);
	ck_assert_int_eq(cli_parse_size("", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size("K", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size("8MB", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size("-1", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size(" 8", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size("8X", &v), -EINVAL);
	ck_assert_int_eq(cli_parse_size("0", &v), -ERANGE);
	ck_assert_int_eq(cli_parse_size("99999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(cli_parse_size("9999999999G", &v), -ERANGE);
}
END_TEST

START_TEST(counts_and_seconds)
{
	uint64_t v;
	int64_t ms;
	ck_assert_int_eq(cli_parse_count("100", 1000, &v), 0);
	ck_assert_uint_eq(v, 100);
	ck_assert_int_eq(cli_parse_count("1001", 1000, &v), -ERANGE);
	ck_assert_int_eq(cli_parse_count("0", 1000, &v), -ERANGE);
	ck_assert_int_eq(cli_parse_count("+5", 1000, &v), -EINVAL);
	ck_assert_int_eq(cli_parse_count("5s", 1000, &v), -EINVAL);

	ck_assert_int_eq(cli_parse_timeout("60", &ms), 0);
	ck_assert_int_eq(ms, 60000);
	ck_assert_int_eq(cli_parse_timeout("1.5", &ms), 0);
	ck_assert_int_eq(ms, 1500);
	ck_assert_int_eq(cli_parse_timeout(".25", &ms), 0);
	ck_assert_int_eq(ms, 250);
	ck_assert_int_eq(cli_parse_timeout("0", &ms), -ERANGE);
	ck_assert_int_eq(cli_parse_timeout("3000000", &ms), -ERANGE);
	ck_assert_int_eq(cli_parse_timeout(".", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_timeout("-1", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_timeout("inf", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_timeout("1e3", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_timeout("0x10", &ms), -EINVAL);
}
END_TEST

/* Issue 33 L7: --duration, --timeout and --rotate-every read one syntax. */
START_TEST(one_duration_syntax)
{
	int64_t ms;
	uint64_t v;
	static const struct {
		const char *s;
		int64_t ms;
	} ok[] = {
		{ "10m", 600000 }, { "1.5s", 1500 }, { "1.5", 1500 }, { "250ms", 250 },
		{ "2h", 7200000 }, { "1min", 60000 }, { "0.5m", 30000 }, { "1.0004s", 1000 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(cli_parse_timeout(ok[i].s, &ms) == 0, "%s", ok[i].s);
		ck_assert_int_eq(ms, ok[i].ms);
		ck_assert_int_eq(cli_parse_duration(ok[i].s, UINT64_MAX, &v), 0);
		ck_assert_uint_eq(v, (uint64_t)ok[i].ms);
	}
	static const char *const bad[] = { "10 m", " 1s", "1s ", "1S", "1d", "s", "ms",
					   "-1s", "+1s", "1e3s", "0x10s", "inf", "nan", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cli_parse_timeout(bad[i], &ms) == -EINVAL, "'%s'", bad[i]);
	ck_assert_int_eq(cli_parse_timeout("0.4ms", &ms), -ERANGE);
	ck_assert_int_eq(cli_parse_timeout("0s", &ms), -ERANGE);
	/* 2^31-1 ms is the most a timeout or --duration takes: 596 h */
	ck_assert_int_eq(cli_parse_timeout("596h", &ms), 0);
	ck_assert_int_eq(cli_parse_timeout("597h", &ms), -ERANGE);
	/* --rotate-every goes further (366 days, checked by its own rule) */
	ck_assert_int_eq(cli_parse_duration("8784h", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 8784ull * 3600000);
	ck_assert_int_eq(cli_parse_duration("2s", 1999, &v), -ERANGE);
}
END_TEST

START_TEST(default_trace_dir_rule)
{
	char b[256];
	ck_assert_int_eq(cli_default_trace_dir("/t", "/rh", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/t");
	ck_assert_int_eq(cli_default_trace_dir("", "/rh", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/rh/tracing");
	ck_assert_int_eq(cli_default_trace_dir(NULL, NULL, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "~/.ros/tracing");
	ck_assert_int_eq(cli_default_trace_dir(NULL, "", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "~/.ros/tracing");
	ck_assert_int_eq(cli_default_trace_dir("/a/long/path", NULL, b, 5), -ENAMETOOLONG);
}
END_TEST

START_TEST(absolute_paths)
{
	char b[64];
	ck_assert_int_eq(cli_absolute_path("~/.ros/tracing", "/cwd", "/home/u", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/home/u/.ros/tracing");
	ck_assert_int_eq(cli_absolute_path("~", "/cwd", "/home/u/", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/home/u");
	ck_assert_int_eq(cli_absolute_path("traces/./x/", "/w/d", "/h", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/w/d/traces/x");
	ck_assert_int_eq(cli_absolute_path("../../../up", "/w/d", "/h", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/up");
	ck_assert_int_eq(cli_absolute_path("//a//b/..", "/w", "/h", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/a");
	ck_assert_int_eq(cli_absolute_path("/", "/w", "/h", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/");
	ck_assert_int_eq(cli_absolute_path("~user/x", "/w", "/h", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "/w/~user/x");
	ck_assert_int_eq(cli_absolute_path("~/x", "/w", NULL, b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(cli_absolute_path("x", "rel", "/h", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(cli_absolute_path("", "/w", "/h", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(cli_absolute_path("a-very-long-name-that-does-not-fit", "/w", "/h", b, 16),
			 -ENAMETOOLONG);
}
END_TEST

/* Parses s as a reply; returns the tree or NULL with the reason in why. */
static cJSON *parse(const char *s, enum ctl_reply_type *t, struct ctl_why *why)
{
	cJSON *r;
	return ctl_reply_parse(s, strlen(s), &r, t, why) == 0 ? r : NULL;
}

START_TEST(reply_envelope)
{
	enum ctl_reply_type t;
	struct ctl_why w;
	cJSON *r = parse("{\"v\":1,\"type\":\"result\",\"x\":1}  ", &t, &w);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(t, CTL_REPLY_RESULT);
	cJSON_Delete(r);
	r = parse("{\"v\":1,\"type\":\"error\",\"error\":\"no\",\"errno\":2}", &t, &w);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(t, CTL_REPLY_ERROR);
	cJSON_Delete(r);

	static const char *bad[] = {
		"", "null", "[]", "{}", "{\"v\":1}", "{\"v\":2,\"type\":\"result\"}",
		"{\"v\":\"1\",\"type\":\"result\"}", "{\"v\":1.5,\"type\":\"result\"}",
		"{\"v\":1,\"type\":7}", "{\"v\":1,\"type\":\"nope\"}",
		"{\"v\":1,\"type\":\"error\"}", "{\"v\":1,\"type\":\"error\",\"error\":3}",
		"{\"v\":1,\"type\":\"result\"} {}", "{\"v\":1,\"type\":\"result\"",
		"{\"v\":1e400,\"type\":\"result\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = parse(bad[i], &t, &w);
		ck_assert_msg(r == NULL, "accepted: %s", bad[i]);
		ck_assert(w.msg[0]);
	}
	/* An embedded NUL is not hidden by the string's end. */
	const char nul[] = "{\"v\":1,\"type\":\"result\"}\0x";
	ck_assert_int_eq(ctl_reply_parse(nul, sizeof(nul) - 1, &r, &t, &w), -EPROTO);
}
END_TEST

START_TEST(reply_strings_defanged)
{
	enum ctl_reply_type t;
	struct ctl_why w;
	cJSON *r = parse("{\"v\":1,\"type\":\"result\",\"p\":\"a\\u001b[2Jb\\u009bc\\n\"}", &t, &w);
	ck_assert_ptr_nonnull(r);
	const char *p;
	ck_assert_int_eq(ctl_get_str(r, NULL, "p", false, &p, &w), 0);
	ck_assert_str_eq(p, "a?[2Jb??c?");
	cJSON_Delete(r);
}
END_TEST

START_TEST(counts_nullable)
{
	enum ctl_reply_type t;
	struct ctl_why w;
	struct ctl_stop_result s;
	cJSON *r = parse("{\"v\":1,\"type\":\"result\",\"session\":\"s\",\"path\":\"/p\","
			 "\"discarded_total\":null,\"channels\":[{\"name\":\"caret\","
			 "\"discarded\":null,\"lost_packets\":3}]}",
			 &t, &w);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(ctl_decode_stop(r, &s, &w), 0);
	ck_assert(!s.total_known);
	ck_assert_uint_eq(s.n, 1);
	ck_assert(!s.ch[0].discarded_known);
	ck_assert(s.ch[0].lost_known);
	ck_assert_uint_eq(s.ch[0].lost, 3);
	ctl_stop_result_free(&s);
	cJSON_Delete(r);

	static const char *bad[] = { "-1", "1.5", "\"3\"", "true", "9223372036854775808", "1e300" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line),
			 "{\"v\":1,\"type\":\"result\",\"session\":\"s\",\"path\":\"/p\","
			 "\"discarded_total\":0,\"channels\":[{\"name\":\"c\",\"discarded\":%s,"
			 "\"lost_packets\":0}]}",
			 bad[i]);
		r = parse(line, &t, &w);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(ctl_decode_stop(r, &s, &w), -EPROTO);
		ck_assert_ptr_nonnull(strstr(w.msg, "channels[0].discarded"));
		cJSON_Delete(r);
	}
}
END_TEST

START_TEST(agents_and_wait)
{
	enum ctl_reply_type t;
	struct ctl_why w;
	struct ctl_agents ag;
	struct ctl_wait_result wr;
	cJSON *r = parse("{\"v\":1,\"type\":\"result\",\"agents\":[{\"pid\":5,\"procname\":\"t\","
			 "\"state\":\"RECORD\",\"records\":3,\"replayed\":3,\"replay_total\":3,"
			 "\"dropped\":0,\"nodes\":[\"/a\"],\"segment\":\"s\"},{\"pid\":6,"
			 "\"procname\":\"u\",\"state\":\"WAIT\",\"records\":1,\"replayed\":0,"
			 "\"replay_total\":0,\"dropped\":0,\"nodes\":[1]}]}",
			 &t, &w);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &w), -EPROTO);
	ck_assert_ptr_nonnull(strstr(w.msg, "agents[1].nodes[0]"));
	ck_assert_ptr_null(ag.a);
	cJSON_Delete(r);

	r = parse("{\"v\":1,\"type\":\"result\",\"ok\":false,\"recording\":1,\"total\":2,"
		  "\"not_recording\":[{\"pid\":7,\"procname\":\"p\",\"state\":\"PREPARE\","
		  "\"reason\":\"slow\"}]}",
		  &t, &w);
	ck_assert_int_eq(ctl_decode_wait(r, &wr, &w), 0);
	ck_assert(!wr.ok);
	ck_assert_uint_eq(wr.n, 1);
	ck_assert_int_eq(wr.lag[0].pid, 7);
	ck_assert_str_eq(wr.lag[0].reason, "slow");
	ctl_wait_result_free(&wr);
	cJSON_Delete(r);

	r = parse("{\"v\":1,\"type\":\"result\",\"ok\":true,\"recording\":1,\"total\":1,"
		  "\"not_recording\":{}}",
		  &t, &w);
	ck_assert_int_eq(ctl_decode_wait(r, &wr, &w), -EPROTO);
	cJSON_Delete(r);
}
END_TEST

/* The limits both caretctl and caretd apply (issue 13: they disagreed). */
START_TEST(shared_limits)
{
	char why[160], name[300];
	ck_assert_int_eq(caret_ctl_check_subbuf_count(4, why, sizeof(why)), 0);
	ck_assert_int_eq(caret_ctl_check_subbuf_count(3, why, sizeof(why)), -EINVAL);
	ck_assert_str_eq(why, "must be a power of two from 2 to 1024");
	ck_assert_int_eq(caret_ctl_check_subbuf_count(1, why, sizeof(why)), -ERANGE);
	ck_assert_int_eq(caret_ctl_check_subbuf_count(2048, why, sizeof(why)), -ERANGE);
	ck_assert_int_eq(caret_ctl_check_subbuf_size(1024, why, sizeof(why)), -ERANGE);
	ck_assert_ptr_nonnull(strstr(why, "from 4K to 1G"));
	ck_assert_int_eq(caret_ctl_check_subbuf_size(8ull << 30, why, sizeof(why)), -ERANGE);
	ck_assert_int_eq(caret_ctl_check_subbuf_size(3 << 12, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(caret_ctl_check_subbuf_size(512 << 10, why, sizeof(why)), 0);
	ck_assert_int_eq(caret_ctl_check_frequency(200000000, why, sizeof(why)), -ERANGE);
	ck_assert_str_eq(why, "must be an integer from 1 to 1000000");
	ck_assert_int_eq(caret_ctl_check_frequency(0, NULL, 0), -ERANGE);
	ck_assert_int_eq(caret_ctl_check_frequency(100, NULL, 0), 0);
	ck_assert_int_eq(caret_ctl_check_timeout_ms(25ll * 3600 * 1000, NULL, 0), -ERANGE);
	ck_assert_int_eq(caret_ctl_check_timeout_ms(60000, NULL, 0), 0);

	ck_assert_int_eq(caret_ctl_check_session_name("caret-1", why, sizeof(why)), 0);
	const char *bad[] = { "", ".", "..", "a/b", "--immediate", "-s", "tab\there" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(caret_ctl_check_session_name(bad[i], why, sizeof(why)) < 0, "%s",
			      bad[i]);
	/* Sessions made by others may start with '-': they can be named. */
	ck_assert_int_eq(caret_ctl_check_lttng_session_name("-x", why, sizeof(why)), 0);
	ck_assert_int_eq(caret_ctl_check_lttng_session_name("a/b", why, sizeof(why)), -EINVAL);
	memset(name, 'x', 254);
	name[254] = '\0';
	ck_assert_int_eq(caret_ctl_check_session_name(name, why, sizeof(why)), 0);
	name[254] = 'x';
	name[255] = '\0';
	ck_assert_int_eq(caret_ctl_check_session_name(name, why, sizeof(why)), -ERANGE);
	ck_assert_str_eq(why, "must be 1 to 254 bytes long");
}
END_TEST

START_TEST(event_lists)
{
	/* ros2caret's verb/record.py, as CARET 0.7 has it (issue 33 L2) */
	const char *const *full = caret_ctl_evlist(false, true);
	ck_assert_str_eq(full[0], "ros*");
	ck_assert_str_eq(full[1], "agnocast*");
	ck_assert_ptr_null(full[2]);
	size_t n = 0;
	for (const char *const *e = caret_ctl_evlist(true, true); *e; e++)
		n++;
	ck_assert_uint_gt(n, 2);
	ck_assert_str_eq(caret_ctl_contexts[0], "vpid");
}
END_TEST

START_TEST(progress_line)
{
	char t[256];
	struct ctl_progress p = { .recording = 1, .total = 4, .records_done = 500,
				  .records_total = 1500, .percent = 33.3 };
	/* 500 records in 5 s: 100/s, 1000 left: 10 s. */
	cli_progress_text(&p, CLI_PROGRESS_RECORDING, 5000, 500, t, sizeof(t));
	ck_assert_str_eq(t, "1/4 processes recording, 500/1500 records replayed (33 %), "
			    "100 records/s, elapsed 00:05, ETA 00:10");
	/* a snapshot's processes record all along: its pass is what is counted */
	cli_progress_text(&p, CLI_PROGRESS_SNAPSHOT, 5000, 500, t, sizeof(t));
	ck_assert_ptr_nonnull(strstr(t, "1/4 processes replayed into the ring, 500/1500"));
	/* Nothing replayed yet: no rate, no ETA. */
	cli_progress_text(&p, CLI_PROGRESS_RECORDING, 2000, 0, t, sizeof(t));
	ck_assert_ptr_nonnull(strstr(t, "0 records/s, elapsed 00:02, ETA --:--"));
	p.records_done = 1500;
	p.percent = 100;
	cli_progress_text(&p, CLI_PROGRESS_RECORDING, 3723000, 1500, t, sizeof(t));
	ck_assert_ptr_nonnull(strstr(t, "elapsed 1:02:03, ETA 00:00"));
}
END_TEST

/* caretd's state files hold names and paths as hex: every byte but NUL
 * comes back, and nothing else is believed. */
START_TEST(hex_strings)
{
	char in[256], h[2 * sizeof(in) + 1], out[sizeof(in)];
	for (int i = 0; i < 255; i++)
		in[i] = (char)(i + 1);
	in[255] = '\0';
	caret_hex(h, in);
	ck_assert_uint_eq(strlen(h), 2 * 255);
	ck_assert_int_eq(caret_unhex(h, out, sizeof(out)), 0);
	ck_assert_str_eq(out, in);
	ck_assert_int_eq(caret_unhex(h, out, 255), -EINVAL); /* no room for the NUL */
	const char *bad[] = { "", "a", "0g", "AB", "00", "6100", "61 2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(caret_unhex(bad[i], out, sizeof(out)) == -EINVAL, "%s", bad[i]);
	ck_assert_int_eq(caret_unhex("2f746d70", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("caretctl");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, size_suffixes);
	tcase_add_test(tc, hex_strings);
	tcase_add_test(tc, counts_and_seconds);
	tcase_add_test(tc, one_duration_syntax);
	tcase_add_test(tc, default_trace_dir_rule);
	tcase_add_test(tc, absolute_paths);
	tcase_add_test(tc, reply_envelope);
	tcase_add_test(tc, reply_strings_defanged);
	tcase_add_test(tc, counts_nullable);
	tcase_add_test(tc, agents_and_wait);
	tcase_add_test(tc, shared_limits);
	tcase_add_test(tc, event_lists);
	tcase_add_test(tc, progress_line);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
