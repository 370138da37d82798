/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret_lttng_layout() (lib/lttng/session.h): the session a configuration
 * makes, described before anything is made. caret_lttng_record() creates
 * the session from this description, and `record`'s plan (caretctl record
 * -l) prints it: one source, so the two cannot disagree.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lib/lttng/session.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_plan.h"
#include "proto/caret_ctl_sel.h"
#include "util/caret_err.h"

static bool listed(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* CARET's three (the analyzer joins events by vpid and vtid), then the
 * selection's where the channel's tracer has them, each once. */
static void contexts(struct caret_ctl_plan_channel *c, const struct caret_ctl_sel *s)
{
	for (const char *const *x = caret_ctl_contexts; *x; x++)
		if (!listed(c->contexts, c->n_contexts, *x))
			c->contexts[c->n_contexts++] = *x;
	unsigned want = c->domain == CARET_CTL_PLAN_KERNEL ? CARET_CTL_SEL_KERNEL
							   : CARET_CTL_SEL_UST;
	for (int i = 0; s && i < s->n_context && c->n_contexts < CARET_CTL_PLAN_CONTEXTS; i++)
		if ((caret_ctl_sel_context_domains(s->context[i]) & want) &&
		    !listed(c->contexts, c->n_contexts, s->context[i]))
			c->contexts[c->n_contexts++] = s->context[i];
}

static void add_event(struct caret_ctl_plan_channel *c, const char *name, bool syscall)
{
	for (int i = 0; i < c->n_events; i++)
		if (c->events[i].syscall == syscall && strcmp(c->events[i].name, name) == 0)
			return; /* a name twice in a list is enabled once */
	c->events[c->n_events++] = (struct caret_ctl_plan_event){ .name = name,
								  .syscall = syscall };
}

/* The channel geometry asked for, or the defaults, within the limits
 * caretctl checks too (proto/caret_ctl_limits.h). */
static int ust_channel(const struct caret_lttng_cfg *cfg, struct caret_ctl_plan_channel *c,
		       char *err, size_t errlen)
{
	*c = (struct caret_ctl_plan_channel){
		.name = CARET_CTL_DEFAULT_CHANNEL,
		.domain = CARET_CTL_PLAN_UST,
		.per_uid = true,
		/* a flight recorder overwrites its oldest packets; a recording
		 * discards new events rather than lose what it wrote */
		.overwrite = cfg->snapshot,
		.mmap = true,
		/* armed, not open: disabled before the start (caret_lttng_hold) */
		.enabled = !cfg->armed || cfg->armed_open,
		.subbuf_size = cfg->subbuf_size ? cfg->subbuf_size : CARET_CTL_DEFAULT_SUBBUF_SIZE,
		.subbuf_count = cfg->subbuf_count ? cfg->subbuf_count : CARET_CTL_DEFAULT_SUBBUF_COUNT,
	};
	char why[128];
	if (caret_ctl_check_subbuf_size(c->subbuf_size, why, sizeof(why)) < 0)
		return caret_errf(err, errlen, -EINVAL, "lttng: sub-buffer size %llu %s",
				  (unsigned long long)c->subbuf_size, why);
	if (caret_ctl_check_subbuf_count(c->subbuf_count, why, sizeof(why)) < 0)
		return caret_errf(err, errlen, -EINVAL, "lttng: sub-buffer count %llu %s",
				  (unsigned long long)c->subbuf_count, why);
	contexts(c, cfg->sel);
	/* CARET's list, or -u's with CARET's initialization events added
	 * (proto/caret_ctl_sel.h) */
	const char *evs[CARET_CTL_PLAN_EVENTS];
	int n = caret_ctl_sel_ust(cfg->sel, cfg->light, !cfg->light_pre_iron, evs,
				  CARET_CTL_PLAN_EVENTS, NULL);
	if (n < 0)
		return caret_errf(err, errlen, n, "lttng: too many UST events");
	for (int i = 0; i < n; i++)
		add_event(c, evs[i], false);
	return 0;
}

/* -k and --syscall's channel: global buffers as LTTng's kernel domain has
 * them only, ros2 trace's geometry */
static void kernel_channel(const struct caret_lttng_cfg *cfg, struct caret_ctl_plan_channel *c)
{
	const struct caret_ctl_sel *s = cfg->sel;
	*c = (struct caret_ctl_plan_channel){
		.name = CARET_CTL_KERNEL_CHANNEL,
		.domain = CARET_CTL_PLAN_KERNEL,
		.overwrite = cfg->snapshot,
		.mmap = true,
		.enabled = true,
		.subbuf_size = s->subbuf_size_kernel ? s->subbuf_size_kernel
						     : CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL,
		/* as ros2 trace: in discard mode more sub-buffers only cost switches */
		.subbuf_count = CARET_CTL_KERNEL_SUBBUF_COUNT,
	};
	for (int i = 0; i < s->n_kernel; i++)
		add_event(c, s->kernel[i], false);
	for (int i = 0; i < s->n_syscall; i++)
		add_event(c, s->syscall[i], true);
	contexts(c, s);
}

int caret_lttng_layout(const struct caret_lttng_cfg *cfg, struct caret_ctl_plan *p, char *err,
		       size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->session = cfg->session && *cfg->session ? cfg->session : NULL;
	p->url = cfg->url;
	p->path = cfg->url ? NULL : cfg->path;
	p->snapshot_mode = cfg->snapshot;
	p->armed = cfg->armed;
	/* a member sees their own processes' events, root everyone's: the
	 * session daemon would otherwise give every session the buffers of
	 * every user's registered applications (issue 30 H7) */
	p->own_uid = cfg->as && cfg->as->uid != 0 && geteuid() == 0;
	int rc = ust_channel(cfg, &p->ch[0], err, errlen);
	if (rc < 0)
		return rc;
	p->n_channels = 1;
	if (caret_ctl_sel_kernel(cfg->sel))
		kernel_channel(cfg, &p->ch[p->n_channels++]);
	return 0;
}
