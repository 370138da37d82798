/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_snapshot.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_version.h"
#include "proto/caret_ctl_simclock.h"

static const char *const cmd_names[CARET_CTL_N_CMDS] = {
	[CARET_CTL_STATUS] = CARET_CTL_CMD_STATUS, [CARET_CTL_LIST] = CARET_CTL_CMD_LIST,
	[CARET_CTL_RECORD] = CARET_CTL_CMD_RECORD, [CARET_CTL_WAIT] = CARET_CTL_CMD_WAIT,
	[CARET_CTL_STOP] = CARET_CTL_CMD_STOP,	   [CARET_CTL_START] = CARET_CTL_CMD_START,
	[CARET_CTL_END] = CARET_CTL_CMD_END,	   [CARET_CTL_HOSTS] = CARET_CTL_CMD_HOSTS,
	[CARET_CTL_EVENTS] = CARET_CTL_CMD_EVENTS, [CARET_CTL_SNAPSHOT] = CARET_CTL_CMD_SNAPSHOT,
	[CARET_CTL_PAUSE] = CARET_CTL_CMD_PAUSE,   [CARET_CTL_RESUME] = CARET_CTL_CMD_RESUME,
	[CARET_CTL_TOP] = CARET_CTL_CMD_TOP,	   [CARET_CTL_HOLD] = CARET_CTL_CMD_HOLD,
};

const char *const caret_ctl_filter_keys[CARET_FILTER_LISTS] = {
	[CARET_FILTER_SELECT_NODES] = CARET_CTL_K_SELECT_NODES,
	[CARET_FILTER_IGNORE_NODES] = CARET_CTL_K_IGNORE_NODES,
	[CARET_FILTER_SELECT_TOPICS] = CARET_CTL_K_SELECT_TOPICS,
	[CARET_FILTER_IGNORE_TOPICS] = CARET_CTL_K_IGNORE_TOPICS,
};

const char *caret_ctl_cmd_name(enum caret_ctl_cmd c)
{
	return (unsigned)c < CARET_CTL_N_CMDS ? cmd_names[c] : NULL;
}

int caret_ctl_cmd_by_name(const char *name)
{
	for (int c = 0; name && c < CARET_CTL_N_CMDS; c++)
		if (!strcmp(name, cmd_names[c]))
			return c;
	return -1;
}

/* ---- encoding ---- */

/* cJSON's Add* return NULL on failure: ok collects them. */
static bool add_str(cJSON *o, bool ok, const char *k, const char *v)
{
	return ok && (!v || cJSON_AddStringToObject(o, k, v));
}

static bool add_true(cJSON *o, bool ok, const char *k, bool v)
{
	return ok && (!v || cJSON_AddBoolToObject(o, k, true));
}

static bool add_num(cJSON *o, bool ok, const char *k, uint64_t v)
{
	return ok && (!v || cJSON_AddNumberToObject(o, k, (double)v));
}

static bool add_filter(cJSON *o, bool ok, const char *const *f)
{
	for (int i = 0; ok && i < CARET_FILTER_LISTS; i++)
		ok = add_str(o, ok, caret_ctl_filter_keys[i], f[i] && *f[i] ? f[i] : NULL);
	return ok;
}

/* -c: the domain goes explicitly, 0 included (add_num leaves 0 out) */
static bool enc_clock(cJSON *o, bool ok, const struct caret_ctl_record_req *r)
{
	if (!r->record_clock)
		return ok;
	return ok && cJSON_AddBoolToObject(o, CARET_CTL_K_RECORD_CLOCK, true) &&
	       cJSON_AddNumberToObject(o, CARET_CTL_K_CLOCK_DOMAIN, r->clock_domain);
}

