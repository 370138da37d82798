/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/lttng/lttng_start_msg: a session's configuration as caretd sends
 * it to its LTTng start helper, read back whole (every flag, string,
 * group and selection name), and the helper's reading of what is not a
 * request: cut short, a string not ended, counts out of range, bytes
 * after its end, another magic.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/lttng/lttng_start_msg.h"
#include "tests/unit/unit.h"

static char buf[LTTNG_START_MSG_MAX];
static struct lttng_start_req req;

START_TEST(round_trip_every_field)
{
	gid_t groups[3] = { 10, 20, 30 };
	struct creds_id as = { .uid = 1001, .gid = 1002, .groups = groups, .n_groups = 3 };
	struct caret_ctl_sel sel = { .ust_given = true, .n_ust = 2, .n_context = 1,
				     .n_kernel = 1, .n_syscall = 0,
				     .ust = { "ros2:*", "" }, .context = { "perf:thread:cycles" },
				     .kernel = { "sched_switch" }, .subbuf_size_kernel = 1 << 20 };
	struct caret_lttng_dir_id dir = { 7, 8, true, 2 };
	struct caret_lttng_cfg cfg = { .session = "s1", .path = "/tmp/traces", .url = NULL,
				       .light = true, .append = true, .armed = true,
				       .armed_open = true, .snapshot = true,
				       .subbuf_size = 1 << 19, .subbuf_count = 8, .as = &as,
				       .sel = &sel, .dir_out = &dir };
	ssize_t n = lttng_start_msg_pack(&cfg, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)n, &req), 0);
	const struct caret_lttng_cfg *c = &req.cfg;
	ck_assert_str_eq(c->session, "s1");
	ck_assert_str_eq(c->path, "/tmp/traces");
	ck_assert_ptr_null(c->url);
	ck_assert(c->light && !c->light_pre_iron && c->append && c->armed && c->armed_open &&
		  c->snapshot);
	ck_assert_uint_eq(c->subbuf_size, 1 << 19);
	ck_assert_uint_eq(c->subbuf_count, 8);
	ck_assert_ptr_nonnull(c->as);
	ck_assert_int_eq(c->as->uid, 1001);
	ck_assert_int_eq(c->as->gid, 1002);
	ck_assert_int_eq(c->as->n_groups, 3);
	ck_assert_int_eq(c->as->groups[2], 30);
	ck_assert_ptr_nonnull(c->sel);
	ck_assert(c->sel->ust_given);
	ck_assert_int_eq(c->sel->n_ust, 2);
	ck_assert_str_eq(c->sel->ust[0], "ros2:*");
	ck_assert_str_eq(c->sel->ust[1], "");
	ck_assert_str_eq(c->sel->context[0], "perf:thread:cycles");
	ck_assert_str_eq(c->sel->kernel[0], "sched_switch");
	ck_assert_int_eq(c->sel->n_syscall, 0);
	ck_assert_uint_eq(c->sel->subbuf_size_kernel, 1 << 20);
	/* the output is the helper's own, empty until it makes the session */
	ck_assert_ptr_eq(c->dir_out, &req.dir);
	ck_assert_uint_eq(req.dir.dev, 0);
}
END_TEST

START_TEST(none_of_the_optional_parts)
{
	struct caret_lttng_cfg cfg = { .url = "net://relay", .light_pre_iron = true };
	ssize_t n = lttng_start_msg_pack(&cfg, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)n, &req), 0);
	ck_assert_ptr_null(req.cfg.session);
	ck_assert_ptr_null(req.cfg.path);
	ck_assert_str_eq(req.cfg.url, "net://relay");
	ck_assert(req.cfg.light_pre_iron && !req.cfg.light);
	ck_assert_ptr_null(req.cfg.as);
	ck_assert_ptr_null(req.cfg.sel);
	/* groups not known (-1) stay not known */
	struct creds_id as = { .uid = 5, .gid = 6, .n_groups = -1 };
	cfg.as = &as;
	n = lttng_start_msg_pack(&cfg, buf, sizeof(buf));
	ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)n, &req), 0);
	ck_assert_int_eq(req.cfg.as->n_groups, -1);
	ck_assert_ptr_null(req.cfg.as->groups);
}
END_TEST

START_TEST(largest_selection_fits)
{
	static char names[4][CARET_CTL_SEL_MAX][256];
	static struct caret_ctl_sel sel = { .n_ust = CARET_CTL_SEL_MAX,
					    .n_context = CARET_CTL_SEL_MAX,
					    .n_kernel = CARET_CTL_SEL_MAX,
					    .n_syscall = CARET_CTL_SEL_MAX };
	const char **lists[4] = { sel.ust, sel.context, sel.kernel, sel.syscall };
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < CARET_CTL_SEL_MAX; i++) {
			memset(names[k][i], 'a' + k, 255);
			lists[k][i] = names[k][i];
		}
	static char path[PATH_MAX];
	memset(path, '/', PATH_MAX - 1);
	struct caret_lttng_cfg cfg = { .session = path, .path = path, .url = path, .sel = &sel };
	ssize_t n = lttng_start_msg_pack(&cfg, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)n, &req), 0);
	ck_assert_uint_eq(strlen(req.cfg.sel->syscall[CARET_CTL_SEL_MAX - 1]), 255);
	ck_assert_int_eq(req.cfg.sel->syscall[CARET_CTL_SEL_MAX - 1][0], 'd');
	/* a buffer too small: refused, never cut */
	ck_assert_int_eq(lttng_start_msg_pack(&cfg, buf, (size_t)n - 1), -E2BIG);
}
END_TEST

