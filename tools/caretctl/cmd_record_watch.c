/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record` once its session is started (cmd_record.h): the wait
 * until every process records, the recording until Enter, a signal,
 * --duration or the session's end, and the stop.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "caretctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_recordings.h"
#include "util/regex/caret_regex.h"
#include "cmd_record_watch.h"
#include "parse.h"
#include "record_hold.h"
#include "hosts.h"
#include "rpc.h"
#include "sig.h"
#include "tracedir.h"
#include "wait.h"

int cli_record_interrupted_code(void)
{
	return 128 + cli_sig_caught();
}

/* Stops our session after an interruption; the exit status says so. */
static int stop_interrupted(const struct cli_opts *g, const struct rec_opts *o,
			    const char *session)
{
	cli_warn("interrupted before all processes were recording; stopping session %s",
		 session);
	int code = cli_stop_session_all(g, session, o->all_hosts);
	/* drops are reported; the interruption is the news */
	return code == CLI_EXIT_OK || code == CLI_EXIT_TIMEOUT ? cli_record_interrupted_code() : code;
}

static void still_recording(const struct cli_opts *g, const char *session,
			    struct cli_hold *hold)
{
	cli_hold_check(g, hold); /* caretd may have gone, or come back */
	if (cli_hold_held(hold))
		fprintf(stderr, "caretctl: caretd stops session %s as this command exits (it "
			"holds it)\n", session);
	else
		fprintf(stderr,
			"caretctl: session %s may still be recording; stop it with: "
			"caretctl stop -s %s\n",
			session, session);
}

/* Prints the wait result; returns OK, TIMEOUT, or a protocol error.
 * *ended is set when every process that is not recording has exited (the
 * others record: the recording goes on, and the exit status says TIMEOUT).
 * *dropped when full caches dropped init records (B11b): the recording
 * goes on, and the exit status says TIMEOUT too. */
static int report_wait(const struct cli_opts *g, FILE *info, const struct cli_reply *r,
		       int64_t timeout_ms, bool *ended, bool *dropped)
{
	*ended = false;
	*dropped = false;
	struct ctl_wait_result w;
	struct ctl_why why;
	int e = ctl_decode_wait(r->root, &w, &why);
	if (e == -ENOMEM)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (e < 0)
		return cli_report_exchange(CARET_CTL_CMD_WAIT, e, &why, 0);
	if (g->json)
		cli_print_json(r->root, CARET_CTL_CMD_WAIT);
	fflush(stdout);
	int code = CLI_EXIT_OK;
	if (w.ok) {
		fprintf(info, "%lld/%lld processes recording\n", (long long)w.recording,
			(long long)w.total);
		if (w.total == 0)
			/* a member's count is of their own processes only */
			cli_warn("no process this recording sees runs the caret agent: this "
				 "trace will hold no replayed ROS 2 initialization events");
	} else {
		size_t live = 0;
		for (size_t i = 0; i < w.n; i++)
			live += strcmp(w.lag[i].state, "EXITED") != 0;
		*ended = live == 0;
		if (*ended) {
			fprintf(info, "%lld/%lld processes recording\n", (long long)w.recording,
				(long long)w.total);
			cli_fail(0, "%zu process%s ended with incomplete initialization data in "
				    "this trace:", w.n, w.n == 1 ? "" : "es");
		} else {
			cli_fail(0, "only %lld of %lld processes reached RECORD within %.1f s; "
				    "not recording:",
				 (long long)w.recording, (long long)w.total,
				 (double)timeout_ms / 1000.0);
		}
		for (size_t i = 0; i < w.n; i++)
			fprintf(stderr, "  pid %lld (%s): %s, %s\n", (long long)w.lag[i].pid,
				w.lag[i].procname, w.lag[i].state, w.lag[i].reason);
		code = CLI_EXIT_TIMEOUT;
	}
	*dropped = cli_report_drops(&w.drops);
	ctl_wait_result_free(&w);
	return code;
}

/* How often the recorder asks whether its session still records. */
#define WATCH_MS 500

enum watch { WATCH_ON, WATCH_GONE, WATCH_LOST, WATCH_AWAY };

/* Whether status lists session as a paused recording (`caretctl pause`):
 * not active, yet not over (`caretctl resume` goes on). */
static bool paused(const struct cli_reply *status, const char *session)
{
	struct caret_ctl_recordings rec;
	char why[256];
	bool p = false;
	if (caret_ctl_recordings_decode(status->root, &rec, why, sizeof(why)) < 0)
		return false;
	for (size_t i = 0; i < rec.n_recordings; i++)
		if (rec.recordings[i].session && !strcmp(rec.recordings[i].session, session))
			p = rec.recordings[i].paused;
	caret_ctl_recordings_free(&rec);
	return p;
}

/* Whether the session still records: WATCH_GONE when someone stopped or
 * destroyed it, WATCH_LOST when LTTng is unreachable, WATCH_AWAY when
 * caretd is not there (its socket refuses, is gone, or closed on us). A
 * caretd that is there but slow tells nothing: WATCH_ON. */
static enum watch watch_session(const struct cli_opts *g, const char *session)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STATUS };
	struct cli_reply r;
	struct cli_conn c;
	struct ctl_why why = { "" };
	/* Quietly: a caretd restarting meanwhile is not worth a line every
	 * half second (the next look will tell). */
	int64_t deadline = cli_now_ms() + 2000;
	int e = cli_conn_open(&c, g->socket, deadline);
	if (e == 0) {
		e = cli_exchange(&c, &q, deadline, true, NULL, NULL, &r, &why);
		cli_conn_close(&c);
	}
	if (e < 0)
		return cli_conn_gone(e) ? WATCH_AWAY : WATCH_ON;
	if (r.type != CTL_REPLY_RESULT) {
		cli_reply_free(&r);
		return WATCH_ON;
	}
	struct ctl_status st;
	enum watch w = WATCH_ON;
	if (ctl_decode_status(r.root, &st, &why) == 0) {
		if (!st.lttng_reachable) {
			w = WATCH_LOST;
		} else {
			w = paused(&r, session) ? WATCH_ON : WATCH_GONE;
			for (size_t i = 0; i < st.n_sessions; i++)
				if (strcmp(st.sessions[i], session) == 0)
					w = WATCH_ON;
		}
		ctl_status_free(&st);
	}
	cli_reply_free(&r);
	return w;
}

/* Said once per absence: the recording goes on without caretd, and what
 * its end will do (B5). */
static void say_away(const struct cli_opts *g, const char *session, bool away)
{
	if (!away) {
		fprintf(stderr, "caretctl: caretd is back; session %s records on\n", session);
		return;
	}
	cli_warn("caretd is gone (nothing accepts connections at %s): session %s records on in LTTng, and "
		 "the processes' agents stay in RECORD until caretd is back; when this command "
		 "ends (Enter, Ctrl-C, SIGTERM or --duration) it stops the session through "
		 "LTTng itself, which root's session daemon allows only root and the tracing "
		 "group (a user: on their own recording only)",
		 g->socket, session);
}

/* Records until Enter, a signal, the duration, or the end of the session
 * (noticed within WATCH_MS, through LTTng while caretd is away; standard
 * input may be closed). */
static enum watch record_on(const struct cli_opts *g, const struct rec_opts *o, FILE *info,
			    const char *session, struct cli_hold *hold, bool *away_out)
{
	int64_t end = o->duration_ms ? cli_now_ms() + o->duration_ms : INT64_MAX / 2;
	bool input = !o->duration_ms;
	if (o->duration_ms) {
		fprintf(info, "recording for %.1f s (Ctrl-C stops earlier)\n",
			(double)o->duration_ms / 1000.0);
	} else {
		cli_discard_typeahead();
		fprintf(info, "press Enter or Ctrl-C to stop recording\n");
	}
	fflush(info);
	bool away = false;
	for (;;) {
		int64_t now = cli_now_ms();
		if (now >= end)
			return WATCH_ON;
		int64_t until = now + WATCH_MS < end ? now + WATCH_MS : end;
		int e = input ? cli_wait_enter(until) : cli_sleep_until(until);
		if (e == -EINTR) {
			if (isatty(fileno(info)))
				fputc('\n', info); /* after the terminal's "^C" */
			return WATCH_ON;
		}
		if (input && e == 0)
			return WATCH_ON;
		if (input && e == -EPIPE) {
			input = false;
			fprintf(info, "standard input closed: stop with Ctrl-C, SIGTERM (pid %d) "
				      "or 'caretctl stop -s %s'\n",
				(int)getpid(), session);
			fflush(info);
		}
		enum watch w = watch_session(g, session);
		if ((w == WATCH_AWAY) != away) {
			away = w == WATCH_AWAY;
			say_away(g, session, away);
		}
		*away_out = away;
		/* a caretd restarted has no hold: held again once it is back */
		if (w != WATCH_AWAY)
			cli_hold_check(g, hold);
		if (w == WATCH_AWAY)
			w = cli_session_gone_direct(session) ? WATCH_GONE : WATCH_ON;
		if (w != WATCH_ON)
			return w;
	}
}

int cli_record_through(const struct cli_opts *g, const struct rec_opts *o, FILE *info,
		       const char *session, const char *path, struct cli_hold *hold)
{
	struct cli_reply r;
	if (cli_sig_caught())
		return stop_interrupted(g, o, session);

	int code = cli_wait_all(g, o->timeout_ms, o->verbose, &r);
	if (code == CLI_EXIT_INTERRUPTED)
		return stop_interrupted(g, o, session);
	bool ended = false, dropped = false;
	int final;
	if (code == CLI_EXIT_UNREACHABLE && o->duration_ms) {
		/* caretd away (B5): the session records all the same; whether
		 * every process made it is unknown, the duration is not */
		cli_warn("recording on for --duration without caretd; whether every process "
			 "reached RECORD is unknown");
		final = CLI_EXIT_UNREACHABLE;
	} else if (code != CLI_EXIT_OK) {
		still_recording(g, session, hold);
		return code;
	} else {
		final = report_wait(g, info, &r, o->timeout_ms, &ended, &dropped);
		cli_reply_free(&r);
	}
	if (o->all_hosts && o->url && (final == CLI_EXIT_OK || final == CLI_EXIT_TIMEOUT)) {
		/* the other hosts' sessions stream to the same relay */
		int rc = cli_wait_remote(g, o->timeout_ms, info);
		if (rc == CLI_EXIT_TIMEOUT)
			final = CLI_EXIT_TIMEOUT;
		else if (rc != CLI_EXIT_OK)
			fprintf(stderr, "caretctl: the other hosts' state is unknown\n");
	}
	if (final == CLI_EXIT_PROTOCOL || final == CLI_EXIT_FAILED) {
		still_recording(g, session, hold);
		return final;
	}
	if (final == CLI_EXIT_TIMEOUT && !o->duration_ms && !ended) {
		/* left running on purpose (caretctl(1), EXIT STATUS 4) */
		cli_hold_release(g, hold);
		fprintf(stderr,
			"caretctl: session %s is still recording (without the processes "
			"above, or with their initialization incomplete); stop it with: "
			"caretctl stop -s %s\n",
			session, session);
		return final;
	}
	if (final == CLI_EXIT_TIMEOUT && !ended)
		fprintf(stderr, "caretctl: recording on for --duration anyway\n");

	bool away = false;
	enum watch w = record_on(g, o, info, session, hold, &away);
	/* a rotating recording caretd ended before its disk filled */
	if (w == WATCH_GONE && cli_rotation_why_ended(g, session))
		return CLI_EXIT_FAILED;
	if (w == WATCH_GONE) {
		/* whoever ended it, a 'caretctl stop' of this very user
		 * included: caretd does not say who (issue 33 L9) */
		fprintf(info, "session %s was stopped or destroyed outside this command "
			      "(caretctl stop, lttng stop or destroy); the trace is in %s\n",
			session, path);
		if (away)
			cli_warn("caretd is still away: the processes' agents stay in RECORD until "
				 "it is back");
		return final == CLI_EXIT_OK && dropped ? CLI_EXIT_TIMEOUT : final;
	}
	if (w == WATCH_LOST) {
		cli_fail(0, "lttng-sessiond is gone: session %s ended with it; the trace in %s "
			    "holds what was recorded until then", session, path);
		return CLI_EXIT_FAILED;
	}
	code = cli_stop_session_all(g, session, o->all_hosts);
	if (code == CLI_EXIT_OK && final == CLI_EXIT_OK && dropped)
		return CLI_EXIT_TIMEOUT;
	return code == CLI_EXIT_OK ? final : code;
}

