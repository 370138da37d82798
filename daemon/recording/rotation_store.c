/* SPDX-License-Identifier: Apache-2.0 */
/* Rotating recordings across a restart (daemon/recording/rotation_store.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/recording/rotation_lttng.h"
#include "daemon/recording/rotation_store.h"
#include "daemon/recording/rotation_verdict.h"
#include "daemon/agents/scheduler.h"

void rotation_store_save(void)
{
	if (rotation_recs())
		recordings_save(rotation_recs());
}

static void ring_list(FILE *f, const uint64_t *ring, unsigned count)
{
	unsigned n = count < MAX_INCOMPLETE ? count : MAX_INCOMPLETE;
	if (!n)
		fputc('-', f);
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%s%" PRIu64, k ? ":" : "", ring[k]);
}

/* " rot=ARMED,EVERY_MS,SIZE,KEEP,MAX_SIZE,VERDICT_UPTO,ROTATIONS,REMOVED,
 * INCOMPLETE,DUPS", the last two chunk indexes joined by ':' ("-": none);
 * an armed one's options only (nothing rotated yet). */
void rotation_store_save_token(const struct recording *r, FILE *f)
{
	const struct rotation *t = &r->rot;
	if (!t->used)
		return;
	fprintf(f, " rot=%d,%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",", t->armed, t->o.every_ms, t->o.size, t->o.keep, t->o.max_size,
		t->armed ? 0 : t->verdict_upto, t->armed ? 0 : t->rotations,
		t->armed ? 0 : t->removed);
	ring_list(f, t->incomplete, t->armed ? 0 : t->n_incomplete);
	fputc(',', f);
	ring_list(f, t->dups, t->armed ? 0 : t->n_dups);
}

static int read_ring(const char *s, const char **end, uint64_t *ring, unsigned *count)
{
	*count = 0;
	if (*s == '-') {
		*end = s + 1;
		return 0;
	}
	for (;;) {
		char *e;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		errno = 0;
		uint64_t ix = strtoull(s, &e, 10);
		if (errno)
			return -EINVAL;
		ring[(*count)++ % MAX_INCOMPLETE] = ix;
		s = e;
		if (*s != ':')
			break;
		s++;
	}
	*end = s;
	return 0;
}

int rotation_store_restore(struct recordings *rs, struct recording *r, const char *token)
{
	(void)rs;
	struct rotation t = { .used = true };
	int armed, used = 0;
	if (sscanf(token, "%d,%" SCNu64 ",%" SCNu64 ",%u,%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64
		   ",%n", &armed, &t.o.every_ms, &t.o.size, &t.o.keep, &t.o.max_size,
		   &t.verdict_upto, &t.rotations, &t.removed, &used) != 8 || !used ||
	    (armed != 0 && armed != 1) || !rotation_wanted(&t.o) || r->path[0] != '/')
		return -EINVAL;
	const char *s = token + used;
	if (read_ring(s, &s, t.incomplete, &t.n_incomplete) < 0 || *s++ != ',' ||
	    read_ring(s, &s, t.dups, &t.n_dups) < 0 || *s)
		return -EINVAL;
	/* an armed one keeps its options while its recording is armed (its
	 * caretctl may press Enter after the restart) */
	t.armed = armed && r->armed;
	if (armed && !r->armed)
		return -EINVAL;
	t.adopting = !t.armed;
	t.dev = r->dir_dev;
	t.ino = r->dir_ino;
	t.uid = r->uid;
	t.gid = r->gid;
	snprintf(t.name, sizeof(t.name), "%s", r->name);
	snprintf(t.path, sizeof(t.path), "%s", r->path);
	r->rot = t;
	if (t.armed)
		log_info("armed recording %s keeps its rotation options", t.name);
	return 0;
}

void rotation_store_adopt(struct rotation *t)
{
	t->adopting = false;
	char err[256];
	if (rotl()->register_triggers(t->name, err, sizeof(err)) < 0)
		log_warn("session %s: %s", t->name, err);
	rotation_scan(t);
	uint64_t top = t->verdict_upto;
	for (int i = 0; t->list && i < t->list->n; i++) {
		uint64_t ix = t->list->c[i].index;
		if (ix >= t->verdict_upto)
			rotation_mark_incomplete(t, ix, "archived while caretd was not running");
		if (ix + 1 > top)
			top = ix + 1;
	}
	t->verdict_upto = top;
	t->cur_index = top;
	/* a pass cut by the restart left part of the records in the chunk
	 * being written: the full pass below writes them again */
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		uint32_t ep = CARET_EPOCH_OF(st.grant);
		if (!a->dead && st.state == CARET_STATE_RECORD && ep &&
		    sched_done_in(&st, ep) < st.records) {
			rotation_mark_dups(t, t->cur_index, "a replay cut by caretd's restart is done again "
				  "in it");
			break;
		}
	}
	/* the chunk being written: a full pass now completes it, whatever
	 * the pass cut by the restart left there */
	rotation_baseline(t);
	rotation_new_pass(t);
	log_info("rotating recording %s taken over: replaying every process's initialization "
		 "records into chunk %" PRIu64, t->name, t->cur_index);
	rotation_store_save();
}