START_TEST(hostile_requests_refused)
{
	struct caret_lttng_cfg cfg = { .session = "abc", .path = "/t" };
	ssize_t n = lttng_start_msg_pack(&cfg, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	/* every cut short */
	for (ssize_t k = 0; k < n; k++)
		ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)k, &req), -EPROTO);
	/* a byte after its end */
	ck_assert_int_eq(lttng_start_msg_unpack(buf, (size_t)n + 1, &req), -EPROTO);
	/* the path's end replaced: a string not ended where its length says */
	static char bad[LTTNG_START_MSG_MAX];
	memcpy(bad, buf, (size_t)n);
	bad[n - 1] = 'x';
	ck_assert_int_eq(lttng_start_msg_unpack(bad, (size_t)n, &req), -EPROTO);
	/* a NUL inside a string */
	memcpy(bad, buf, (size_t)n);
	bad[n - 3] = '\0';
	ck_assert_int_eq(lttng_start_msg_unpack(bad, (size_t)n, &req), -EPROTO);
	/* another magic */
	memcpy(bad, buf, (size_t)n);
	bad[0] ^= 1;
	ck_assert_int_eq(lttng_start_msg_unpack(bad, (size_t)n, &req), -EPROTO);
	/* more groups than carried */
	gid_t g[LTTNG_START_MAX_GROUPS + 1] = { 0 };
	struct creds_id as = { .groups = g, .n_groups = LTTNG_START_MAX_GROUPS + 1 };
	cfg.as = &as;
	ck_assert_int_eq(lttng_start_msg_pack(&cfg, buf, sizeof(buf)), -E2BIG);
}
END_TEST

/* The start marker's check: a session of the name it gives is ours only
 * when its output is where that start put it. */
START_TEST(drop_matches_only_our_output)
{
	/* local: ident/name, or its append-N, trailing slashes as record's */
	ck_assert(lttng_start_drop_ours("s1", "/tmp/traces", "/tmp/traces/s1", NULL));
	ck_assert(lttng_start_drop_ours("s1", "/tmp/traces//", "/tmp/traces/s1", NULL));
	ck_assert(lttng_start_drop_ours("s1", "/tmp/traces", "/tmp/traces/s1/append-2", NULL));
	ck_assert(lttng_start_drop_ours("s1", "/", "/s1", NULL));
	/* another's of that name: elsewhere, a longer name, a deeper dir */
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "/root/lttng-traces/s1-20261129",
					 NULL));
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "/tmp/traces/s10", NULL));
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "/tmp/traces/s1/x", NULL));
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "/tmp/tracesx/s1", NULL));
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "net://10.0.0.1/s1", NULL));
	/* nothing to compare (a marker of a caretd before): not ours */
	ck_assert(!lttng_start_drop_ours("s1", "", "/tmp/traces/s1", NULL));
	ck_assert(!lttng_start_drop_ours("s1", "/tmp/traces", "", NULL));
	/* network: the URL's host, as written or as one of its addresses */
	ck_assert(lttng_start_drop_ours("s1", "net://10.0.0.1", "tcp4://10.0.0.1:5342/ [data: "
					"5343]", NULL));
	ck_assert(lttng_start_drop_ours("s1", "net://relay:5342", "tcp4://10.0.0.2:5342/",
					"10.0.0.2"));
	ck_assert(!lttng_start_drop_ours("s1", "net://10.0.0.1", "tcp4://10.0.0.9:5342/", NULL));
	ck_assert(!lttng_start_drop_ours("s1", "net://10.0.0.1", "/tmp/traces/s1", NULL));
	char h[64];
	ck_assert_int_eq(lttng_start_url_host("net6://[::1]:5342", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "::1");
	ck_assert_int_eq(lttng_start_url_host("tcp://relay/x", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "relay");
	ck_assert_int_eq(lttng_start_url_host("/tmp/traces", h, sizeof(h)), -EINVAL);
	ck_assert_int_eq(lttng_start_url_host("net://", h, sizeof(h)), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("start_msg");
	unit_case(s, "codec", round_trip_every_field, none_of_the_optional_parts,
		  largest_selection_fits, hostile_requests_refused);
	unit_case(s, "drop", drop_matches_only_our_output);
	return unit_run(s);
}
