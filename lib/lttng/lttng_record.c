/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret_lttng_record() (lib/lttng/session.h): the trace directory made and
 * judged as the requester, the session created, its channel, events and
 * contexts enabled, and started; everything undone on failure.
 */
#include "lib/lttng/session.h"
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <lttng/lttng.h>
#include "lib/lttng/creds.h"
#include "lib/lttng/lttng_channel.h"
#include "lib/lttng/lttng_ctl.h"
#include "lib/lttng/lttng_sel.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_plan.h"
#include "util/caret_err.h"

/* "refused output path: uid N cannot create or write DIR: why", the
 * words caretctl users (and scripts) know, when acting for a requester. */
static int refused(const struct caret_lttng_cfg *cfg, char *err, size_t errlen, int e,
		   const char *dir)
{
	if (!cfg->as)
		return caret_errf(err, errlen, -e, "lttng: cannot create %s: %s", dir, strerror(e));
	return caret_errf(err, errlen, -e, "refused output path: uid %d cannot create or write %s: %s",
		    (int)cfg->as->uid, dir, strerror(e));
}

/* mkdir -p; existing directories (and symlinks to them) are fine. *made:
 * how many it created (the lowest ones of path). */
static int mkdir_p(const struct caret_lttng_cfg *cfg, const char *path, int *made, char *err,
		   size_t errlen)
{
	*made = 0;
	char buf[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof(buf))
		return caret_errf(err, errlen, -ENAMETOOLONG, "lttng: path too long");
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i - 1] == '/')
			continue;
		char saved = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0) {
			if (errno != EEXIST)
				return refused(cfg, err, errlen, errno, buf);
		} else {
			++*made;
		}
		buf[i] = saved;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return refused(cfg, err, errlen, errno, path);
	if (!S_ISDIR(st.st_mode))
		return caret_errf(err, errlen, -ENOTDIR, "lttng: %s is not a directory",
			    path);
	return 0;
}

/* 1 if dir is missing, 0 if it is an empty directory, else -errno. */
static int dir_unused(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 1;
		int e = errno;
		return caret_errf(err, errlen, -e, "lttng: cannot use trace directory "
			    "%s: %s", dir, strerror(e));
	}
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			rc = caret_errf(err, errlen, -EEXIST, "lttng: trace directory "
				  "%s already exists and is not empty", dir);
			break;
		}
	}
	closedir(d);
	return rc;
}

/*
 * Appending to the trace directory dir: the new trace goes into a fresh
 * dir/append-N beside the earlier one(s), never into dir itself, because
 * LTTng's consumer opens stream files with O_TRUNC (lttng-tools,
 * consumer-stream.cpp) and would truncate the earlier trace's files of the
 * same channel. babeltrace2 (and so CARET) reads every trace under dir.
 * Returns 1 (the subdirectory is new) with dir updated, or -errno.
 */
static int append_dir(char *dir, size_t len, char *err, size_t errlen)
{
	char sub[PATH_MAX];
	for (int i = 1; i <= 1000; i++) {
		int n = snprintf(sub, sizeof(sub), "%s/append-%d", dir, i);
		if (n < 0 || (size_t)n >= sizeof(sub) || (size_t)n >= len)
			return caret_errf(err, errlen, -ENAMETOOLONG, "lttng: trace path too long");
		struct stat st;
		if (lstat(sub, &st) < 0 && errno == ENOENT) {
			memcpy(dir, sub, (size_t)n + 1);
			return 1;
		}
	}
	return caret_errf(err, errlen, -EEXIST, "lttng: %s/append-1000 exists: no room to append",
		    dir);
}

/*
 * "caret-YYYYMMDD-HHMMSS" (local time), and "-2", "-3"... after it when a
 * session or a non-empty trace directory of that name exists: records
 * started back to back within one second each get their own.
 */
static int default_name(const char *parent, char *name, size_t len, char *err,
			size_t errlen)
{
	char base[64], dir[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm) ||
	    !strftime(base, sizeof(base), "caret-%Y%m%d-%H%M%S", &tm))
		return caret_errf(err, errlen, -EIO, "lttng: cannot format a session name");
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	int rc = -EEXIST;
	for (int i = 1; i <= 100 && rc == -EEXIST; i++) {
		if (i == 1)
			snprintf(name, len, "%s", base);
		else
			snprintf(name, len, "%s-%d", base, i);
		if (caret_lttng_find_session(s, n, name))
			continue;
		/* Other errors about the directory are reported by the caller;
		 * a network output (no parent) has no directory here. */
		snprintf(dir, sizeof(dir), "%s/%s", parent ? parent : "", name);
		if (parent && dir_unused(dir, NULL, 0) == -EEXIST)
			continue;
		rc = 0;
	}
	free(s);
	if (rc < 0)
		return caret_errf(err, errlen, rc, "lttng: no free session name after %s-100", base);
	return 0;
}

