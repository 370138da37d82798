/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings table across a caretd restart (B5): saved after every
 * change, loaded once LTTng answers, each line believed only when LTTng
 * and the trace directory's owner agree (daemon/lttng/lttng_view.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "util/caret_util.h"
#include "daemon/lttng/lttng_view.h"
#include "proto/caret_ctl_limits.h"
#include "shm/caret_shm.h"

/* ---- recordings across a restart (B5) ----
 * One line per recording: "1 uid gid seq pacing frequency subbuf_size
 * subbuf_count armed armer_pid armer_start NAME PATH [SNAPSHOTS [FILTER]]"
 * (armed: 0 no, 1 with its channel disabled, 2 armed open, plus 4 when its
 * Start goes to every host at `go`), NAME and PATH in
 * hex (they may hold any byte but NUL); SNAPSHOTS, a flight recorder's
 * count, and FILTER (filter_token) are absent in the files of caretd before
 * them. The file is caretd's own and
 * root-only; still, every line is checked against LTTng and the trace
 * directory's owner before it is believed. */
/* 32 recordings, each up to two 4 KiB hex fields (a path and a filter) */
#define STATE_MAX (512 << 10)

/* A recording's node/topic filter (CARET's four lists) as one token: "-"
 * for none, else "L0,L1,L2,L3,HEX", each list's length, then the lists'
 * text in hex. */
static void filter_token(FILE *f, const struct caret_shm_filter *flt)
{
	size_t n = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		n += flt->len[i];
	if (!n || n > CARET_SHM_FILTER_TEXT_MAX) {
		fputs("-", f);
		return;
	}
	static char text[CARET_SHM_FILTER_TEXT_MAX + 1], hex[2 * CARET_SHM_FILTER_TEXT_MAX + 1];
	memcpy(text, flt->text, n);
	text[n] = '\0';
	caret_hex(hex, text);
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		fprintf(f, "%u,", (unsigned)flt->len[i]);
	fputs(hex, f);
}

/* The token back, checked as a segment's filter is (lengths, UTF-8). */
static int parse_filter(const char *t, struct caret_shm_filter *out)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(t, "-"))
		return 0;
	size_t sum = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		char *end;
		errno = 0;
		unsigned long l = strtoul(t, &end, 10);
		if (errno || end == t || *end != ',' || *t < '0' || *t > '9' ||
		    l > CARET_SHM_FILTER_TEXT_MAX)
			return -EINVAL;
		out->len[i] = (uint16_t)l;
		sum += l;
		t = end + 1;
	}
	static char text[CARET_SHM_FILTER_TEXT_MAX + 1];
	if (sum == 0 || sum > CARET_SHM_FILTER_TEXT_MAX ||
	    caret_unhex(t, text, sizeof(text)) < 0 || strlen(text) != sum)
		return -EINVAL;
	memcpy(out->text, text, sum);
	static struct caret_filter_text ft;
	return caret_filter_decode(out, &ft) < 0 ? -EINVAL : 0;
}

static void write_recs(FILE *f, void *arg)
{
	const struct lttng_view *v = arg;
	static char name[2 * CARET_LTTNG_NAME_MAX + 1], path[2 * 4096 + 1];
	for (int i = 0; i < v->n_recs; i++) {
		const struct lttng_view_rec *r = &v->recs[i];
		caret_hex(name, r->name);
		caret_hex(path, r->path);
		fprintf(f, "1 %u %u %" PRIu64 " %d %" PRIu32 " %" PRIu64 " %" PRIu32 " %d %d %" PRIu64
			" %s %s %" PRIu64 " ", (unsigned)r->uid, (unsigned)r->gid, r->seq, r->pacing,
			r->frequency, r->subbuf_size, r->subbuf_count,
			r->armed ? (r->armed_open ? 2 : 1) + (r->all_hosts ? 4 : 0) : 0,
			(int)r->armer_pid, r->armer_start, name, path[0] ? path : "-", r->snapshots);
		filter_token(f, &r->filter);
		fputc('\n', f);
	}
}

/* Processes that start while a recording is armed open, or records with a
 * node/topic filter, see their tracepoints enabled and would record at once
 * (everything, before Enter); the marker tells them to wait (agent/agent.c)
 * for caretd's pass, which brings the filter. */
void lttng_view_sync_marker(struct lttng_view *v, bool arming)
{
	bool any = arming;
	for (int i = 0; i < v->n_recs && !any; i++) {
		const struct lttng_view_rec *r = &v->recs[i];
		bool filtered = false;
		for (int k = 0; k < CARET_FILTER_LISTS; k++)
			filtered = filtered || r->filter.len[k];
		any = r->armed ? r->armed_open : filtered;
	}
	if (!v->armed_marker || any == v->marked)
		return;
	int e = caret_armed_set(any);
	if (e < 0) {
		log_warn_errno(e, "cannot %s the armed marker", any ? "write" : "remove");
		return;
	}
	v->marked = any;
}

void lttng_view_save(struct lttng_view *v)
{
	lttng_view_sync_marker(v, false);
	if (!v->state_file[0])
		return;
	int e = caret_write_atomic(v->state_file, write_recs, v);
	if (e < 0)
		log_warn_errno(e, "cannot save the recordings' owners in %s", v->state_file);
}

