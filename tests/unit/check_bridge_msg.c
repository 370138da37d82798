/* SPDX-License-Identifier: Apache-2.0 */
/* What the DDS bridge accepts from other hosts (daemon/bridge/bridge_msg.c): the
 * relay URL's host against --relay-allow (B16b), writers' user data, the
 * bounds of Start_, Status_ and RelayRecord_, top --all-hosts' TopAsk_ and
 * TopSummary_. */
#include <math.h>
#include <check.h>
#include <string.h>

#include "daemon/bridge/bridge_msg.h"
#include "tests/unit/unit.h"

static bool allowed(const char *allow, const char *url)
{
	char host[BRIDGE_RELAY_HOST_MAX + 1];
	return bridge_msg_relay_allowed(allow, url, host, sizeof(host));
}

START_TEST(url_host)
{
	char h[300];
	ck_assert_int_eq(bridge_msg_url_host("net://10.0.0.1", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "10.0.0.1");
	ck_assert_int_eq(bridge_msg_url_host("net://relay.lan:5342:5343/sub", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "relay.lan");
	ck_assert_int_eq(bridge_msg_url_host("tcp://relay:5342", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "relay");
	ck_assert_int_eq(bridge_msg_url_host("net6://[fd00::1]:5342", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "fd00::1");
	ck_assert_int_eq(bridge_msg_url_host("tcp6://[::1]", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "::1");
	/* local outputs, empty or unterminated hosts, blanks */
	ck_assert_int_lt(bridge_msg_url_host("file:///etc", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("/tmp/x", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("net://", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("net://:5342", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("net6://[::1", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("net://a b", h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host(NULL, h, sizeof(h)), 0);
	char big[400] = "net://";
	memset(big + 6, 'a', 300);
	ck_assert_int_lt(bridge_msg_url_host(big, h, sizeof(h)), 0);
	ck_assert_int_lt(bridge_msg_url_host("net://abcdef", h, 4), 0);
}
END_TEST

START_TEST(allow_list)
{
	ck_assert(allowed("10.0.0.1", "net://10.0.0.1"));
	ck_assert(allowed("a,10.0.0.1,b", "net://10.0.0.1:5342:5343"));
	ck_assert(allowed("Relay.LAN", "tcp://relay.lan:5342"));
	ck_assert(allowed("fd00::1", "net6://[fd00::1]"));
	/* no list, other hosts, prefixes and suffixes of an allowed one */
	ck_assert(!allowed(NULL, "net://10.0.0.1"));
	ck_assert(!allowed("", "net://10.0.0.1"));
	ck_assert(!allowed("10.0.0.1", "net://10.0.0.12"));
	ck_assert(!allowed("10.0.0.12", "net://10.0.0.1"));
	ck_assert(!allowed("relay", "net://relay.evil"));
	ck_assert(!allowed("relay", "file://relay"));
	ck_assert(!allowed(",", "net://relay"));
	ck_assert_int_eq(bridge_msg_allow_check("a,b.c,10.0.0.1,fd00::1"), 0);
	ck_assert_int_lt(bridge_msg_allow_check(""), 0);
	ck_assert_int_lt(bridge_msg_allow_check("a,,b"), 0);
	ck_assert_int_lt(bridge_msg_allow_check("a,"), 0);
	ck_assert_int_lt(bridge_msg_allow_check("a b"), 0);
	char many[200] = "";
	for (int i = 0; i < 65; i++)
		strcat(many, i ? ",a" : "a");
	ck_assert_int_lt(bridge_msg_allow_check(many), 0);
}
END_TEST

START_TEST(userdata)
{
	char h[8];
	uint32_t v = 0;
	/* a caretd before versions: version 1 */
	ck_assert(bridge_msg_userdata_host("caretd host=h0", 14, h, sizeof(h), &v));
	ck_assert_str_eq(h, "h0");
	ck_assert_uint_eq(v, 1);
	ck_assert(bridge_msg_userdata_host("caretd host=a\nb\x01\xff", 17, h, sizeof(h), &v));
	ck_assert_str_eq(h, "a?b??");
	ck_assert(bridge_msg_userdata_host("caretd host=0123456789", 22, h, sizeof(h), &v));
	ck_assert_str_eq(h, "0123456");
	ck_assert(!bridge_msg_userdata_host("caretd host=", 12, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("other=h0", 8, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host(NULL, 0, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("caretd host=\0x", 14, h, sizeof(h), &v));
	/* ours, round trip */
	char ud[200];
	size_t n = bridge_msg_userdata_make("box1", ud, sizeof(ud));
	ck_assert(bridge_msg_userdata_host(ud, n, h, sizeof(h), &v));
	ck_assert_str_eq(h, "box1");
	ck_assert_uint_eq(v, BRIDGE_VERSION);
	ck_assert_uint_ge(BRIDGE_VERSION, 2);
	/* another version, named whatever follows */
	ck_assert(bridge_msg_userdata_host("caretd v=7 host=b", 17, h, sizeof(h), &v));
	ck_assert_uint_eq(v, 7);
	ck_assert_str_eq(h, "b");
	ck_assert(bridge_msg_userdata_host("caretd v=123456789;x", 20, h, sizeof(h), &v) == false);
	ck_assert(bridge_msg_userdata_host("caretd v=12 hostname:b", 22, h, sizeof(h), &v));
	ck_assert_uint_eq(v, 12);
	ck_assert_str_eq(h, "");
	ck_assert(bridge_msg_userdata_host("caretd v=999999999", 18, h, sizeof(h), &v));
	ck_assert_uint_eq(v, 999999999);
	/* no version this one can read: not a caretd's */
	ck_assert(!bridge_msg_userdata_host("caretd v=1234567890", 19, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("caretd v=0 host=a", 17, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("caretd v=-1 host=a", 18, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("caretd v=", 9, h, sizeof(h), &v));
	ck_assert(!bridge_msg_userdata_host("caretd v=x", 10, h, sizeof(h), &v));
}
END_TEST

START_TEST(samples)
{
	struct caret_filter_lists f;
	caret_msgs_msg_dds__Start_ s = { 100, "", "", "", "" };
	ck_assert_ptr_null(bridge_msg_start(&s, &f));
	s.recording_frequency = 0;
	ck_assert_ptr_nonnull(bridge_msg_start(&s, &f));
	s.recording_frequency = 100;
	s.select_nodes = NULL;
	ck_assert_ptr_nonnull(bridge_msg_start(&s, &f));
	s.select_nodes = "\xff";
	ck_assert_str_eq(bridge_msg_start(&s, &f), "a filter field is not UTF-8");
	/* issue 22 D7: a pattern CARET's dialect refuses is refused here,
	 * named, never applied as an empty recording */
	s.select_nodes = "/talker\\d";
	ck_assert_ptr_null(bridge_msg_start(&s, &f));
	s.select_nodes = "(";
	ck_assert_str_eq(bridge_msg_start(&s, &f), "a filter field is refused: regular expression "
						 "\"(\": unmatched '(' at offset 0");
	s.select_nodes = "";
	char *names[2] = { "/a", NULL };
	caret_msgs_msg_dds__Status_ st = { "n", 1, { 1, 1, names, false }, 1 };
	ck_assert_ptr_null(bridge_msg_status(&st));
	st.node_names._length = 2;
	ck_assert_ptr_nonnull(bridge_msg_status(&st));
	st.node_names._length = 0;
	st.caret_node_name = "";
	ck_assert_ptr_nonnull(bridge_msg_status(&st));
	caretd_msgs_msg_dds__RelayRecord_ r = { "s", "net://x", 0, false, "", "", "", "" };
	ck_assert_ptr_null(bridge_msg_relay(&r, &f));
	r.session_name = "";
	ck_assert_ptr_nonnull(bridge_msg_relay(&r, &f));
	char text[16];
	struct caret_filter_lists g = { { [CARET_FILTER_SELECT_NODES] = "a\nb",
					  [CARET_FILTER_IGNORE_NODES] = "",
					  [CARET_FILTER_SELECT_TOPICS] = "",
					  [CARET_FILTER_IGNORE_TOPICS] = "" } };
	bridge_msg_filter_text(&g, text, sizeof(text));
	ck_assert_str_eq(text, "select_nodes=\"a");
}
END_TEST

/* `snapshot --all-hosts`: a request names one session LTTng takes, with a
 * bounded wait; a reply's strings are bounded and printable (they are
 * shown to the requesting user as is), its error an errno. */
START_TEST(snapshots)
{
	caretd_msgs_msg_dds__SnapshotRequest_ q = { 7, "fr", 30000 };
	ck_assert_ptr_null(bridge_msg_snap_request(&q));
	q.id = 0;
	ck_assert_ptr_nonnull(bridge_msg_snap_request(&q));
	q.id = 7;
	const char *bad_names[] = { NULL, "", "..", "a/b", "a\nb" };
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		q.session_name = (char *)bad_names[i];
		ck_assert_ptr_nonnull(bridge_msg_snap_request(&q));
	}
	char longname[300];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	q.session_name = longname;
	ck_assert_ptr_nonnull(bridge_msg_snap_request(&q));
	q.session_name = "fr";
	q.timeout_ms = 0;
	ck_assert_ptr_nonnull(bridge_msg_snap_request(&q));
	q.timeout_ms = 4000000000u;
	ck_assert_ptr_nonnull(bridge_msg_snap_request(&q));

	caretd_msgs_msg_dds__SnapshotReply_ r = { 7, "h0", "fr", 0, "/t/fr/snapshot-1", true, "" };
	ck_assert_ptr_null(bridge_msg_snap_reply(&r));
	r.path = "";
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r)); /* written, but where? */
	r.error = 2;
	r.why = "no flight recorder named fr on this host";
	ck_assert_ptr_null(bridge_msg_snap_reply(&r));
	r.error = -1;
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r));
	r.error = 5000;
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r));
	r.error = 2;
	r.why = "line\x1b[2Jcleared";
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r));
	r.why = NULL;
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r));
	static char huge[5000];
	memset(huge, 'a', sizeof(huge) - 1);
	r.why = "";
	r.path = huge;
	ck_assert_ptr_nonnull(bridge_msg_snap_reply(&r));
}
END_TEST

START_TEST(top_ask)
{
	caretd_msgs_msg_dds__TopAsk_ q = { 6000 };
	ck_assert_ptr_null(bridge_msg_top_ask(&q));
	q.lease_ms = 1000;
	ck_assert_ptr_null(bridge_msg_top_ask(&q));
	q.lease_ms = 60000;
	ck_assert_ptr_null(bridge_msg_top_ask(&q));
	/* a lease no local request could hold: a peer keeping hooks counting */
	q.lease_ms = 999;
	ck_assert_ptr_nonnull(bridge_msg_top_ask(&q));
	q.lease_ms = 60001;
	ck_assert_ptr_nonnull(bridge_msg_top_ask(&q));
	q.lease_ms = UINT32_MAX;
	ck_assert_ptr_nonnull(bridge_msg_top_ask(&q));
}
END_TEST

static caretd_msgs_msg_dds__TopRow_ good_row(void)
{
	return (caretd_msgs_msg_dds__TopRow_){ .pid = 42, .procname = "standin", .node = "/ticker",
					       .symbol = "on_timer_0", .topic = "", .kind = 1,
					       .calls = 10, .rate_hz = 10.0, .cpu = 0.05,
					       .mean_ns = 5000000, .p99_ns = 6000000,
					       .max_ns = 7000000 };
}

static const char *summary_of(caretd_msgs_msg_dds__TopRow_ *rows, uint32_t n)
{
	caretd_msgs_msg_dds__TopSummary_ m = { .interval_ms = 1000, .processes = 1,
					       .rows = { ._length = n, ._maximum = n,
							 ._buffer = rows } };
	return bridge_msg_top_summary(&m);
}

/* each field of a row out of its bounds, one at a time */
START_TEST(top_summary_rows)
{
	static caretd_msgs_msg_dds__TopRow_ rows[BRIDGE_MSG_TOP_ROWS + 1];
	rows[0] = good_row();
	ck_assert_ptr_null(summary_of(rows, 1));
	ck_assert_ptr_null(summary_of(rows, 0));
	static char longname[BRIDGE_MSG_TOP_STR + 2];
	memset(longname, 's', sizeof(longname) - 1);
	caretd_msgs_msg_dds__TopRow_ r;
#define BAD(stmt)                                               \
	do {                                                    \
		r = good_row();                                 \
		stmt;                                           \
		rows[0] = r;                                    \
		ck_assert_msg(summary_of(rows, 1), "%s", #stmt); \
	} while (0)
	BAD(r.pid = 0);
	BAD(r.pid = -5);
	BAD(r.procname = NULL);
	BAD(r.node = NULL);
	BAD(r.symbol = longname);
	BAD(r.topic = "a\x1b[2Jb");
	BAD(r.node = "tab\tin");
	BAD(r.kind = 4);
	BAD(r.kind = 255);
	BAD(r.calls = UINT64_MAX);
	BAD(r.max_ns = UINT64_MAX; r.mean_ns = 1);
	BAD(r.mean_ns = r.max_ns + 1);
	BAD(r.p99_ns = r.max_ns + 1);
	BAD(r.rate_hz = NAN);
	BAD(r.rate_hz = INFINITY);
	BAD(r.rate_hz = -1.0);
	BAD(r.cpu = NAN);
	BAD(r.cpu = 1e13);
#undef BAD
	/* the longest name a peer accepts, and the most rows */
	r = good_row();
	longname[BRIDGE_MSG_TOP_STR] = '\0';
	r.symbol = longname;
	for (int i = 0; i <= BRIDGE_MSG_TOP_ROWS; i++)
		rows[i] = r;
	ck_assert_ptr_null(summary_of(rows, BRIDGE_MSG_TOP_ROWS));
	ck_assert_ptr_nonnull(summary_of(rows, BRIDGE_MSG_TOP_ROWS + 1));
	/* one bad row among good ones */
	rows[BRIDGE_MSG_TOP_ROWS - 1].kind = 9;
	ck_assert_ptr_nonnull(summary_of(rows, BRIDGE_MSG_TOP_ROWS));
	/* a length with no rows behind it */
	ck_assert_ptr_nonnull(summary_of(NULL, 1));
}
END_TEST

START_TEST(top_summary_counts)
{
	caretd_msgs_msg_dds__TopSummary_ m = { .interval_ms = 1000, .processes = 3, .lost = 1,
					       .cut = 5 };
	ck_assert_ptr_null(bridge_msg_top_summary(&m));
	m.interval_ms = 60001;
	ck_assert_ptr_nonnull(bridge_msg_top_summary(&m));
	m.interval_ms = 0; /* the first read: no rates yet */
	ck_assert_ptr_null(bridge_msg_top_summary(&m));
	m.processes = UINT64_MAX;
	ck_assert_ptr_nonnull(bridge_msg_top_summary(&m));
	m.processes = 3;
	m.lost = UINT64_MAX;
	ck_assert_ptr_nonnull(bridge_msg_top_summary(&m));
	m.lost = 0;
	m.cut = UINT64_MAX;
	ck_assert_ptr_nonnull(bridge_msg_top_summary(&m));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bridge_msg");
	unit_case(s, "what other hosts send", url_host, allow_list, userdata, samples, snapshots,
		  top_ask, top_summary_rows, top_summary_counts);
	return unit_run(s);
}
