/* SPDX-License-Identifier: Apache-2.0 */
/* The disk bound off caretd's loop (daemon/recording/rotation_prune.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "daemon/recording/chunks.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/recording/rotation_prune.h"
#include "daemon/recording/rotation_store.h"
#include "daemon/recording/rotation_verdict.h"

/* A helper at work for one slot of the table. The slot may be emptied and
 * given to another recording meanwhile: its answer is applied only to the
 * recording it was started for (name, directory). */
struct job {
	bool used, again;
	struct rotation *t;
	char name[CARET_LTTNG_NAME_MAX];
	uint64_t dev, ino;
	struct creds_job cj;
	sd_event_source *io, *timer;
	struct chunk_list list; /* the helper's answer */
};

static struct {
	sd_event *event;
	struct job jobs[MAX_ROT];
} P;

static struct job *job_of(const struct rotation *t)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (rotation_at(i) == t)
			return &P.jobs[i];
	return NULL;
}

static bool same(const struct job *j)
{
	const struct rotation *t = j->t;
	return t->used && !strcmp(t->name, j->name) && t->dev == j->dev && t->ino == j->ino;
}

static void end(struct job *j)
{
	j->io = sd_event_source_disable_unref(j->io);
	j->timer = sd_event_source_disable_unref(j->timer);
	creds_job_cancel(&j->cj); /* a no-op once finished */
	j->used = false;
}

static int start(struct job *j, struct rotation *t);

static int on_answer(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	(void)s;
	(void)fd;
	(void)revents;
	struct job *j = arg;
	char err[512] = "";
	/* readable: the helper wrote its answer whole and is ending */
	int r = chunks_prune_finish(&j->cj, &j->list, err, sizeof(err));
	bool again = j->again;
	struct rotation *t = j->t;
	end(j);
	if (!same(j))
		return 0; /* its recording is gone */
	rotation_scan_apply(t, &j->list, r, err);
	rotation_store_save();
	if (again)
		start(j, t);
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)s;
	(void)usec;
	struct job *j = arg;
	if (same(j))
		log_warn("session %s: pruning its archived chunks took more than %d s: stopped; "
			 "the rest goes at the next rotation", j->name,
			 (ROT_PRUNE_MS + ROT_PRUNE_KILL_MS) / 1000);
	end(j);
	return 0;
}

static int start(struct job *j, struct rotation *t)
{
	*j = (struct job){ .used = true, .t = t, .dev = t->dev, .ino = t->ino,
			   .cj = { .pid = -1, .fd = -1 } };
	snprintf(j->name, sizeof(j->name), "%s", t->name);
	struct creds_id as = { .uid = t->uid, .gid = t->gid, .groups = NULL, .n_groups = -1 };
	int r = chunks_prune_start(&as, t->path, t->dev, t->ino, t->o.keep, t->o.max_size,
				   ROT_PRUNE_MS, &j->list, &j->cj);
	if (r >= 0)
		r = sd_event_add_io(P.event, &j->io, j->cj.fd, EPOLLIN, on_answer, j);
	if (r >= 0)
		r = sd_event_add_time_relative(P.event, &j->timer, CLOCK_MONOTONIC,
					       (ROT_PRUNE_MS + ROT_PRUNE_KILL_MS) * USEC_PER_MS,
					       LOOP_ACCURACY_USEC, on_deadline, j);
	if (r < 0) {
		end(j);
		log_warn_errno(r, "session %s: cannot prune its archived chunks now (at the next "
			       "rotation)", t->name);
	}
	return r;
}

void rotation_prune_init(sd_event *e)
{
	rotation_prune_cancel_all();
	P.event = e;
}

void rotation_prune_begin(struct rotation *t)
{
	struct job *j = job_of(t);
	if (!P.event || !j) {
		rotation_scan(t); /* no loop to hear the helper on: wait for it */
		rotation_store_save();
		return;
	}
	if (j->used && same(j)) {
		j->again = true; /* once the running one answered */
		return;
	}
	if (j->used)
		end(j);
	start(j, t);
}

bool rotation_prune_running(const struct rotation *t)
{
	const struct job *j = job_of(t);
	return j && j->used && same(j);
}

void rotation_prune_cancel(const struct rotation *t)
{
	struct job *j = job_of(t);
	if (j && j->used)
		end(j);
}

void rotation_prune_cancel_all(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (P.jobs[i].used)
			end(&P.jobs[i]);
}
