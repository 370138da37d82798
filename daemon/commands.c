/* SPDX-License-Identifier: Apache-2.0 */
/* The control commands (protocol: proto/caret_ctl.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/caretd.h"
#include "daemon/log.h"
#include "proto/caret_ctl.h"

#define NS_PER_MS 1000000LL

static cJSON *reply(const char *type)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "v", CARET_CTL_VERSION);
	cJSON_AddStringToObject(o, "type", type);
	return o;
}

static void send_obj(struct client *c, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	if (s) {
		client_send(c, s);
		free(s);
	}
	cJSON_Delete(o);
}

static void send_error(struct client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void send_error(struct client *c, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON *o = reply("error");
	cJSON_AddStringToObject(o, "error", msg);
	cJSON_AddNumberToObject(o, "errno", err < 0 ? -err : err);
	send_obj(c, o);
}

static cJSON *agent_json(struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "pid", a->pid);
	cJSON_AddStringToObject(o, "procname", a->procname);
	cJSON_AddStringToObject(o, "state", state_name(st.state));
	cJSON_AddNumberToObject(o, "records", (double)st.records);
	cJSON_AddNumberToObject(o, "replayed", (double)st.replayed);
	uint32_t e = CARET_EPOCH_OF(st.grant);
	cJSON_AddNumberToObject(o, "replay_done",
				CARET_EPOCH_OF(st.cursor) == e ? CARET_COUNT_OF(st.cursor) : 0);
	cJSON_AddNumberToObject(o, "replay_total", (double)st.records);
	cJSON_AddNumberToObject(o, "dropped", (double)st.dropped);
	cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
	int n = agent_node_names(a);
	const char *p = a->nodes;
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(nodes, cJSON_CreateString(p));
		p += strlen(p) + 1;
	}
	cJSON_AddStringToObject(o, "segment", a->seg.name);
	return o;
}

static void add_agents(struct caretd *d, cJSON *o)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "agents");
	for (struct agent *a = d->reg.head; a; a = a->next)
		cJSON_AddItemToArray(arr, agent_json(a));
}

static void cmd_status(struct caretd *d, struct client *c, bool full)
{
	cJSON *o = reply("result");
	if (full) {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		cJSON_AddStringToObject(o, "host", host);
		cJSON *cd = cJSON_AddObjectToObject(o, "caretd");
		cJSON_AddNumberToObject(cd, "pid", getpid());
		cJSON_AddStringToObject(cd, "version", CARETD_VERSION);
		cJSON_AddStringToObject(cd, "pacing", d->sched.cfg.pacing == PACING_ADAPTIVE
							      ? "adaptive" : "frequency");
		cJSON_AddNumberToObject(cd, "recording_frequency", d->sched.cfg.frequency);
		cJSON_AddNumberToObject(cd, "replay_bandwidth", (double)d->sched.cfg.bandwidth);
		cJSON *lt = cJSON_AddObjectToObject(o, "lttng");
		cJSON_AddBoolToObject(lt, "reachable", d->lttng_ok);
		if (!d->lttng_ok)
			cJSON_AddStringToObject(lt, "error", d->lttng_err);
		cJSON *act = cJSON_AddArrayToObject(lt, "active_sessions");
		for (int i = 0; i < d->n_active; i++)
			cJSON_AddItemToArray(act, cJSON_CreateString(d->active[i]));
		if (d->managed[0]) {
			cJSON_AddStringToObject(lt, "caretd_session", d->managed);
			cJSON_AddStringToObject(lt, "caretd_session_path", d->managed_path);
		}
	}
	add_agents(d, o);
	send_obj(c, o);
}

/* Refreshes the active-session list now (not at the next poll). */
void caretd_poll_lttng(struct caretd *d);

static const char *opt_str(const cJSON *req, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* -1 absent, -2 present but not a non-negative integer */
static long long opt_int(const cJSON *req, const char *k, long long max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, k);
	if (!v)
		return -1;
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)max ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return -2;
	return (long long)v->valuedouble;
}