int caret_lttng_session_name(const char *wanted, const char *parent, char *out, size_t len,
			     char *err, size_t errlen)
{
	if (wanted && *wanted) {
		int rc = caret_lttng_check_name_for(wanted, true, err, errlen);
		if (rc < 0)
			return rc;
		if (snprintf(out, len, "%s", wanted) >= (int)len)
			return caret_errf(err, errlen, -ENAMETOOLONG, "lttng: session name too long");
		return 0;
	}
	return default_name(parent, out, len, err, errlen);
}

/* A URL from a client or another host: a scheme LTTng streams to, and
 * nothing the session daemon would read as a local path. */
static int check_url(const char *u, char *err, size_t errlen)
{
	static const char *const ok[] = { "net://", "net6://", "tcp://", "tcp6://" };
	bool scheme = false;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		scheme |= strncmp(u, ok[i], strlen(ok[i])) == 0;
	size_t n = strnlen(u, 1024);
	if (!scheme || n >= 1024 || n <= 6)
		return caret_errf(err, errlen, -EINVAL,
			    "lttng: output URL must be net://, net6://, tcp:// or tcp6://HOST[:PORT...]");
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return caret_errf(err, errlen, -EINVAL, "lttng: output URL has a blank or control character");
	return 0;
}

static int make_name(const char *want, char *name, size_t len, char *err, size_t errlen)
{
	if (want && *want) {
		int rc = caret_lttng_check_name(want, err, errlen);
		if (rc < 0)
			return rc;
		snprintf(name, len, "%s", want);
		return 0;
	}
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm) || !strftime(name, len, "caret-%Y%m%d-%H%M%S", &tm))
		return caret_errf(err, errlen, -EIO, "lttng: cannot format a session name");
	return 0;
}

static int configure_and_start(const struct caret_lttng_cfg *cfg,
			       const struct caret_ctl_plan *lay, const char *name, char *err,
			       size_t errlen);

/* Streaming session to an lttng-relayd (lttng create --set-url). */
static int record_net(const struct caret_lttng_cfg *cfg, const struct caret_ctl_plan *lay,
		      char *name_out, size_t name_len, char *path_out, size_t path_len, char *err,
		      size_t errlen)
{
	int rc = check_url(cfg->url, err, errlen);
	char name[LTTNG_NAME_MAX];
	if (rc < 0 || (rc = make_name(cfg->session, name, sizeof(name), err, errlen)) < 0)
		return rc;
	if (strlen(name) >= name_len || strlen(cfg->url) >= path_len)
		return caret_errf(err, errlen, -ENAMETOOLONG,
			    "lttng: output buffer too small for name or URL");
	struct lttng_session_descriptor *desc =
		lttng_session_descriptor_network_create(name, cfg->url, NULL);
	if (!desc)
		return caret_errf(err, errlen, -EINVAL, "lttng: bad output URL %s", cfg->url);
	enum lttng_error_code code = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	if (code != LTTNG_OK)
		return caret_lttng_fail(err, errlen, code, "creating", name);
	rc = configure_and_start(cfg, lay, name, err, errlen);
	if (rc < 0) {
		lttng_destroy_session(name);
		return rc;
	}
	snprintf(name_out, name_len, "%s", name);
	snprintf(path_out, path_len, "%s", cfg->url);
	return 0;
}

/* What the local part of a record hands back from the requester's side. */
struct local_out {
	char name[LTTNG_NAME_MAX];
	char dir[PATH_MAX];
	bool made;          /* dir was created for this recording */
	int parents_made;   /* and this many directories above it */
	uint64_t dev, ino;  /* of dir, when it was checked */
};

/*
 * The part of a local record that touches the filesystem, and the
 * session's creation: with the requester's rights when caret_lttng_record()
 * runs it through creds_run_as() (cfg->as), so that every directory of
 * the path is created, read and judged as they would, and the session
 * daemon sees them as the session's owner.
 */
