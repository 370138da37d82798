/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <signal.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lttng/creds.h"
#include "util/caret_util.h"

/* The child's exit status when it could not switch identity (errnos are
 * far below). */
#define SWITCH_FAILED 254

/* Set in a creds_run_as() child that switched: whose rights it acts with. */
static struct creds_id acting;
static bool switched;

static int set_fs(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	/* both return the previous id whatever happens: ask again */
	return (uid_t)setfsuid((uid_t)-1) == uid && (gid_t)setfsgid((gid_t)-1) == gid ? 0 : -EPERM;
}

void creds_fs_caretd(void)
{
	if (switched && set_fs(0, 0) < 0)
		_exit(SWITCH_FAILED); /* half switched: never go on */
}

void creds_fs_requester(void)
{
	if (switched && set_fs(acting.uid, acting.gid) < 0)
		_exit(SWITCH_FAILED);
}

int creds_client_begin(void)
{
	if (!switched)
		return 0;
	/* real and saved ids stay 0: the way back, and no signal or ptrace
	 * from the requester; fsuid 0 (allowed: ruid is 0) reaches the
	 * socket */
	if (setresgid((gid_t)-1, acting.gid, (gid_t)-1) < 0 ||
	    setresuid((uid_t)-1, acting.uid, (uid_t)-1) < 0)
		return -errno;
	if (set_fs(0, 0) < 0)
		_exit(SWITCH_FAILED);
	return 0;
}

int creds_client_end(void)
{
	if (!switched)
		return 0;
	if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || setresgid((gid_t)-1, 0, (gid_t)-1) < 0)
		_exit(SWITCH_FAILED);
	creds_fs_requester();
	return 0;
}

/* faccessat2's verdict from the mode bits alone, with the same identity:
 * for a kernel without the call (before 5.8). ACLs are not read: a path
 * only an ACL opens is refused. */
static int access_bits(const char *path, int mode)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	uid_t uid = switched ? acting.uid : geteuid();
	gid_t gid = switched ? acting.gid : getegid();
	if (uid == 0)
		return 0; /* caretd itself, unswitched: root may */
	int shift = 0; /* others */
	if (st.st_uid == uid) {
		shift = 6;
	} else {
		bool in = st.st_gid == gid;
		int n = in ? 0 : getgroups(0, NULL);
		gid_t *groups = n > 0 ? calloc((size_t)n, sizeof(*groups)) : NULL;
		if (n > 0 && !groups)
			return -ENOMEM;
		n = groups ? getgroups(n, groups) : 0;
		for (int i = 0; i < n && !in; i++)
			in = groups[i] == st.st_gid;
		free(groups);
		shift = in ? 3 : 0;
	}
	int have = (int)(st.st_mode >> shift) & 7;
	int want = mode & (R_OK | W_OK | X_OK);
	return (have & want) == want ? 0 : -EACCES;
}

int creds_access(const char *path, int mode)
{
	/* faccessat2(AT_EACCESS) judges with the fsuid, fsgid and groups, and
	 * the effective capabilities, which the helper dropped with its
	 * fsuid. The system call itself: glibc emulates it where the kernel
	 * lacks it, with the euid, which is root's in the helper. */
#ifdef SYS_faccessat2
	if (syscall(SYS_faccessat2, AT_FDCWD, path, mode, AT_EACCESS) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
#endif
	return access_bits(path, mode);
}

struct run_hdr {
	int rc;
	uint32_t outlen;
};

static int read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (int)got;
}

static void write_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
}

int creds_job_start(const struct creds_id *id, creds_fn fn, void *arg, void *out,
		    size_t outlen, struct creds_job *job)
{
	*job = (struct creds_job){ .pid = -1, .fd = -1, .uid = id->uid };
	if (outlen > UINT32_MAX)
		return -EINVAL;
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
		close(pipefd[0]);
		umask(022);
		struct run_hdr h = { .rc = 0, .outlen = 0 };
		char msg[512] = "";
		if (geteuid() == 0) {
			acting = *id;
			acting.groups = NULL; /* set once here, not needed again */
			if (setgroups(id->n_groups > 0 ? (size_t)id->n_groups : 0,
				      id->n_groups > 0 ? id->groups : NULL) < 0 ||
			    set_fs(id->uid, id->gid) < 0) {
				h.rc = -(errno ? errno : EPERM);
				snprintf(msg, sizeof(msg), "caretd cannot take the identity of uid "
					 "%d: %s", (int)id->uid, strerror(-h.rc));
				write_all(pipefd[1], &h, sizeof(h));
				write_all(pipefd[1], msg, strlen(msg));
				_exit(SWITCH_FAILED);
			}
			switched = true;
		}
		h.rc = fn(arg, out, outlen, msg, sizeof(msg));
		h.outlen = (uint32_t)outlen;
		write_all(pipefd[1], &h, sizeof(h));
		write_all(pipefd[1], out, outlen);
		write_all(pipefd[1], msg, strnlen(msg, sizeof(msg)));
		_exit(0);
	}
	close(pipefd[1]);
	job->pid = pid;
	job->fd = pipefd[0];
	return 0;
}

