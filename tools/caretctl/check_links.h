/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether each process's init records hold together the way caret_analyze
 * joins them (lttng_info.py: publishers to nodes, callbacks to timers and
 * subscriptions, callback groups to executors). A replay cut short leaves
 * the later records of a process out: check_model.c counts only what is
 * there, this says what is missing.
 */
#ifndef CARETCTL_CHECK_LINKS_H
#define CARETCTL_CHECK_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "check_map.h"

/* Ops of one init kind at most (see the table in check_links.c). */
enum { CHECK_LINK_OPS = 3 };

struct check_link_ref {
	uint64_t key;
	size_t proc;
	unsigned rule;
};

struct check_links {
	struct check_map defs, expects;
	struct check_link_ref *refs;
	size_t nrefs, refs_cap;
};

/* The payload field op `op` (0 .. CHECK_LINK_OPS-1) of init kind `kind`
 * reads, NULL if none. */
const char *check_link_field(const char *kind, int op);
/* One init record (its first copy) of process proc, with the value of
 * each op's field (have[i]: the record has it as an integer); -ENOMEM. */
int check_links_record(struct check_links *l, const char *kind,
		       const uint64_t val[CHECK_LINK_OPS], const bool have[CHECK_LINK_OPS],
		       size_t proc, int64_t vpid);
/* Adds each process's unresolved links to its missing[] (before the
 * processes are sorted); forward links only for processes with
 * caret_init (see check_links.c). */
void check_links_finish(struct check_links *l, struct check_proc *procs, size_t nprocs);
void check_links_free(struct check_links *l);

#endif
