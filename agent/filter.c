/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CARET's trace filters, with caret_trace's semantics
 * (tier4/caret_trace CARET_trace/src/tracing_controller.cpp, main):
 *   - each variable is a ':'-separated list; each item is a regular
 *     ECMAScript regular expression (std::regex) matched anywhere in the
 *     name (std::regex_search; here PCRE2 in ECMAScript's options, every
 *     search bounded: util/regex/caret_regex.h); "*" matches
 *     everything; an item that does not compile is skipped with a warning
 *     (caretctl and caretd refuse one in a recording's lists before it
 *     gets here);
 *   - node names are namespace + "/" + name ("/ns/node");
 *   - when a SELECT list is set, SELECT decides and IGNORE is not used;
 *   - a publisher / subscription is kept when its topic matches a set
 *     topic list or its node matches a set node list (SELECT), dropped when
 *     either matches (IGNORE); timers, services and clients go by node
 *     (timers kept by a SELECT of topics alone: timer_verdict);
 *   - lifecycle state machines go by node; callback groups by node too,
 *     which their records do not carry: a member's node, or that of the
 *     other groups the executor got with the same node interface;
 *     intra-process buffers (ring buffer, ipb) by the subscription they
 *     feed; with only SELECT_TOPICS set, IGNORE_NODES still judges a
 *     node itself (is_allowed_node);
 *   - callbacks go by what they belong to; a callback without a topic
 *     (timers, services) is always kept, as is anything whose node or
 *     topic is unknown, except:
 *   - Iron and later: a publish event of a publisher whose node or topic
 *     is unknown is dropped ("omit /rosout") -- once: caret_trace caches
 *     `true` for that handle before returning false, so every later event
 *     of it is kept. rclcpp passes nullptr as rclcpp_publish's publisher
 *     handle (ros2/rclcpp publisher.hpp, humble and jazzy), so this is what
 *     keeps rclcpp_publish in CARET's Iron+ traces; the agent does the same
 *     (one claim per handle, lock-free).
 * Init records are always cached; whether one is emitted (live or in a
 * replay) is decided when it is emitted, as caret_trace's record lambdas
 * do. Runtime hooks read verdicts from a lock-free table that init-time
 * code fills (the only writer, under a mutex never taken by app threads on
 * runtime paths).
 *
 * A Start's filters (the pass filter: caretd hands them over in the
 * segment, see struct caret_shm_filter) are a second set of the same four
 * lists with the same semantics, decided over the same relations; an
 * init record or runtime event is emitted only if both sets allow it: the
 * environment's filters are the process's, a Start's narrow one recording.
 * Relations are therefore learnt always (init time only), with the names
 * they match against, so a pass filter given later can be decided.
 *
 * Over 600 lines (850): the relations table, its lock-free verdicts and
 * the two filter sets decided over it are one structure whose invariants
 * (one writer at init time, runtime reads without a lock) every function
 * here keeps; apart, each part would need the table's internals.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/filter.h"
#include "agent/state.h"
#include "util/regex/caret_regex.h"

#define MAX_RE 32

struct relist {
	struct caret_re *re[MAX_RE];
	char *item[MAX_RE];     /* the pattern, for the warning */
	uint32_t warned;         /* atomic: the limit warning was given */
	const char *var;
	unsigned n;
	bool all, set;
};

/* One set of CARET's four lists: the environment's, or a pass's. */
struct fset {
	struct relist sel_nodes, ign_nodes, sel_topics, ign_topics;
	bool select_enabled, ignore_enabled;
};
enum { ENV = 0, PASS = 1, NSETS = 2 };
static struct fset sets[NSETS];
static bool iron;

/* The pass filter in force: set by the replay thread when a pass starts;
 * it holds while the segment's filter word still reads pass_epoch (End
 * clears it there). A pass that begins in WAIT/PREPARE is the recording's
 * Start: its filter holds for the replay, live init records and runtime
 * events (PASS_ALL). A pass that begins while the process already records
 * for another session (caretd's extra pass for a new session) filters only
 * what the replay thread emits (PASS_REPLAY): the runtime events and live
 * init records also reach the older sessions, which LTTng cannot tell
 * apart, and those already hold the cache, so only copies are left out. */
