/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The links between init records that caret_analyze follows
 * (infra/lttng/lttng_info.py). Each init kind defines objects (a node
 * handle, a timer handle, a callback...) and refers to others:
 *
 * - a reference ('r') to an object that no record of the same process
 *   defines is missing data whoever recorded the trace (a session started
 *   after the process created it, a replay cut short);
 * - an expectation ('e') is what rclcpp and the agent always emit after
 *   the record (a callback is registered right after it is added; a
 *   callback group is tied to an executor when its node is added to one).
 *   It is checked only for processes that emitted caret_init: without the
 *   agent there are no executor records at all. A replay stopped early
 *   leaves these out: a process records its objects before it links them.
 *
 * Only links real rclcpp always makes are followed: each exception below
 * was a real Humble or Jazzy trace, complete, that a stricter rule called
 * incomplete.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_links.h"
#include "util/caret_util.h"

enum obj {
	O_NONE,
	O_NODE,
	O_SUB,
	O_RSUB,
	O_RSUB_CB,
	O_CLI,
	O_TIMER,
	O_CB,
	O_CB_REG,
	O_SCOLL, /* a static executor's entities collector */
	O_GLINK, /* a callback group tied to an executor */
};

struct op {
	char what; /* 'd' defines, 'r' refers to, 'e' expects */
	enum obj obj;
	const char *field;
	int rule; /* for 'r' and 'e' */
};

struct kind_ops {
	const char *kind;
	struct op ops[CHECK_LINK_OPS];
};

enum {
	R_PUB_NODE,
	R_SUB_NODE,
	R_SRV_NODE,
	R_CLI_NODE,
	R_SUBCB_RSUB,
	R_TIMERCB_TIMER,
	R_LINK_TIMER,
	R_LINK_NODE,
	R_REG_CB,
	R_CBG_TIMER,
	R_CBG_SUB,
	R_CBG_CLI,
	R_ADDCBGS_SCOLL,
	R_RSUB_CB,
	R_CB_REG,
	R_GROUP_EXEC,
	NRULES
};
_Static_assert((int)NRULES <= (int)CHECK_MAX_LINKS, "CHECK_MAX_LINKS too small");

/* What is found, and what it lacks: "<n> <found> without <lacks>". */
static const struct {
	const char *name, *found, *lacks;
} rules[NRULES] = {
	[R_PUB_NODE] = { "rcl_publisher_init:rcl_node_init", "rcl_publisher_init",
			 "the rcl_node_init of its node" },
	[R_SUB_NODE] = { "rcl_subscription_init:rcl_node_init", "rcl_subscription_init",
			 "the rcl_node_init of its node" },
	[R_SRV_NODE] = { "rcl_service_init:rcl_node_init", "rcl_service_init",
			 "the rcl_node_init of its node" },
	[R_CLI_NODE] = { "rcl_client_init:rcl_node_init", "rcl_client_init",
			 "the rcl_node_init of its node" },
	[R_SUBCB_RSUB] = { "rclcpp_subscription_callback_added:rclcpp_subscription_init",
			   "rclcpp_subscription_callback_added",
			   "the rclcpp_subscription_init of its subscription" },
	[R_TIMERCB_TIMER] = { "rclcpp_timer_callback_added:rcl_timer_init",
			      "rclcpp_timer_callback_added", "the rcl_timer_init of its timer" },
	[R_LINK_TIMER] = { "rclcpp_timer_link_node:rcl_timer_init", "rclcpp_timer_link_node",
			   "the rcl_timer_init of its timer" },
	[R_LINK_NODE] = { "rclcpp_timer_link_node:rcl_node_init", "rclcpp_timer_link_node",
			  "the rcl_node_init of its node" },
	[R_REG_CB] = { "rclcpp_callback_register:callback_added", "rclcpp_callback_register",
		       "the *_callback_added record of its callback" },
	[R_CBG_TIMER] = { "callback_group_add_timer:rcl_timer_init", "callback_group_add_timer",
			  "the rcl_timer_init of its timer" },
	[R_CBG_SUB] = { "callback_group_add_subscription:rcl_subscription_init",
			"callback_group_add_subscription",
			"the rcl_subscription_init of its subscription" },
	[R_CBG_CLI] = { "callback_group_add_client:rcl_client_init", "callback_group_add_client",
			"the rcl_client_init of its client" },
	[R_ADDCBGS_SCOLL] = { "add_callback_group_static_executor:construct_static_executor",
			      "add_callback_group_static_executor",
			      "the construct_static_executor of its executor" },
	[R_RSUB_CB] = { "rclcpp_subscription_init:rclcpp_subscription_callback_added",
			"rclcpp subscriptions", "rclcpp_subscription_callback_added" },
	[R_CB_REG] = { "callback:rclcpp_callback_register", "callbacks",
		       "rclcpp_callback_register" },
	[R_GROUP_EXEC] = { "callback_group:executor", "callback groups",
			   "an executor (add_callback_group, add_callback_group_static_executor "
			   "or callback_group_to_executor_entity_collector)" },
};

