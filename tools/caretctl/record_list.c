/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record -l` (record_list.h).
 */
#include <limits.h>
#include <stdio.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_limits.h"
#include "json_out.h"
#include "plan_cli.h"
#include "record_list.h"
#include "record_req.h"
#include "rpc.h"

/* caretd not reachable: what caretctl knows alone (the lists of
 * proto/caret_ctl_evlist.h, the trace directory, the pacing asked), and
 * the layout caretd decides said to be unknown rather than guessed. */
#define OFFLINE_UNKNOWN                                                                  \
	"caretd decides the channel's mode and sub-buffers (its configured defaults, a " \
	"flight recorder's ring from the live processes' caches) and whether --light "   \
	"enables ros2:rcl_publish (not before Iron); run caretd for its plan"

/* record -l --json without caretd: what list_offline() says, as one result
 * object's "list". */
static int list_json(const struct rec_opts *o, const char *why)
{
	char dir[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/%s", o->path,
		 o->session ? o->session : "caret-YYYYMMDD-HHMMSS");
	struct cli_sel_names names;
	/* a flight recorder's ring is caretd's to divide: no number */
	struct caret_ctl_record_list l = {
		.unknown = why,
		.channel = { .name = CARET_CTL_DEFAULT_CHANNEL,
			     .from = "caretd's built-in defaults",
			     .geometry_unknown = o->snap.size != 0,
			     .subbuf_count = o->subbuf_count ? o->subbuf_count
							     : CARET_CTL_DEFAULT_SUBBUF_COUNT,
			     .subbuf_size = o->subbuf_size ? o->subbuf_size
							   : CARET_CTL_DEFAULT_SUBBUF_SIZE },
		.trace_directory = dir, .append = o->append, .pacing = o->pacing,
		.frequency = o->frequency, .have_sim_time = o->clock.on,
		.sim_time_domain = o->clock.domain,
	};
	cli_sel_fill(&o->sel, o->light, &names, &l);
	return cli_json_print_record_list(&l) < 0 ? cli_fail(CLI_EXIT_FAILED, "out of memory")
						  : CLI_EXIT_OK;
}

static void list_tail(const struct rec_opts *o)
{
	printf("trace directory: %s/%s%s\n", o->path,
	       o->session ? o->session : "caret-YYYYMMDD-HHMMSS",
	       o->append ? " (append-N inside it if it holds a trace)" : "");
	cli_simclock_list(&o->clock);
}

static int list_offline(const struct rec_opts *o, const char *unreachable)
{
	char why[PATH_MAX + 512];
	snprintf(why, sizeof(why), "%s: %s", unreachable, OFFLINE_UNKNOWN);
	fprintf(stderr, "caretctl: note: %s\n", why);
	if (cli_msg_is_json())
		return list_json(o, why);
	cli_sel_list(&o->sel, o->light);
	if (o->snap.size)
		printf("channel %s: per-UID buffers, overwrite mode (a flight recorder), a ring "
		       "of %llu bytes per CPU in sub-buffers caretd chooses (caretd not "
		       "reachable: not known)\n", CARET_CTL_DEFAULT_CHANNEL,
		       (unsigned long long)o->snap.size);
	else
		printf("channel %s: per-UID buffers, discard mode, %llu sub-buffers of %llu bytes "
		       "per CPU (caretd's built-in defaults; caretd not reachable: not asked)\n",
		       CARET_CTL_DEFAULT_CHANNEL,
		       (unsigned long long)(o->subbuf_count ? o->subbuf_count
							    : CARET_CTL_DEFAULT_SUBBUF_COUNT),
		       (unsigned long long)(o->subbuf_size ? o->subbuf_size
							   : CARET_CTL_DEFAULT_SUBBUF_SIZE));
	list_tail(o);
	if (o->frequency)
		printf("replay pacing: %s, %llu records/s per process\n", o->pacing,
		       (unsigned long long)o->frequency);
	else
		printf("replay pacing: %s (as fast as the channel's buffers drain)\n", o->pacing);
	return CLI_EXIT_OK;
}

/* record -l --json with caretd: its plan, and what caretctl adds (the
 * trace directory's name pattern, the simulation clock). */
static int plan_json(const struct rec_opts *o, const struct caret_ctl_plan *p)
{
	char dir[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/%s", o->path,
		 o->session ? o->session : "caret-YYYYMMDD-HHMMSS");
	return cli_json_print_plan(p, dir, o->append, o->clock.on, o->clock.domain) < 0
		       ? cli_fail(CLI_EXIT_FAILED, "out of memory")
		       : CLI_EXIT_OK;
}

/* caretd's plan: what `record` with these options would make, decided
 * where it is made. */
int cli_record_list(const struct cli_opts *g, const struct rec_opts *o)
{
	struct caret_ctl_req q = cli_record_request(o, cli_record_arms(o), true);
	struct cli_reply r;
	static struct caret_ctl_plan p; /* 10 KiB */
	char unreachable[PATH_MAX + 128];
	int code = cli_plan_ask(g, &q, &r, &p, unreachable, sizeof(unreachable));
	if (code == CLI_EXIT_UNREACHABLE)
		return list_offline(o, unreachable);
	if (code != CLI_EXIT_OK)
		return code;
	if (cli_msg_is_json()) {
		code = plan_json(o, &p);
	} else {
		cli_plan_text(&p);
		list_tail(o);
	}
	cli_reply_free(&r);
	return code;
}
