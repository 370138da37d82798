/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ros2_caret events our provider declares (generated from CARET_KINDS)
 * against CARET's own definitions, written out by hand below from
 * tier4/caret_trace, CARET_trace/include/caret_trace/tp.h (main, commit
 * aea8762; dds_write in its ROS_DISTRO_JAZZY form, or with
 * CARET_TP_PRE_JAZZY its other form, for the Humble/Iron provider). caret_analyze reads
 * fields by name, and babeltrace2 by the CTF types lttng-ust derives from
 * these descriptors, so name, type and order must all match.
 *
 * The layouts are read from lttng-ust's own probe descriptor of the
 * provider (the same description it sends to the session daemon for the
 * trace metadata), not from our sources.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <lttng/ust-events.h>

#include "shm/caret_shm.h"
#include "tests/unit/unit.h"

extern const struct lttng_ust_probe_desc lttng_ust__probe_desc___ros2_caret;

/* CTF type of a field as CARET declares it:
 *   HEX  ctf_integer_hex(const void *, ...)   64-bit unsigned, base 16
 *   U64  ctf_integer(const uint64_t / size_t / const uint64_t *, ...)
 *   S64  ctf_integer(const int64_t, ...)
 *   STR  ctf_string(...) */
enum ty { END, HEX, U64, S64, STR };

struct ref_field {
	const char *name;
	enum ty ty;
};

struct ref_event {
	const char *name;
	struct ref_field f[CARET_MAX_FIELDS + 2];
};

#define TS { "init_timestamp", S64 }

static const struct ref_event caret_events[] = {
	{ "caret_init", { { "clock_offset", S64 }, { "distribution", STR } } },
#ifdef CARET_TP_PRE_JAZZY
	{ "dds_write", { { "message", HEX } } },
#else
	{ "dds_write", { { "rmw_publisher_handle", HEX }, { "message", HEX }, { "timestamp", S64 } } },
#endif
	{ "dds_bind_addr_to_stamp", { { "addr", HEX }, { "source_stamp", U64 } } },
	{ "dds_bind_addr_to_addr", { { "addr_from", HEX }, { "addr_to", HEX } } },
	{ "rmw_implementation", { { "rmw_impl", STR }, TS } },
	{ "callback_group_to_executor_entity_collector",
	  { { "entities_collector_addr", HEX }, { "callback_group_addr", HEX },
	    { "group_type_name", STR }, TS } },
	{ "executor_entity_collector_to_executor",
	  { { "executor_addr", HEX }, { "entities_collector_addr", HEX }, TS } },
	{ "construct_executor", { { "executor_addr", HEX }, { "executor_type_name", STR }, TS } },
	{ "construct_static_executor",
	  { { "executor_addr", HEX }, { "entities_collector_addr", HEX },
	    { "executor_type_name", STR }, TS } },
	{ "add_callback_group",
	  { { "executor_addr", HEX }, { "callback_group_addr", HEX }, { "group_type_name", STR },
	    TS } },
	{ "add_callback_group_static_executor",
	  { { "entities_collector_addr", HEX }, { "callback_group_addr", HEX },
	    { "group_type_name", STR }, TS } },
	{ "callback_group_add_timer", { { "callback_group_addr", HEX }, { "timer_handle", HEX }, TS } },
	{ "callback_group_add_subscription",
	  { { "callback_group_addr", HEX }, { "subscription_handle", HEX }, TS } },
	{ "callback_group_add_service",
	  { { "callback_group_addr", HEX }, { "service_handle", HEX }, TS } },
	{ "callback_group_add_client", { { "callback_group_addr", HEX }, { "client_handle", HEX }, TS } },
	{ "rcl_init", { { "context_handle", HEX }, TS } },
	{ "rcl_node_init",
	  { { "node_handle", HEX }, { "rmw_handle", HEX }, { "node_name", STR }, { "namespace", STR },
	    TS } },
	{ "rcl_publisher_init",
	  { { "publisher_handle", HEX }, { "node_handle", HEX }, { "rmw_publisher_handle", HEX },
	    { "topic_name", STR }, { "queue_depth", U64 }, TS } },
	{ "rcl_subscription_init",
	  { { "subscription_handle", HEX }, { "node_handle", HEX }, { "rmw_subscription_handle", HEX },
	    { "topic_name", STR }, { "queue_depth", U64 }, TS } },
	{ "rclcpp_subscription_init", { { "subscription_handle", HEX }, { "subscription", HEX }, TS } },
	{ "rclcpp_subscription_callback_added", { { "subscription", HEX }, { "callback", HEX }, TS } },
	{ "rcl_timer_init", { { "timer_handle", HEX }, { "period", S64 }, TS } },
	{ "rclcpp_timer_callback_added", { { "timer_handle", HEX }, { "callback", HEX }, TS } },
	{ "rclcpp_timer_link_node", { { "timer_handle", HEX }, { "node_handle", HEX }, TS } },
	{ "rclcpp_callback_register", { { "callback", HEX }, { "symbol", STR }, TS } },
	{ "rcl_service_init",
	  { { "service_handle", HEX }, { "node_handle", HEX }, { "rmw_service_handle", HEX },
	    { "service_name", STR }, TS } },
	{ "rclcpp_service_callback_added", { { "service_handle", HEX }, { "callback", HEX }, TS } },
	{ "rcl_client_init",
	  { { "client_handle", HEX }, { "node_handle", HEX }, { "rmw_client_handle", HEX },
	    { "service_name", STR }, TS } },
	{ "rcl_lifecycle_state_machine_init", { { "node_handle", HEX }, { "state_machine", HEX }, TS } },
	{ "rclcpp_ipb_to_subscription", { { "ipb", HEX }, { "subscription", HEX }, TS } },
	{ "rclcpp_buffer_to_ipb", { { "buffer", HEX }, { "ipb", HEX }, TS } },
	{ "rclcpp_construct_ring_buffer", { { "buffer", HEX }, { "capacity", U64 }, TS } },
};
#define N_REF (sizeof(caret_events) / sizeof(caret_events[0]))

