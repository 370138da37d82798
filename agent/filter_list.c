/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CARET's filter lists as caret_trace reads them: ':'-separated regular
 * expressions (PCRE2 in ECMAScript's options, util/regex/caret_regex.h),
 * "*" for everything, an item that does not compile skipped with a
 * warning; a name matches when an item matches anywhere in it
 * (std::regex_search), every search bounded. What the lists decide is
 * filter.c's and filter_rel.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/filter_list.h"
#include "agent/state.h"
#include "util/regex/caret_regex.h"

void filter_list_free(struct filter_list *l)
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
void filter_list_parse(struct filter_list *l, const char *v, const char *var)
{
	filter_list_free(l);
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
		} else if (l->n < FILTER_LIST_MAX) {
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
bool filter_list_match(const struct filter_list *l, const char *name)
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

void filter_set_parse(struct filter_set *f, const char *const v[CARET_FILTER_LISTS],
		      const char *const names[CARET_FILTER_LISTS])
{
	filter_list_parse(&f->sel_nodes, v[CARET_FILTER_SELECT_NODES],
			  names[CARET_FILTER_SELECT_NODES]);
	filter_list_parse(&f->ign_nodes, v[CARET_FILTER_IGNORE_NODES],
			  names[CARET_FILTER_IGNORE_NODES]);
	filter_list_parse(&f->sel_topics, v[CARET_FILTER_SELECT_TOPICS],
			  names[CARET_FILTER_SELECT_TOPICS]);
	filter_list_parse(&f->ign_topics, v[CARET_FILTER_IGNORE_TOPICS],
			  names[CARET_FILTER_IGNORE_TOPICS]);
	f->select_enabled = f->sel_nodes.set || f->sel_topics.set;
	f->ignore_enabled = f->ign_nodes.set || f->ign_topics.set;
}
