/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_wire.h"
#include "complete.h"
#include "proto/caret_ctl.h"

/* Stop waits for the trace no longer than this. */
#define STOP_READ_MS 30000
/* A trace read in about a second or less. */
#define SMALL_TRACE (64ull << 20)

/* A growing string; oom once an append failed. */
struct sbuf {
	char *p;
	size_t n;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	char *part;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&part, fmt, ap);
	va_end(ap);
	char *p = n < 0 || b->oom ? NULL : realloc(b->p, b->n + (size_t)n + 1);
	if (!p) {
		if (n >= 0)
			free(part);
		b->oom = true;
		return;
	}
	memcpy(p + b->n, part, (size_t)n + 1);
	free(part);
	b->p = p;
	b->n += (size_t)n;
}

static char *sb_done(struct sbuf *b)
{
	if (b->oom) {
		free(b->p);
		return NULL;
	}
	return b->p;
}

char *complete_dup_sentence(uint64_t n)
{
	char *s;
	if (asprintf(&s,
		     "%" PRIu64 " replayed initialization record%s twice (a session that "
		     "started during this one got a replay of its own); the analyzer ignores "
		     "duplicates: they do not make the trace incomplete",
		     n, n == 1 ? " appears" : "s appear") < 0)
		return NULL;
	return s;
}

char *complete_dup_line(const struct check_proc *p)
{
	struct sbuf b = { 0 };
	char *s = complete_dup_sentence(p->dup_total);
	sb_add(&b, "pid %" PRId64 " (%s): %s (", p->vpid, p->procname, s ? s : "?");
	b.oom |= !s;
	free(s);
	for (size_t k = 0, first = 1; check_kind_name(k); k++)
		if (p->dup[k]) {
			sb_add(&b, "%s%s=%" PRIu64, first ? "" : " ", check_kind_name(k), p->dup[k]);
			first = 0;
		}
	sb_add(&b, ")");
	return sb_done(&b);
}

char *complete_missing_line(const struct check_proc *p)
{
	struct sbuf b = { 0 };
	bool cut = check_pass_cut(p);
	sb_add(&b, "pid %" PRId64 " (%s): init records missing", p->vpid, p->procname);
	/* The pass's own count, from its marks: the links below see only
	 * what a kept record refers to, and a cut pass may keep none. */
	if (cut)
		sb_add(&b, ": replay pass %" PRIu64 " %s: %" PRIu64 " of its %" PRIu64
			   " records in the trace",
		       p->cut_pass, p->cut_ended ? "lost records" : "cut short", p->cut_arrived,
		       p->cut_records);
	if (p->missing_total)
		sb_add(&b, cut ? "; the analyzer cannot join what is there: "
			       : " (the analyzer cannot join what is there): ");
	bool refs = false, later = false;
	for (size_t k = 0, first = 1; check_link_name(k); k++)
		if (p->missing[k]) {
			sb_add(&b, "%s%" PRIu64 " %s without %s", first ? "" : "; ", p->missing[k],
			       check_link_found(k), check_link_lacks(k));
			first = 0;
			if (check_link_expected(k))
				later = true;
			else
				refs = true;
		}
	if (!p->caret_init) {
		sb_add(&b, " (the session started after the process created them?)");
		return sb_done(&b);
	}
	/* A replay goes in creation order: cut short, it leaves out what
	 * comes after the cut, never what a kept record refers to (but for
	 * objects made while it ran). A filter does that: caret_trace's keep a
	 * publisher or subscription for its topic while they drop its node
	 * (node and topic lists mixed, or CARET_IGNORE_NODES with only
	 * CARET_SELECT_TOPICS), and so does the agent's, record for record. */
	if (refs)
		sb_add(&b, " (dropped by a node or topic filter? caret_trace's keep a publisher or "
			   "subscription for its topic while they drop its node, when node and topic "
			   "lists are mixed; a replay cut short leaves out only records made after "
			   "those it keeps)");
	if (cut && p->cut_ended)
		sb_add(&b, " (events discarded by the tracer, or stream files cut?)");
	else if (cut || later)
		sb_add(&b, " (a replay cut short, e.g. by a --timeout or --duration shorter than "
			   "the replay?)");
	return sb_done(&b);
}

static uint64_t walked;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		walked += (uint64_t)st->st_size;
	return walked > SMALL_TRACE; /* enough: it is not small */
}

/* The bytes of the regular files under path (more than SMALL_TRACE once
 * past it), UINT64_MAX if it cannot be walked. */
static uint64_t trace_bytes(const char *path)
{
	walked = 0;
	int rc = nftw(path, add_size, 16, FTW_PHYS);
	return rc < 0 ? UINT64_MAX : walked;
}

void complete_json_free(struct complete_json *j)
{
	for (size_t i = 0; i < j->n_missing; i++)
		free(j->missing[i]);
	free(j->missing);
	memset(j, 0, sizeof(*j));
}

void complete_stop_report(FILE *out, struct complete_json *json, const char *path, uint64_t counted,
			  void (*warn)(const char *fmt, ...))
{
	bool local = path && path[0] == '/';
	/* caretd counts positions, not the trace (a filtered replay emits
	 * fewer): a small trace is always read */
	if (!counted && !(local && trace_bytes(path) <= SMALL_TRACE))
		return;
	struct check_report r;
	char err[1024];
	int rc = local ? check_run_isolated(path, STOP_READ_MS, &r, err, sizeof(err)) : -ENOENT;
	if (rc < 0) {
		if (!json && counted)
			fprintf(out,
				"  caretd saw replays reach this recording twice (%" PRIu64 " records); "
				"'caretctl check %s' counts the copies (the analyzer ignores them)\n",
				counted, path && path[0] ? path : "TRACE_DIR");
		return;
	}
	uint64_t n = 0;
	size_t n_missing = 0;
	char **missing = json && r.nprocs ? calloc(r.nprocs, sizeof(*missing)) : NULL;
	for (size_t i = 0; i < r.nprocs; i++) {
		n += r.procs[i].dup_total;
		if (!r.procs[i].missing_total && !check_pass_cut(&r.procs[i]))
			continue;
		char *line = complete_missing_line(&r.procs[i]);
		if (line && missing)
			missing[n_missing++] = line;
		else if (line && warn && !json)
			warn("the trace is incomplete: %s", line);
		if (!missing)
			free(line);
	}
	if (json) {
		*json = (struct complete_json){ true, n, missing, n_missing };
	} else if (n) {
		char *s = complete_dup_sentence(n);
		if (s)
			fprintf(out, "  %s\n", s);
		free(s);
	}
	check_wire_free(&r);
}
