/* SPDX-License-Identifier: Apache-2.0 */
/* `top` (daemon/server/top.c, cmd_top.c, proto/caret_ctl_top.c): watched
 * for a lease, rows from two reads joined with the init records, no other
 * user's process, hostile replies refused. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bridge/bridge.h"
#include "daemon/server/top.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_top.h"
#include "tests/unit/cmd_fixture.h"

#define P(x) ((void *)(uintptr_t)(x))

static uint32_t watched(void)
{
	return __atomic_load_n(caret_own_watched_word(&agent.seg), __ATOMIC_RELAXED);
}

/* The reply to a top request at now, decoded as caretctl does. */
static cJSON *top_at(int64_t now, struct caret_ctl_top *t)
{
	struct cmd_out out;
	command_run(&ctx, &peer, "{\"v\":1,\"cmd\":\"top\",\"lease_ms\":2000}", now, &out);
	ck_assert_ptr_nonnull(out.reply);
	char *s = caret_ctl_enc_line(out.reply);
	cJSON *res;
	enum ctl_reply_type type;
	struct ctl_why why;
	ck_assert_msg(ctl_reply_parse(s, strlen(s), &res, &type, &why) == 0, "%s", why.msg);
	ck_assert_msg(type == CTL_REPLY_RESULT, "%s", s);
	free(s);
	ck_assert_msg(caret_ctl_dec_top(res, t, &why) == 0, "%s", why.msg);
	return res;
}

/* A talker: a node, a 10 Hz timer, its callback, a publisher, and a
 * subscription with its callback. */
static void talker_records(void)
{
	union caret_arg node[] = { CARET_P(0x10), CARET_P(0x11), CARET_S("talker"), CARET_S("/ns") };
	union caret_arg timer[] = { CARET_P(0x20), CARET_I(100000000) };
	union caret_arg added[] = { CARET_P(0x20), CARET_P(0x30) };
	union caret_arg link[] = { CARET_P(0x20), CARET_P(0x10) };
	union caret_arg sym[] = { CARET_P(0x30), CARET_S("void Talker::on_timer()") };
	union caret_arg pub[] = { CARET_P(0x40), CARET_P(0x10), CARET_P(0x41), CARET_S("/chatter"),
				  CARET_I(10) };
	union caret_arg sub[] = { CARET_P(0x50), CARET_P(0x10), CARET_P(0x51), CARET_S("/echo"),
				  CARET_I(10) };
	union caret_arg rsub[] = { CARET_P(0x50), CARET_P(0x52) };
	union caret_arg subcb[] = { CARET_P(0x52), CARET_P(0x60) };
	struct { uint32_t k; union caret_arg *a; } recs[] = {
		{ CARET_KIND_rcl_node_init, node }, { CARET_KIND_rcl_timer_init, timer },
		{ CARET_KIND_rclcpp_timer_callback_added, added },
		{ CARET_KIND_rclcpp_timer_link_node, link },
		{ CARET_KIND_rclcpp_callback_register, sym },
		{ CARET_KIND_rcl_publisher_init, pub }, { CARET_KIND_rcl_subscription_init, sub },
		{ CARET_KIND_rclcpp_subscription_init, rsub },
		{ CARET_KIND_rclcpp_subscription_callback_added, subcb },
	};
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		ck_assert_int_eq(caret_seg_append(&agent.seg, recs[i].k, 1, recs[i].a), 0);
}

static const struct caret_ctl_top_cb *cb_of(const struct caret_ctl_top *t, const char *sym)
{
	for (size_t i = 0; i < t->n_cb; i++)
		if (t->cb[i].symbol && !strcmp(t->cb[i].symbol, sym))
			return &t->cb[i];
	return NULL;
}

