/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Acting with a requester's credentials: caretd (root) must never create
 * what the requester could not, and the traces it writes belong to whoever
 * asked for them.
 */
#ifndef CARETD_CREDS_H
#define CARETD_CREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whose rights a piece of work runs with: a requester's (SO_PEERCRED,
 * SO_PEERGROUPS). n_groups < 0: the groups are unknown, only gid. */
struct creds_id {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int n_groups;
};

/* The work creds_run_as() does: a result >= 0 or -errno, with up to
 * outlen bytes in out and one line in err. */
typedef int (*creds_fn)(void *arg, void *out, size_t outlen, char *err, size_t errlen);

/*
 * Runs fn in a child process whose file system identity (fsuid, fsgid,
 * supplementary groups) is id's: every path it resolves, every directory
 * it creates or reads is judged with the requester's rights, so a path
 * they can redirect (a symlink swapped in at any moment) leads only where
 * they could go themselves. Its real, effective and saved uids stay
 * caretd's, so the requester can neither signal nor trace it. Returns
 * fn's result with out and err copied back; -errno if the child could not
 * run or switch (err says so). When caretd is not root it cannot switch:
 * fn runs in the child as caretd.
 */
int creds_run_as(const struct creds_id *id, creds_fn fn, void *arg, void *out, size_t outlen,
		 char *err, size_t errlen);

/* creds_run_as() in two halves, for work caretd must not wait for on its
 * loop (pruning a tree its owner filled): the child runs fn as id and
 * writes its answer into fd; creds_job_finish() reads it once fd is
 * readable (the child writes it whole as it ends), creds_job_cancel()
 * kills a child past its deadline. Both reap the child. */
struct creds_job {
	pid_t pid; /* -1: none */
	int fd;    /* readable when fn returned (or the child died) */
	uid_t uid;
};
/* 0 with job running, or -errno (nothing to finish or cancel). out is
 * where the child's fn writes (in the child's copy): outlen bytes. */
int creds_job_start(const struct creds_id *id, creds_fn fn, void *arg, void *out,
		    size_t outlen, struct creds_job *job);
/* fn's result with out and err copied back, as creds_run_as(). */
int creds_job_finish(struct creds_job *job, void *out, size_t outlen, char *err,
		     size_t errlen);
void creds_job_cancel(struct creds_job *job);

/* In fn: the file system identity back to caretd's for one lttng-ctl
 * call (the root session daemon's socket is not the requester's to
 * reach), and then the requester's again. No-ops outside creds_run_as. */
void creds_fs_caretd(void);
void creds_fs_requester(void);

/* In fn: the session daemon sees the requester as the client of the
 * calls between these two (lttng-ctl sends geteuid()/getegid() as
 * SCM_CREDENTIALS): a session created so is theirs, and lttng-sessiond and
 * its consumer create and write every file of its trace with their uid
 * and gid (run-as), never root's. The socket is still reached with
 * caretd's file system rights. 0 or -errno; no-ops outside creds_run_as. */
int creds_client_begin(void);
int creds_client_end(void);

/* In fn: whether the requester may `mode` (R_OK, W_OK, X_OK) path, judged
 * with their file system identity and groups, never caretd's: 0 or -errno
 * (-EACCES). access() judges with the real uid, which stays root's in the
 * helper: every path would pass. Outside creds_run_as: caretd's own
 * effective rights. */
int creds_access(const char *path, int mode);

/* At most this many entries are removed by creds_remove_tree(): the tree's
 * owner may fill it. */
#define CREDS_REMOVE_MAX 100000

/* caretd gives nothing away: it has no chown. The session daemon writes a
 * recording caretd made as its requester (creds_client_begin), so its
 * trace is theirs from the first byte; whatever else is in their trace
 * directory got there by their hand, and keeps its owner. */

/* Removes everything below dirfd, by file descriptor (a symlink removed,
 * never followed; each directory emptied, then removed), at most *budget
 * entries: 0 or the first -errno (-EFBIG: over budget). With the caller's
 * rights: run it as the tree's owner (creds_run_as). */
int creds_remove_below(int dirfd, long *budget);

/* Removes, as id (its file system rights), everything below the directory
 * path, and path itself if top, when path still is the directory dev:ino
 * (-ESTALE otherwise): the trace tree of a recording that never recorded.
 * Symlinks are removed, never followed; at most CREDS_REMOVE_MAX entries.
 * 0 or the first -errno (err says why). */
int creds_remove_tree(const struct creds_id *id, const char *path, uint64_t dev, uint64_t ino,
		      bool top, char *err, size_t errlen);

/* Removes, as id, the n directories above path (its parent first, then
 * up), each only while it is empty (rmdir), stopping at the first that
 * is not or is gone: the parents caretd created for a recording that
 * never recorded. 0 or the first -errno that is not ENOTEMPTY/ENOENT. */
int creds_remove_parents(const struct creds_id *id, const char *path, int n);

#endif
