/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl stop`, and the stop that ends `caretctl record`. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caretctl.h"
#include "json_out.h"
#include "complete.h"
#include "lib/lttng/session.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_limits.h"
#include "hosts.h"
#include "rotation_cli.h"
#include "snapshot_cli.h"
#include "rpc.h"
#include "sig.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caretctl stop [-s NAME] [--all-hosts] [--json]\n"
		"Stop a recording: caretd stops and destroys the LTTng session, reports\n"
		"what LTTng lost, and sends End to the agents when no session is left.\n\n"
		"  -s, --session-name NAME  the session to stop (default: the one caretd\n"
		"                           created, else the only active one)\n"
		"      --all-hosts          then send End to every host (and stop the\n"
		"                           relay sessions of a record --set-url --all-hosts)\n"
		"      --json               print caretd's result object as one JSON line\n"
		"      --socket PATH        caretd's control socket\n"
		"  -h, --help               this help\n\n"
		"Exit status: 0 stopped, 1 caretd or LTTng failed, 2 usage error,\n"
		"3 caretd not reachable, 4 stopped, but agents' full caches dropped\n"
		"initialization records (each process named), 5 malformed reply.\n");
}

/* "N" or "unknown". */
static const char *count_str(char *buf, size_t len, uint64_t v, bool known)
{
	if (!known)
		return "unknown";
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* "N" or "an unknown number of", to read as a sentence. */
static const char *amount(char *buf, size_t len, uint64_t v, bool known)
{
	return known ? count_str(buf, len, v, true) : "an unknown number of";
}

/* Nothing is lost silently: any loss, or doubt about one, gets a line. */
static void warn_losses(const struct ctl_stop_result *s)
{
	uint64_t lost = 0;
	bool lost_known = true, disc_known = s->total_known;
	for (size_t i = 0; i < s->n; i++) {
		lost_known = lost_known && s->ch[i].lost_known;
		disc_known = disc_known && s->ch[i].discarded_known;
		lost += s->ch[i].lost;
	}
	bool some = (disc_known && s->discarded_total > 0) || (lost_known && lost > 0);
	if (disc_known && lost_known && !some)
		return;
	char a[24], b[24];
	cli_warn("the trace %s incomplete: %s events discarded, %s packets lost; "
		 "record again with a larger --subbuffer-size-ust or --subbuffer-count, "
		 "or a lower -f",
		 some ? "is" : "may be",
		 amount(a, sizeof(a), s->discarded_total, disc_known),
		 amount(b, sizeof(b), lost, lost_known));
}

bool cli_report_drops(const struct ctl_drops *d)
{
	if (d->total <= 0 && d->n == 0)
		return false;
	int64_t listed = 0;
	for (size_t i = 0; i < d->n; i++)
		listed += d->d[i].dropped;
	cli_warn("initialization data is incomplete: the agents' caches were full and dropped "
		 "%lld initialization records, which no replay can bring into the trace "
		 "(start these processes again with a larger CARET_AGENT_CACHE_SIZE):",
		 (long long)(d->total > listed ? d->total : listed));
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "  pid %lld (%s): %lld records dropped\n", (long long)d->d[i].pid,
			d->d[i].procname, (long long)d->d[i].dropped);
	if (d->total > listed)
		fprintf(stderr, "  other processes: %lld records dropped\n",
			(long long)(d->total - listed));
	return true;
}

static int report(const struct cli_opts *g, struct cli_reply *r)
{
	struct ctl_stop_result s;
	struct caret_ctl_recordings rec;
	struct ctl_why why;
	int e = ctl_decode_stop(r->root, &s, &why);
	if (e == -ENOMEM)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (e < 0)
		return cli_report_exchange(CARET_CTL_CMD_STOP, e, &why, 0);
	e = caret_ctl_recordings_decode(r->root, &rec, why.msg, sizeof(why.msg));
	if (e < 0) {
		ctl_stop_result_free(&s);
		return cli_report_exchange(CARET_CTL_CMD_STOP, e, &why, 0);
	}
	/* Not one trace to check: a rotating recording is judged chunk by
	 * chunk (the rotation part of the reply; read whole, every chunk's
	 * own replay would count as copies of the one before), a flight
	 * recorder's directory holds its snapshots, each a trace of its own. */
	bool pieces = rec.rotation || cli_snapshot_is(&rec);
	if (g->json) {
		struct complete_json cj = { 0 };
		if (!pieces)
			complete_stop_report(NULL, &cj, s.path, s.duplicates, NULL);
		/* out of memory: the result goes out as caretd sent it */
		if (cj.read && cli_reply_set_u64(r, CARET_CTL_K_DUPLICATES, cj.duplicates) == 0 &&
		    cj.n_missing)
			cli_reply_set_strings(r, "missing_init", cj.missing, cj.n_missing);
		complete_json_free(&cj);
		cli_print_json(r->root, CARET_CTL_CMD_STOP);
	} else {
		char a[24], b[24];
		printf("stopped session %s\n", s.session);
		/* a flight recorder without a snapshot wrote nothing: caretd
		 * removed the directory it made for it (issue 33 L10) */
		if (cli_snapshot_unwritten(&rec))
			printf("trace: none (the flight recorder took no snapshot)\n");
		else
			printf("trace: %s\n", s.path);
		for (size_t i = 0; i < s.n; i++)
			printf("  channel %s: %s events discarded, %s packets lost\n",
			       s.ch[i].name,
			       count_str(a, sizeof(a), s.ch[i].discarded, s.ch[i].discarded_known),
			       count_str(b, sizeof(b), s.ch[i].lost, s.ch[i].lost_known));
		if (!pieces)
			complete_stop_report(stdout, NULL, s.path, s.duplicates, cli_warn);
		cli_rotation_print(&rec);
		cli_snapshot_print(&rec);
	}
	fflush(stdout);
	warn_losses(&s);
	bool dropped = cli_report_drops(&s.drops);
	ctl_stop_result_free(&s);
	caret_ctl_recordings_free(&rec);
	return dropped ? CLI_EXIT_TIMEOUT : CLI_EXIT_OK;
}

/*
 * caretd is away (killed, restarting): the recording must not run on for
 * good (B5). Stops, reads and destroys it through lttng-ctl as caretd
 * would. Root's session daemon takes orders from root and the tracing
 * group only, and caretctl acts only for the trace directory's owner:
 * its recording. The trace is its owner's already (LTTng wrote it as
 * them); nobody chowns anything (caretd(8), RECORDINGS AND THEIR OWNERS).
 */
static int stop_direct(const struct cli_opts *g, const char *session)
{
	char path[4096] = "", err[512] = "";
	struct stat st;
	int e = caret_lttng_session_path(session, path, sizeof(path));
	bool owned = e == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (e == 0 && getuid() != 0 && (!owned || st.st_uid != getuid())) {
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"session %s is not your recording (its trace directory %s is not "
				"yours): only caretd or root may stop it",
				session, path);
	}
	struct caret_lttng_chan_stats ch[16];
	int n = e < 0 ? e : caret_lttng_stop(session, ch, 16, path, sizeof(path), err, sizeof(err));
	if (n == -ENOENT && getuid() == 0) {
		/* root's client sees every session: this one is no more
		 * (the exit status still says caretd was not reachable) */
		cli_set_errno(n);
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"session %s no longer exists in LTTng (stopped or destroyed "
				"outside this command); caretd is not reachable, and the "
				"processes' agents stay in RECORD until it is back",
				session);
	}
	if (n < 0) {
		if (e < 0)
			snprintf(err, sizeof(err), "%s", strerror(-e));
		cli_set_errno(n);
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"stopping session %s through LTTng failed too (%s%s): it goes on "
				"recording; stop it with 'caretctl stop -s %s' once caretd is back",
				session, err,
				(n == -ECONNREFUSED || n == -ENOENT) && getuid() != 0
					? "; root's lttng-sessiond answers only root and the tracing "
					  "group"
					: "",
				session);
	}
	if (n > 16)
		n = 16;
	struct caret_ctl_channel out[16];
	for (int i = 0; i < n; i++)
		out[i] = (struct caret_ctl_channel){ ch[i].name, ch[i].discarded, ch[i].lost_packets,
						     ch[i].discarded_known, ch[i].lost_known };
	cli_warn("caretd is not reachable: stopped session %s directly through LTTng; the "
		 "processes' agents stay in RECORD until caretd is back", session);
	struct cli_reply r;
	if (cli_reply_stop(&r, session, path, out, (size_t)n) < 0 ||
	    cli_reply_set_bool(&r, "direct", true) < 0) {
		cli_reply_free(&r);
		return cli_fail(CLI_EXIT_FAILED, "out of memory (session %s is stopped)", session);
	}
	int code = report(g, &r);
	cli_reply_free(&r);
	return code;
}

bool cli_session_gone_direct(const char *session)
{
	char path[4096];
	if (getuid() != 0)
		return false;
	return caret_lttng_session_path(session, path, sizeof(path)) == -ENOENT;
}

int cli_stop_session(const struct cli_opts *g, const char *session)
{
	return cli_stop_session_all(g, session, false);
}

int cli_stop_session_all(const struct cli_opts *g, const char *session, bool all_hosts)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STOP,
				   .u.stop = { .session = session, .all_hosts = all_hosts } };
	struct cli_reply r;
	int code;
	/* caretd refuses (EAGAIN) the stop of a rotating recording whose
	 * chunk lacks part of its replay (a rotation came after the settle),
	 * for at most ROTATION_STOP_WAIT_MS: settle again and repeat */
	do
		cli_rotation_settle(g, session, g->json ? stderr : stdout);
	while ((code = cli_call_unless(g, &q, CLI_STOP_MS, false, EAGAIN, &r)) == CLI_EXIT_AGAIN &&
	       !cli_sig_caught());
	if (code == CLI_EXIT_AGAIN)
		code = cli_fail(CLI_EXIT_FAILED, "session %s not stopped: interrupted while its last "
				"chunk's replay ran", session ? session : "(default)");
	if (code == CLI_EXIT_UNREACHABLE && session) {
		code = stop_direct(g, session);
		if (code != CLI_EXIT_UNREACHABLE && all_hosts)
			cli_warn("no End was sent to the other hosts (caretd is away)");
		return code;
	}
	if (code == CLI_EXIT_UNREACHABLE)
		fprintf(stderr, "caretctl: name the session (-s NAME) to stop it through LTTng "
				"while caretd is away\n");
	if (code != CLI_EXIT_OK)
		return code;
	code = report(g, &r);
	if (all_hosts)
		cli_report_broadcast(&r, "End");
	cli_reply_free(&r);
	return code;
}

int cmd_stop(struct cli_opts *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session-name", required_argument, NULL, 's' },
		{ "all-hosts", no_argument, NULL, 'A' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *session = NULL;
	bool all_hosts = false;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'A':
			all_hosts = true;
			break;
		case 's': {
			/* LTTng's rule only: the session may be anyone's. */
			char why[160];
			if (caret_ctl_check_lttng_session_name(optarg, why, sizeof(why)) < 0)
				return cli_usage_error("stop", "invalid -s/--session-name '%s': %s",
						       optarg, why);
			session = optarg;
			break;
		}
		case 'h':
			usage(cli_help_out());
			return cli_help_done("stop");
		default:
			if (cli_common_opt(g, opt, optarg) < 0)
				return cli_bad_option("stop", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("stop", "unexpected argument '%s'", argv[optind]);
	return cli_stop_session_all(g, session, all_hosts);
}