static void cmd_record(struct caretd *d, struct client *c, const cJSON *req)
{
	struct caret_lttng_cfg cfg = { 0 };
	cfg.session = opt_str(req, "session");
	cfg.path = opt_str(req, "path");
	const cJSON *light = cJSON_GetObjectItemCaseSensitive(req, "light");
	cfg.light = cJSON_IsTrue(light);
	long long sz = opt_int(req, "subbuf_size", 1LL << 32);
	long long cnt = opt_int(req, "subbuf_count", 1 << 20);
	long long freq = opt_int(req, "recording_frequency", 100000000);
	const char *pacing = opt_str(req, "pacing");
	if (sz == -2 || cnt == -2 || freq == -2 || freq == 0) {
		send_error(c, EINVAL, "subbuf_size, subbuf_count and recording_frequency must be "
			   "positive integers");
		return;
	}
	if (sz > 0 && (sz & (sz - 1))) {
		send_error(c, EINVAL, "subbuf_size %lld is not a power of two", sz);
		return;
	}
	if (pacing && strcmp(pacing, "adaptive") && strcmp(pacing, "frequency")) {
		send_error(c, EINVAL, "pacing must be \"adaptive\" or \"frequency\"");
		return;
	}
	if (!cfg.path || cfg.path[0] != '/') {
		send_error(c, EINVAL, "path must be an absolute directory");
		return;
	}
	cfg.subbuf_size = sz > 0 ? (uint64_t)sz : 0;
	cfg.subbuf_count = cnt > 0 ? (uint32_t)cnt : 0;
	char name[CARET_LTTNG_NAME_MAX], path[4096], err[512];
	int r = caret_lttng_record(&cfg, name, sizeof(name), path, sizeof(path), err, sizeof(err));
	if (r < 0) {
		log_err("record failed: %s", err);
		send_error(c, r, "%s", err);
		return;
	}
	if (pacing)
		d->sched.cfg.pacing = strcmp(pacing, "frequency") == 0 ? PACING_FREQUENCY
								    : PACING_ADAPTIVE;
	if (freq > 0)
		d->sched.cfg.frequency = (uint32_t)freq;
	snprintf(d->managed, sizeof(d->managed), "%s", name);
	snprintf(d->managed_path, sizeof(d->managed_path), "%s", path);
	log_info("session %s recording to %s (pacing %s)", name, path,
		 d->sched.cfg.pacing == PACING_ADAPTIVE ? "adaptive" : "frequency");
	caretd_poll_lttng(d);
	cJSON *o = reply("result");
	cJSON_AddStringToObject(o, "session", name);
	cJSON_AddStringToObject(o, "path", path);
	send_obj(c, o);
}

static void cmd_wait(struct caretd *d, struct client *c, const cJSON *req, int64_t now)
{
	if (d->n_active == 0) {
		send_error(c, ENOENT, "no LTTng session is active on this host");
		return;
	}
	long long t = opt_int(req, "timeout_ms", 24LL * 3600 * 1000);
	if (t == -2) {
		send_error(c, EINVAL, "timeout_ms must be a non-negative integer");
		return;
	}
	c->waiting = true;
	c->wait_deadline_ns = now + (t >= 0 ? t : CARET_CTL_DEFAULT_TIMEOUT_MS) * NS_PER_MS;
	c->last_progress_ns = 0;
	c->exited_base = d->reg.n_exited;
	command_wait_tick(d, c, now);
}

void command_wait_tick(struct caretd *d, struct client *c, int64_t now)
{
	struct progress p;
	sched_progress(&d->reg, &p);
	bool done = p.recording == p.total;
	bool late = now >= c->wait_deadline_ns;
	if (!done && !late) {
		if (now - c->last_progress_ns >= 100 * NS_PER_MS) {
			cJSON *o = reply("progress");
			cJSON_AddNumberToObject(o, "recording", p.recording);
			cJSON_AddNumberToObject(o, "total", p.total);
			cJSON_AddNumberToObject(o, "records_done", (double)p.records_done);
			cJSON_AddNumberToObject(o, "records_total", (double)p.records_total);
			cJSON_AddNumberToObject(o, "percent",
						p.records_total ? (int)(100 * p.records_done /
									p.records_total) : 100);
			send_obj(c, o);
			c->last_progress_ns = now;
		}
		return;
	}
	cJSON *o = reply("result");
	cJSON_AddBoolToObject(o, "ok", done);
	cJSON_AddNumberToObject(o, "recording", p.recording);
	cJSON_AddNumberToObject(o, "total", p.total);
	cJSON *nr = cJSON_AddArrayToObject(o, "not_recording");
	for (const struct agent *a = d->reg.head; a; a = a->next) {
		uint32_t st = __atomic_load_n(&a->seg.hdr->state, __ATOMIC_ACQUIRE);
		if (st == CARET_STATE_RECORD || st == CARET_STATE_UNINITIALIZED)
			continue;
		char why[160];
		sched_reason(a, why, sizeof(why));
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "pid", a->pid);
		cJSON_AddStringToObject(x, "procname", a->procname);
		cJSON_AddStringToObject(x, "state", state_name(st));
		cJSON_AddStringToObject(x, "reason", why);
		cJSON_AddItemToArray(nr, x);
	}
	cJSON *ex = cJSON_AddArrayToObject(o, "exited");
	for (int i = c->exited_base; i < d->reg.n_exited; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "pid", d->reg.exited[i].pid);
		cJSON_AddStringToObject(x, "procname", d->reg.exited[i].procname);
		cJSON_AddStringToObject(x, "state", state_name(d->reg.exited[i].state));
		cJSON_AddItemToArray(ex, x);
	}
	if (late && !done)
		log_warn("wait timed out: %d of %d processes recording", p.recording, p.total);
	send_obj(c, o);
	c->waiting = false;
}

