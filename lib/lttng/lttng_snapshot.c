/* SPDX-License-Identifier: Apache-2.0 */
/* A flight recorder's LTTng side: whether a session is in snapshot mode,
 * and one snapshot of it written to a directory (lttng_snapshot_record),
 * with the path LTTng chose. Through caret_lttng_ops_real
 * (lttng_record.c); caretd's pass before it is daemon/recording/snapshot.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lttng/lttng.h>

#include "lib/lttng/creds.h"
#include "lib/lttng/session.h"
#include "lib/lttng/lttng_ctl.h"
#include "util/caret_err.h"

int caret_lttng_snapshot_mode(const char *session, char *err, size_t errlen)
{
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	const struct lttng_session *x = caret_lttng_find_session(s, n, session);
	int r = x ? x->snapshot_mode != 0 : caret_errf(err, errlen, -ENOENT, "lttng: no session %s",
						      session);
	free(s);
	return r;
}

/* The newest directory LTTng wrote for a snapshot output named name in
 * dir: <name>-YYYYMMDD-HHMMSS-N, the greatest date, then N, a directory
 * of the lister's own (the consumer wrote it as the session's owner).
 * Only names and owners are read (nothing in it is opened). Run as the
 * session's owner: dir is a path they named and can redirect. */
static int newest_snapshot(const char *dir, const char *name, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	uid_t me = (uid_t)setfsuid((uid_t)-1); /* the helper's file system uid */
	size_t nl = strlen(name);
	char best[NAME_MAX + 1] = "";
	char bdate[32] = "";
	unsigned long bseq = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *x = de->d_name;
		char d8[9], t6[7], date[32];
		unsigned long seq;
		if (strncmp(x, name, nl) || x[nl] != '-' ||
		    sscanf(x + nl + 1, "%8[0-9]-%6[0-9]-%lu", d8, t6, &seq) != 3)
			continue;
		snprintf(date, sizeof(date), "%s%s", d8, t6);
		struct stat st;
		if (fstatat(dirfd(d), x, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != me)
			continue;
		int c = strcmp(date, bdate);
		if (!best[0] || c > 0 || (c == 0 && seq > bseq)) {
			snprintf(best, sizeof(best), "%s", x);
			snprintf(bdate, sizeof(bdate), "%s", date);
			bseq = seq;
		}
	}
	closedir(d);
	if (!best[0])
		return -ENOENT;
	if (snprintf(out, len, "%s/%s", dir, best) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

struct newest_arg {
	const char *dir, *name;
};

static int newest_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct newest_arg *a = arg;
	return newest_snapshot(a->dir, a->name, out, outlen);
}

int caret_lttng_snapshot(const char *session, const char *dir, const char *name,
			 const struct creds_id *as, char *path_out, size_t path_len, char *err,
			 size_t errlen)
{
	if (!session || !dir || dir[0] != '/' || !name || !*name)
		return caret_errf(err, errlen, -EINVAL, "lttng: snapshot: missing argument");
	struct lttng_snapshot_output *o = lttng_snapshot_output_create();
	if (!o)
		return caret_errf(err, errlen, -ENOMEM, "lttng: creating a snapshot output failed");
	int ret = lttng_snapshot_output_set_name(name, o);
	if (ret == 0)
		ret = lttng_snapshot_output_set_local_path(dir, o);
	if (ret < 0) {
		lttng_snapshot_output_destroy(o);
		return caret_errf(err, errlen, -EINVAL, "lttng: snapshot output %s/%s refused", dir,
				  name);
	}
	/* wait: returns once the consumer wrote every stream */
	ret = lttng_snapshot_record(session, o, 1);
	lttng_snapshot_output_destroy(o);
	if (ret < 0)
		return caret_lttng_fail(err, errlen, ret, "recording a snapshot", session);
	struct newest_arg a = { dir, name };
	int r = as ? creds_run_as(as, newest_job, &a, path_out, path_len, NULL, 0)
		   : newest_snapshot(dir, name, path_out, path_len);
	if (r < 0)
		return caret_errf(err, errlen, r, "lttng: snapshot of %s recorded, but no %s-* "
				  "directory found in %s: %s", session, name, dir, strerror(-r));
	return 0;
}
