/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s reply deferred while LTTng starts its session
 * (daemon/server/cmd_record_start.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/recording/recordings_make.h"
#include "daemon/server/cmd_record_start.h"

#define NS_PER_MS 1000000LL
#define PROGRESS_EVERY_NS (1000 * NS_PER_MS)
/* A start that ends sooner is answered with its result alone, as before
 * starts ran off the loop (a client reading one line still gets it). */
#define PROGRESS_FIRST_NS (2000 * NS_PER_MS)

/* Alive while the start runs or the request waits (whichever is longer). */
struct job {
	struct cmd_ctx ctx;
	struct record_plan p; /* its strings the job's own, or NULL */
	char *url;
	struct recording made; /* 19 KiB: the job is on the heap */
	record_made_fn made_fn;
	int processes;         /* with the agent, when the start began */
	int64_t since_ns, last_progress_ns;
	bool starting;         /* the start runs */
	bool waited;           /* the requester's connection is open */
	bool answered;         /* its result was handed to the server */
	int r;                 /* the making's, once the start ended */
	struct cmd_err e;
	struct cmd_record_res res;
};

static void job_free(struct job *j)
{
	free(j->url);
	free(j);
}

/* The start ended: the recording made, or, its requester gone, the
 * session stopped (no one would own it). */
static void on_started(void *arg, const struct lttng_start_result *res)
{
	struct job *j = arg;
	j->starting = false;
	snprintf(j->made.name, sizeof(j->made.name), "%s", res->name);
	snprintf(j->made.path, sizeof(j->made.path), "%s", res->path);
	j->p.dir_id = res->dir;
	int64_t ms = (caret_now_ns() - j->since_ns) / NS_PER_MS;
	if (res->r >= 0 && !j->waited) {
		log_warn("session %s: its requester left while LTTng started it (%lld ms): "
			 "stopped%s, it records for no one", res->name, (long long)ms,
			 res->stopped ? " by the process that made it" : "");
		recordings_make_undo(j->ctx.recs, j->ctx.ops, &j->p.cfg, &j->made, res->stopped);
		job_free(j);
		return;
	}
	if (res->r >= 0)
		log_info("session %s: LTTng started it in %lld ms for %d processes", res->name,
			 (long long)ms, j->processes);
	snprintf(j->e.msg, sizeof(j->e.msg), "%s", res->err);
	struct recording *rec;
	j->r = recordings_make_finish(j->ctx.recs, j->ctx.ops, &j->p.cfg, &j->made, res->r, &rec,
				      j->e.msg, sizeof(j->e.msg));
	/* the table changed outside any command: the server saves it before
	 * the result goes out (server.c, save_deferred) */
	if (j->r >= 0) {
		snprintf(j->res.session, sizeof(j->res.session), "%s", rec->name);
		snprintf(j->res.path, sizeof(j->res.path), "%s", rec->path);
		j->made_fn(&j->ctx, &j->p, rec, &j->res);
	}
	if (!j->waited)
		job_free(j);
}

static wait_line *job_poll(void *arg, int64_t now, bool *done)
{
	struct job *j = arg;
	*done = !j->starting;
	if (!j->starting) {
		j->answered = true;
		if (j->r < 0)
			return wait_line_error(j->r, j->e.msg);
		struct wait_bc bc = { j->res.bc.asked, j->res.bc.ok,
				      j->res.bc.why[0] ? j->res.bc.why : NULL };
		return wait_line_record(j->res.session, j->res.path, &bc);
	}
	if (now - j->since_ns < PROGRESS_FIRST_NS ||
	    (j->last_progress_ns && now - j->last_progress_ns < PROGRESS_EVERY_NS))
		return NULL;
	j->last_progress_ns = now;
	return wait_line_lttng_start(j->processes, (now - j->since_ns) / NS_PER_MS);
}

/* The requester left (or was answered). */
static void job_release(void *arg)
{
	struct job *j = arg;
	j->waited = false;
	if (j->starting) {
		log_warn("a record request's requester left while LTTng starts its session: "
			 "the session is stopped once started");
		lttng_start_cancel(); /* its stop off the loop too */
		return; /* on_started frees it */
	}
	struct recording *rec = j->answered || j->r < 0 ? NULL
				: recordings_find(j->ctx.recs, j->res.session);
	if (rec) {
		/* made, its result never sent: no one knows it runs */
		log_warn("session %s: its requester left before its result: stopped", rec->name);
		recordings_make_unmake(j->ctx.recs, j->ctx.ops, rec);
	}
	job_free(j);
}

static const struct wait_custom job_ops = { job_poll, job_release };

static int live_agents(const struct registry *reg)
{
	int n = 0;
	for (const struct agent *a = reg ? reg->head : NULL; a; a = a->next)
		n += !a->dead;
	return n;
}

int record_start_begin(const struct cmd_ctx *ctx, const struct record_plan *p,
		       const struct recording *made, record_made_fn made_fn,
		       struct wait_req **wait, struct cmd_err *e)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j || (p->cfg.url && !(j->url = strdup(p->cfg.url)))) {
		free(j);
		return cmd_fail(e, ENOMEM, "out of memory");
	}
	j->ctx = *ctx;
	j->p = *p;
	j->made = *made;
	j->made_fn = made_fn;
	/* the child has its copy of what the request pointed to; what is
	 * read after the start is the job's */
	j->p.cfg.session = j->p.cfg.path = NULL;
	j->p.cfg.sel = NULL;
	j->p.cfg.url = j->url;
	j->p.cfg.as = &j->p.as;
	j->p.cfg.dir_out = &j->p.dir_id;
	j->processes = live_agents(ctx->reg);
	int r = lttng_start_begin(ctx->lttng, &p->cfg, on_started, j, e->msg, sizeof(e->msg));
	if (r < 0) {
		job_free(j);
		return r;
	}
	j->starting = true;
	j->waited = true;
	j->since_ns = caret_now_ns();
	log_info("LTTng is starting a session for uid %d, %d processes with the agent "
		 "registered: the request is answered once it is started", (int)made->uid,
		 j->processes);
	*wait = wait_custom(&job_ops, j);
	/* out of memory: job_release ran, the start goes on for no one */
	return *wait ? 0 : cmd_fail(e, ENOMEM, "out of memory");
}