static int record_local(void *arg, void *outp, size_t outlen, char *err, size_t errlen)
{
	const struct caret_lttng_cfg *cfg = arg;
	struct local_out *o = outp;
	if (outlen != sizeof(*o))
		return caret_errf(err, errlen, -EINVAL, "lttng: internal size mismatch");
	memset(o, 0, sizeof(*o));
	char name[LTTNG_NAME_MAX];
	int nrc = caret_lttng_session_name(cfg->session, cfg->path, name, sizeof(name), err,
					   errlen);
	if (nrc < 0)
		return nrc;

	/* Drop trailing slashes so the reported directory reads cleanly. */
	size_t plen = strlen(cfg->path);
	while (plen > 1 && cfg->path[plen - 1] == '/')
		plen--;
	char *dir = o->dir;
	int dl = snprintf(dir, sizeof(o->dir), "%.*s%s%s", (int)plen, cfg->path,
			  plen == 1 ? "" : "/", name);
	if (dl < 0 || (size_t)dl >= sizeof(o->dir))
		return caret_errf(err, errlen, -ENAMETOOLONG,
			    "lttng: trace path too long");

	/* Refuse early, before touching the filesystem for someone else's
	 * session; the daemon re-checks atomically at creation. */
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	bool exists = caret_lttng_find_session(s, n, name) != NULL;
	free(s);
	if (exists)
		return caret_errf(err, errlen, -EEXIST,
			    "lttng: a session named %s already exists", name);

	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%.*s", (int)plen, cfg->path);
	int rc = mkdir_p(cfg, parent, &o->parents_made, err, errlen);
	if (rc < 0)
		return rc;
	rc = dir_unused(dir, err, errlen);
	if (rc == -EEXIST && cfg->append) {
		rc = append_dir(dir, sizeof(o->dir), err, errlen);
	} else if (rc == -EEXIST) {
		caret_errf(err, errlen, -EEXIST, "lttng: trace directory %s already exists and is "
					   "not empty (append to it with --append)", dir);
	}
	if (rc < 0)
		return rc;
	/* Created here, as the requester: the trace directory is theirs,
	 * and the session daemon (which writes as its owner) can write it. */
	if (rc == 1) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return refused(cfg, err, errlen, errno, dir);
		o->made = true;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rc = caret_errf(err, errlen, -e, "lttng: cannot use trace directory %s: %s", dir,
			  strerror(e));
		goto undo_dir;
	}
	close(fd);
	/* the session daemon writes as the requester (caretd itself when it
	 * cannot act as them): the directory must be theirs */
	uid_t writer = !cfg->as ? geteuid() : geteuid() == 0 ? cfg->as->uid : geteuid();
	if (writer != 0 && st.st_uid != writer) {
		rc = caret_errf(err, errlen, -EPERM, "lttng: trace directory %s is not yours (uid %d "
			  "owns it)", dir, (int)st.st_uid);
		goto undo_dir;
	}
	o->dev = (uint64_t)st.st_dev;
	o->ino = (uint64_t)st.st_ino;
	snprintf(o->name, sizeof(o->name), "%s", name);

	/* a snapshot session's default output is the trace directory:
	 * nothing is written there until a snapshot */
	struct lttng_session_descriptor *desc =
		cfg->snapshot ? lttng_session_descriptor_snapshot_local_create(name, dir)
			      : lttng_session_descriptor_local_create(name, dir);
	if (!desc) {
		rc = caret_errf(err, errlen, -ENOMEM, "lttng: creating the session descriptor failed");
		goto undo_dir;
	}
	rc = creds_client_begin();
	if (rc < 0) {
		lttng_session_descriptor_destroy(desc);
		caret_errf(err, errlen, rc, "lttng: caretd cannot act as uid %d: %s",
		     cfg->as ? (int)cfg->as->uid : -1, strerror(-rc));
		goto undo_dir;
	}
	enum lttng_error_code code = lttng_create_session_ext(desc);
	creds_client_end();
	lttng_session_descriptor_destroy(desc);
	if (code != LTTNG_OK) {
		rc = caret_lttng_fail(err, errlen, code, "creating", name);
		goto undo_dir;
	}
	return 0;

undo_dir:
	if (o->made && rmdir(dir) == 0) {
		/* the parents made for it, while empty (issue 22 D8); we
		 * already act as the requester here */
		char up[PATH_MAX];
		snprintf(up, sizeof(up), "%s", dir);
		for (int i = 0; i < o->parents_made; i++) {
			char *slash = strrchr(up, '/');
			if (!slash || slash == up)
				break;
			*slash = '\0';
			if (rmdir(up) < 0)
				break;
		}
	}
	o->made = false;
	return rc;
}

/* Removes the empty trace directory of a recording that failed, as its
 * requester. */
static int rmdir_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	(void)err;
	(void)errlen;
	return rmdir((const char *)arg) < 0 ? -errno : 0;
}

