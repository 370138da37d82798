/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hosts.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_reply.h"
#include "rpc.h"

/* A host that answered less than this long ago is "answering"; caretd
 * publishes every process's Status at least every second. */
#define POLL_MS 200

void cli_report_broadcast(const struct cli_reply *r, const char *what)
{
	struct ctl_broadcast b;
	char why[160];
	/* a malformed broadcast says nothing sure: the local action happened */
	if (caret_ctl_broadcast_decode(r->root, &b, why, sizeof(why)) < 0 || !b.present)
		return;
	bool ok = b.ok;
	const char *err = b.error;
	if (ok && err) /* held while the bridge wakes: the daemon says how */
		fprintf(stderr, "caretctl: %s\n", err);
	else if (ok)
		fprintf(stderr, "caretctl: %s sent to every host\n", what);
	else
		cli_warn("%s", err ? err : "not sent to the other hosts");
}

static int call_all_hosts(const struct cli_opts *g, const char *cmd, struct cli_reply *r)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION,
				   .cmd = strcmp(cmd, CARET_CTL_CMD_START) ? CARET_CTL_END
									   : CARET_CTL_START,
				   .u.startend.all_hosts = true };
	return cli_call(g, &q, CLI_STOP_MS, false, r);
}

int cli_startend_all_hosts(const struct cli_opts *g, const char *cmd)
{
	struct cli_reply r;
	int code = call_all_hosts(g, cmd, &r);
	if (code != CLI_EXIT_OK)
		return code;
	struct ctl_why why;
	struct ctl_accept a = { false, NULL };
	if (ctl_decode_accept(r.root, &a, &why) < 0) {
		code = cli_report_exchange(cmd, -EPROTO, &why, 0);
		cli_reply_free(&r);
		return code;
	}
	bool acc = a.accepted;
	const char *reason = a.reason;
	if (g->json)
		cli_print_json(r.root, cmd);
	else
		printf("%s on this host: %s%s%s\n", cmd, acc ? "accepted" : "ignored",
		       reason ? ": " : "", reason ? reason + (strncmp(reason, "ignored: ", 9) ? 0 : 9) : "");
	cli_report_broadcast(&r, strcmp(cmd, CARET_CTL_CMD_START) ? "End" : "Start");
	cli_reply_free(&r);
	return CLI_EXIT_OK;
}

/* Asks caretd for the hosts and decodes its answer into *h (its strings
 * point into r, kept until cli_reply_free). */
static int hosts_call(const struct cli_opts *g, struct cli_reply *r, struct caret_ctl_hosts *h)
{
	int code = cli_call_simple(g, CARET_CTL_HOSTS, CLI_QUICK_MS, r);
	if (code != CLI_EXIT_OK)
		return code;
	struct ctl_why why;
	int err = caret_ctl_hosts_decode(r->root, h, why.msg, sizeof(why.msg));
	if (err < 0) {
		cli_reply_free(r);
		return cli_report_exchange(CARET_CTL_CMD_HOSTS, err, &why, 0);
	}
	return CLI_EXIT_OK;
}

static void hosts_free(struct cli_reply *r, struct caret_ctl_hosts *h)
{
	caret_ctl_hosts_free(h);
	cli_reply_free(r);
}

/* This host's bridge version, from its own entry (0: not said). */
static uint32_t own_version(const struct caret_ctl_hosts *hs)
{
	for (size_t i = 0; i < hs->n_hosts; i++)
		if (hs->hosts[i].self)
			return hs->hosts[i].version;
	return 0;
}

static void say_ignored(FILE *f, const char *name, uint32_t theirs, uint32_t ours)
{
	fprintf(f, "host %s: IGNORED: its caretd speaks bridge version %u, this host's %u "
		   "(run the same caretd version on every host)\n", name, theirs, ours);
}

/* True when every host listed answered within the last `fresh_ms`; a host
 * of another bridge version will not say more. */
static bool all_fresh(const struct caret_ctl_hosts *hs, int64_t fresh_ms)
{
	for (size_t i = 0; i < hs->n_hosts; i++)
		if (!hs->hosts[i].ignored && hs->hosts[i].age_ms > fresh_ms)
			return false;
	return true;
}

static void print_hosts(const struct caret_ctl_hosts *hs, int64_t timeout_ms, int *silent)
{
	printf("bridge: %s\n", hs->bridge);
	*silent = 0;
	for (size_t i = 0; i < hs->n_hosts; i++) {
		const struct caret_ctl_host *h = &hs->hosts[i];
		if (!h->self && h->ignored) {
			say_ignored(stdout, h->host, h->version, own_version(hs));
			continue;
		}
		if (!h->self && h->age_ms > timeout_ms) {
			printf("host %s: NO ANSWER within %.1f s (last Status %.1f s ago)\n", h->host,
			       (double)timeout_ms / 1000.0, (double)h->age_ms / 1000.0);
			(*silent)++;
			continue;
		}
		printf("host %s%s: %zu processes\n", h->host, h->self ? " (this host)" : "",
		       h->n_procs);
		for (size_t j = 0; j < h->n_procs; j++) {
			const struct caret_ctl_host_proc *p = &h->procs[j];
			printf("  %-8s pid %-8lld %s  %s\n", p->state, (long long)p->pid, p->name,
			       *p->nodes ? p->nodes : "-");
		}
	}
}