static const struct kind_ops table[] = {
	{ "rcl_node_init", { { 'd', O_NODE, "node_handle", 0 } } },
	{ "rcl_publisher_init", { { 'r', O_NODE, "node_handle", R_PUB_NODE } } },
	{ "rcl_subscription_init",
	  { { 'd', O_SUB, "subscription_handle", 0 }, { 'r', O_NODE, "node_handle", R_SUB_NODE } } },
	{ "rcl_service_init", { { 'r', O_NODE, "node_handle", R_SRV_NODE } } },
	{ "rcl_client_init",
	  { { 'd', O_CLI, "client_handle", 0 }, { 'r', O_NODE, "node_handle", R_CLI_NODE } } },
	/* not a reference to rcl_subscription_init: an intra-process
	 * subscription's handle is not an rcl subscription */
	{ "rclcpp_subscription_init",
	  { { 'd', O_RSUB, "subscription", 0 }, { 'e', O_RSUB_CB, "subscription", R_RSUB_CB } } },
	{ "rclcpp_subscription_callback_added",
	  { { 'r', O_RSUB, "subscription", R_SUBCB_RSUB },
	    { 'd', O_RSUB_CB, "subscription", 0 },
	    { 'e', O_CB_REG, "callback", R_CB_REG } } },
	/* no reference to rcl_service_init: rclcpp::Service made from an rcl
	 * service (a lifecycle node's five) holds a copy of the handle that
	 * no rcl_service_init names (real Humble and Jazzy) */
	{ "rclcpp_service_callback_added", { { 'e', O_CB_REG, "callback", R_CB_REG } } },
	{ "rcl_timer_init", { { 'd', O_TIMER, "timer_handle", 0 } } },
	{ "rclcpp_timer_callback_added",
	  { { 'r', O_TIMER, "timer_handle", R_TIMERCB_TIMER },
	    { 'e', O_CB_REG, "callback", R_CB_REG } } },
	{ "rclcpp_timer_link_node",
	  { { 'r', O_TIMER, "timer_handle", R_LINK_TIMER },
	    { 'r', O_NODE, "node_handle", R_LINK_NODE } } },
	/* counted apart, a note (filtered_registers): caret_trace's filters
	 * keep the registration of a callback without a topic (a timer's, a
	 * service's) while they drop the timer or service by its node; a
	 * replay cut short cannot leave one, rclcpp registers a callback
	 * right after it adds it */
	{ "rclcpp_callback_register",
	  { { 'r', O_CB, "callback", R_REG_CB }, { 'd', O_CB_REG, "callback", 0 } } },
	{ "construct_static_executor", { { 'd', O_SCOLL, "entities_collector_addr", 0 } } },
	/* not a reference to construct_executor: only the executors CARET
	 * knows by name have one (not a Jazzy EventsExecutor, not a custom
	 * one), and every executor ties its groups */
	{ "add_callback_group", { { 'd', O_GLINK, "callback_group_addr", 0 } } },
	{ "add_callback_group_static_executor",
	  { { 'r', O_SCOLL, "entities_collector_addr", R_ADDCBGS_SCOLL },
	    { 'd', O_GLINK, "callback_group_addr", 0 } } },
	{ "callback_group_add_timer",
	  { { 'r', O_TIMER, "timer_handle", R_CBG_TIMER },
	    { 'e', O_GLINK, "callback_group_addr", R_GROUP_EXEC } } },
	{ "callback_group_add_subscription",
	  { { 'r', O_SUB, "subscription_handle", R_CBG_SUB },
	    { 'e', O_GLINK, "callback_group_addr", R_GROUP_EXEC } } },
	{ "callback_group_add_service", { { 'e', O_GLINK, "callback_group_addr", R_GROUP_EXEC } } },
	{ "callback_group_add_client",
	  { { 'r', O_CLI, "client_handle", R_CBG_CLI },
	    { 'e', O_GLINK, "callback_group_addr", R_GROUP_EXEC } } },
	/* nor here: a Jazzy EventsExecutor ties its groups to a collector of
	 * its own, not the one its base Executor announced (real Jazzy) */
	{ "callback_group_to_executor_entity_collector",
	  { { 'd', O_GLINK, "callback_group_addr", 0 } } },
};