enum { PASS_OFF = 0, PASS_ALL = 1, PASS_REPLAY = 2 };
static uint32_t pass_mode;         /* atomic */
static uint32_t pass_epoch;        /* atomic */
static const uint32_t *pass_word;  /* atomic pointer */
static pthread_t pass_thread;      /* the replay thread (the one setting passes) */

static void list_free(struct relist *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		caret_re_free(l->re[i]);
		free(l->item[i]);
	}
	memset(l, 0, sizeof(*l));
}

/* caret_trace's split(): "a::b" and ":a" yield an empty item, which
 * matches everything as a regex; a ':' at the end yields none (its loop
 * stops at the end of the string). The same happens here. */
static void list_parse(struct relist *l, const char *v, const char *var)
{
	list_free(l);
	if (!v || !*v)
		return;
	l->set = true;
	l->var = var;
	const char *p = v;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 1 && *p == '*') {
			l->all = true;
		} else if (l->n < MAX_RE) {
			char why[200];
			int r = caret_re_compile(p, len, &l->re[l->n], why, sizeof(why));
			if (r == -ENOMEM)
				snprintf(why, sizeof(why), "out of memory");
			l->item[l->n] = r ? NULL : strndup(p, len);
			if (r == 0)
				l->n++;
			else
				caret_warn("caret-agent: %s: cannot compile \"%.*s\" (%s), skipped", var,
					   (int)(len > 200 ? 200 : len), p, why);
		}
		if (!e || !e[1])
			break;
		p = e + 1;
	}
}

/* A search that reaches its limit (caret_regex.h: CARET_RE_STEPS steps
 * for the whole list on one name, CARET_RE_HEAP_KIB of match memory)
 * counts as no match for that name: SELECT does not select it, IGNORE does
 * not ignore it, as a pattern CARET cannot apply. Warned once per pattern.
 * One budget per list and name: a member's list of 32 costly items costs
 * another user's process what one does. */
static bool list_match(const struct relist *l, const char *name)
{
	if (!name)
		return false;
	if (l->all)
		return true;
	size_t n = strlen(name);
	unsigned long spent = 0;
	for (unsigned i = 0; i < l->n; i++) {
		int r = caret_re_search(l->re[i], name, n, &spent);
		if (r == 1)
			return true;
		if (r < 0 && !__atomic_exchange_n((uint32_t *)&l->warned, 1, __ATOMIC_RELAXED))
			caret_warn("caret-agent: %s: \"%.60s\" %s on \"%.40s...\" (%zu bytes): "
				   "no match for it and the items after it (warned once)",
				   l->var, l->item[i] ? l->item[i] : "?",
				   r == -E2BIG ? "reached its match limit" : "ran out of memory",
				   name, n);
	}
	return false;
}

static void set_parse(struct fset *f, const char *const v[CARET_FILTER_LISTS],
		      const char *const names[CARET_FILTER_LISTS])
{
	list_parse(&f->sel_nodes, v[CARET_FILTER_SELECT_NODES], names[CARET_FILTER_SELECT_NODES]);
	list_parse(&f->ign_nodes, v[CARET_FILTER_IGNORE_NODES], names[CARET_FILTER_IGNORE_NODES]);
	list_parse(&f->sel_topics, v[CARET_FILTER_SELECT_TOPICS],
		   names[CARET_FILTER_SELECT_TOPICS]);
	list_parse(&f->ign_topics, v[CARET_FILTER_IGNORE_TOPICS],
		   names[CARET_FILTER_IGNORE_TOPICS]);
	f->select_enabled = f->sel_nodes.set || f->sel_topics.set;
	f->ignore_enabled = f->ign_nodes.set || f->ign_topics.set;
}

static bool set_on(const struct fset *f)
{
	return f->select_enabled || f->ignore_enabled;
}

bool caret_filter_process_ignored(const char *ignore_processes, const char *name)
{
	struct relist l = { 0 };
	list_parse(&l, ignore_processes, "CARET_IGNORE_PROCESSES");
	bool r = l.set && list_match(&l, name);
	list_free(&l);
	return r;
}

