/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s plan: caret_lttng_layout() (lib/lttng/lttng_layout.c), the
 * description caret_lttng_record() creates the session from, for plain,
 * flight-recorder, armed, -u, --context and kernel configurations; and
 * the plan's codec (proto/caret_ctl_plan.c) through the wire, its decoder
 * refusing hostile replies. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lttng/session.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_plan.h"
#include "proto/caret_ctl_sel.h"

static struct caret_ctl_plan P;

static bool has_event(const struct caret_ctl_plan_channel *c, const char *name, bool syscall)
{
	for (int i = 0; i < c->n_events; i++)
		if (!strcmp(c->events[i].name, name) && c->events[i].syscall == syscall)
			return true;
	return false;
}

START_TEST(layout_plain)
{
	struct caret_lttng_cfg cfg = { .session = "s", .path = "/tmp" };
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	ck_assert_int_eq(P.n_channels, 1);
	const struct caret_ctl_plan_channel *c = &P.ch[0];
	ck_assert_str_eq(c->name, CARET_CTL_DEFAULT_CHANNEL);
	ck_assert(c->per_uid && !c->overwrite && c->mmap && c->enabled);
	ck_assert_uint_eq(c->subbuf_size, CARET_CTL_DEFAULT_SUBBUF_SIZE);
	ck_assert_uint_eq(c->subbuf_count, CARET_CTL_DEFAULT_SUBBUF_COUNT);
	ck_assert_int_eq(c->n_contexts, 3);
	ck_assert_str_eq(c->contexts[0], "vpid");
	ck_assert(has_event(c, "ros*", false));
	ck_assert(!P.snapshot_mode && !P.armed);
	ck_assert_str_eq(P.session, "s");
}
END_TEST

START_TEST(layout_flight_recorder_armed)
{
	struct caret_lttng_cfg cfg = { .path = "/tmp", .snapshot = true, .armed = true,
				       .subbuf_size = 128 << 10, .subbuf_count = 8 };
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	ck_assert(P.snapshot_mode && P.armed && P.session == NULL);
	ck_assert(P.ch[0].overwrite && !P.ch[0].enabled);
	ck_assert_uint_eq(P.ch[0].subbuf_size, 128 << 10);
	ck_assert_uint_eq(P.ch[0].subbuf_count, 8);
	cfg.armed_open = true; /* its channel enabled: the agents' gate holds it */
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	ck_assert(P.ch[0].enabled);
	char err[256] = "";
	cfg.subbuf_count = 3; /* not a power of two */
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "sub-buffer count 3"));
}
END_TEST

START_TEST(layout_selection_and_kernel)
{
	struct caret_ctl_sel s = { .ust_given = true, .n_ust = 2,
				   .ust = { "ros2:callback_start", "ros2:callback_start" },
				   .n_context = 4, .context = { "pid", "ip", "vpid", "ip" },
				   .n_kernel = 1, .kernel = { "sched_switch" },
				   .n_syscall = 1, .syscall = { "openat" } };
	struct caret_lttng_cfg cfg = { .path = "/tmp", .sel = &s };
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	ck_assert_int_eq(P.n_channels, 2);
	const struct caret_ctl_plan_channel *u = &P.ch[0], *k = &P.ch[1];
	/* -u's event once, CARET's init events added */
	int n = 0;
	for (int i = 0; i < u->n_events; i++)
		n += !strcmp(u->events[i].name, "ros2:callback_start");
	ck_assert_int_eq(n, 1);
	ck_assert(has_event(u, "ros2_caret:caret_init", false));
	/* UST: CARET's three and ip (pid is the kernel's), each once */
	ck_assert_int_eq(u->n_contexts, 4);
	ck_assert_str_eq(u->contexts[3], "ip");
	ck_assert_str_eq(k->name, CARET_CTL_KERNEL_CHANNEL);
	ck_assert(k->domain == CARET_CTL_PLAN_KERNEL && !k->per_uid && !k->overwrite);
	ck_assert_uint_eq(k->subbuf_count, CARET_CTL_KERNEL_SUBBUF_COUNT);
	ck_assert_uint_eq(k->subbuf_size, CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL);
	ck_assert(has_event(k, "sched_switch", false) && has_event(k, "openat", true));
	ck_assert_int_eq(k->n_contexts, 4);
	ck_assert_str_eq(k->contexts[3], "pid");
}
END_TEST

/* The plan through the wire: encoded, printed, parsed, decoded. */
static cJSON *wire(const struct caret_ctl_plan *in, struct caret_ctl_plan *out, int *rc,
		   struct ctl_why *why)
{
	char *line = caret_ctl_enc_line(caret_ctl_enc_plan(in));
	ck_assert_ptr_nonnull(line);
	cJSON *o = cJSON_Parse(line);
	free(line);
	*rc = caret_ctl_dec_plan(o, out, why);
	return o;
}