const char *check_link_name(size_t i)
{
	return i < NRULES ? rules[i].name : NULL;
}

const char *check_link_found(size_t i)
{
	return i < NRULES ? rules[i].found : NULL;
}

const char *check_link_lacks(size_t i)
{
	return i < NRULES ? rules[i].lacks : NULL;
}

/* The expectations (what rclcpp emits after a record): a replay cut
 * short leaves them out. The other rules refer to records made before,
 * which a cut cannot leave out while keeping the later one that refers
 * to them: replays go in creation order (agent/replay.c). */
bool check_link_expected(size_t i)
{
	return i == R_RSUB_CB || i == R_CB_REG || i == R_GROUP_EXEC;
}

static const struct kind_ops *ops_of(const char *kind)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].kind, kind) == 0)
			return &table[i];
	return NULL;
}

const char *check_link_field(const char *kind, int op)
{
	const struct kind_ops *k = ops_of(kind);
	return k && op >= 0 && op < CHECK_LINK_OPS && k->ops[op].what ? k->ops[op].field : NULL;
}

static uint64_t key_of(int64_t vpid, enum obj o, uint64_t handle)
{
	return check_hcomb(check_hcomb(check_hcomb(7, (uint64_t)vpid), o), handle);
}

static int define(struct check_links *l, uint64_t key)
{
	bool added;
	return check_map_slot(&l->defs, key, &added) ? 0 : -ENOMEM;
}

int check_links_record(struct check_links *l, const char *kind,
		       const uint64_t val[CHECK_LINK_OPS], const bool have[CHECK_LINK_OPS],
		       size_t proc, int64_t vpid)
{
	const struct kind_ops *k = ops_of(kind);
	if (!k)
		return 0;
	for (int i = 0; i < CHECK_LINK_OPS && k->ops[i].what; i++) {
		const struct op *o = &k->ops[i];
		if (!have[i])
			continue;
		uint64_t h = val[i];
		uint64_t key = key_of(vpid, o->obj, h);
		bool added;
		if (o->what == 'd') {
			if (define(l, key) < 0)
				return -ENOMEM;
		} else if (o->what == 'r') {
			if (caret_grow((void **)&l->refs, &l->refs_cap, l->nrefs + 1,
				       sizeof(*l->refs)) < 0)
				return -ENOMEM;
			l->refs[l->nrefs++] = (struct check_link_ref){ key, proc, (unsigned)o->rule };
		} else {
			/* one per object, however many records expect it */
			uint64_t *v = check_map_slot(&l->expects, key, &added);
			if (!v)
				return -ENOMEM;
			if (added)
				*v = (uint64_t)proc << 8 | (unsigned)o->rule;
			/* each *_callback_added expects the registration of the
			 * callback it defines, the one rclcpp_callback_register
			 * refers to */
			if (o->obj == O_CB_REG && define(l, key_of(vpid, O_CB, h)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

void check_links_finish(struct check_links *l, struct check_proc *procs, size_t nprocs)
{
	for (size_t i = 0; i < l->nrefs; i++) {
		const struct check_link_ref *r = &l->refs[i];
		if (r->proc < nprocs && !check_map_has(&l->defs, r->key) && r->rule == R_REG_CB) {
			procs[r->proc].filtered_registers++;
		} else if (r->proc < nprocs && !check_map_has(&l->defs, r->key)) {
			procs[r->proc].missing[r->rule]++;
			procs[r->proc].missing_total++;
		}
	}
	for (size_t i = 0; i < l->expects.cap; i++) {
		if (!l->expects.used[i] || check_map_has(&l->defs, l->expects.k[i]))
			continue;
		size_t proc = (size_t)(l->expects.v[i] >> 8);
		unsigned rule = (unsigned)(l->expects.v[i] & 0xff);
		if (proc < nprocs && rule < NRULES && procs[proc].caret_init) {
			procs[proc].missing[rule]++;
			procs[proc].missing_total++;
		}
	}
}

void check_links_free(struct check_links *l)
{
	check_map_free(&l->defs);
	check_map_free(&l->expects);
	free(l->refs);
}
