/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control protocol's version across releases (proto/caret_ctl_version.h,
 * the rule in caret_ctl.h): requests added since version 1 (pause, resume,
 * top, hold) are version 1 requests; caretd refuses another version naming
 * both and which side is older; caretctl turns caretd's refusals (its
 * wording now and before) and an older caretd's "unknown command" into
 * what to upgrade, and a reply of another version into the same.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_version.h"
#include "tests/unit/unit.h"

static int dec(const char *line, struct caret_ctl_req *q, struct ctl_why *why)
{
	cJSON *o = cJSON_Parse(line);
	ck_assert_ptr_nonnull(o);
	int r = caret_ctl_dec_req(o, q, why);
	cJSON_Delete(o);
	return r;
}

#define HAS(s, sub) ck_assert_msg(strstr((s), (sub)) != NULL, "\"%s\" lacks \"%s\"", (s), (sub))
#define LACKS(s, sub) ck_assert_msg(strstr((s), (sub)) == NULL, "\"%s\" has \"%s\"", (s), (sub))

START_TEST(added_requests_are_version_1)
{
	/* a caretctl of version 1 sends them; the version was not raised for
	 * additions, so a caretd that has them reads them */
	static const char *const lines[] = {
		"{\"v\":1,\"cmd\":\"pause\"}",
		"{\"v\":1,\"cmd\":\"resume\"}",
		"{\"v\":1,\"cmd\":\"top\"}",
		"{\"v\":1,\"cmd\":\"hold\",\"session\":\"s1\"}",
	};
	static const enum caret_ctl_cmd cmds[] = { CARET_CTL_PAUSE, CARET_CTL_RESUME, CARET_CTL_TOP,
						   CARET_CTL_HOLD };
	ck_assert_int_eq(CARET_CTL_VERSION, 1);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct caret_ctl_req q;
		struct ctl_why why = { "" };
		ck_assert_msg(dec(lines[i], &q, &why) == 0, "%s: %s", lines[i], why.msg);
		ck_assert_int_eq(q.cmd, cmds[i]);
		ck_assert_int_eq(q.v, 1);
	}
}
END_TEST

START_TEST(caretd_refusal_says_which_is_older)
{
	struct caret_ctl_req q;
	struct ctl_why why = { "" };
	/* a newer caretctl */
	ck_assert_int_eq(dec("{\"v\":2,\"cmd\":\"status\"}", &q, &why), -EPROTO);
	HAS(why.msg, "request speaks protocol version 2, caretd speaks 1");
	HAS(why.msg, "upgrade caretd");
	/* an older one (none is, yet: a hostile 0) */
	ck_assert_int_eq(dec("{\"v\":0,\"cmd\":\"status\"}", &q, &why), -EPROTO);
	HAS(why.msg, "request speaks protocol version 0, caretd speaks 1");
	HAS(why.msg, "use a caretctl of caretd's release");
	LACKS(why.msg, "upgrade caretd");
}
END_TEST

START_TEST(caretctl_hint_from_refusals)
{
	char out[256];
	/* this caretd's refusal of a newer caretctl, read by that caretctl */
	struct caret_ctl_req q;
	struct ctl_why why = { "" };
	ck_assert_int_eq(dec("{\"v\":2,\"cmd\":\"status\"}", &q, &why), -EPROTO);
	ck_assert(caret_ctl_version_hint("status", EPROTO, why.msg, out, sizeof(out)));
	ck_assert_str_eq(out, "caretd speaks protocol 1, this caretctl 2: upgrade caretd, or use a "
			      "caretctl of caretd's release");
	/* the wording of a caretd before this change */
	ck_assert(caret_ctl_version_hint("status", EPROTO, "request speaks protocol version 2, "
				"caretd speaks 1: use a caretctl of caretd's release", out,
				sizeof(out)));
	HAS(out, "caretd speaks protocol 1, this caretctl 2: upgrade caretd");
	/* a newer caretd refusing an older caretctl */
	ck_assert(caret_ctl_version_hint("status", EPROTO, "request speaks protocol version 1, "
					 "caretd speaks 2: use a caretctl of caretd's release",
					 out, sizeof(out)));
	ck_assert_str_eq(out, "caretd speaks protocol 2, this caretctl 1: upgrade caretctl to "
			      "caretd's release");
	/* an older caretd that lacks the request */
	ck_assert(caret_ctl_version_hint("top", EINVAL, "unknown command \"top\"", out,
					 sizeof(out)));
	HAS(out, "caretd does not know the request \"top\"");
	HAS(out, "upgrade caretd");
	/* other errors stay caretd's */
	ck_assert(!caret_ctl_version_hint("top", EINVAL, "unknown command \"plan\"", out,
					  sizeof(out)));
	ck_assert(!caret_ctl_version_hint("top", EINVAL, "top: bad field \"interval_ms\"", out,
					  sizeof(out)));
	ck_assert(!caret_ctl_version_hint("status", EPROTO, "request is not a JSON object", out,
					  sizeof(out)));
	ck_assert(!caret_ctl_version_hint("status", EPROTO, NULL, out, sizeof(out)));
	ck_assert(!caret_ctl_version_hint("top", EPERM, "unknown command \"top\"", out,
					  sizeof(out)));
}
END_TEST

START_TEST(reply_of_another_version)
{
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why = { "" };
	const char *newer = "{\"v\":2,\"type\":\"result\"}";
	ck_assert_int_eq(ctl_reply_parse(newer, strlen(newer), &root, &type, &why), -EPROTO);
	ck_assert_str_eq(why.msg, "caretd speaks protocol 2, this caretctl 1: upgrade caretctl to "
				  "caretd's release");
	const char *older = "{\"v\":0,\"type\":\"result\"}";
	ck_assert_int_eq(ctl_reply_parse(older, strlen(older), &root, &type, &why), -EPROTO);
	HAS(why.msg, "caretd speaks protocol 0, this caretctl 1: upgrade caretd");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl_version");
	unit_case(s, "version", added_requests_are_version_1, caretd_refusal_says_which_is_older,
		  caretctl_hint_from_refusals, reply_of_another_version);
	return unit_run(s);
}