int cli_status_all_hosts(const struct cli_opts *g, int64_t timeout_ms)
{
	int64_t t0 = cli_now_ms();
	struct cli_reply r;
	struct caret_ctl_hosts hs;
	for (;;) {
		int code = hosts_call(g, &r, &hs);
		if (code != CLI_EXIT_OK)
			return code;
		int64_t waited = cli_now_ms() - t0;
		/* done when every known host answered since we asked, or time is
		 * up; not while the bridge wakes: the other hosts may still be
		 * loading DDS */
		if (waited >= timeout_ms || (!hs.waking && waited > POLL_MS && all_fresh(&hs, waited)))
			break;
		hosts_free(&r, &hs);
		struct timespec ts = { 0, POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	int silent = 0;
	if (g->json)
		cli_print_json(r.root, CARET_CTL_CMD_HOSTS);
	else
		print_hosts(&hs, timeout_ms, &silent);
	hosts_free(&r, &hs);
	if (silent)
		return cli_fail(CLI_EXIT_TIMEOUT, "%d host(s) did not answer within %.1f s", silent,
				(double)timeout_ms / 1000.0);
	return CLI_EXIT_OK;
}

/* Another host that speaks this one's bridge version. */
static bool other(const struct caret_ctl_host *h)
{
	return !h->self && !h->ignored;
}

static bool host_fresh(const struct caret_ctl_host *h)
{
	return h->age_ms <= 3000;
}

/* Processes of the other hosts that answered recently, and how many record. */
static void remote_counts(const struct caret_ctl_hosts *hs, size_t *total, size_t *recording)
{
	*total = *recording = 0;
	for (size_t i = 0; i < hs->n_hosts; i++) {
		const struct caret_ctl_host *h = &hs->hosts[i];
		if (!other(h) || !host_fresh(h))
			continue;
		*total += h->n_procs;
		*recording += caret_ctl_host_recording(h);
	}
}

static void say_remote(FILE *info, const struct caret_ctl_hosts *hs)
{
	for (size_t i = 0; i < hs->n_hosts; i++) {
		const struct caret_ctl_host *h = &hs->hosts[i];
		if (h->self)
			continue;
		if (h->ignored)
			say_ignored(info, h->host, h->version, own_version(hs));
		else if (!host_fresh(h))
			fprintf(info, "host %s: NO ANSWER (last Status %.1f s ago)\n", h->host,
				(double)h->age_ms / 1000.0);
		else
			fprintf(info, "host %s: %zu/%zu processes recording\n", h->host,
				caret_ctl_host_recording(h), h->n_procs);
	}
}

int cli_wait_remote(const struct cli_opts *g, int64_t timeout_ms, FILE *info)
{
	int64_t t0 = cli_now_ms();
	struct cli_reply r;
	struct caret_ctl_hosts hs;
	size_t total = 0, rec = 0, known = 0, fresh = 0;
	for (;;) {
		int code = hosts_call(g, &r, &hs);
		if (code != CLI_EXIT_OK)
			return code;
		remote_counts(&hs, &total, &rec);
		known = fresh = 0;
		for (size_t i = 0; i < hs.n_hosts; i++)
			if (other(&hs.hosts[i])) {
				known++;
				fresh += host_fresh(&hs.hosts[i]);
			}
		int64_t waited = cli_now_ms() - t0;
		/* a second at least: the other hosts create their sessions first;
		 * a host that was seen but is silent gets 3 s to speak again; a
		 * bridge that wakes holds the Start until the hosts joined */
		bool done = waited > 1000 && !hs.waking && rec == total &&
			    (fresh == known || waited > 3000);
		if (done || waited >= timeout_ms)
			break;
		hosts_free(&r, &hs);
		struct timespec ts = { 0, POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	say_remote(info, &hs);
	hosts_free(&r, &hs);
	if (known == 0) {
		cli_warn("no other host answered: is caretd running there, with the bridge on, "
			 "in the same ROS_DOMAIN_ID?");
		return CLI_EXIT_OK;
	}
	if (rec < total || fresh < known) {
		cli_warn("not every host answered, or not all their processes reached RECORD "
			 "(caretctl status --all-hosts shows them)");
		return CLI_EXIT_TIMEOUT;
	}
	return CLI_EXIT_OK;
}
