/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hosts.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"
#include "rpc.h"

/* A host that answered less than this long ago is "answering"; caretd
 * publishes every process's Status at least every second. */
#define POLL_MS 200

void cli_report_broadcast(const cJSON *res, const char *what)
{
	struct ctl_why why;
	bool ok;
	const char *err = NULL;
	if (!cJSON_GetObjectItemCaseSensitive(res, CARET_CTL_K_BROADCAST) ||
	    ctl_get_bool(res, NULL, CARET_CTL_K_BROADCAST, &ok, &why) < 0)
		return;
	ctl_get_str(res, NULL, CARET_CTL_K_BROADCAST_ERROR, true, &err, &why);
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
	cJSON *req = caret_ctl_enc_req(&q);
	if (!req)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	int code = cli_call(g, req, CLI_STOP_MS, false, r);
	cJSON_Delete(req);
	return code;
}

int cli_startend_all_hosts(const struct cli_opts *g, const char *cmd)
{
	struct cli_reply r;
	int code = call_all_hosts(g, cmd, &r);
	if (code != CLI_EXIT_OK)
		return code;
	struct ctl_why why;
	bool acc = false;
	const char *reason = NULL;
	ctl_get_bool(r.root, NULL, CARET_CTL_K_ACCEPTED, &acc, &why);
	ctl_get_str(r.root, NULL, CARET_CTL_K_REASON, true, &reason, &why);
	if (g->json)
		cli_print_json(r.root, cmd);
	else
		printf("%s on this host: %s%s%s\n", cmd, acc ? "accepted" : "ignored",
		       reason ? ": " : "", reason ? reason + (strncmp(reason, "ignored: ", 9) ? 0 : 9) : "");
	cli_report_broadcast(r.root, strcmp(cmd, CARET_CTL_CMD_START) ? "End" : "Start");
	cli_reply_free(&r);
	return CLI_EXIT_OK;
}

static int hosts_call(const struct cli_opts *g, struct cli_reply *r)
{
	cJSON *req = caret_ctl_enc_req_simple(CARET_CTL_HOSTS);
	if (!req)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	int code = cli_call(g, req, CLI_QUICK_MS, false, r);
	cJSON_Delete(req);
	return code;
}

/* A host whose caretd speaks another bridge version: this one ignores it
 * (its "bridge_version"; absent from a caretd before versions). */
static bool host_ignored(const cJSON *h, uint32_t *version)
{
	const cJSON *ig = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_IGNORED);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_BRIDGE_VERSION);
	*version = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 4e9
			   ? (uint32_t)v->valuedouble
			   : 0;
	return cJSON_IsTrue(ig);
}

/* This host's bridge version, from its own entry (0: not said). */
static uint32_t own_version(const cJSON *hosts)
{
	const cJSON *h;
	uint32_t v = 0;
	cJSON_ArrayForEach(h, hosts)
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_SELF)))
			host_ignored(h, &v);
	return v;
}

static void say_ignored(FILE *f, const char *name, uint32_t theirs, uint32_t ours)
{
	fprintf(f, "host %s: IGNORED: its caretd speaks bridge version %u, this host's %u "
		   "(run the same caretd version on every host)\n", name, theirs, ours);
}

/* True when every host listed answered within the last `fresh_ms`. */
static bool all_fresh(const cJSON *hosts, int64_t fresh_ms)
{
	const cJSON *h;
	cJSON_ArrayForEach(h, hosts) {
		struct ctl_why why;
		int64_t age;
		uint32_t v;
		if (host_ignored(h, &v))
			continue; /* it will not say more */
		if (ctl_get_int(h, "hosts[]", CARET_CTL_K_AGE_MS, 0, INT64_MAX, &age, &why) < 0 ||
		    age > fresh_ms)
			return false;
	}
	return true;
}

static int print_hosts(const cJSON *root, int64_t timeout_ms, int *silent)
{
	struct ctl_why why;
	const char *bridge = NULL, *me = NULL;
	const cJSON *hosts;
	if (ctl_get_str(root, NULL, CARET_CTL_K_BRIDGE, false, &bridge, &why) < 0 ||
	    ctl_get_str(root, NULL, CARET_CTL_K_HOST, false, &me, &why) < 0 ||
	    ctl_get_array(root, NULL, CARET_CTL_K_HOSTS, &hosts, &why) < 0)
		return cli_report_exchange(CARET_CTL_CMD_HOSTS, -EPROTO, &why, 0);
	printf("bridge: %s\n", bridge);
	const cJSON *h;
	*silent = 0;
	cJSON_ArrayForEach(h, hosts) {
		const char *name = NULL;
		int64_t age = 0;
		bool self = false;
		const cJSON *procs = NULL;
		if (ctl_get_str(h, "hosts[]", CARET_CTL_K_HOST, false, &name, &why) < 0 ||
		    ctl_get_int(h, "hosts[]", CARET_CTL_K_AGE_MS, 0, INT64_MAX, &age, &why) < 0 ||
		    ctl_get_bool(h, "hosts[]", CARET_CTL_K_SELF, &self, &why) < 0 ||
		    ctl_get_array(h, "hosts[]", CARET_CTL_K_PROCESSES, &procs, &why) < 0)
			return cli_report_exchange(CARET_CTL_CMD_HOSTS, -EPROTO, &why, 0);
		uint32_t theirs;
		if (!self && host_ignored(h, &theirs)) {
			say_ignored(stdout, name, theirs, own_version(hosts));
			continue;
		}
		if (!self && age > timeout_ms) {
			printf("host %s: NO ANSWER within %.1f s (last Status %.1f s ago)\n", name,
			       (double)timeout_ms / 1000.0, (double)age / 1000.0);
			(*silent)++;
			continue;
		}
		printf("host %s%s: %d processes\n", name, self ? " (this host)" : "",
		       cJSON_GetArraySize(procs));
		const cJSON *p;
		cJSON_ArrayForEach(p, procs) {
			const char *pn = NULL, *st = NULL, *nodes = NULL;
			int64_t pid = 0;
			if (ctl_get_str(p, "processes[]", CARET_CTL_K_NAME, false, &pn, &why) < 0 ||
			    ctl_get_str(p, "processes[]", CARET_CTL_K_STATE, false, &st, &why) < 0 ||
			    ctl_get_int(p, "processes[]", CARET_CTL_K_PID, INT64_MIN, INT64_MAX,
					&pid, &why) < 0 ||
			    ctl_get_str(p, "processes[]", CARET_CTL_K_NODES, false, &nodes, &why) < 0)
				return cli_report_exchange(CARET_CTL_CMD_HOSTS, -EPROTO, &why, 0);
			printf("  %-8s pid %-8lld %s  %s\n", st, (long long)pid, pn,
			       *nodes ? nodes : "-");
		}
	}
	return CLI_EXIT_OK;
}