START_TEST(plan_roundtrip)
{
	static struct caret_ctl_plan out;
	struct caret_ctl_sel s = { .n_kernel = 1, .kernel = { "sched_switch" },
				   .n_syscall = 1, .syscall = { "openat" } };
	struct caret_lttng_cfg cfg = { .session = "n", .path = "/t", .sel = &s, .snapshot = true,
				       .subbuf_size = 1 << 16, .subbuf_count = 16 };
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	P.rotate_every_ms = 2000;
	P.snapshot_size = 1 << 20;
	P.snapshot_on = "ros2:x";
	P.filter[CARET_FILTER_SELECT_NODES] = "/a:/b";
	P.pacing = "adaptive";
	P.frequency = 1000;
	P.ch[1].events[0].filter = "x == 1";
	struct ctl_why why;
	int rc;
	cJSON *o = wire(&P, &out, &rc, &why);
	ck_assert_msg(rc == 0, "%s", why.msg);
	ck_assert_str_eq(out.session, "n");
	ck_assert_str_eq(out.path, "/t");
	ck_assert_ptr_null(out.url);
	ck_assert(out.snapshot_mode);
	ck_assert_uint_eq(out.rotate_every_ms, 2000);
	ck_assert_uint_eq(out.snapshot_size, 1 << 20);
	ck_assert_str_eq(out.snapshot_on, "ros2:x");
	ck_assert_ptr_null(out.snapshot_filter);
	ck_assert_str_eq(out.filter[CARET_FILTER_SELECT_NODES], "/a:/b");
	ck_assert_ptr_null(out.filter[CARET_FILTER_IGNORE_NODES]);
	ck_assert_int_eq(out.n_channels, 2);
	for (int i = 0; i < 2; i++) {
		const struct caret_ctl_plan_channel *a = &P.ch[i], *b = &out.ch[i];
		ck_assert_str_eq(a->name, b->name);
		ck_assert(a->domain == b->domain && a->per_uid == b->per_uid &&
			  a->overwrite == b->overwrite && a->mmap == b->mmap &&
			  a->enabled == b->enabled);
		ck_assert_uint_eq(a->subbuf_size, b->subbuf_size);
		ck_assert_uint_eq(a->subbuf_count, b->subbuf_count);
		ck_assert_int_eq(a->n_events, b->n_events);
		for (int j = 0; j < a->n_events; j++) {
			ck_assert_str_eq(a->events[j].name, b->events[j].name);
			ck_assert(a->events[j].syscall == b->events[j].syscall);
			ck_assert(!a->events[j].filter == !b->events[j].filter);
		}
		ck_assert_int_eq(a->n_contexts, b->n_contexts);
		for (int j = 0; j < a->n_contexts; j++)
			ck_assert_str_eq(a->contexts[j], b->contexts[j]);
	}
	ck_assert_str_eq(out.ch[1].events[0].filter, "x == 1");
	cJSON_Delete(o);
}
END_TEST

/* A field of the first channel replaced by v: refused, naming key. */
static void hostile_channel(const char *key, cJSON *v, const char *named)
{
	static struct caret_ctl_plan out;
	struct caret_lttng_cfg cfg = { .path = "/t" };
	ck_assert_int_eq(caret_lttng_layout(&cfg, &P, NULL, 0), 0);
	cJSON *o = caret_ctl_enc_plan(&P);
	cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "plan"),
							   "channels"), 0);
	cJSON_ReplaceItemInObject(ch, key, v);
	struct ctl_why why = { "" };
	ck_assert_int_eq(caret_ctl_dec_plan(o, &out, &why), -EPROTO);
	ck_assert_msg(strstr(why.msg, named), "%s: %s", key, why.msg);
	cJSON_Delete(o);
}

START_TEST(plan_hostile)
{
	hostile_channel("mode", cJSON_CreateString("sometimes"), "mode");
	hostile_channel("subbuf_count", cJSON_CreateNumber(-1), "subbuf_count");
	hostile_channel("subbuf_size", cJSON_CreateString("1"), "subbuf_size");
	hostile_channel("name", cJSON_CreateNull(), "no name");
	hostile_channel("contexts", cJSON_CreateNumber(1), "contexts");
	cJSON *many = cJSON_CreateArray();
	for (int i = 0; i < CARET_CTL_PLAN_CONTEXTS + 1; i++)
		cJSON_AddItemToArray(many, cJSON_CreateString("vpid"));
	hostile_channel("contexts", many, "more than");
	cJSON *evs = cJSON_CreateArray();
	cJSON_AddItemToArray(evs, cJSON_CreateString("ros2:*"));
	hostile_channel("events", evs, "not an object");
	char big[2048];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	hostile_channel("name", cJSON_CreateString(big), "too long");
	/* no plan at all: an older caretd's record result */
	static struct caret_ctl_plan out;
	struct ctl_why why = { "" };
	cJSON *o = caret_ctl_enc_record("s", "/p");
	ck_assert_int_eq(caret_ctl_dec_plan(o, &out, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why.msg, "plan"));
	cJSON_Delete(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, layout_plain);
	tcase_add_test(tc, layout_flight_recorder_armed);
	tcase_add_test(tc, layout_selection_and_kernel);
	tcase_add_test(tc, plan_roundtrip);
	tcase_add_test(tc, plan_hostile);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
