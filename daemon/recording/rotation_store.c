/* SPDX-License-Identifier: Apache-2.0 */
/* Rotating recordings across a restart (daemon/recording/rotation_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/recording/rotation_lttng.h"
#include "daemon/recording/rotation_store.h"
#include "daemon/recording/rotation_verdict.h"
#include "daemon/agents/scheduler.h"
#include "util/caret_util.h"

static struct {
	char state_file[4300];
	bool loaded;
} F;

void rot_store_reset(void)
{
	memset(&F, 0, sizeof(F));
}

bool rot_store_loaded(void)
{
	return F.loaded;
}

void rot_store_name(void)
{
	if (!F.loaded && rot_view() && rot_view()->state_file[0])
		snprintf(F.state_file, sizeof(F.state_file), "%s.rotation", rot_view()->state_file);
}

static void write_rots(FILE *f, void *arg)
{
	(void)arg;
	static char name[2 * CARET_LTTNG_NAME_MAX + 1], path[2 * 4096 + 1];
	for (int i = 0; i < MAX_ROT; i++) {
		const struct rot *t = rot_at(i);
		if (!t->used)
			continue;
		caret_hex(name, t->name);
		caret_hex(path, t->path);
		if (t->armed) { /* its options, until Enter */
			fprintf(f, "a %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %" PRIu64
				" %u %u %s %s\n", t->o.every_ms, t->o.size, t->o.keep, t->o.max_size,
				t->dev, t->ino, (unsigned)t->uid, (unsigned)t->gid, name, path);
			continue;
		}
		fprintf(f, "1 %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %u %u %s %s", t->o.every_ms, t->o.size, t->o.keep,
			t->o.max_size, t->verdict_upto, t->rotations, t->removed, t->dev, t->ino,
			(unsigned)t->uid, (unsigned)t->gid, name, path);
		unsigned n = t->n_incomplete < MAX_INCOMPLETE ? t->n_incomplete : MAX_INCOMPLETE;
		for (unsigned k = 0; k < n; k++)
			fprintf(f, " %" PRIu64, t->incomplete[k]);
		n = t->n_dups < MAX_INCOMPLETE ? t->n_dups : MAX_INCOMPLETE;
		for (unsigned k = 0; k < n; k++)
			fprintf(f, " d%" PRIu64, t->dups[k]);
		fputc('\n', f);
	}
}

void rot_store_save(void)
{
	if (!F.state_file[0])
		return;
	int e = caret_write_atomic(F.state_file, write_rots, NULL);
	if (e < 0)
		log_warn_errno(e, "cannot save the rotating recordings in %s", F.state_file);
}

/* After a restart: what was written while caretd was away. */
static void adopt(struct rot *t)
{
	char err[256];
	if (rotl()->register_triggers(t->name, err, sizeof(err)) < 0)
		log_warn("session %s: %s", t->name, err);
	rot_scan(t);
	uint64_t top = t->verdict_upto;
	for (int i = 0; t->list && i < t->list->n; i++) {
		uint64_t ix = t->list->c[i].index;
		if (ix >= t->verdict_upto)
			rot_mark_incomplete(t, ix, "archived while caretd was not running");
		if (ix + 1 > top)
			top = ix + 1;
	}
	t->verdict_upto = top;
	t->cur_index = top;
	/* a pass cut by the restart left part of the records in the chunk
	 * being written: the full pass below writes them again */
	for (const struct agent *a = rot_reg() ? rot_reg()->head : NULL; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		uint32_t ep = CARET_EPOCH_OF(st.grant);
		if (!a->dead && st.state == CARET_STATE_RECORD && ep &&
		    sched_done_in(&st, ep) < st.records) {
			rot_mark_dups(t, t->cur_index, "a replay cut by caretd's restart is done again "
				  "in it");
			break;
		}
	}
	/* the chunk being written: a full pass now completes it, whatever
	 * the pass cut by the restart left there */
	rot_baseline(t);
	rot_new_pass(t);
	log_info("rotating recording %s taken over: replaying every process's initialization "
		 "records into chunk %" PRIu64, t->name, t->cur_index);
	rot_store_save();
}