static bool enc_record(cJSON *o, const struct caret_ctl_record_req *r)
{
	if (r->go)
		return cJSON_AddStringToObject(o, CARET_CTL_K_GO, r->go) != NULL;
	bool ok = add_str(o, true, CARET_CTL_K_SESSION, r->session);
	ok = r->url ? add_str(o, ok, CARET_CTL_K_URL, r->url)
		    : add_str(o, ok, CARET_CTL_K_PATH, r->path);
	ok = add_true(o, ok, CARET_CTL_K_ALL_HOSTS, r->all_hosts);
	/* light is sent either way: a caretd reads false as the default */
	ok = ok && cJSON_AddBoolToObject(o, CARET_CTL_K_LIGHT, r->light);
	ok = add_str(o, ok, CARET_CTL_K_PACING, r->pacing);
	ok = add_num(o, ok, CARET_CTL_K_RECORDING_FREQUENCY, r->frequency);
	ok = add_true(o, ok, CARET_CTL_K_APPEND, r->append);
	ok = add_num(o, ok, CARET_CTL_K_SUBBUF_SIZE, r->subbuf_size);
	ok = add_num(o, ok, CARET_CTL_K_SUBBUF_COUNT, r->subbuf_count);
	ok = add_filter(o, ok, r->filter);
	ok = add_num(o, ok, CARET_CTL_K_ROTATE_SIZE, r->rotate_size);
	ok = add_num(o, ok, CARET_CTL_K_ROTATE_EVERY_MS, r->rotate_every_ms);
	ok = add_num(o, ok, CARET_CTL_K_KEEP, r->keep);
	ok = add_num(o, ok, CARET_CTL_K_MAX_SIZE, r->max_size);
	ok = add_num(o, ok, CARET_CTL_K_SNAPSHOT_SIZE, r->snapshot_size);
	ok = add_str(o, ok, CARET_CTL_K_SNAPSHOT_ON, r->snapshot_on);
	ok = add_str(o, ok, CARET_CTL_K_SNAPSHOT_FILTER, r->snapshot_filter);
	ok = ok && caret_ctl_sel_enc(o, &r->sel);
	ok = enc_clock(o, ok, r);
	ok = add_true(o, ok, CARET_CTL_K_PLAN, r->plan);
	ok = add_true(o, ok, CARET_CTL_K_HOLD, r->hold);
	return add_true(o, ok, CARET_CTL_K_ARM, r->arm);
}

cJSON *caret_ctl_enc_req(const struct caret_ctl_req *q)
{
	if (q->cmd == CARET_CTL_EVENTS)
		return caret_ctl_enc_events_request(&q->u.events);
	if (q->cmd == CARET_CTL_TOP)
		return caret_ctl_enc_top_request(&q->u.top);
	const char *name = caret_ctl_cmd_name(q->cmd);
	cJSON *o = name ? cJSON_CreateObject() : NULL;
	bool ok = o && cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_CMD, name);
	switch (q->cmd) {
	case CARET_CTL_RECORD:
		ok = ok && enc_record(o, &q->u.record);
		break;
	case CARET_CTL_WAIT:
		ok = ok && cJSON_AddNumberToObject(o, CARET_CTL_K_TIMEOUT_MS,
						   (double)q->u.wait.timeout_ms);
		break;
	case CARET_CTL_STOP:
		ok = add_str(o, ok, CARET_CTL_K_SESSION, q->u.stop.session);
		ok = add_true(o, ok, CARET_CTL_K_ALL_HOSTS, q->u.stop.all_hosts);
		break;
	case CARET_CTL_PAUSE:
	case CARET_CTL_RESUME:
		ok = add_str(o, ok, CARET_CTL_K_SESSION, q->u.pause.session);
		break;
	case CARET_CTL_HOLD:
		ok = add_str(o, ok, CARET_CTL_K_SESSION, q->u.hold.session);
		ok = add_true(o, ok, CARET_CTL_K_RELEASE, q->u.hold.release);
		break;
	case CARET_CTL_SNAPSHOT:
		ok = add_str(o, ok, CARET_CTL_K_SESSION, q->u.snapshot.session);
		ok = add_str(o, ok, CARET_CTL_K_OUTPUT, q->u.snapshot.output);
		ok = add_num(o, ok, CARET_CTL_K_TIMEOUT_MS, (uint64_t)q->u.snapshot.timeout_ms);
		ok = add_true(o, ok, CARET_CTL_K_ALL_HOSTS, q->u.snapshot.all_hosts);
		break;
	case CARET_CTL_START:
		ok = add_filter(o, ok, q->u.startend.filter);
		/* fall through */
	case CARET_CTL_END:
		ok = add_true(o, ok, CARET_CTL_K_ALL_HOSTS, q->u.startend.all_hosts);
		break;
	default:
		break;
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *caret_ctl_enc_req_simple(enum caret_ctl_cmd cmd)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = cmd };
	if (cmd == CARET_CTL_WAIT)
		q.u.wait.timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
	return caret_ctl_enc_req(&q);
}

/* ---- decoding ---- */

static int bad(struct ctl_why *why, const char *fmt, const char *a, const char *b)
{
	ctl_why_set(why, fmt, a, b);
	return -EINVAL;
}

