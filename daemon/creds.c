/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/creds.h"

/* The child's exit status when it could not switch identity (errnos are
 * far below). */
#define SWITCH_FAILED 254

/* In the child: returns 0 or an errno, and the failing directory in at. */
static int mkdir_p(const char *path, char *at, size_t len)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
			snprintf(at, len, "%s", buf);
			return errno;
		}
		*p = c;
		if (!c)
			break;
	}
	struct stat st;
	snprintf(at, len, "%s", buf);
	if (stat(buf, &st) < 0)
		return errno;
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	/* effective ids are the requester's: access() checks with them too
	 * (real == effective after setresuid) */
	return access(buf, W_OK | X_OK) < 0 ? errno : 0;
}

int creds_mkdir_as(const char *path, uid_t uid, gid_t gid, const gid_t *groups, int n_groups,
		   char *err, size_t errlen)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return -e;
	}
	if (pid == 0) {
		char at[PATH_MAX] = "";
		int e = 0;
		close(pipefd[0]);
		umask(022);
		if (geteuid() == 0 &&
		    (setgroups(n_groups > 0 ? (size_t)n_groups : 0, n_groups > 0 ? groups : NULL) < 0 ||
		     setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)) {
			/* caretd lacks CAP_SETUID/CAP_SETGID: say so, not "denied" */
			snprintf(at, sizeof(at), "%d", errno);
			ssize_t w = write(pipefd[1], at, strlen(at));
			(void)w;
			_exit(SWITCH_FAILED);
		}
		e = mkdir_p(path, at, sizeof(at));
		ssize_t w = write(pipefd[1], at, strlen(at));
		(void)w;
		_exit(e > 255 ? 255 : e);
	}
	close(pipefd[1]);
	char at[PATH_MAX];
	ssize_t n = read(pipefd[0], at, sizeof(at) - 1);
	close(pipefd[0]);
	at[n > 0 ? n : 0] = '\0';
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	int e = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
	if (e == SWITCH_FAILED) {
		e = atoi(at);
		snprintf(err, errlen, "caretd cannot take the identity of uid %d to check %s: %s",
			 (int)uid, path, strerror(e));
		return -(e ? e : EPERM);
	}
	if (e)
		snprintf(err, errlen, "uid %d cannot create or write %s: %s", (int)uid,
			 at[0] ? at : path, strerror(e));
	return -e;
}

static uid_t chown_uid;
static gid_t chown_gid;
static int chown_err;

static int chown_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	if (lchown(p, chown_uid, chown_gid) < 0 && !chown_err)
		chown_err = -errno;
	return 0;
}

int creds_chown_tree(const char *path, uid_t uid, gid_t gid)
{
	chown_uid = uid;
	chown_gid = gid;
	chown_err = 0;
	if (nftw(path, chown_one, 16, FTW_PHYS) < 0)
		return -errno;
	return chown_err;
}