static void cmd_stop(struct caretd *d, struct client *c, const cJSON *req)
{
	const char *name = opt_str(req, "session");
	if (!name) {
		bool managed_active = false;
		for (int i = 0; i < d->n_active; i++)
			if (d->managed[0] && strcmp(d->active[i], d->managed) == 0)
				managed_active = true;
		if (managed_active) {
			name = d->managed;
		} else if (d->n_active == 1) {
			name = d->active[0];
		} else if (d->n_active == 0) {
			send_error(c, ENOENT, "no LTTng session is active on this host");
			return;
		} else {
			char list[1024] = "";
			for (int i = 0; i < d->n_active; i++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 i ? ", " : "", d->active[i]);
			send_error(c, EINVAL, "several sessions are active (%s): name one", list);
			return;
		}
	}
	char sname[CARET_LTTNG_NAME_MAX];
	snprintf(sname, sizeof(sname), "%s", name);
	struct caret_lttng_chan_stats ch[16];
	char path[4096] = "", err[512];
	int n = caret_lttng_stop(sname, ch, 16, path, sizeof(path), err, sizeof(err));
	if (n < 0) {
		send_error(c, n, "%s", err);
		return;
	}
	cJSON *o = reply("result");
	cJSON_AddStringToObject(o, "session", sname);
	cJSON_AddStringToObject(o, "path", path);
	cJSON *arr = cJSON_AddArrayToObject(o, "channels");
	bool known = true;
	uint64_t total = 0;
	for (int i = 0; i < n && i < 16; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", ch[i].name);
		if (ch[i].discarded_known)
			cJSON_AddNumberToObject(x, "discarded", (double)ch[i].discarded);
		else
			cJSON_AddNullToObject(x, "discarded");
		if (ch[i].lost_known)
			cJSON_AddNumberToObject(x, "lost_packets", (double)ch[i].lost_packets);
		else
			cJSON_AddNullToObject(x, "lost_packets");
		cJSON_AddItemToArray(arr, x);
		known = known && ch[i].discarded_known;
		total += ch[i].discarded;
		if (!ch[i].discarded_known)
			log_warn("session %s channel %s: discarded events unknown", sname,
				 ch[i].name);
		else if (ch[i].discarded)
			log_warn("session %s channel %s: %llu events discarded", sname, ch[i].name,
				 (unsigned long long)ch[i].discarded);
		if (ch[i].lost_known && ch[i].lost_packets)
			log_warn("session %s channel %s: %llu packets lost", sname, ch[i].name,
				 (unsigned long long)ch[i].lost_packets);
	}
	if (known)
		cJSON_AddNumberToObject(o, "discarded_total", (double)total);
	else
		cJSON_AddNullToObject(o, "discarded_total");
	log_info("session %s stopped and destroyed; trace in %s", sname, path);
	if (strcmp(sname, d->managed) == 0)
		d->managed[0] = '\0';
	caretd_poll_lttng(d);
	send_obj(c, o);
}

static void cmd_start_end(struct caretd *d, struct client *c, bool start)
{
	cJSON *o = reply("result");
	bool ok = start ? d->n_active > 0 : d->n_active == 0;
	cJSON_AddBoolToObject(o, "accepted", ok);
	if (!ok)
		cJSON_AddStringToObject(o, "reason", start
				? "ignored: no LTTng session is active on this host"
				: "ignored: an LTTng session is active on this host");
	log_info("%s message %s", start ? "Start" : "End", ok ? "accepted" : "ignored");
	send_obj(c, o);
}

void command_dispatch(struct caretd *d, struct client *c, const char *line)
{
	cJSON *req = cJSON_Parse(line);
	if (!req || !cJSON_IsObject(req)) {
		send_error(c, EPROTO, "request is not a JSON object");
		cJSON_Delete(req);
		return;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, "v");
	const char *cmd = opt_str(req, "cmd");
	int64_t now = caret_now_ns();
	if (!cJSON_IsNumber(v) || v->valueint != CARET_CTL_VERSION)
		send_error(c, EPROTO, "unsupported protocol version (caretd speaks %d)",
			   CARET_CTL_VERSION);
	else if (!cmd)
		send_error(c, EPROTO, "request has no \"cmd\"");
	else if (!strcmp(cmd, "status"))
		cmd_status(d, c, true);
	else if (!strcmp(cmd, "list"))
		cmd_status(d, c, false);
	else if (!strcmp(cmd, "record"))
		cmd_record(d, c, req);
	else if (!strcmp(cmd, "wait"))
		cmd_wait(d, c, req, now);
	else if (!strcmp(cmd, "stop"))
		cmd_stop(d, c, req);
	else if (!strcmp(cmd, "start"))
		cmd_start_end(d, c, true);
	else if (!strcmp(cmd, "end"))
		cmd_start_end(d, c, false);
	else
		send_error(c, EINVAL, "unknown command \"%.64s\"", cmd);
	cJSON_Delete(req);
}
