/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
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

/* Gives every entry below the directory dirfd to uid:gid, by file
 * descriptor only: the owner of the tree may rename or replace entries
 * while we walk, but a symlink is never followed (AT_SYMLINK_NOFOLLOW,
 * O_NOFOLLOW) and no path is resolved twice. */
static int chown_below(int dirfd, uid_t uid, gid_t gid, int depth)
{
	if (depth > 32)
		return -ELOOP;
	int fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fchownat(dirfd, e->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 && !rc)
			rc = -errno;
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* not a directory (or gone): nothing below */
		int r = chown_below(sub, uid, gid, depth + 1);
		close(sub);
		if (r < 0 && !rc)
			rc = r;
	}
	closedir(d);
	return rc;
}

int creds_chown_tree(const char *path, uid_t uid, gid_t gid)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Only a tree whose top is already theirs (given when the recording
	 * was created): a path redirected elsewhere since is left alone. */
	struct stat st;
	int rc = fstat(fd, &st) < 0 ? -errno : st.st_uid != uid ? -EPERM : 0;
	if (!rc)
		rc = chown_below(fd, uid, gid, 0);
	close(fd);
	return rc;
}