int caret_lttng_record(const struct caret_lttng_cfg *cfg, char *name_out,
		       size_t name_len, char *path_out, size_t path_len,
		       char *err, size_t errlen)
{
	if (!cfg || !name_out || !path_out)
		return caret_errf(err, errlen, -EINVAL, "lttng: missing argument");
	/* kernel events: the requester's right and the tracer, before
	 * anything is created (lib/lttng/lttng_sel.h) */
	if (caret_ctl_sel_kernel(cfg->sel)) {
		int krc = caret_lttng_kernel_check(cfg->as, err, errlen);
		if (krc < 0)
			return krc;
	}
	int prc = caret_lttng_sel_perf_check(cfg->sel, err, errlen);
	if (prc < 0)
		return prc;
	/* what is made, decided here once (and refused before the
	 * filesystem is touched): `record`'s plan prints the same */
	struct caret_ctl_plan lay;
	int grc = caret_lttng_layout(cfg, &lay, err, errlen);
	if (grc < 0)
		return grc;
	if (cfg->url)
		return record_net(cfg, &lay, name_out, name_len, path_out, path_len, err, errlen);
	if (!cfg->path || cfg->path[0] != '/')
		return caret_errf(err, errlen, -EINVAL,
			    "lttng: trace path must be absolute (got \"%s\")",
			    cfg->path ? cfg->path : "");

	struct local_out o;
	int rc = cfg->as ? creds_run_as(cfg->as, record_local, (void *)cfg, &o, sizeof(o), err,
				     errlen)
			 : record_local((void *)cfg, &o, sizeof(o), err, errlen);
	if (rc < 0)
		return rc;
	if (strlen(o.dir) >= path_len || strlen(o.name) >= name_len) {
		rc = caret_errf(err, errlen, -ENAMETOOLONG,
			  "lttng: output buffer too small for name or path");
		goto undo_session;
	}
	rc = configure_and_start(cfg, &lay, o.name, err, errlen);
	if (rc < 0)
		goto undo_session;

	snprintf(name_out, name_len, "%s", o.name);
	snprintf(path_out, path_len, "%s", o.dir);
	if (cfg->dir_out) {
		cfg->dir_out->dev = o.dev;
		cfg->dir_out->ino = o.ino;
		cfg->dir_out->made = o.made;
		cfg->dir_out->parents_made = o.made ? o.parents_made : 0;
	}
	return 0;

undo_session:
	/* Best effort: the first error is the one worth reporting. */
	lttng_destroy_session(o.name);
	if (o.made) {
		int rr = cfg->as ? creds_run_as(cfg->as, rmdir_job, o.dir, NULL, 0, NULL, 0)
				 : rmdir(o.dir) < 0 ? -errno : 0;
		/* and the parents made for it, as the requester (issue 22 D8) */
		if (rr == 0 && o.parents_made) {
			struct creds_id self = { .uid = geteuid(), .gid = getegid(), .n_groups = -1 };
			creds_remove_parents(cfg->as ? cfg->as : &self, o.dir, o.parents_made);
		}
	}
	return rc;
}

/* The layout's channels, the uid tracker, start: the same for every
 * output. */
static int configure_and_start(const struct caret_lttng_cfg *cfg,
			       const struct caret_ctl_plan *lay, const char *name, char *err,
			       size_t errlen)
{
	int rc = 0;
	for (int i = 0; rc == 0 && i < lay->n_channels; i++)
		rc = caret_lttng_make_channel(name, &lay->ch[i], err, errlen);
	if (rc == 0 && lay->own_uid)
		rc = caret_lttng_sel_own_uid(name, cfg->as->uid, err, errlen);
	/* Armed, not open: started with its channel disabled, the session
	 * daemon sets every registered application up now (the cost of a
	 * start), and caret_lttng_go() only enables the channel in each. */
	if (rc == 0 && !lay->ch[0].enabled)
		rc = caret_lttng_hold(name, err, errlen);
	if (rc < 0)
		return rc;
	int ret = lttng_start_tracing(name);
	if (ret < 0)
		return caret_lttng_fail(err, errlen, ret, "starting", name);
	return 0;
}

/* Here, not in lttng.c: the table names caret_lttng_record, and lttng.c
 * must call nothing of this file (its helpers are called from here). */
const struct caret_lttng_ops caret_lttng_ops_real = {
	.active_sessions = caret_lttng_active_sessions,
	.session_rules = caret_lttng_session_rules,
	.session_theirs = caret_lttng_session_theirs,
	.session_name = caret_lttng_session_name,
	.record = caret_lttng_record,
	.go = caret_lttng_go,
	.hold = caret_lttng_hold,
	.stop = caret_lttng_stop,
	.snapshot_mode = caret_lttng_snapshot_mode,
	.pause = caret_lttng_pause,
	.exists = caret_lttng_session_exists,
	.snapshot = caret_lttng_snapshot,
};
