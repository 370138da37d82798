/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl top`: every callback's rate and duration and every topic's
 * rate in the user's processes (root: all), live, without a recording
 * (issue 35). Each request renews caretd's watch of those processes for a
 * few seconds (proto/caret_ctl_top.h); when caretctl is gone the watch
 * lapses and their hooks cost what they cost unwatched.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "caretctl.h"
#include "json_out.h"
#include "parse.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_top.h"
#include "rpc.h"
#include "sig.h"
#include "top_keys.h"
#include "top_view.h"
#include "util/regex/caret_regex.h"

static void usage(FILE *f, const char *cmd)
{
	(void)cmd;
	fprintf(f,
		"Usage: caretctl top [--once] [--json] [--sort KEY] [--node RE] [--topic RE]\n"
		"                    [--delay D] [--iterations N] [--all-hosts]\n"
		"Every callback of your ROS 2 processes (root: of all) with its rate, mean,\n"
		"99th percentile and longest duration and its share of one CPU, then every\n"
		"publisher's and subscription's message rate, refreshed each second until\n"
		"Ctrl-C or q; in a terminal, a key sorts: c cpu, r rate, m mean, p p99,\n"
		"x max, n node, s symbol. With or without a recording. While it runs the\n"
		"agents count in their shared memory (a few tens of ns per callback); a\n"
		"few seconds after it ends they stop.\n\n"
		"      --once          one table (after one interval) and exit\n"
		"      --json          caretd's result, filtered and sorted, one JSON line per\n"
		"                      refresh\n"
		"      --sort KEY      cpu (default), rate, mean, p99, max, node or symbol\n"
		"      --node RE       only rows whose node matches RE (ECMAScript, searched)\n"
		"      --topic RE      only rows whose topic matches RE (timers have none)\n"
		"      --delay D       time between refreshes (default 1s; 1s to 60s)\n"
		"  -n, --iterations N  stop after N refreshes\n"
		"      --all-hosts     every caretd's host too, over the bridge: a HOST column;\n"
		"                      another host sends its 64 busiest callbacks of every\n"
		"                      process (no topic rows), says how many it left out\n"
		"      --socket PATH   caretd's control socket\n"
		"  -h, --help          this help\n\n"
		"p99 comes from a log2 histogram: it lies in the right power-of-two bucket,\n"
		"interpolated, never above the max.\n\n"
		"A subscription's LAT, LAT P99, LAT MAX: publish -> take latency, the take's\n"
		"CLOCK_REALTIME minus the sample's DDS source timestamp (the writer's clock).\n"
		"Shown only when the subscribing process's DDS discovers this host only\n"
		"(started with ROS_LOCALHOST_ONLY=1, or on Jazzy ROS_AUTOMATIC_DISCOVERY_RANGE\n"
		"LOCALHOST or OFF without ROS_STATIC_PEERS, and no DDS XML file): elsewhere a\n"
		"writer may be on another host, whose clock offset would read as latency.\n"
		"APART: takes whose latency was negative or above 10 s (a stepped clock),\n"
		"counted but in no mean.\n\n"
		"Exit status: 0 success, 1 caretd failed, 2 usage error, 3 caretd not\n"
		"reachable, 5 malformed reply.\n");
}

struct top_opts {
	bool once, keys, all_hosts;
	int64_t delay_ms, iterations;
	struct top_view view;
	struct caret_re *node, *topic;
};

/* One request: its decoded rows in *t (root kept alive in *r). */
static int ask(const struct cli_opts *g, const struct top_opts *o, struct cli_reply *r,
	       struct caret_ctl_top *t)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_TOP,
				   .u.top = { .lease_ms = o->delay_ms +
							  CARET_CTL_TOP_LEASE_MS_DEFAULT,
					    .all_hosts = o->all_hosts } };
	if (q.u.top.lease_ms > CARET_CTL_TOP_LEASE_MS_MAX)
		q.u.top.lease_ms = CARET_CTL_TOP_LEASE_MS_MAX;
	int code = cli_call(g, &q, CLI_QUICK_MS, true, r);
	if (code != CLI_EXIT_OK)
		return code == CLI_EXIT_INTERRUPTED ? CLI_EXIT_OK : code;
	struct ctl_why why;
	int e = caret_ctl_dec_top(r->root, t, &why);
	if (e < 0) {
		cli_reply_free(r);
		return e == -ENOMEM ? cli_fail(CLI_EXIT_FAILED, "out of memory")
				    : cli_fail(CLI_EXIT_PROTOCOL, "malformed top reply: %s", why.msg);
	}
	return CLI_EXIT_OK;
}

static int show(const struct cli_opts *g, struct top_opts *o, struct caret_ctl_top *t)
{
	top_view_apply(&o->view, t);
	if (g->json) {
		if (cli_json_print_top(t) < 0)
			return cli_fail(CLI_EXIT_FAILED, "out of memory");
	} else {
		struct winsize ws;
		bool tty = !o->once && isatty(STDOUT_FILENO);
		o->view.max_rows = 0;
		/* a screen's worth: the header, two titles, half the rest each */
		if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
			o->view.max_rows = (ws.ws_row - 6) / 2;
		if (tty)
			fputs("\033[H\033[2J", stdout);
		if (tty && o->keys)
			printf("%s\n", top_keys_help);
		top_view_print(stdout, &o->view, t);
	}
	fflush(stdout);
	return cli_out_cut() ? -1 : CLI_EXIT_OK;
}

/* Until the next refresh: a sort key redraws t at once; q or a
 * stopping signal ends top (1), else 0 at the deadline. */
static int wait_keys(const struct cli_opts *g, struct top_opts *o, struct caret_ctl_top *t,
		     bool drawn, int64_t deadline_ms)
{
	for (;;) {
		switch (top_keys_wait(deadline_ms, &o->view.sort)) {
		case TOP_KEY_NONE:
			return 0;
		case TOP_KEY_SORT:
			if (drawn && show(g, o, t) != CLI_EXIT_OK)
				return 1;
			break;
		default:
			return 1;
		}
	}
}

/* --all-hosts: other hosts answer from their next second on, and their
 * first summary has no interval yet; --once waits (up to ALL_HOSTS_TRIES
 * refreshes) for every host listed to have one. */
#define ALL_HOSTS_TRIES 10
static bool hosts_pending(const struct caret_ctl_top *t)
{
	for (size_t i = 0; i < t->n_hosts; i++)
		if (t->hosts[i].interval_ms == 0 && t->hosts[i].processes > 0)
			return true;
	return t->n_hosts == 1; /* nobody else heard yet (a bridge waking) */
}

/* The refreshes; the first reply after a watch began has no interval
 * yet: it is not shown, the next one comes an interval later. */
static int run(const struct cli_opts *g, struct top_opts *o)
{
	int64_t shown = 0, next = cli_now_ms(), tries = 0;
	for (;;) {
		struct cli_reply r = { 0 };
		struct caret_ctl_top t;
		int code = ask(g, o, &r, &t);
		if (code != CLI_EXIT_OK || cli_sig_caught())
			return code;
		/* --once on processes another request watches: their interval
		 * began at its last read, perhaps a moment ago; one table is
		 * a whole interval's */
		bool partial = o->once && !shown && t.interval_ms < o->delay_ms / 2;
		bool first = (t.interval_ms == 0 || partial) && t.processes > 0, drawn = false;
		if (o->once && o->all_hosts && ++tries < ALL_HOSTS_TRIES && hosts_pending(&t))
			first = true, shown = 0;
		if (!first || shown) {
			code = show(g, o, &t);
			shown++;
			drawn = true;
		}
		bool done = (o->once && shown) || (o->iterations && shown >= o->iterations);
		next += o->delay_ms;
		if (code == CLI_EXIT_OK && !done && wait_keys(g, o, &t, drawn, next))
			done = true;
		caret_ctl_top_free(&t);
		cli_reply_free(&r);
		if (code != CLI_EXIT_OK)
			return code < 0 ? CLI_EXIT_OK : code;
		if (done)
			return CLI_EXIT_OK;
	}
}

static int compile(const char *opt, const char *pat, struct caret_re **re)
{
	char why[256];
	caret_re_free(*re);
	*re = NULL;
	int e = caret_re_compile(pat, strlen(pat), re, why, sizeof(why));
	if (e == -ENOMEM)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	return e < 0 ? cli_usage_error("top", "%s: %s", opt, why) : 0;
}

enum { O_ONCE = 0x100, O_SORT, O_NODE, O_TOPIC, O_DELAY, O_ALL_HOSTS };

/* Over 80 lines (87): one case per option, each a check and its message. */
static int parse(struct cli_opts *g, int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, O_ONCE },	   { "sort", required_argument, NULL, O_SORT },
		{ "node", required_argument, NULL, O_NODE }, { "topic", required_argument, NULL, O_TOPIC },
		{ "delay", required_argument, NULL, O_DELAY },
		{ "iterations", required_argument, NULL, 'n' },
		{ "all-hosts", no_argument, NULL, O_ALL_HOSTS },
		CLI_COMMON_LONGOPTS, { NULL, 0, NULL, 0 }
	};
	int opt, s, r;
	uint64_t ms, cnt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hn:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(cli_help_out(), "top");
			return cli_help_done("top");
		case O_ONCE:
			o->once = true;
			break;
		case O_ALL_HOSTS:
			o->all_hosts = true;
			break;
		case O_SORT:
			if ((s = top_sort_by_name(optarg)) < 0)
				return cli_usage_error("top", "--sort takes cpu, rate, mean, p99, max, "
							      "node or symbol, not '%s'", optarg);
			o->view.sort = (enum top_sort)s;
			break;
		case O_NODE:
			if ((r = compile("--node", optarg, &o->node)) != 0)
				return r;
			o->view.node = o->node;
			break;
		case O_TOPIC:
			if ((r = compile("--topic", optarg, &o->topic)) != 0)
				return r;
			o->view.topic = o->topic;
			break;
		case O_DELAY:
			if (cli_parse_duration(optarg, 60000, &ms) < 0 || ms < 1000)
				return cli_usage_error("top", "--delay takes 1s to 60s, not '%s'", optarg);
			o->delay_ms = (int64_t)ms;
			break;
		case 'n':
			if (cli_parse_count(optarg, INT32_MAX, &cnt) < 0)
				return cli_usage_error("top", "--iterations needs a positive number");
			o->iterations = (int64_t)cnt;
			break;
		default:
			if (cli_common_opt(g, opt, optarg) < 0)
				return cli_bad_option("top", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);
	return -1;
}

int cmd_top(struct cli_opts *g, int argc, char **argv)
{
	struct top_opts o = { .delay_ms = 1000 };
	int code = parse(g, argc, argv, &o);
	if (code < 0) {
		cli_sig_setup();
		/* keys only where a person reads the table */
		o.keys = !o.once && !g->json && isatty(STDOUT_FILENO) && top_keys_open();
		code = run(g, &o);
		top_keys_close();
	}
	caret_re_free(o.node);
	caret_re_free(o.topic);
	return code;
}