/* An optional boolean: false when absent. */
static int opt_bool(const cJSON *o, const char *k, bool *v, struct ctl_why *why)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	*v = cJSON_IsTrue(x);
	return !x || cJSON_IsBool(x) ? 0 : bad(why, "%s must be true or false", k, NULL);
}

/* An optional integer in [0, max]: 0 when absent. */
static int opt_uint(const cJSON *o, const char *k, int64_t max, int64_t *v, struct ctl_why *why)
{
	*v = 0;
	if (!cJSON_GetObjectItemCaseSensitive(o, k))
		return 0;
	return ctl_get_int(o, NULL, k, 0, max, v, why) < 0 ? -EINVAL : 0;
}

static int opt_str(const cJSON *o, const char *k, const char **v, struct ctl_why *why)
{
	return ctl_get_str(o, NULL, k, true, v, why) < 0 ? -EINVAL : 0;
}

static int dec_filter(const cJSON *o, const char **f, struct ctl_why *why)
{
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (opt_str(o, caret_ctl_filter_keys[i], &f[i], why) < 0)
			return -EINVAL;
	return 0;
}

/* A limit of proto/caret_ctl_limits.h on a field that is present. */
static int limit(const cJSON *o, const char *k, int64_t v,
		 int (*check)(uint64_t, char *, size_t), struct ctl_why *why)
{
	char lim[160];
	if (!cJSON_GetObjectItemCaseSensitive(o, k) || check((uint64_t)v, lim, sizeof(lim)) == 0)
		return 0;
	ctl_why_set(why, "%s %lld %s", k, (long long)v, lim);
	return -EINVAL;
}

static bool present(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k) != NULL;
}

/* The rotation fields: each in its range when present (0 is outside every
 * one), keep and max_size only with a schedule, a schedule only into a
 * local directory (LTTng rotates no relay output here). */
static int dec_rotation(const cJSON *o, struct caret_ctl_record_req *r, struct ctl_why *why)
{
	int64_t size, every, keep, max;
	if (opt_uint(o, CARET_CTL_K_ROTATE_SIZE, INT64_MAX, &size, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_ROTATE_EVERY_MS, INT64_MAX, &every, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_KEEP, INT64_MAX, &keep, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_MAX_SIZE, INT64_MAX, &max, why) < 0 ||
	    limit(o, CARET_CTL_K_ROTATE_SIZE, size, caret_ctl_check_rotate_size, why) < 0 ||
	    limit(o, CARET_CTL_K_ROTATE_EVERY_MS, every, caret_ctl_check_rotate_every_ms, why) < 0 ||
	    limit(o, CARET_CTL_K_KEEP, keep, caret_ctl_check_keep, why) < 0 ||
	    limit(o, CARET_CTL_K_MAX_SIZE, max, caret_ctl_check_max_size, why) < 0)
		return -EINVAL;
	r->rotate_size = (uint64_t)size;
	r->rotate_every_ms = (uint64_t)every;
	r->keep = (uint64_t)keep;
	r->max_size = (uint64_t)max;
	bool rotates = r->rotate_size || r->rotate_every_ms;
	if ((r->keep || r->max_size) && !rotates)
		return bad(why, "%s and %s bound the archived chunks of a rotating recording: "
			   "give rotate_size or rotate_every_ms", CARET_CTL_K_KEEP,
			   CARET_CTL_K_MAX_SIZE);
	if (rotates && r->url)
		return bad(why, "a rotating recording needs a local %s, not a %s", CARET_CTL_K_PATH,
			   CARET_CTL_K_URL);
	return 0;
}

/* The flight recorder's field: in range when present, and alone: its ring
 * is its geometry, it keeps nothing on disk to rotate, a relay could not
 * take its snapshots. */