/* Ours, not CARET's (agent/tp/caret_tp.h): the replay-pass marks that
 * `caretctl check` reads. caret_analyze keeps only the names of
 * Ros2Handler.get_trace_points() (lttng.py _to_dicts), which has none of
 * them: they can never change what it loads. */
static const struct ref_event ours_only[] = {
	{ "caret_replay_begin", { { "pass", U64 }, { "records", U64 } } },
	{ "caret_replay_end", { { "pass", U64 }, { "records", U64 } } },
};

static const struct ref_event *ref_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ours_only) / sizeof(ours_only[0]); i++)
		if (strcmp(ours_only[i].name, name) == 0)
			return &ours_only[i];
	for (size_t i = 0; i < N_REF; i++)
		if (strcmp(caret_events[i].name, name) == 0)
			return &caret_events[i];
	return NULL;
}

/* lttng-ust names events "<provider>:<event>". */
static const struct lttng_ust_event_desc *ours(const char *name)
{
	const struct lttng_ust_probe_desc *p = &lttng_ust__probe_desc___ros2_caret;
	char full[128];
	snprintf(full, sizeof(full), "ros2_caret:%s", name);
	for (unsigned i = 0; i < p->nr_events; i++) {
		const char *n = p->event_desc[i]->event_name;
		if (strcmp(n, name) == 0 || strcmp(n, full) == 0)
			return p->event_desc[i];
	}
	return NULL;
}

static const char *short_name(const char *n)
{
	const char *c = strchr(n, ':');
	return c ? c + 1 : n;
}

static enum ty ty_of(const struct lttng_ust_type_common *t)
{
	if (t->type == lttng_ust_type_string)
		return STR;
	if (t->type != lttng_ust_type_integer)
		return END; /* never in CARET's init events */
	const struct lttng_ust_type_integer *i = (const void *)t;
	if (i->size != 64)
		return END;
	if (i->base == 16 && !i->signedness)
		return HEX;
	if (i->base == 10)
		return i->signedness ? S64 : U64;
	return END;
}

/* Compares one event, field by field; returns a description of the first
 * difference or NULL. */