START_TEST(top_rows_from_two_reads)
{
	talker_records();
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	ck_assert_uint_eq(watched(), 0);
	struct caret_ctl_top t;
	cJSON *r = top_at(1000 * MS, &t);
	/* the first read starts the watch: no interval, no rate yet */
	ck_assert_uint_ne(watched(), 0);
	ck_assert_int_eq(t.interval_ms, 0);
	ck_assert_uint_eq(t.processes, 1);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	uint32_t w = watched();
	for (int i = 0; i < 10; i++) {
		caret_own_count(&agent.seg, CARET_CTR_CALLBACK, P(0x30), 5000000, w);
		caret_own_count(&agent.seg, CARET_CTR_PUBLISHER, P(0x40), 0, w);
	}
	for (int i = 0; i < 5; i++) {
		caret_own_count(&agent.seg, CARET_CTR_SUBSCRIPTION, P(0x51), 0, w);
		caret_own_count(&agent.seg, CARET_CTR_CALLBACK, P(0x60), 200000, w);
	}
	r = top_at(2000 * MS, &t);
	ck_assert_int_eq(t.interval_ms, 1000);
	const struct caret_ctl_top_cb *c = cb_of(&t, "void Talker::on_timer()");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->node, "/ns/talker");
	ck_assert_int_eq(c->kind, CARET_CTL_TOP_TIMER);
	ck_assert_ptr_null(c->topic);
	ck_assert_uint_eq(c->calls, 10);
	ck_assert_double_eq_tol(c->rate_hz, 10.0, 1e-9);
	ck_assert_uint_eq(c->mean_ns, 5000000);
	ck_assert_uint_eq(c->max_ns, 5000000);
	/* within 5 ms's bucket, never above the max */
	ck_assert_uint_ge(c->p99_ns, 1u << 22);
	ck_assert_uint_le(c->p99_ns, 5000000);
	ck_assert_double_eq_tol(c->cpu, 0.05, 1e-9);
	/* the subscription's callback: no symbol registered, its topic */
	ck_assert_uint_eq(t.n_cb, 2);
	const struct caret_ctl_top_cb *s = c == &t.cb[0] ? &t.cb[1] : &t.cb[0];
	ck_assert_int_eq(s->kind, CARET_CTL_TOP_SUBSCRIPTION);
	ck_assert_str_eq(s->topic, "/echo");
	ck_assert_str_eq(s->node, "/ns/talker");
	ck_assert_double_eq_tol(s->rate_hz, 5.0, 1e-9);
	ck_assert_uint_eq(t.n_topics, 2);
	for (size_t i = 0; i < t.n_topics; i++) {
		const struct caret_ctl_top_topic *p = &t.topics[i];
		ck_assert_str_eq(p->node, "/ns/talker");
		ck_assert_str_eq(p->topic, p->publisher ? "/chatter" : "/echo");
		ck_assert_double_eq_tol(p->rate_hz, p->publisher ? 10.0 : 5.0, 1e-9);
	}
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	top_stop(ctx.top);
	ctx.top = NULL;
	/* caretd stopping leaves nothing watched */
	ck_assert_uint_eq(watched(), 0);
}
END_TEST

static const struct caret_ctl_top_topic *sub_row(const struct caret_ctl_top *t)
{
	for (size_t i = 0; i < t->n_topics; i++)
		if (!t->topics[i].publisher)
			return &t->topics[i];
	return NULL;
}

/* One second of takes of /echo: 8 of 2 ms and 1 of 50 ms measured, one
 * negative and one beyond 10 s apart, one with no source timestamp. */
static void takes(uint32_t w)
{
	for (int i = 0; i < 8; i++)
		caret_own_take(&agent.seg, P(0x51), true, 2000000, w);
	caret_own_take(&agent.seg, P(0x51), true, 50000000, w);
	caret_own_take(&agent.seg, P(0x51), true, -3000000, w);
	caret_own_take(&agent.seg, P(0x51), true, 11LL * 1000000000, w);
	caret_own_take(&agent.seg, P(0x51), false, 0, w);
}

/* A subscription's latency: shown when its process discovers this host
 * only, its mean and max over the measured takes alone (the negative and
 * absurd ones apart); null otherwise, and through the reply's encoder and
 * decoder both ways. */
