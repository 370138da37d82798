/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl check`'s init records: each counted once per process and
 * kind, a copy (a second replay into the session) and the same record
 * from both providers told apart, as caret_analyze drops them; their
 * relations handed to check_links.c, their nodes and topics listed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_field.h"
#include "check_init.h"
#include "util/caret_util.h"

void check_inits_init(struct check_inits *in, struct check_report *r, struct check_summary *sum,
		      struct check_links *links)
{
	memset(in, 0, sizeof(*in));
	in->r = r;
	in->sum = sum;
	in->links = links;
}

void check_inits_free(struct check_inits *in)
{
	check_map_free(&in->exact);
	check_map_free(&in->variants);
	check_map_free(&in->handles);
}

static int add_node(struct check_inits *m, int64_t vpid, const char *ns, const char *name)
{
	if (caret_grow((void **)&m->r->nodes, &m->nodes_cap, m->r->nnodes + 1, sizeof(*m->r->nodes)) < 0)
		return -ENOMEM;
	size_t l = strlen(ns);
	char *full;
	if (asprintf(&full, "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", name) < 0)
		return -ENOMEM;
	m->r->nodes[m->r->nnodes++] = (struct check_node){ vpid, full };
	return 0;
}

static int add_topic(struct check_inits *m, const char *name, bool pub)
{
	struct check_topic *t = NULL;
	for (size_t i = 0; i < m->r->ntopics && !t; i++)
		if (strcmp(m->r->topics[i].name, name) == 0)
			t = &m->r->topics[i];
	if (!t) {
		if (caret_grow((void **)&m->r->topics, &m->topics_cap, m->r->ntopics + 1,
			 sizeof(*m->r->topics)) < 0)
			return -ENOMEM;
		t = &m->r->topics[m->r->ntopics];
		*t = (struct check_topic){ strdup(name), 0, 0 };
		if (!t->name)
			return -ENOMEM;
		m->r->ntopics++;
	}
	if (pub)
		t->publishers++;
	else
		t->subscriptions++;
	return 0;
}

int check_init_record(struct check_inits *m, const struct evclass *c, struct check_proc *p,
		      size_t pi, const bt_field *pl, int64_t ts)
{
	uint64_t h = check_hcomb(check_hcomb(0, (uint64_t)p->vpid), (uint64_t)c->kind);
	uint64_t n = pl ? bt_field_class_structure_get_member_count(bt_field_borrow_class_const(pl))
			: 0;
	/* A replayed record keeps its init_timestamp; a ros2: record has only
	 * its event time: two of them at different times are two objects
	 * (an address used again), not a copy. */
	uint64_t its = (uint64_t)ts;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(pl, i);
		if ((int)i == c->f_init_ts)
			check_fint(pl, c->f_init_ts, &its);
		else
			h = check_hfield(h, f, 0);
	}
	p->init[c->kind]++;
	p->init_total++;
	/* The same record twice from one provider: a second replay into the
	 * session (another session's start, or a replay pass started again). */
	bool added;
	uint64_t *e = check_map_slot(&m->exact, check_hcomb(check_hcomb(h, c->caret), its), &added);
	if (!e)
		return -ENOMEM;
	if (!added) {
		p->dup[c->kind]++;
		p->dup_total++;
		return 0;
	}
	/* The same record as ros2: and ros2_caret: (design section 3). */
	uint64_t *v = check_map_slot(&m->variants, h, &added);
	if (!v)
		return -ENOMEM;
	uint64_t bit = c->caret ? 2 : 1, before = *v;
	if ((*v | bit) == 3 && !(*v & bit))
		p->both_variants++;
	*v |= bit;
	if (before)
		return 0;
	/* ros2caret's summaries count each record once (the analyzer drops
	 * copies, whichever provider) */
	if (check_summary_event(m->sum, &c->sum, p->vpid, true, pl) < 0)
		return -ENOMEM;
	uint64_t lv[CHECK_LINK_OPS] = { 0 };
	bool have[CHECK_LINK_OPS];
	for (int i = 0; i < CHECK_LINK_OPS; i++)
		have[i] = check_fint(pl, c->link_f[i], &lv[i]);
	if (check_links_record(m->links, check_kind_name((size_t)c->kind), lv, have, pi, p->vpid) < 0)
		return -ENOMEM;
	if (c->f_handle < 0)
		return 0;
	/* Nodes and topics once per object, whichever variant came first. */
	uint64_t handle;
	if (!check_fint(pl, c->f_handle, &handle))
		return 0;
	uint64_t *hs = check_map_slot(&m->handles,
				check_hcomb(check_hcomb(check_hcomb(1, (uint64_t)p->vpid), (uint64_t)c->kind), handle),
				&added);
	if (!hs)
		return -ENOMEM;
	if (!added)
		return 0;
	if (c->f_node_name >= 0) {
		const char *nm = check_fstr(pl, c->f_node_name), *ns = check_fstr(pl, c->f_ns);
		return add_node(m, p->vpid, ns ? ns : "/", nm ? nm : "?");
	}
	const char *topic = check_fstr(pl, c->f_topic);
	return topic ? add_topic(m, topic, strcmp(check_kind_name((size_t)c->kind), "rcl_publisher_init") == 0)
		     : 0;
}
