/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/creds: removing a recording's tree that its owner may have
 * filled with links to anything, with the descriptor-only walker; and
 * whether a requester may write a directory, judged in their helper with
 * their rights (creds_access), not root's.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/lttng/creds.h"
#include "tests/unit/unit.h"

static char top[64], outside[96], outdir[96];

static void touch(const char *fmt, const char *a)
{
	char p[192];
	snprintf(p, sizeof(p), fmt, a);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void at(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", top, name);
}

/* top/{a, sub/b, sub/deep/c, link -> outside, dirlink -> outdir,
 * sub/hard = outside's inode}, outside and outdir/kept beside it */
static void setup(void)
{
	snprintf(top, sizeof(top), "/tmp/caret-uc-creds-%d", (int)getpid());
	snprintf(outside, sizeof(outside), "%s.secret", top);
	snprintf(outdir, sizeof(outdir), "%s.dir", top);
	char p[192];
	ck_assert_int_eq(mkdir(top, 0755), 0);
	ck_assert_int_eq(mkdir(outdir, 0755), 0);
	touch("%s", outside);
	touch("%s/kept", outdir);
	touch("%s/a", top);
	at(p, sizeof(p), "sub");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, sizeof(p), "sub/deep");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	touch("%s/sub/b", top);
	touch("%s/sub/deep/c", top);
	at(p, sizeof(p), "link");
	ck_assert_int_eq(symlink(outside, p), 0);
	at(p, sizeof(p), "dirlink");
	ck_assert_int_eq(symlink(outdir, p), 0);
	at(p, sizeof(p), "sub/hard");
	ck_assert_int_eq(link(outside, p), 0);
}

static void teardown(void)
{
	char cmd[320];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s", top, outside, outdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* creds_remove_tree of top as ourselves, for the recording given the
 * directory `given` (its device and inode). */
static int remove_top(const char *given, bool whole)
{
	struct stat st;
	ck_assert_int_eq(stat(given, &st), 0);
	struct creds_id id = { .uid = getuid(), .gid = getgid(), .n_groups = -1 };
	char err[256];
	return creds_remove_tree(&id, top, st.st_dev, st.st_ino, whole, err, sizeof(err));
}

/* whether name (below top, or an absolute path) is still there */
static bool there(const char *name)
{
	char p[192];
	if (name[0] == '/')
		snprintf(p, sizeof(p), "%s", name);
	else
		at(p, sizeof(p), name);
	struct stat st;
	return lstat(p, &st) == 0;
}

START_TEST(remove_tree_hostile_links)
{
	ck_assert_int_eq(remove_top(top, true), 0);
	ck_assert(!there(top));
	/* what the links pointed at is untouched */
	struct stat st;
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_int_eq(st.st_nlink, 1);
	char p[192];
	snprintf(p, sizeof(p), "%s/kept", outdir);
	ck_assert(there(p));
}
END_TEST

/* Only the directory the recording was given: one swapped in at its path
 * since is left whole. */
START_TEST(remove_tree_swapped_top)
{
	ck_assert_int_eq(remove_top(outdir, true), -ESTALE);
	ck_assert(there("sub/deep/c"));
}
END_TEST

/* Below the top only: the directory itself stays, empty. */
START_TEST(remove_tree_keeps_top)
{
	ck_assert_int_eq(remove_top(top, false), 0);
	struct stat st;
	ck_assert_int_eq(stat(top, &st), 0);
	ck_assert_int_eq(st.st_nlink, 2); /* no subdirectory left */
	ck_assert(!there("a"));
}
END_TEST

/* The parents made for a recording go while empty, lowest first, and no
 * further than asked: top/sub/deep holds c, so from sub/deep/x/y with 3
 * levels only x goes (y stands for the removed trace directory). */
START_TEST(remove_parents_only_empty_ones)
{
	char p[192];
	struct creds_id id = { .uid = getuid(), .gid = getgid(), .n_groups = -1 };
	at(p, sizeof(p), "sub/deep/x");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, sizeof(p), "sub/deep/x/y");
	ck_assert_int_eq(creds_remove_parents(&id, p, 3), 0);
	ck_assert(!there("sub/deep/x"));
	ck_assert(there("sub/deep/c"));
	/* empty all the way: n levels, never more */
	at(p, sizeof(p), "e1");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, sizeof(p), "e1/e2");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at(p, sizeof(p), "e1/e2/t");
	ck_assert_int_eq(creds_remove_parents(&id, p, 1), 0);
	ck_assert(!there("e1/e2"));
	ck_assert(there("e1"));
	ck_assert_int_eq(creds_remove_parents(&id, p, 0), 0);
}
END_TEST

struct access_arg {
	const char *path;
	int mode;
};

static int access_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	(void)err;
	(void)errlen;
	const struct access_arg *a = arg;
	return creds_access(a->path, a->mode);
}

/* creds_access(path, W_OK | X_OK) in a helper acting as uid 4242 (gid
 * 4242, groups as given). */
static int may_write_as(const char *path, const gid_t *groups, int n)
{
	struct creds_id id = { .uid = 4242, .gid = 4242, .groups = groups, .n_groups = n };
	struct access_arg a = { path, W_OK | X_OK };
	char err[256];
	return creds_run_as(&id, access_job, &a, NULL, 0, err, sizeof(err));
}

/* Issue 30 H6: access() in the helper judged with the real uid (root's),
 * and every directory passed. Root's 0755 directory is not theirs to
 * write; their own, a 0777 one and one of a group they are in are. */
START_TEST(access_is_the_requesters)
{
	if (geteuid() != 0)
		return; /* the helper switches only when caretd is root */
	char p[192];
	at(p, sizeof(p), "sub"); /* root's, 0755 */
	ck_assert_int_eq(may_write_as(p, NULL, -1), -EACCES);
	ck_assert_int_eq(chmod(p, 0777), 0);
	ck_assert_int_eq(may_write_as(p, NULL, -1), 0);
	ck_assert_int_eq(chmod(p, 0770), 0);
	ck_assert_int_eq(may_write_as(p, NULL, -1), -EACCES);
	ck_assert_int_eq(chown(p, 0, 4343), 0);
	const gid_t g[] = { 4343 };
	ck_assert_int_eq(may_write_as(p, g, 1), 0);
	ck_assert_int_eq(chown(p, 4242, 0), 0);
	ck_assert_int_eq(chmod(p, 0700), 0);
	ck_assert_int_eq(may_write_as(p, NULL, -1), 0);
	/* and root itself, outside a helper, may */
	ck_assert_int_eq(creds_access(top, W_OK | X_OK), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("creds");
	TCase *tc = unit_case(s, "core", remove_tree_hostile_links, remove_tree_swapped_top,
			      remove_tree_keeps_top, remove_parents_only_empty_ones,
			      access_is_the_requesters);
	tcase_add_checked_fixture(tc, setup, teardown);
	return unit_run(s);
}