START_TEST(top_latency_only_when_host_only)
{
	talker_records();
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	struct caret_ctl_top t;
	cJSON *r = top_at(1000 * MS, &t);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	takes(watched());
	r = top_at(2000 * MS, &t);
	const struct caret_ctl_top_topic *s = sub_row(&t);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->count, 12);
	ck_assert(!s->lat.known); /* writers elsewhere possible */
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "top"), "topics"),
				   (int)(s - t.topics)),
		"latency")));
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	caret_own_set_flags(&agent.seg, CARET_AGENT_HOST_DISCOVERY, 0);
	takes(watched());
	r = top_at(3000 * MS, &t);
	s = sub_row(&t);
	ck_assert_ptr_nonnull(s);
	ck_assert(s->lat.known);
	ck_assert_uint_eq(s->count, 12);
	ck_assert_uint_eq(s->lat.n, 9);
	ck_assert_uint_eq(s->lat.apart, 2);
	ck_assert_uint_eq(s->lat.mean_ns, (8 * 2000000 + 50000000) / 9);
	ck_assert_uint_eq(s->lat.max_ns, 50000000);
	/* the p99 is the 50 ms take's: in its bucket [2^25, 2^26) ns */
	ck_assert_uint_ge(s->lat.p99_ns, 1u << 25);
	ck_assert_uint_le(s->lat.p99_ns, 50000000);
	/* a publisher row has no latency */
	for (size_t i = 0; i < t.n_topics; i++)
		ck_assert(!t.topics[i].publisher || !t.topics[i].lat.known);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

