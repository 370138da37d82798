/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings across a caretd restart (B5): each saved whole after
 * every change, loaded once LTTng answers, each line believed only when
 * LTTng and the trace directory's owner agree
 * (daemon/recording/recordings_state.h).
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
#include "daemon/recording/recordings_state.h"
#include "proto/caret_ctl_limits.h"
#include "shm/caret_shm.h"
#include "util/caret_util.h"

/* ---- recordings across a restart (B5) ----
 * One line per recording: "1 uid gid seq pacing frequency subbuf_size
 * subbuf_count armed armer_pid armer_start NAME PATH [SNAPSHOTS [FILTER
 * [KEY=VALUE ...]]]" (armed: 0 no, 1 with its channel disabled, 2 armed
 * open, plus 4 when it was asked for every host: its Start at `go`, its
 * End when its holder leaves; a caretd before that read 4 alone as "not
 * armed, this host only", and wrote it only with 1 or 2), NAME and PATH
 * in hex (they may hold any byte but NUL); SNAPSHOTS, a flight recorder's
 * count, and FILTER (filter_token) are absent in the files of caretd
 * before them. KEY=VALUE: "dir=DEV,INO" (the trace directory's identity),
 * then each feature's own token (struct recording_feature_ops save, its
 * name the key); those of a feature this caretd does not know are
 * skipped. The file is caretd's own and root-only; still, every line is
 * checked against LTTng and the trace directory's owner before it is
 * believed. */
/* 32 recordings, each up to three 4 KiB hex fields (a path, a filter, a
 * trigger's filter) and a rotation's verdicts */
#define STATE_MAX (1 << 20)
#define MAX_TOKENS 32

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
	struct recordings *t = arg;
	static char name[2 * CARET_LTTNG_NAME_MAX + 1], path[2 * 4096 + 1];
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		caret_hex(name, r->name);
		caret_hex(path, r->path);
		fprintf(f, "1 %u %u %" PRIu64 " %d %" PRIu32 " %" PRIu64 " %" PRIu32 " %d %d %" PRIu64
			" %s %s %" PRIu64 " ", (unsigned)r->uid, (unsigned)r->gid, r->seq, r->pacing,
			r->frequency, r->subbuf_size, r->subbuf_count,
			(r->armed ? (r->armed_open ? 2 : 1) : 0) + (r->all_hosts ? 4 : 0),
			(int)r->armer_pid, r->armer_start, name, path[0] ? path : "-",
			r->ring.written);
		filter_token(f, &r->filter);
		if (r->dir_dev || r->dir_ino)
			fprintf(f, " dir=%" PRIu64 ",%" PRIu64, r->dir_dev, r->dir_ino);
		for (int i = 0; i < t->n_features; i++)
			if (t->features[i]->save)
				t->features[i]->save(r, f);
		fputc('\n', f);
	}
}

void recordings_save(struct recordings *t)
{
	recordings_sync_marker(t, false);
	t->dirty = false;
	if (!t->state_file[0])
		return;
	int e = caret_write_atomic(t->state_file, write_recs, t);
	if (e < 0)
		log_warn_errno(e, "cannot save the recordings' owners in %s", t->state_file);
}

void recordings_save_changed(struct recordings *t)
{
	if (t->dirty)
		recordings_save(t);
}

void recordings_drop_state(struct recordings *t)
{
	if (!t->state_file[0] || !t->loaded || recordings_any(t))
		return;
	/* the rotating recordings' own file of a caretd before the
	 * recordings were saved whole goes too */
	char rot[sizeof(t->state_file) + 16];
	snprintf(rot, sizeof(rot), "%s.rotation", t->state_file);
	if (unlink(t->state_file) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", t->state_file, strerror(errno));
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

/* The KEY=VALUE tokens after FILTER: the directory's identity, then each
 * feature's part. */
static const char *parse_extra(struct recordings *t, struct recording *r, char **tok, int n)
{
	for (int k = 0; k < n; k++) {
		char *eq = strchr(tok[k], '=');
		if (!eq)
			return "malformed";
		*eq = '\0';
		const char *key = tok[k], *val = eq + 1;
		if (!strcmp(key, "dir")) {
			char *end;
			errno = 0;
			r->dir_dev = strtoull(val, &end, 10);
			if (errno || *end != ',' || !num(end + 1, UINT64_MAX, &r->dir_ino))
				return "bad directory identity";
			continue;
		}
		for (int i = 0; i < t->n_features; i++) {
			const struct recording_feature_ops *f = t->features[i];
			if (f->restore && !strcmp(f->name, key) && f->restore(t, r, val) < 0)
				return "a feature's options do not read";
		}
	}
	return NULL;
}

/* One line, or why it is not believed. */
static const char *parse_rec(struct recordings *t, char *line, struct recording *r,
			     char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	char *tok[MAX_TOKENS], *save = NULL;
	int k = 0;
	for (char *s = strtok_r(line, " ", &save); s; s = strtok_r(NULL, " ", &save))
		if (k < MAX_TOKENS)
			tok[k++] = s;
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
	if (parse_filter(k >= 15 ? tok[14] : "-", &flt) < 0)
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
	*r = (struct recording){
		.uid = (uid_t)x[1], .gid = (gid_t)x[2], .seq = x[3],
		.pacing = x[4] == UINT64_MAX ? -1 : (int)x[4], .frequency = (uint32_t)x[5],
		.subbuf_size = x[6], .subbuf_count = (uint32_t)x[7], .armed = (x[8] & 3) != 0,
		.armed_open = (x[8] & 3) == 2, .all_hosts = (x[8] & 4) != 0,
		.armer_pid = (pid_t)x[9], .armer_start = x[10], .filter = flt };
	r->ring.written = snaps;
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
	return k > 15 ? parse_extra(t, r, tok + 15, k - 15) : NULL;
}

/* The file's text, or NULL (logged) when it is absent or not caretd's. */
static char *read_state(const char *file)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warn("cannot read %s: %s", file, strerror(errno));
		return NULL;
	}
	struct stat st;
	static char buf[STATE_MAX + 1];
	ssize_t len = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && st.st_size <= STATE_MAX)
		len = read(fd, buf, STATE_MAX);
	close(fd);
	if (len < 0) {
		log_warn("ignoring %s: not a private file of caretd's (or unreadable)", file);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

bool recordings_read(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	t->loaded = true;
	if (!t->state_file[0])
		return false;
	char *buf = read_state(t->state_file);
	if (!buf)
		return false;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static struct recording r;
		const char *bad = parse_rec(t, line, &r, names, n);
		if (!bad && recordings_find(t, r.name))
			bad = "listed twice";
		if (!bad && recordings_take_over(t, &r) < 0)
			bad = "too many recordings";
		if (bad) {
			log_info("%s: a recording not taken over: %s", t->state_file, bad);
			continue;
		}
		log_info("recording %s of uid %d taken over from before a restart%s", r.name,
			 (int)r.uid, r.armed ? " (armed)" : "");
	}
	return true;
}