/* ---- verdicts: pointer -> allowed / denied per set, insert-only keys,
 * lock-free reads */
enum { V_UNKNOWN = 0, V_ALLOW = 1, V_DENY = 2 };
#define VT_BITS 15
#define VT_SIZE (1u << VT_BITS)
static struct vslot {
	uintptr_t key;          /* atomic; 0 = empty */
	uint32_t value[NSETS];  /* atomic */
} vt[VT_SIZE];

static uint32_t vt_hash(uintptr_t k)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - VT_BITS));
}

/* The slot of `key`, claimed when absent; *fresh tells whether this call
 * claimed it. Keys are claimed with a CAS: runtime threads claim unknown
 * publishers while init code stores verdicts. The null pointer is a key
 * too (rclcpp_publish passes it), stored as ~0. NULL when full. */
static struct vslot *vt_slot(const void *key, bool *fresh)
{
	uintptr_t k = key ? (uintptr_t)key : ~(uintptr_t)0;
	for (uint32_t i = vt_hash(k), n = 0; n < VT_SIZE; n++, i = (i + 1) & (VT_SIZE - 1)) {
		uintptr_t cur = __atomic_load_n(&vt[i].key, __ATOMIC_ACQUIRE);
		if (cur == 0) {
			uintptr_t zero = 0;
			if (__atomic_compare_exchange_n(&vt[i].key, &zero, k, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				*fresh = true;
				return &vt[i];
			}
			cur = zero;
		}
		if (cur == k) {
			*fresh = false;
			return &vt[i];
		}
	}
	return NULL;
}

/* A full table leaves the verdict unknown, which keeps the events. */
static void vt_set(const void *key, int set, uint32_t v)
{
	bool fresh;
	struct vslot *sl = key ? vt_slot(key, &fresh) : NULL;
	if (sl)
		__atomic_store_n(&sl->value[set], v, __ATOMIC_RELEASE);
}

static uint32_t vt_get(const void *key, int set)
{
	uintptr_t k = key ? (uintptr_t)key : ~(uintptr_t)0;
	for (uint32_t i = vt_hash(k), n = 0; n < VT_SIZE; n++, i = (i + 1) & (VT_SIZE - 1)) {
		uintptr_t cur = __atomic_load_n(&vt[i].key, __ATOMIC_ACQUIRE);
		if (cur == k)
			return __atomic_load_n(&vt[i].value[set], __ATOMIC_ACQUIRE);
		if (cur == 0)
			return V_UNKNOWN;
	}
	return V_UNKNOWN;
}

/* ---- relations learnt from init records (init time, under rel_lock) ---- */
enum ent_kind {
	E_NODE, E_PUB, E_SUB, E_RCLCPP_SUB, E_TIMER, E_SRV, E_CLI, E_CB,
	E_GROUP, /* a callback group: owner is a member's handle, of kind member */
	E_SM,    /* a lifecycle state machine: node */
	E_IPB,   /* an intra-process buffer: owner is its rclcpp subscription */
	E_BUF,   /* a ring buffer: owner is its intra-process buffer */
	E_COUNT
};

struct ent {
	enum ent_kind kind, member;
	const void *h, *node, *rmw, *owner;
	char *name;             /* node: "/ns/name"; pub/sub: topic; NULL: unknown */
	bool named;             /* node: name known; pub/sub: topic known */
	bool m_sel[NSETS], m_ign[NSETS]; /* per set: the name matches */
};

/* One array per kind, so a lookup scans only its kind. */
static struct ent *ents[E_COUNT];
static size_t nents[E_COUNT], cap[E_COUNT];
static pthread_mutex_t rel_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ent *find(enum ent_kind k, const void *h)
{
	/* Newest first: an address reused by a new object wins. */
	for (size_t i = nents[k]; i-- > 0;)
		if (ents[k][i].h == h)
			return &ents[k][i];
	return NULL;
}

static struct ent *add(enum ent_kind k, const void *h)
{
	if (nents[k] == cap[k]) {
		size_t nc = cap[k] ? cap[k] * 2 : 64;
		struct ent *n = realloc(ents[k], nc * sizeof(*n));
		if (!n)
			return NULL;
		ents[k] = n;
		cap[k] = nc;
	}
	struct ent *e = &ents[k][nents[k]++];
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->h = h;
	return e;
}

/* The match bits of a named entity against one set's lists. */
static void match(struct ent *e, int set)
{
	const struct fset *f = &sets[set];
	bool node = e->kind == E_NODE;
	e->m_sel[set] = e->name && list_match(node ? &f->sel_nodes : &f->sel_topics, e->name);
	e->m_ign[set] = e->name && list_match(node ? &f->ign_nodes : &f->ign_topics, e->name);
}

/* tracing_controller.cpp is_allowed_node: a node list of either kind
 * decides, SELECT's first (with only SELECT_TOPICS set, IGNORE_NODES
 * still applies to nodes there). */
static uint32_t node_verdict(const struct ent *n, int set)
{
	const struct fset *f = &sets[set];
	if (!n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled && f->sel_nodes.set)
		return n->m_sel[set] ? V_ALLOW : V_DENY;
	if (f->ignore_enabled && f->ign_nodes.set)
		return n->m_ign[set] ? V_DENY : V_ALLOW;
	return V_ALLOW;
}

/* is_allowed_publisher_handle / is_allowed_subscription_handle */
static uint32_t topic_verdict(const struct ent *e, int set)
{
	const struct fset *f = &sets[set];
	const struct ent *n = e ? find(E_NODE, e->node) : NULL;
	if (!e || !e->named || !n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled)
		return (f->sel_topics.set && e->m_sel[set]) || (f->sel_nodes.set && n->m_sel[set])
			       ? V_ALLOW
			       : V_DENY;
	if (f->ignore_enabled)
		return (f->ign_nodes.set && n->m_ign[set]) || (f->ign_topics.set && e->m_ign[set])
			       ? V_DENY
			       : V_ALLOW;
	return V_ALLOW;
}

/* is_allowed_timer_handle (services and clients alike): by node; with
 * SELECT set and no node list, nothing matches. */
static uint32_t by_node_verdict(const struct ent *e, int set)
{
	const struct fset *f = &sets[set];
	const struct ent *n = e ? find(E_NODE, e->node) : NULL;
	if (!n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled)
		return f->sel_nodes.set && n->m_sel[set] ? V_ALLOW : V_DENY;
	if (f->ignore_enabled)
		return f->ign_nodes.set && n->m_ign[set] ? V_DENY : V_ALLOW;
	return V_ALLOW;
}

/* A timer's own records (rcl_timer_init, rclcpp_timer_callback_added,
 * callback_group_add_timer). caret_trace asks is_allowed_timer_handle of
 * each when rclcpp emits it, and rclcpp emits all three before it links the
 * timer to its node (timer.hpp GenericTimer(): rclcpp_timer_callback_added;
 * node_timers.cpp NodeTimers::add_timer: callback_group->add_timer, then
 * rclcpp_timer_link_node last), so it finds no node and keeps them
 * ("node_name.size() == 0": true), whatever the lists; only the link goes
 * by is_allowed_node. So with a SELECT list of topics alone, CARET's trace
 * from launch has every timer, linked (is_allowed_node keeps a node when no
 * node list is set), as is_allowed_callback says of timer callbacks
 * ("selected_node_names_.size() == 0 && topic_name == \"\"": allow timer
 * callback): timers belong to nodes, not topics. Judged by their node in
 * a replay (the node is known then; caret_trace's own late replay does so,
 * add_timer_handle having erased the cached verdict), they were all lost,
 * their link kept: the late path decides as the launch path does instead.
 * With a node list the node decides: from launch the three are kept
 * unlinked, as in caret_trace, since the node is not known yet. */
static uint32_t timer_verdict(const struct ent *e, int set)
{
	const struct fset *f = &sets[set];
	if (f->select_enabled && !f->sel_nodes.set)
		return V_ALLOW;
	return by_node_verdict(e, set);
}

/* is_allowed_callback: only subscription callbacks have a topic. */
static uint32_t callback_verdict(const struct ent *cb, int set)
{
	const struct ent *rs = find(E_RCLCPP_SUB, cb->owner);
	if (!rs)
		return V_ALLOW;
	return topic_verdict(find(E_SUB, rs->owner), set);
}

/* add_callback_group(_static_executor): caret_trace asks is_allowed_node
 * of the node rclcpp hands the hook, which the record does not carry: a
 * group's node is its members' (callback_group_add_* come first, when
 * the node creates its entities). */
static uint32_t group_verdict(const struct ent *g, int set)
{
	return g->node ? node_verdict(find(E_NODE, g->node), set) : V_UNKNOWN;
}

/* A group without a member of known node takes the node of another group
 * the executor was given with the same node interface (rmw: its address,
 * caret_filter_note_group_node). */
static const void *group_node_by_key(const void *key)
{
	for (size_t i = 0; key && i < nents[E_GROUP]; i++)
		if (ents[E_GROUP][i].rmw == key && ents[E_GROUP][i].node)
			return ents[E_GROUP][i].node;
	return NULL;
}

/* is_allowed_ipb / is_allowed_buffer: by the subscription they feed, as
 * its topic and node decide. */
static uint32_t ipb_verdict(const struct ent *ipb, int set)
{
	const struct ent *rs = ipb ? find(E_RCLCPP_SUB, ipb->owner) : NULL;
	return rs ? topic_verdict(find(E_SUB, rs->owner), set) : V_UNKNOWN;
}

static void store_set(struct ent *e, int set)
{
	uint32_t v;
	switch (e->kind) {
	case E_NODE:
		v = node_verdict(e, set);
		break;
	case E_PUB:
	case E_SUB:
		v = topic_verdict(e, set);
		vt_set(e->rmw, set, v);
		break;
	case E_TIMER:
		v = timer_verdict(e, set);
		break;
	case E_SRV:
	case E_CLI:
		v = by_node_verdict(e, set);
		break;
	case E_CB:
		v = callback_verdict(e, set);
		break;
	case E_GROUP:
		v = group_verdict(e, set);
		break;
	case E_SM:
		v = by_node_verdict(e, set);
		break;
	case E_IPB:
		v = ipb_verdict(e, set);
		break;
	case E_BUF:
		v = ipb_verdict(find(E_IPB, e->owner), set);
		break;
	default:
		return;
	}
	vt_set(e->h, set, v);
}

static void store(struct ent *e)
{
	for (int set = 0; set < NSETS; set++)
		store_set(e, set);
}

static void store_all(enum ent_kind k)
{
	for (size_t i = 0; i < nents[k]; i++)
		store(&ents[k][i]);
}

/* Entities decided through others are decided again when a relation they
 * lean on is learnt after them (init time, rare, each a scan of one kind):
 * a group whose member is linked to its node later (a timer), the buffers
 * of an intra-process buffer. */
static void owner_learnt(enum ent_kind k, const void *owner, const void *node)
{
	for (size_t i = 0; i < nents[k]; i++) {
		struct ent *e = &ents[k][i];
		if (e->owner != owner || (k == E_GROUP && (e->member != E_TIMER || e->node)))
			continue;
		if (k == E_GROUP)
			e->node = node;
		store(e);
		if (k == E_IPB)
			owner_learnt(E_BUF, e->h, NULL);
	}
}

/* A node named late (after entities that point at it, like Iron's rosout
 * publisher): its entities, then every callback, are decided again. */
static void node_named(const void *node)
{
	static const enum ent_kind by_node[] = { E_PUB, E_SUB, E_TIMER, E_SRV, E_CLI, E_SM,
						 E_GROUP };
	bool subs = false;
	for (size_t k = 0; k < sizeof(by_node) / sizeof(by_node[0]); k++)
		for (size_t i = 0; i < nents[by_node[k]]; i++)
			if (ents[by_node[k]][i].node == node) {
				store(&ents[by_node[k]][i]);
				subs |= by_node[k] == E_SUB;
			}
	if (subs) {
		store_all(E_CB);
		store_all(E_IPB);
		store_all(E_BUF);
	}
}

static const char *const env_names[CARET_FILTER_LISTS] = {
	[CARET_FILTER_SELECT_NODES] = "CARET_SELECT_NODES",
	[CARET_FILTER_IGNORE_NODES] = "CARET_IGNORE_NODES",
	[CARET_FILTER_SELECT_TOPICS] = "CARET_SELECT_TOPICS",
	[CARET_FILTER_IGNORE_TOPICS] = "CARET_IGNORE_TOPICS",
};
static const char *const start_names[CARET_FILTER_LISTS] = {
	[CARET_FILTER_SELECT_NODES] = "Start select_nodes",
	[CARET_FILTER_IGNORE_NODES] = "Start ignore_nodes",
	[CARET_FILTER_SELECT_TOPICS] = "Start select_topics",
	[CARET_FILTER_IGNORE_TOPICS] = "Start ignore_topics",
};

bool caret_filter_configure(const struct caret_filter_env *env)
{
	pthread_mutex_lock(&rel_lock);
	__atomic_store_n(&pass_mode, PASS_OFF, __ATOMIC_RELEASE);
	const char *v[CARET_FILTER_LISTS] = {
		[CARET_FILTER_SELECT_NODES] = env->select_nodes,
		[CARET_FILTER_IGNORE_NODES] = env->ignore_nodes,
		[CARET_FILTER_SELECT_TOPICS] = env->select_topics,
		[CARET_FILTER_IGNORE_TOPICS] = env->ignore_topics,
	};
	set_parse(&sets[ENV], v, env_names);
	const char *none[CARET_FILTER_LISTS] = { 0 };
	set_parse(&sets[PASS], none, start_names);
	iron = env->iron_or_later;
	for (int k = 0; k < E_COUNT; k++) {
		for (size_t i = 0; i < nents[k]; i++)
			free(ents[k][i].name);
		free(ents[k]);
		ents[k] = NULL;
		nents[k] = cap[k] = 0;
	}
	memset(vt, 0, sizeof(vt));
	pthread_mutex_unlock(&rel_lock);
	return set_on(&sets[ENV]);
}

static bool env_on(void)
{
	return set_on(&sets[ENV]);
}

static bool active(void)
{
	return env_on() || iron;
}

/* The pass filter's mode if its pass still holds (PASS_OFF else): one
 * acquire load when none is, two relaxed ones more when one is. */
static uint32_t pass_held(void)
{
	uint32_t m = __atomic_load_n(&pass_mode, __ATOMIC_ACQUIRE);
	if (m == PASS_OFF)
		return PASS_OFF;
	const uint32_t *w = __atomic_load_n(&pass_word, __ATOMIC_RELAXED);
	return w && __atomic_load_n(w, __ATOMIC_RELAXED) ==
			    __atomic_load_n(&pass_epoch, __ATOMIC_RELAXED)
		       ? m
		       : PASS_OFF;
}

/* Whether the pass filter decides what the calling thread emits now. */
static bool pass_live(void)
{
	return pass_held() == PASS_ALL;
}

static bool pass_live_for_record(void)
{
	uint32_t m = pass_held();
	return m == PASS_ALL ||
	       (m == PASS_REPLAY && pthread_equal(pthread_self(), pass_thread));
}

bool caret_filter_pass_set(const struct caret_filter_lists *f, const uint32_t *word,
			   uint32_t epoch)
{
	/* read before anything else: caretd sets PREPARE before the epoch a
	 * Start's pass has, and leaves RECORD for an extra pass */
	bool extra = caret_recording();
	pthread_mutex_lock(&rel_lock);
	__atomic_store_n(&pass_mode, PASS_OFF, __ATOMIC_RELEASE);
	const char *none[CARET_FILTER_LISTS] = { 0 };
	set_parse(&sets[PASS], f ? f->list : none, start_names);
	bool on = set_on(&sets[PASS]);
	if (on) {
		for (int k = 0; k < E_COUNT; k++)
			for (size_t i = 0; i < nents[k]; i++)
				match(&ents[k][i], PASS);
		for (int k = 0; k < E_COUNT; k++)
			for (size_t i = 0; i < nents[k]; i++)
				store_set(&ents[k][i], PASS);
		__atomic_store_n(&pass_word, word, __ATOMIC_RELAXED);
		__atomic_store_n(&pass_epoch, epoch, __ATOMIC_RELAXED);
		pass_thread = pthread_self();
		__atomic_store_n(&pass_mode, extra ? PASS_REPLAY : PASS_ALL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rel_lock);
	return on;
}

static const void *P(const union caret_arg *a, int i)
{
	return (const void *)(uintptr_t)a[i].u;
}

static struct ent *note_topic(enum ent_kind k, const union caret_arg *a)
{
	struct ent *e = add(k, P(a, 0));
	if (!e)
		return NULL;
	e->node = P(a, 1);
	e->rmw = P(a, 2);
	e->named = a[3].s && *a[3].s;
	e->name = e->named ? strdup(a[3].s) : NULL;
	return e;
}

void caret_filter_note(uint32_t kind, const union caret_arg *a)
{
	pthread_mutex_lock(&rel_lock);
	struct ent *e = NULL;
	switch (kind) {
	case CARET_KIND_rcl_node_init: {
		e = add(E_NODE, P(a, 0));
		if (!e)
			break;
		/* caret_trace: namespace, a '/' unless it ends with one, name. */
		char full[1024];
		const char *ns = a[3].s ? a[3].s : "", *nm = a[2].s ? a[2].s : "";
		size_t l = strlen(ns);
		snprintf(full, sizeof(full), "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", nm);
		e->named = true;
		e->name = strdup(full);
		break;
	}
	case CARET_KIND_rcl_publisher_init:
		e = note_topic(E_PUB, a);
		break;
	case CARET_KIND_rcl_subscription_init:
		e = note_topic(E_SUB, a);
		break;
	case CARET_KIND_rclcpp_subscription_init:
		/* (subscription_handle, subscription) */
		if ((e = add(E_RCLCPP_SUB, P(a, 1)))) {
			e->owner = P(a, 0);
			owner_learnt(E_IPB, e->h, NULL);
		}
		break;
	case CARET_KIND_rclcpp_subscription_callback_added:
	case CARET_KIND_rclcpp_timer_callback_added:
	case CARET_KIND_rclcpp_service_callback_added:
		/* (owner, callback) */
		if ((e = add(E_CB, P(a, 1))))
			e->owner = P(a, 0);
		break;
	case CARET_KIND_rcl_timer_init:
		add(E_TIMER, P(a, 0));
		break;
	case CARET_KIND_rclcpp_timer_link_node:
		if ((e = find(E_TIMER, P(a, 0))) || (e = add(E_TIMER, P(a, 0)))) {
			e->node = P(a, 1);
			owner_learnt(E_GROUP, e->h, e->node);
		}
		break;
	case CARET_KIND_rcl_service_init:
		if ((e = add(E_SRV, P(a, 0))))
			e->node = P(a, 1);
		break;
	case CARET_KIND_rcl_client_init:
		if ((e = add(E_CLI, P(a, 0))))
			e->node = P(a, 1);
		break;
	case CARET_KIND_callback_group_add_timer:
	case CARET_KIND_callback_group_add_subscription:
	case CARET_KIND_callback_group_add_service:
	case CARET_KIND_callback_group_add_client:
		/* (group, member): the first member names the group's node */
		e = find(E_GROUP, P(a, 0));
		if (e && e->node) {
			e = NULL; /* its node is known */
		} else if (e || (e = add(E_GROUP, P(a, 0)))) {
			e->owner = P(a, 1);
			e->member = kind == CARET_KIND_callback_group_add_timer	? E_TIMER
				    : kind == CARET_KIND_callback_group_add_subscription ? E_SUB
				    : kind == CARET_KIND_callback_group_add_service	? E_SRV
											: E_CLI;
			const struct ent *m = find(e->member, e->owner);
			e->node = m ? m->node : NULL;
		}
		break;
	case CARET_KIND_rcl_lifecycle_state_machine_init:
		/* (node_handle, state_machine) */
		if ((e = add(E_SM, P(a, 1))))
			e->node = P(a, 0);
		break;
	case CARET_KIND_rclcpp_ipb_to_subscription:
		/* (ipb, subscription) */
		if ((e = add(E_IPB, P(a, 0)))) {
			e->owner = P(a, 1);
			owner_learnt(E_BUF, e->h, NULL);
		}
		break;
	case CARET_KIND_rclcpp_buffer_to_ipb:
		/* (buffer, ipb) */
		if ((e = add(E_BUF, P(a, 0))))
			e->owner = P(a, 1);
		break;
	default:
		break;
	}
	if (e) {
		for (int set = 0; set < NSETS; set++)
			match(e, set);
		store(e);
		if (e->kind == E_NODE)
			node_named(e->h);
	}
	pthread_mutex_unlock(&rel_lock);
}

/* Which argument of an init record names what it belongs to. */
static int key_arg(uint32_t kind)
{
	switch (kind) {
	case CARET_KIND_rcl_node_init:
	case CARET_KIND_rcl_publisher_init:
	case CARET_KIND_rcl_subscription_init:
	case CARET_KIND_rclcpp_subscription_init:
	case CARET_KIND_rcl_service_init:
	case CARET_KIND_rclcpp_service_callback_added:
	case CARET_KIND_rcl_client_init:
	case CARET_KIND_rcl_timer_init:
	case CARET_KIND_rclcpp_timer_callback_added:
	case CARET_KIND_rclcpp_callback_register:
	case CARET_KIND_rclcpp_construct_ring_buffer:
	case CARET_KIND_rclcpp_buffer_to_ipb:
	case CARET_KIND_rclcpp_ipb_to_subscription:
		return 0;
	case CARET_KIND_rclcpp_subscription_callback_added:
	case CARET_KIND_rclcpp_timer_link_node:
	case CARET_KIND_callback_group_add_timer:
	case CARET_KIND_callback_group_add_subscription:
	case CARET_KIND_callback_group_add_service:
	case CARET_KIND_callback_group_add_client:
	case CARET_KIND_rcl_lifecycle_state_machine_init:
	case CARET_KIND_add_callback_group:
	case CARET_KIND_add_callback_group_static_executor:
		return 1;
	default:
		return -1;
	}
}

/* Both sets allow `key` (a set that is off allows everything); `pass`:
 * whether the pass filter is in force for this call. */
static bool allowed_in(const void *key, bool pass)
{
	if (env_on() && vt_get(key, ENV) == V_DENY)
		return false;
	return !pass || vt_get(key, PASS) != V_DENY;
}

static bool allowed(const void *key)
{
	return allowed_in(key, pass_live());
}

bool caret_filter_record_allowed(uint32_t kind, const union caret_arg *a)
{
	int k = key_arg(kind);
	return k < 0 || allowed_in(P(a, k), pass_live_for_record());
}

bool caret_filter_callback_allowed(const void *callback)
{
	return allowed(callback);
}

bool caret_filter_rmw_subscription_allowed(const void *h)
{
	return allowed(h);
}

void caret_filter_note_group_node(const void *group, const void *node_key)
{
	if (!group || !node_key)
		return;
	pthread_mutex_lock(&rel_lock);
	struct ent *g = find(E_GROUP, group);
	if (!g && (g = add(E_GROUP, group)))
		g->member = E_GROUP; /* no member seen: owner never matches */
	if (g && !g->rmw) {
		g->rmw = node_key;
		if (g->node) {
			/* groups of that interface seen before without a node */
			for (size_t i = 0; i < nents[E_GROUP]; i++) {
				struct ent *o = &ents[E_GROUP][i];
				if (o->rmw == node_key && !o->node) {
					o->node = g->node;
					store(o);
				}
			}
		} else if ((g->node = group_node_by_key(node_key))) {
			store(g);
		}
	}
	pthread_mutex_unlock(&rel_lock);
}

bool caret_filter_state_machine_allowed(const void *state_machine)
{
	return allowed(state_machine);
}

bool caret_filter_buffer_allowed(const void *buffer)
{
	return allowed(buffer);
}

bool caret_filter_publisher_allowed(const void *pub)
{
	if (pass_live() && vt_get(pub, PASS) == V_DENY)
		return false;
	if (!active())
		return true;
	uint32_t v = vt_get(pub, ENV);
	if (v != V_UNKNOWN || !iron)
		return v != V_DENY;
	bool fresh;
	struct vslot *sl = vt_slot(pub, &fresh);
	return !(sl && fresh);
}