int cli_status_all_hosts(const struct cli_opts *g, int64_t timeout_ms)
{
	int64_t t0 = cli_now_ms();
	struct cli_reply r;
	for (;;) {
		int code = hosts_call(g, &r);
		if (code != CLI_EXIT_OK)
			return code;
		int64_t waited = cli_now_ms() - t0;
		const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_HOSTS);
		/* done when every known host answered since we asked, or time is
		 * up; not while the bridge wakes: the other hosts may still be
		 * loading DDS (absent from a caretd before lazy bridges) */
		bool waking = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_BRIDGE_WAKING));
		if (waited >= timeout_ms ||
		    (hosts && !waking && waited > POLL_MS && all_fresh(hosts, waited)))
			break;
		cli_reply_free(&r);
		struct timespec ts = { 0, POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	int silent = 0, code;
	if (g->json) {
		cli_print_json(r.root, CARET_CTL_CMD_HOSTS);
		code = CLI_EXIT_OK;
	} else {
		code = print_hosts(r.root, timeout_ms, &silent);
	}
	cli_reply_free(&r);
	if (code == CLI_EXIT_OK && silent)
		return cli_fail(CLI_EXIT_TIMEOUT, "%d host(s) did not answer within %.1f s", silent,
				(double)timeout_ms / 1000.0);
	return code;
}

/* Processes of one other host that answered recently, and how many record. */
static void host_counts(const cJSON *h, int *total, int *recording)
{
	const cJSON *self = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_SELF);
	const cJSON *age = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_AGE_MS);
	const cJSON *procs = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_PROCESSES);
	uint32_t v;
	if (cJSON_IsTrue(self) || host_ignored(h, &v) || !cJSON_IsNumber(age) ||
	    age->valuedouble > 3000 ||
	    !cJSON_IsArray(procs))
		return;
	const cJSON *p;
	cJSON_ArrayForEach(p, procs) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(p, CARET_CTL_K_STATE);
		(*total)++;
		*recording += cJSON_IsString(st) && !strcmp(st->valuestring, "RECORD");
	}
}

static void remote_counts(const cJSON *hosts, int *total, int *recording)
{
	*total = *recording = 0;
	const cJSON *h;
	cJSON_ArrayForEach(h, hosts)
		host_counts(h, total, recording);
}

static bool host_fresh(const cJSON *h)
{
	const cJSON *age = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_AGE_MS);
	return cJSON_IsNumber(age) && age->valuedouble <= 3000;
}

int cli_wait_remote(const struct cli_opts *g, int64_t timeout_ms, FILE *info)
{
	int64_t t0 = cli_now_ms();
	struct cli_reply r;
	int total = 0, rec = 0, known = 0, fresh = 0;
	for (;;) {
		int code = hosts_call(g, &r);
		if (code != CLI_EXIT_OK)
			return code;
		const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_HOSTS);
		remote_counts(hosts, &total, &rec);
		known = fresh = 0;
		const cJSON *h;
		cJSON_ArrayForEach(h, hosts) {
			uint32_t v;
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_SELF)) ||
			    host_ignored(h, &v))
				continue;
			known++;
			fresh += host_fresh(h);
		}
		int64_t waited = cli_now_ms() - t0;
		/* a second at least: the other hosts create their sessions first;
		 * a host that was seen but is silent gets 3 s to speak again; a
		 * bridge that wakes holds the Start until the hosts joined */
		bool waking = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_BRIDGE_WAKING));
		bool done = waited > 1000 && !waking && rec == total &&
			    (fresh == known || waited > 3000);
		if (done || waited >= timeout_ms)
			break;
		cli_reply_free(&r);
		struct timespec ts = { 0, POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	const cJSON *h;
	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_HOSTS)) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_SELF)))
			continue;
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_HOST);
		const char *n = cJSON_IsString(name) ? name->valuestring : "?";
		uint32_t theirs;
		if (host_ignored(h, &theirs)) {
			say_ignored(info, n, theirs,
				    own_version(cJSON_GetObjectItemCaseSensitive(r.root,
										   CARET_CTL_K_HOSTS)));
			continue;
		}
		if (!host_fresh(h)) {
			const cJSON *age = cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_AGE_MS);
			fprintf(info, "host %s: NO ANSWER (last Status %.1f s ago)\n", n,
				cJSON_IsNumber(age) ? age->valuedouble / 1000.0 : -1.0);
			continue;
		}
		int t = 0, k = 0;
		host_counts(h, &t, &k);
		fprintf(info, "host %s: %d/%d processes recording\n", n, k, t);
	}
	cli_reply_free(&r);
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