static int dec_snapshot_size(const cJSON *o, struct caret_ctl_record_req *r,
			     struct ctl_why *why)
{
	int64_t size;
	if (opt_uint(o, CARET_CTL_K_SNAPSHOT_SIZE, INT64_MAX, &size, why) < 0 ||
	    limit(o, CARET_CTL_K_SNAPSHOT_SIZE, size, caret_ctl_check_snapshot_size, why) < 0)
		return -EINVAL;
	r->snapshot_size = (uint64_t)size;
	char lim[160];
	if (opt_str(o, CARET_CTL_K_SNAPSHOT_ON, &r->snapshot_on, why) < 0 ||
	    opt_str(o, CARET_CTL_K_SNAPSHOT_FILTER, &r->snapshot_filter, why) < 0)
		return -EINVAL;
	if (r->snapshot_on && caret_ctl_check_snapshot_on(r->snapshot_on, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SNAPSHOT_ON, lim);
	if (r->snapshot_filter &&
	    caret_ctl_check_snapshot_filter(r->snapshot_filter, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SNAPSHOT_FILTER, lim);
	if (r->snapshot_filter && !r->snapshot_on)
		return bad(why, "%s goes with %s", CARET_CTL_K_SNAPSHOT_FILTER,
			   CARET_CTL_K_SNAPSHOT_ON);
	if (r->snapshot_on && !r->snapshot_size)
		return bad(why, "%s needs %s", CARET_CTL_K_SNAPSHOT_ON, CARET_CTL_K_SNAPSHOT_SIZE);
	if (!r->snapshot_size)
		return 0;
	if (r->url)
		return bad(why, "a %s recording needs a local %s", CARET_CTL_K_SNAPSHOT_SIZE,
			   CARET_CTL_K_PATH);
	if (r->rotate_size || r->rotate_every_ms)
		return bad(why, "%s does not go with a rotation", CARET_CTL_K_SNAPSHOT_SIZE, NULL);
	if (r->subbuf_size || r->subbuf_count)
		return bad(why, "%s sets the sub-buffers: not with %s", CARET_CTL_K_SNAPSHOT_SIZE,
			   CARET_CTL_K_SUBBUF_SIZE);
	return 0;
}

static int dec_snapshot(const cJSON *o, struct caret_ctl_snapshot_req *s, struct ctl_why *why)
{
	char lim[160];
	if (opt_str(o, CARET_CTL_K_SESSION, &s->session, why) < 0 ||
	    opt_str(o, CARET_CTL_K_OUTPUT, &s->output, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_ALL_HOSTS, &s->all_hosts, why) < 0)
		return -EINVAL;
	if (s->session && caret_ctl_check_lttng_session_name(s->session, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SESSION, lim);
	if (s->output && s->output[0] != '/')
		return bad(why, "%s must be an absolute directory", CARET_CTL_K_OUTPUT, NULL);
	s->timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
	if (present(o, CARET_CTL_K_TIMEOUT_MS) &&
	    ctl_get_int(o, NULL, CARET_CTL_K_TIMEOUT_MS, 1, CARET_CTL_TIMEOUT_MAX_MS,
			&s->timeout_ms, why) < 0)
		return -EINVAL;
	return 0;
}

/* -c: record_clock, and its domain only with it */
static int dec_clock(const cJSON *o, struct caret_ctl_record_req *r, struct ctl_why *why)
{
	int64_t dom;
	if (opt_bool(o, CARET_CTL_K_RECORD_CLOCK, &r->record_clock, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_CLOCK_DOMAIN, CARET_CTL_CLOCK_DOMAIN_MAX, &dom, why) < 0)
		return -EINVAL;
	if (present(o, CARET_CTL_K_CLOCK_DOMAIN) && !r->record_clock)
		return bad(why, "%s goes only with %s", CARET_CTL_K_CLOCK_DOMAIN,
			   CARET_CTL_K_RECORD_CLOCK);
	r->clock_domain = (uint32_t)dom;
	return 0;
}

static int dec_record(const cJSON *o, struct caret_ctl_record_req *r, struct ctl_why *why)
{
	const cJSON *go = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_GO);
	if (go) {
		if (!cJSON_IsString(go) || !go->valuestring[0] ||
		    caret_ctl_check_session_name(go->valuestring, NULL, 0) < 0)
			return bad(why, "%s must be a session name", CARET_CTL_K_GO, NULL);
		r->go = go->valuestring;
		return 0;
	}
	int64_t sz, cnt, freq;
	if (opt_str(o, CARET_CTL_K_SESSION, &r->session, why) < 0 ||
	    opt_str(o, CARET_CTL_K_PATH, &r->path, why) < 0 ||
	    opt_str(o, CARET_CTL_K_URL, &r->url, why) < 0 ||
	    opt_str(o, CARET_CTL_K_PACING, &r->pacing, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_SUBBUF_SIZE, INT64_MAX, &sz, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_SUBBUF_COUNT, INT64_MAX, &cnt, why) < 0 ||
	    opt_uint(o, CARET_CTL_K_RECORDING_FREQUENCY, INT64_MAX, &freq, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_LIGHT, &r->light, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_APPEND, &r->append, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_ARM, &r->arm, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_PLAN, &r->plan, why) < 0 ||
	    opt_bool(o, CARET_CTL_K_HOLD, &r->hold, why) < 0)
		return -EINVAL;
	/* an armed one is held from before its `go`; a plan makes nothing */
	if (r->hold && (r->arm || r->plan))
		return bad(why, "%s is for a recording made now, not with %s or " CARET_CTL_K_PLAN,
			   CARET_CTL_K_HOLD, CARET_CTL_K_ARM);
	char lim[160];
	if (r->session && caret_ctl_check_session_name(r->session, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SESSION, lim);
	/* present, 0 is refused by every limit: absent is 0 in the struct */
	if (limit(o, CARET_CTL_K_RECORDING_FREQUENCY, freq, caret_ctl_check_frequency, why) < 0 ||
	    limit(o, CARET_CTL_K_SUBBUF_SIZE, sz, caret_ctl_check_subbuf_size, why) < 0 ||
	    limit(o, CARET_CTL_K_SUBBUF_COUNT, cnt, caret_ctl_check_subbuf_count, why) < 0)
		return -EINVAL;
	r->frequency = (uint64_t)freq;
	r->subbuf_size = (uint64_t)sz;
	r->subbuf_count = (uint64_t)cnt;
	if (r->pacing && strcmp(r->pacing, CARET_CTL_PACING_ADAPTIVE) &&
	    strcmp(r->pacing, CARET_CTL_PACING_FREQUENCY))
		return bad(why, "pacing must be \"%s\" or \"%s\"", CARET_CTL_PACING_ADAPTIVE,
			   CARET_CTL_PACING_FREQUENCY);
	if (opt_bool(o, CARET_CTL_K_ALL_HOSTS, &r->all_hosts, why) < 0 ||
	    dec_filter(o, r->filter, why) < 0)
		return -EINVAL;
	/* An armed recording's own Start (with its filters, and to every
	 * host) comes at `go`; one whose relay sessions other hosts create
	 * starts at once (caretctl does not arm those). */
	if (r->arm && r->all_hosts && r->url)
		return bad(why, "%s does not go with %s and " CARET_CTL_K_URL, CARET_CTL_K_ARM,
			   CARET_CTL_K_ALL_HOSTS);
	if (!r->url && (!r->path || r->path[0] != '/'))
		return bad(why, "%s must be an absolute directory", CARET_CTL_K_PATH, NULL);
	if (dec_rotation(o, r, why) < 0)
		return -EINVAL;
	/* ros2 trace's selection (proto/caret_ctl_sel.h) */
	if (caret_ctl_sel_dec(o, &r->sel, why) < 0)
		return -EINVAL;
	if (r->sel.ust_given && r->light)
		return bad(why, "%s is a list of UST events and %s gives its own: not both",
			   CARET_CTL_K_LIGHT, CARET_CTL_K_UST);
	/* the other hosts' relay sessions are made with CARET's lists: a
	 * selection would hold for this host only, unsaid */
	if (r->url && r->all_hosts && caret_ctl_sel_any(&r->sel))
		return bad(why, "%s with %s: the other hosts record CARET's lists; event and "
			   "context selection is for one host", CARET_CTL_K_URL, CARET_CTL_K_ALL_HOSTS);
	/* a flight recorder's ring and a rotation's chunks are judged and
	 * sized for the UST channel alone */
	if (caret_ctl_sel_kernel(&r->sel) &&
	    (present(o, CARET_CTL_K_SNAPSHOT_SIZE) || r->rotate_size || r->rotate_every_ms))
		return bad(why, "kernel events do not go with %s or a rotation (%s)",
			   CARET_CTL_K_SNAPSHOT_SIZE, CARET_CTL_K_ROTATE_SIZE);
	/* the kernel channel would record from the arming on */
	if (r->arm && caret_ctl_sel_kernel(&r->sel))
		return bad(why, "%s does not go with kernel events", CARET_CTL_K_ARM, NULL);
	if (dec_clock(o, r, why) < 0)
		return -EINVAL;
	return dec_snapshot_size(o, r, why);
}

/* "pause", "resume": only a recording `record` made, so a name by its
 * rule (proto/caret_ctl_limits.h) */
static int dec_pause(const cJSON *o, struct caret_ctl_pause_req *p, struct ctl_why *why)
{
	char lim[160];
	if (opt_str(o, CARET_CTL_K_SESSION, &p->session, why) < 0)
		return -EINVAL;
	if (p->session && caret_ctl_check_session_name(p->session, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SESSION, lim);
	return 0;
}

/* "hold": a recording `record` made, named (no default: a hold is of
 * the recording its caretctl was answered) */
static int dec_hold(const cJSON *o, struct caret_ctl_hold_req *h, struct ctl_why *why)
{
	char lim[160];
	if (opt_str(o, CARET_CTL_K_SESSION, &h->session, why) < 0)
		return -EINVAL;
	if (!h->session)
		return bad(why, "%s is required%s", CARET_CTL_K_SESSION, "");
	if (caret_ctl_check_session_name(h->session, lim, sizeof(lim)) < 0)
		return bad(why, "%s %s", CARET_CTL_K_SESSION, lim);
	return opt_bool(o, CARET_CTL_K_RELEASE, &h->release, why);
}

static int dec_body(const cJSON *o, struct caret_ctl_req *q, struct ctl_why *why)
{
	switch (q->cmd) {
	case CARET_CTL_RECORD:
		return dec_record(o, &q->u.record, why);
	case CARET_CTL_WAIT:
		q->u.wait.timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
		if (present(o, CARET_CTL_K_TIMEOUT_MS) &&
		    ctl_get_int(o, NULL, CARET_CTL_K_TIMEOUT_MS, 0, CARET_CTL_TIMEOUT_MAX_MS,
				&q->u.wait.timeout_ms, why) < 0)
			return -EINVAL;
		return 0;
	case CARET_CTL_STOP:
		if (opt_str(o, CARET_CTL_K_SESSION, &q->u.stop.session, why) < 0)
			return -EINVAL;
		return opt_bool(o, CARET_CTL_K_ALL_HOSTS, &q->u.stop.all_hosts, why);
	case CARET_CTL_PAUSE:
	case CARET_CTL_RESUME:
		return dec_pause(o, &q->u.pause, why);
	case CARET_CTL_HOLD:
		return dec_hold(o, &q->u.hold, why);
	case CARET_CTL_START:
		if (dec_filter(o, q->u.startend.filter, why) < 0)
			return -EINVAL;
		/* fall through */
	case CARET_CTL_END:
		return opt_bool(o, CARET_CTL_K_ALL_HOSTS, &q->u.startend.all_hosts, why);
	case CARET_CTL_EVENTS:
		return caret_ctl_dec_events_request(o, &q->u.events, why);
	case CARET_CTL_TOP:
		return caret_ctl_dec_top_request(o, &q->u.top, why);
	case CARET_CTL_SNAPSHOT:
		return dec_snapshot(o, &q->u.snapshot, why);
	default:
		return 0;
	}
}

int caret_ctl_dec_req(const cJSON *o, struct caret_ctl_req *q, struct ctl_why *why)
{
	memset(q, 0, sizeof(*q));
	q->cmd = CARET_CTL_N_CMDS;
	if (!cJSON_IsObject(o)) {
		ctl_why_set(why, "request is not a JSON object");
		return -EPROTO;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_V);
	if (!v) {
		ctl_why_set(why, "request has no protocol version \"%s\" (caretd speaks %d)",
			    CARET_CTL_K_V, CARET_CTL_VERSION);
		return -EPROTO;
	}
	int e = ctl_get_int(o, NULL, CARET_CTL_K_V, INT64_MIN, INT64_MAX, &q->v, why);
	if (e < 0 || q->v != CARET_CTL_VERSION) {
		if (e == 0)
			caret_ctl_version_refusal(q->v, why->msg, sizeof(why->msg));
		else
			ctl_why_set(why, "unsupported protocol version (caretd speaks %d)",
				    CARET_CTL_VERSION);
		return -EPROTO;
	}
	const char *cmd;
	if (ctl_get_str(o, NULL, CARET_CTL_K_CMD, false, &cmd, why) < 0) {
		ctl_why_set(why, "request has no \"%s\" string", CARET_CTL_K_CMD);
		return -EPROTO;
	}
	int c = caret_ctl_cmd_by_name(cmd);
	if (c < 0) {
		ctl_why_set(why, "unknown command \"%.64s\"", cmd);
		return -EINVAL;
	}
	q->cmd = (enum caret_ctl_cmd)c;
	return dec_body(o, q, why);
}
