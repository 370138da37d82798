/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who may connect to caretd's socket, said from its own owner, group and
 * mode: caretd without --group makes it 0600 (its own user only), and
 * "be root or in group root" would send a user to the wrong door (issue
 * 33 L9).
 */
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sock_access.h"

static void user_name(uid_t uid, char *out, size_t len)
{
	char buf[1024];
	struct passwd pw, *p = NULL;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) == 0 && p)
		snprintf(out, len, "%s", p->pw_name);
	else
		snprintf(out, len, "uid %u", (unsigned)uid);
}

static void group_name(gid_t gid, char *out, size_t len)
{
	char buf[1024];
	struct group g, *p = NULL;
	if (getgrgid_r(gid, &g, buf, sizeof(buf), &p) == 0 && p)
		snprintf(out, len, "%s", p->gr_name);
	else
		snprintf(out, len, "%u", (unsigned)gid);
}

void cli_socket_access(const char *path, char *out, size_t len)
{
	char user[64], grp[64], dir[PATH_MAX];
	struct stat st;
	if (stat(path, &st) == 0) {
		user_name(st.st_uid, user, sizeof(user));
		group_name(st.st_gid, grp, sizeof(grp));
		unsigned mode = st.st_mode & 07777;
		if (st.st_mode & S_IWGRP)
			snprintf(out, len, "you must be root%s%s or in group %s", st.st_uid ? ", " : "",
				 st.st_uid ? user : "", grp);
		else if (st.st_uid == 0)
			snprintf(out, len, "only root may connect (the socket's mode is %04o: caretd "
				 "runs without --group)", mode);
		else
			snprintf(out, len, "only root and %s may connect (the socket's mode is %04o: "
				 "caretd runs without --group)", user, mode);
		return;
	}
	/* the socket cannot even be looked at: its directory keeps us out */
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (!slash || stat(dir, &st) < 0) {
		snprintf(out, len, "you must be root or in caretd's group (caretd --group)");
		return;
	}
	group_name(st.st_gid, grp, sizeof(grp));
	snprintf(out, len, "its directory %s (mode %04o, group %s) is closed to you: you must "
		 "be root or in group %s", dir, (unsigned)(st.st_mode & 07777), grp, grp);
}