/* An armed recording's options, kept while the view still holds it armed
 * (its caretctl may press Enter after the restart). */
static void load_armed(const char *line)
{
	struct rot t = { .used = true, .armed = true };
	char nameh[2 * CARET_LTTNG_NAME_MAX + 2], pathh[2 * 4096 + 2];
	unsigned uid, gid;
	if (sscanf(line, "a %" SCNu64 " %" SCNu64 " %u %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %u %u %513s %8193s", &t.o.every_ms, &t.o.size, &t.o.keep, &t.o.max_size,
		   &t.dev, &t.ino, &uid, &gid, nameh, pathh) != 10 ||
	    caret_unhex(nameh, t.name, sizeof(t.name)) < 0 ||
	    caret_unhex(pathh, t.path, sizeof(t.path)) < 0)
		return;
	t.uid = uid;
	t.gid = gid;
	const struct lttng_view_rec *r = lttng_view_find_rec(rot_view(), t.name);
	struct rot *s = rot_slot();
	if (!r || !r->armed || r->uid != t.uid || strcmp(r->path, t.path) != 0 ||
	    rot_find(t.name) || !s) {
		log_info("%s: armed rotating recording %s not taken over", F.state_file, t.name);
		return;
	}
	*s = t;
	log_info("armed recording %s keeps its rotation options", t.name);
}

void rot_store_load(void)
{
	F.loaded = true;
	if (!rot_view()->state_file[0])
		return;
	snprintf(F.state_file, sizeof(F.state_file), "%s.rotation", rot_view()->state_file);
	int fd = open(F.state_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	struct stat st;
	static char buf[1 << 20];
	ssize_t len = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && st.st_size < (off_t)sizeof(buf))
		len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0) {
		log_warn("ignoring %s: not a private file of caretd's", F.state_file);
		return;
	}
	buf[len] = '\0';
	char *save_line = NULL;
	for (char *line = strtok_r(buf, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		struct rot t = { .used = true };
		char nameh[2 * CARET_LTTNG_NAME_MAX + 2], pathh[2 * 4096 + 2];
		unsigned uid, gid;
		int used = 0;
		if (line[0] == 'a') {
			load_armed(line);
			continue;
		}
		if (sscanf(line, "1 %" SCNu64 " %" SCNu64 " %u %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %u %u %513s %8193s%n",
			   &t.o.every_ms, &t.o.size, &t.o.keep, &t.o.max_size, &t.verdict_upto,
			   &t.rotations, &t.removed, &t.dev, &t.ino, &uid, &gid, nameh, pathh,
			   &used) != 13 ||
		    caret_unhex(nameh, t.name, sizeof(t.name)) < 0 ||
		    caret_unhex(pathh, t.path, sizeof(t.path)) < 0)
			continue;
		t.uid = uid;
		t.gid = gid;
		for (char *p = line + used; *p;) {
			while (*p == ' ')
				p++;
			bool d = *p == 'd';
			char *end;
			uint64_t ix = strtoull(p + d, &end, 10);
			if (end == p + d)
				break;
			if (d)
				t.dups[t.n_dups++ % MAX_INCOMPLETE] = ix;
			else
				t.incomplete[t.n_incomplete++ % MAX_INCOMPLETE] = ix;
			p = end;
		}
		/* only a recording caretd still knows as the same one */
		const struct lttng_view_rec *r = lttng_view_find_rec(rot_view(), t.name);
		struct rot *s = rot_slot();
		if (!r || r->uid != t.uid || strcmp(r->path, t.path) != 0 || rot_find(t.name) || !s) {
			log_info("%s: rotating recording %s not taken over", F.state_file, t.name);
			continue;
		}
		*s = t;
		adopt(s);
	}
	rot_store_save();
}