START_TEST(top_lease_ends)
{
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	struct caret_ctl_top t;
	cJSON *r = top_at(1000 * MS, &t); /* lease 2000 ms */
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	ck_assert_uint_ne(watched(), 0);
	ck_assert_int_eq(top_expire(ctx.top, 2999 * MS), 1);
	ck_assert_uint_ne(watched(), 0);
	ck_assert_int_eq(top_expire(ctx.top, 3000 * MS), 0);
	ck_assert_uint_eq(watched(), 0);
	/* a new request watches it again, from a new interval */
	r = top_at(4000 * MS, &t);
	ck_assert_uint_ne(watched(), 0);
	ck_assert_int_eq(t.interval_ms, 0);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

/* The modules' states the fixture's agent holds. */
static int states(void)
{
	int n = 0;
	for (int i = 0; i < AGENT_KEYS; i++)
		n += agent.state[i] != NULL;
	return n;
}

/* top's 200 KiB per process go when its lease ends, and when the process
 * does while watched, not when the process exits some day. */
START_TEST(top_state_goes_with_the_watch)
{
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	int before = states();
	struct caret_ctl_top t;
	cJSON *r = top_at(1000 * MS, &t);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	ck_assert_int_eq(states(), before + 1);
	ck_assert_int_eq(top_expire(ctx.top, 3000 * MS), 0);
	ck_assert_int_eq(states(), before);
	/* watched again, then its process gone within the lease */
	r = top_at(4000 * MS, &t);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	ck_assert_int_eq(states(), before + 1);
	agent.dead = true;
	ck_assert_int_eq(top_expire(ctx.top, 4500 * MS), 0);
	ck_assert_int_eq(states(), before);
	agent.dead = false;
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

/* A watch no lease holds (a caretd that died before its leases ended) is
 * dropped at the next check. */
START_TEST(top_orphan_watch_dropped)
{
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	caret_drive_watch(&agent.seg, 77);
	ck_assert_int_eq(top_expire(ctx.top, 1000 * MS), 0);
	ck_assert_uint_eq(watched(), 0);
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

/* Another user's process is neither watched nor shown. */
START_TEST(top_not_another_users)
{
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	peer.uid = agent.seg.id.uid + 4242;
	ck_assert(peer.uid != geteuid());
	struct caret_ctl_top t;
	cJSON *r = top_at(1000 * MS, &t);
	ck_assert_uint_eq(t.processes, 0);
	ck_assert_uint_eq(t.n_cb + t.n_topics, 0);
	ck_assert_uint_eq(watched(), 0);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	/* its owner is shown it */
	peer.uid = agent.seg.id.uid;
	r = top_at(1000 * MS, &t);
	ck_assert_uint_eq(t.processes, 1);
	ck_assert_uint_ne(watched(), 0);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

START_TEST(top_refused_without_module)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"top\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOSYS);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"top\",\"lease_ms\":10}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "lease_ms"));
	cJSON_Delete(r);
}
END_TEST

/* What a hostile caretd could send: each refused, naming the field. */
START_TEST(top_reply_hostile)
{
	static const char *bad[] = {
		"{\"top\":{}}",
		"{\"top\":{\"interval_ms\":-1,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[{\"pid\":0}],\"topics\":[]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[{\"pid\":1,\"procname\":\"a\",\"node\":null,\"symbol\":null,"
		"\"topic\":null,\"kind\":\"bogus\",\"calls\":1,\"rate_hz\":1,\"mean_ns\":1,"
		"\"p99_ns\":1,\"max_ns\":1,\"cpu\":0}],\"topics\":[]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[{\"pid\":1,\"procname\":\"a\",\"node\":null,"
		"\"topic\":\"/t\",\"dir\":\"sideways\",\"count\":1,\"rate_hz\":1}]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[{\"pid\":1,\"procname\":\"a\",\"node\":null,"
		"\"topic\":\"/t\",\"dir\":\"pub\",\"count\":1,\"rate_hz\":-3}]}}",
#define LAT_ROW(dir, lat)                                                              \
	"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"          \
	"\"callbacks\":[],\"topics\":[{\"pid\":1,\"procname\":\"a\",\"node\":null,"       \
	"\"topic\":\"/t\",\"dir\":\"" dir "\",\"count\":10,\"rate_hz\":1,\"latency\":" lat "}]}}"
#define LAT(n, apart, mean, p99, max)                                                 \
	"{\"n\":" #n ",\"apart\":" #apart ",\"mean_ns\":" #mean ",\"p99_ns\":" #p99         \
	",\"max_ns\":" #max "}"
		LAT_ROW("pub", LAT(1, 0, 5, 5, 5)),	  /* a publisher's */
		LAT_ROW("sub", "3"),			  /* not an object */
		LAT_ROW("sub", "{\"n\":1}"),		  /* a field missing */
		LAT_ROW("sub", LAT(9, 2, 5, 5, 5)),	  /* more than taken */
		LAT_ROW("sub", LAT(11, 0, 5, 5, 5)),
		LAT_ROW("sub", LAT(1, 0, 6, 5, 5)),	  /* mean above max */
		LAT_ROW("sub", LAT(1, 0, 5, 6, 5)),	  /* p99 above max */
		LAT_ROW("sub", LAT(1, 0, 5, 5, 10000000001)), /* beyond 10 s */
		LAT_ROW("sub", LAT(0, 0, 0, 0, 5)),	  /* a max of nothing */
		LAT_ROW("sub", LAT(-1, 0, 0, 0, 0)),
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *o = cJSON_Parse(bad[i]);
		ck_assert_ptr_nonnull(o);
		struct caret_ctl_top t;
		struct ctl_why why = { "" };
		ck_assert_int_eq(caret_ctl_dec_top(o, &t, &why), -EPROTO);
		ck_assert_msg(why.msg[0], "%zu", i);
		ck_assert_ptr_null(t.cb);
		cJSON_Delete(o);
	}
	/* the bounds themselves pass */
	cJSON *ok = cJSON_Parse(LAT_ROW("sub", LAT(8, 2, 5, 10000000000, 10000000000)));
	struct caret_ctl_top okt;
	struct ctl_why okw;
	ck_assert_msg(caret_ctl_dec_top(ok, &okt, &okw) == 0, "%s", okw.msg);
	ck_assert(okt.topics[0].lat.known);
	ck_assert_uint_eq(okt.topics[0].lat.max_ns, CARET_CTL_TOP_LAT_MAX_NS);
	caret_ctl_top_free(&okt);
	cJSON_Delete(ok);
	/* more rows than a reply may hold */
	cJSON *o = cJSON_Parse("{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,"
			       "\"truncated\":0,\"callbacks\":[],\"topics\":[]}}");
	cJSON *arr = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "top"), "callbacks");
	for (int i = 0; i <= CARET_CTL_TOP_MAX_ROWS; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateObject());
	struct caret_ctl_top t;
	struct ctl_why why;
	ck_assert_int_eq(caret_ctl_dec_top(o, &t, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why.msg, "rows"));
	cJSON_Delete(o);
}
END_TEST

static struct bridge_top_host *peer_summary(const char *host, int64_t seen_ns)
{
	struct bridge_top_host *h = calloc(1, sizeof(*h));
	ck_assert_ptr_nonnull(h);
	snprintf(h->host, sizeof(h->host), "%s", host);
	h->seen_ns = seen_ns;
	h->interval_ms = 1000;
	h->processes = 3;
	h->cut = 7;
	h->n = 1;
	h->rows[0] = (struct bridge_top_row){ .pid = 77, .kind = CARET_CTL_TOP_TIMER, .calls = 10,
					      .rate_hz = 10.0, .cpu = 0.05, .mean_ns = 5000000,
					      .p99_ns = 6000000, .max_ns = 7000000 };
	snprintf(h->rows[0].procname, sizeof(h->rows[0].procname), "standin");
	snprintf(h->rows[0].node, sizeof(h->rows[0].node), "/ticker");
	snprintf(h->rows[0].symbol, sizeof(h->rows[0].symbol), "on_timer_0");
	return h;
}

/* --all-hosts: this host's rows named with its host, every fresh summary
 * of another host added with its own counts; a stale one (a host gone
 * silent) left out. The bridge is off: nothing is sent, the summaries are
 * what it kept. */
START_TEST(top_all_hosts_rows)
{
	talker_records();
	ck_assert_int_eq(top_start(&ctx.top, NULL, &reg), 0);
	static struct bridge b;
	memset(&b, 0, sizeof(b));
	snprintf(b.host, sizeof(b.host), "hostA");
	int64_t now = 10000 * MS;
	b.top[0] = peer_summary("hostB", now - 500 * MS);
	b.top[3] = peer_summary("stale", now - BRIDGE_TOP_FRESH_NS);
	struct caret_ctl_top t;
	cJSON *r = top_at(now - 1000 * MS, &t); /* the watch begins */
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	for (int i = 0; i < 10; i++)
		caret_own_count(&agent.seg, CARET_CTR_CALLBACK, P(0x30), 5000000, watched());
	ctx.bridge = &b;
	struct cmd_out out;
	command_run(&ctx, &peer, "{\"v\":1,\"cmd\":\"top\",\"all_hosts\":true}", now, &out);
	ck_assert_ptr_nonnull(out.reply);
	char *line = caret_ctl_enc_line(out.reply);
	cJSON *res;
	enum ctl_reply_type type;
	struct ctl_why why;
	ck_assert_msg(ctl_reply_parse(line, strlen(line), &res, &type, &why) == 0, "%s", why.msg);
	ck_assert_msg(type == CTL_REPLY_RESULT, "%s", line);
	ck_assert_msg(caret_ctl_dec_top(res, &t, &why) == 0, "%s", why.msg);
	ck_assert_uint_eq(t.n_hosts, 2);
	ck_assert_str_eq(t.hosts[0].host, "hostA");
	ck_assert_uint_eq(t.hosts[0].processes, 1);
	ck_assert_str_eq(t.hosts[1].host, "hostB");
	ck_assert_int_eq(t.hosts[1].interval_ms, 1000);
	ck_assert_uint_eq(t.hosts[1].processes, 3);
	ck_assert_uint_eq(t.hosts[1].truncated, 7);
	size_t mine = 0, theirs = 0;
	for (size_t i = 0; i < t.n_cb; i++) {
		const struct caret_ctl_top_cb *c = &t.cb[i];
		ck_assert_ptr_nonnull(c->host);
		ck_assert_msg(strcmp(c->host, "stale"), "a silent host's row shown");
		if (!strcmp(c->host, "hostA")) {
			mine++;
			continue;
		}
		theirs++;
		ck_assert_str_eq(c->host, "hostB");
		ck_assert_int_eq(c->pid, 77);
		ck_assert_str_eq(c->node, "/ticker");
		ck_assert_ptr_null(c->topic); /* the wire's "" */
		ck_assert_int_eq(c->kind, CARET_CTL_TOP_TIMER);
		ck_assert_double_eq_tol(c->rate_hz, 10.0, 1e-9);
		ck_assert_uint_eq(c->mean_ns, 5000000);
	}
	ck_assert_uint_gt(mine, 0);
	ck_assert_uint_eq(theirs, 1);
	caret_ctl_top_free(&t);
	cJSON_Delete(res);
	free(line);
	/* without all_hosts: no host, no list */
	r = top_at(11000 * MS, &t);
	ck_assert_uint_eq(t.n_hosts, 0);
	for (size_t i = 0; i < t.n_cb; i++)
		ck_assert_ptr_null(t.cb[i].host);
	caret_ctl_top_free(&t);
	cJSON_Delete(r);
	free(b.top[0]);
	free(b.top[3]);
	ctx.bridge = NULL;
	top_stop(ctx.top);
	ctx.top = NULL;
}
END_TEST

/* A hostile caretd's hosts list: refused, naming the field. */
START_TEST(top_reply_hosts_hostile)
{
	static const char *bad[] = {
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[],\"hosts\":[{\"host\":\"\",\"interval_ms\":0,"
		"\"processes\":0,\"lost\":0,\"truncated\":0}]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[],\"hosts\":[{\"interval_ms\":0,"
		"\"processes\":0,\"lost\":0,\"truncated\":0}]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[],\"hosts\":[{\"host\":\"h\",\"interval_ms\":-1,"
		"\"processes\":0,\"lost\":0,\"truncated\":0}]}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[],\"topics\":[],\"hosts\":{}}}",
		"{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,\"truncated\":0,"
		"\"callbacks\":[{\"host\":7,\"pid\":1,\"procname\":\"a\",\"node\":null,"
		"\"symbol\":null,\"topic\":null,\"kind\":\"timer\",\"calls\":1,\"rate_hz\":1,"
		"\"mean_ns\":1,\"p99_ns\":1,\"max_ns\":1,\"cpu\":0}],\"topics\":[]}}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *o = cJSON_Parse(bad[i]);
		ck_assert_ptr_nonnull(o);
		struct caret_ctl_top t;
		struct ctl_why why = { "" };
		ck_assert_msg(caret_ctl_dec_top(o, &t, &why) == -EPROTO, "%zu", i);
		ck_assert_msg(why.msg[0], "%zu", i);
		cJSON_Delete(o);
	}
	/* more hosts than a bridge knows */
	cJSON *o = cJSON_Parse("{\"top\":{\"interval_ms\":0,\"processes\":0,\"lost\":0,"
			       "\"truncated\":0,\"callbacks\":[],\"topics\":[],\"hosts\":[]}}");
	cJSON *arr = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "top"), "hosts");
	for (int i = 0; i <= CARET_CTL_TOP_MAX_HOSTS; i++) {
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "host", "h");
		cJSON_AddNumberToObject(h, "interval_ms", 0);
		cJSON_AddNumberToObject(h, "processes", 0);
		cJSON_AddNumberToObject(h, "lost", 0);
		cJSON_AddNumberToObject(h, "truncated", 0);
		cJSON_AddItemToArray(arr, h);
	}
	struct caret_ctl_top t;
	struct ctl_why why;
	ck_assert_int_eq(caret_ctl_dec_top(o, &t, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why.msg, "hosts"));
	cJSON_Delete(o);
	/* a request's all_hosts is a boolean */
	cJSON *r = ask("{\"v\":1,\"cmd\":\"top\",\"all_hosts\":1}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "all_hosts"));
	cJSON_Delete(r);
}
END_TEST

void add_top_tests(TCase *tc)
{
	tcase_add_test(tc, top_all_hosts_rows);
	tcase_add_test(tc, top_reply_hosts_hostile);
	tcase_add_test(tc, top_rows_from_two_reads);
	tcase_add_test(tc, top_lease_ends);
	tcase_add_test(tc, top_state_goes_with_the_watch);
	tcase_add_test(tc, top_latency_only_when_host_only);
	tcase_add_test(tc, top_orphan_watch_dropped);
	tcase_add_test(tc, top_not_another_users);
	tcase_add_test(tc, top_refused_without_module);
	tcase_add_test(tc, top_reply_hostile);
}