int creds_job_finish(struct creds_job *job, void *out, size_t outlen, char *err,
		     size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	struct run_hdr h;
	char msg[512];
	int rc;
	if (read_all(job->fd, &h, sizeof(h)) != (int)sizeof(h)) {
		rc = -EIO;
		snprintf(msg, sizeof(msg), "caretd's helper acting as uid %d died", (int)job->uid);
	} else if (h.outlen && (h.outlen != outlen ||
				read_all(job->fd, out, outlen) != (int)outlen)) {
		rc = -EIO;
		snprintf(msg, sizeof(msg), "caretd's helper acting as uid %d died", (int)job->uid);
	} else {
		int n = read_all(job->fd, msg, sizeof(msg) - 1);
		msg[n > 0 ? n : 0] = '\0';
		rc = h.rc;
	}
	close(job->fd);
	job->fd = -1;
	int status = 0;
	while (waitpid(job->pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	job->pid = -1;
	if (rc >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		rc = -EIO;
		snprintf(msg, sizeof(msg), "caretd's helper acting as uid %d failed to switch "
			 "back and forth", (int)job->uid);
	}
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return rc;
}

void creds_job_cancel(struct creds_job *job)
{
	if (job->pid > 0) {
		kill(job->pid, SIGKILL);
		while (waitpid(job->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (job->fd >= 0)
		close(job->fd);
	job->pid = -1;
	job->fd = -1;
}

int creds_run_as(const struct creds_id *id, creds_fn fn, void *arg, void *out, size_t outlen,
		 char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	struct creds_job job;
	int rc = creds_job_start(id, fn, arg, out, outlen, &job);
	return rc < 0 ? rc : creds_job_finish(&job, out, outlen, err, errlen);
}

/* A walk below a directory, by file descriptor only: the tree's owner may
 * rename or replace entries while we walk, but a symlink is never
 * followed (O_NOFOLLOW), each entry is judged through a descriptor of its
 * own, and a directory swapped in for another is opened O_NOFOLLOW or
 * skipped. `enter` sees each entry (pf: its O_PATH descriptor, st: what
 * it is) before the walk descends into it, `leave` after; either may be
 * NULL. An error is kept (the first) and the walk goes on. Run it with
 * the tree owner's rights (creds_run_as), never root's. */
struct walk {
	int (*enter)(const struct walk *w, int pf, const struct stat *st);
	int (*leave)(const struct walk *w, int dirfd, const char *name, const struct stat *st);
};

static int walk_below(int dirfd, const struct walk *w, int depth, long *budget)
{
	if (depth > 32)
		return -ELOOP;
	DIR *d = caret_opendir_at(dirfd);
	if (!d)
		return -errno;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (--*budget < 0) {
			rc = rc ? rc : -EFBIG;
			break;
		}
		int pf = openat(dirfd, e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pf < 0)
			continue; /* gone */
		struct stat st;
		int r = fstat(pf, &st) < 0 ? 1 : w->enter ? w->enter(w, pf, &st) : 0;
		close(pf);
		if (r > 0)
			continue; /* gone, or left alone */
		if (r < 0 && !rc)
			rc = r;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				continue; /* gone, or replaced by something else */
			r = walk_below(sub, w, depth + 1, budget);
			close(sub);
			if (r < 0 && !rc)
				rc = r;
		}
		if (w->leave && (r = w->leave(w, dirfd, e->d_name, &st)) < 0 && !rc)
			rc = r;
	}
	closedir(d);
	return rc;
}

/* A symlink is removed, never followed; a directory once emptied. */
static int remove_entry(const struct walk *w, int dirfd, const char *name, const struct stat *st)
{
	(void)w;
	return unlinkat(dirfd, name, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
}

int creds_remove_below(int dirfd, long *budget)
{
	const struct walk w = { .leave = remove_entry };
	return walk_below(dirfd, &w, 0, budget);
}

struct remove_arg {
	const char *path;
	uint64_t dev, ino;
	bool top;
};

static int remove_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	const struct remove_arg *a = arg;
	int fd = open(a->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	struct stat st;
	int rc = fstat(fd, &st) < 0 ? -errno : 0;
	/* only the directory the recording was given: one swapped in since
	 * is someone else's business */
	if (!rc && ((uint64_t)st.st_dev != a->dev || (uint64_t)st.st_ino != a->ino))
		rc = -ESTALE;
	long budget = CREDS_REMOVE_MAX;
	if (!rc)
		rc = creds_remove_below(fd, &budget);
	close(fd);
	if (!rc && a->top && rmdir(a->path) < 0 && errno != ENOENT)
		rc = -errno;
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

struct parents_arg {
	const char *path;
	int n;
};

static int parents_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	const struct parents_arg *a = arg;
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", a->path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (int i = 0; i < a->n; i++) {
		char *slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return 0; /* never the root */
		*slash = '\0';
		/* rmdir removes only an empty directory, and as the owner
		 * only one they could remove themselves */
		if (rmdir(buf) < 0) {
			if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOENT)
				return 0;
			int e = errno;
			snprintf(err, errlen, "%s: %s", buf, strerror(e));
			return -e;
		}
	}
	return 0;
}

int creds_remove_parents(const struct creds_id *id, const char *path, int n)
{
	struct parents_arg a = { path, n };
	return n > 0 ? creds_run_as(id, parents_job, &a, NULL, 0, NULL, 0) : 0;
}

int creds_remove_tree(const struct creds_id *id, const char *path, uint64_t dev, uint64_t ino,
		      bool top, char *err, size_t errlen)
{
	struct remove_arg a = { path, dev, ino, top };
	return creds_run_as(id, remove_job, &a, NULL, 0, err, errlen);
}