static const char *diff(const struct lttng_ust_event_desc *d, const struct ref_event *r,
			char *buf, size_t len)
{
	const struct lttng_ust_tracepoint_class *c = d->tp_class;
	size_t n = 0;
	while (r->f[n].name)
		n++;
	for (size_t i = 0; i < c->nr_fields || i < n; i++) {
		const struct lttng_ust_event_field *f = i < c->nr_fields ? c->fields[i] : NULL;
		if (!f || i >= n) {
			snprintf(buf, len, "%s: field %zu is %s in ours, %s in CARET's", r->name, i,
				 f ? f->name : "missing", i < n ? r->f[i].name : "missing");
			return buf;
		}
		if (strcmp(f->name, r->f[i].name) != 0 || ty_of(f->type) != r->f[i].ty) {
			snprintf(buf, len, "%s: field %zu is %s (type %d) in ours, %s (type %d) in CARET's",
				 r->name, i, f->name, ty_of(f->type), r->f[i].name, r->f[i].ty);
			return buf;
		}
	}
	return NULL;
}

/* Every event our provider declares is one of CARET's, with its layout. */
START_TEST(every_event_matches_caret)
{
	const struct lttng_ust_probe_desc *p = &lttng_ust__probe_desc___ros2_caret;
	ck_assert_str_eq(p->provider_name, "ros2_caret");
	ck_assert_uint_gt(p->nr_events, 0);
	char buf[256];
	for (unsigned i = 0; i < p->nr_events; i++) {
		const char *name = short_name(p->event_desc[i]->event_name);
		const struct ref_event *r = ref_find(name);
		ck_assert_msg(r, "ros2_caret:%s is not one of CARET's events", name);
		const char *d = diff(p->event_desc[i], r, buf, sizeof(buf));
		ck_assert_msg(!d, "%s", d);
	}
}
END_TEST

/* Every kind of the cache has its event, ending with init_timestamp, and
 * the fields in the record's order and encoding. */
START_TEST(every_kind_has_its_event)
{
	for (uint32_t k = 1; k < CARET_KIND_COUNT; k++) {
		const char *name = caret_kind_name(k);
		ck_assert_ptr_nonnull(name);
		const struct lttng_ust_event_desc *d = ours(name);
		ck_assert_msg(d, "no ros2_caret:%s event for kind %u", name, k);
		const struct lttng_ust_tracepoint_class *c = d->tp_class;
		const char *sig = caret_kind_sig(k), *fields = caret_kind_fields(k);
		ck_assert_uint_eq(c->nr_fields, strlen(sig) + 1);
		for (size_t i = 0; sig[i]; i++) {
			size_t l = strcspn(fields, ",");
			ck_assert_msg(strlen(c->fields[i]->name) == l &&
				      !strncmp(c->fields[i]->name, fields, l),
				      "%s field %zu: %s", name, i, c->fields[i]->name);
			fields += l + (fields[l] == ',');
			enum ty want = sig[i] == 'p' ? HEX : sig[i] == 's' ? STR
				     : sig[i] == 'i' ? S64 : U64;
			ck_assert_int_eq(ty_of(c->fields[i]->type), want);
		}
		ck_assert_str_eq(c->fields[c->nr_fields - 1]->name, "init_timestamp");
		ck_assert_int_eq(ty_of(c->fields[c->nr_fields - 1]->type), S64);
	}
}
END_TEST

/* The comparison itself can fail: a field renamed, retyped, dropped or
 * added is reported. */
START_TEST(diff_detects_changes)
{
	const struct lttng_ust_event_desc *d = ours("rcl_node_init");
	ck_assert_ptr_nonnull(d);
	char buf[256];
	struct ref_event r = *ref_find("rcl_node_init");
	ck_assert_ptr_null(diff(d, &r, buf, sizeof(buf)));
	r.f[3].name = "node_namespace";
	ck_assert_ptr_nonnull(diff(d, &r, buf, sizeof(buf)));
	r = *ref_find("rcl_node_init");
	r.f[1].ty = U64;
	ck_assert_ptr_nonnull(diff(d, &r, buf, sizeof(buf)));
	r = *ref_find("rcl_node_init");
	r.f[4] = (struct ref_field){ NULL, END };
	ck_assert_ptr_nonnull(diff(d, &r, buf, sizeof(buf)));
	r = *ref_find("rcl_init");
	ck_assert_ptr_nonnull(diff(d, &r, buf, sizeof(buf)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tp_layout");
	unit_case(s, "layout", every_event_matches_caret, every_kind_has_its_event,
		  diff_detects_changes);
	return unit_run(s);
}