void lttng_view_drop_state(struct lttng_view *v)
{
	if (!v->state_file[0] || !v->state_loaded || v->n_recs)
		return;
	/* no recording, so no rotating one: rotation_store.c's file, named
	 * after ours, goes too */
	char rot[sizeof(v->state_file) + 16];
	snprintf(rot, sizeof(rot), "%s.rotation", v->state_file);
	if (unlink(v->state_file) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", v->state_file, strerror(errno));
	if (unlink(rot) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", rot, strerror(errno));
}

static bool num(const char *t, uint64_t max, uint64_t *out)
{
	char *end;
	if (!t || *t < '0' || *t > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(t, &end, 10);
	if (errno || *end || x > max)
		return false;
	*out = x;
	return true;
}

/* One line, or why it is not believed. */
static const char *parse_rec(char *line, struct lttng_view_rec *r,
			     char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	char *tok[15], *save = NULL;
	int k = 0;
	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (k < 15)
			tok[k++] = t;
		else
			return "too many fields";
	uint64_t x[11];
	static const uint64_t max[11] = { 1, UINT32_MAX - 1, UINT32_MAX - 1, UINT64_MAX, 2,
					  UINT32_MAX, UINT64_MAX, UINT32_MAX, 6, INT32_MAX,
					  UINT64_MAX };
	uint64_t snaps = 0;
	if (k < 13 || (k >= 14 && !num(tok[13], UINT64_MAX, &snaps)))
		return "malformed";
	struct caret_shm_filter flt;
	if (parse_filter(k == 15 ? tok[14] : "-", &flt) < 0)
		return "bad filter";
	for (int i = 0; i < 11; i++) {
		/* pacing is -1 (the daemon's) or an enum pacing */
		if (i == 4 && strcmp(tok[i], "-1") == 0) {
			x[i] = UINT64_MAX;
			continue;
		}
		if (!num(tok[i], max[i], &x[i]))
			return "malformed";
	}
	if (x[0] != 1)
		return "unknown version";
	*r = (struct lttng_view_rec){
		.uid = (uid_t)x[1], .gid = (gid_t)x[2], .seq = x[3],
		.pacing = x[4] == UINT64_MAX ? -1 : (int)x[4], .frequency = (uint32_t)x[5],
		.subbuf_size = x[6], .subbuf_count = (uint32_t)x[7], .armed = (x[8] & 3) != 0,
		.armed_open = (x[8] & 3) == 2, .all_hosts = (x[8] & 4) && (x[8] & 3),
		.armer_pid = (pid_t)x[9], .armer_start = x[10], .snapshots = snaps, .filter = flt };
	char why[160];
	if (caret_unhex(tok[11], r->name, sizeof(r->name)) < 0 ||
	    caret_ctl_check_lttng_session_name(r->name, why, sizeof(why)) < 0)
		return "bad session name";
	if (strcmp(tok[12], "-") != 0 && caret_unhex(tok[12], r->path, sizeof(r->path)) < 0)
		return "bad path";
	bool active = false;
	for (int i = 0; i < n; i++)
		active = active || strcmp(names[i], r->name) == 0;
	if (!active)
		return "its session is gone";
	/* the trace directory was created as the requester: it still says
	 * whose the recording is */
	char lpath[4096];
	struct stat st;
	if (r->path[0] == '/' &&
	    (caret_lttng_session_path(r->name, lpath, sizeof(lpath)) < 0 ||
	     strcmp(lpath, r->path) != 0 || lstat(r->path, &st) < 0 || !S_ISDIR(st.st_mode) ||
	     st.st_uid != r->uid))
		return "its session or trace directory does not match";
	return NULL;
}

void lttng_view_load_state(struct lttng_view *v, char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	v->state_loaded = true;
	if (!v->state_file[0])
		return;
	int fd = open(v->state_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warn("cannot read %s: %s", v->state_file, strerror(errno));
		return;
	}
	struct stat st;
	static char buf[STATE_MAX + 1];
	ssize_t len = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && st.st_size <= STATE_MAX)
		len = read(fd, buf, STATE_MAX);
	close(fd);
	if (len < 0) {
		log_warn("ignoring %s: not a private file of caretd's (or unreadable)",
			 v->state_file);
		return;
	}
	buf[len] = '\0';
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct lttng_view_rec r;
		const char *bad = parse_rec(line, &r, names, n);
		if (!bad && lttng_view_find_rec(v, r.name))
			bad = "listed twice";
		if (!bad && v->n_recs >= LTTNG_VIEW_MAX_RECORDINGS)
			bad = "too many recordings";
		if (bad) {
			log_info("%s: a recording not taken over: %s", v->state_file, bad);
			continue;
		}
		v->recs[v->n_recs++] = r;
		if (r.seq > v->rec_seq)
			v->rec_seq = r.seq;
		log_info("recording %s of uid %d taken over from before a restart%s", r.name,
			 (int)r.uid, r.armed ? " (armed)" : "");
	}
	lttng_view_save(v);
}
