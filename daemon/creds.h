/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Acting with a requester's credentials: caretd (root) must never create
 * what the requester could not, and the traces it writes belong to whoever
 * asked for them.
 */
#ifndef CARETD_CREDS_H
#define CARETD_CREDS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * mkdir -p `path` (0755 under umask 022) in a child process that runs
 * with the requester's uid, gid and supplementary groups (setgroups,
 * setresgid, setresuid), then checks there that it may write and search
 * the directory. 0, or -errno with a one-line message in err. n_groups < 0:
 * the groups are unknown, the child keeps only gid. When caretd is not
 * root it cannot switch and runs the same checks as itself.
 */
int creds_mkdir_as(const char *path, uid_t uid, gid_t gid, const gid_t *groups, int n_groups,
		   char *err, size_t errlen);

/* chown -R uid:gid of everything below path, whose top must already
 * belong to uid (-EPERM otherwise), by file descriptor and without
 * following symlinks; 0 or the first -errno. */
int creds_chown_tree(const char *path, uid_t uid, gid_t gid);

#endif
