/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/creds: removing a recording's tree that its owner may have
 * filled with links to anything (the giving away of one is in
 * check_commands.c: chown_tree_hostile_links). Both walk the tree with
 * the same descriptor-only walker.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/creds.h"
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

static struct creds_id me(void)
{
	return (struct creds_id){ .uid = getuid(), .gid = getgid(), .n_groups = -1 };
}

START_TEST(remove_tree_hostile_links)
{
	struct stat st;
	ck_assert_int_eq(stat(top, &st), 0);
	struct creds_id id = me();
	char err[256];
	ck_assert_int_eq(creds_remove_tree(&id, top, st.st_dev, st.st_ino, true, err, sizeof(err)),
			 0);
	ck_assert_int_eq(lstat(top, &st), -1);
	/* what the links pointed at is untouched */
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_int_eq(st.st_nlink, 1);
	char p[192];
	snprintf(p, sizeof(p), "%s/kept", outdir);
	ck_assert_int_eq(stat(p, &st), 0);
}
END_TEST

/* Only the directory the recording was given: one swapped in at its path
 * since is left whole. */
START_TEST(remove_tree_swapped_top)
{
	struct stat st;
	ck_assert_int_eq(stat(outdir, &st), 0);
	struct creds_id id = me();
	char err[256];
	ck_assert_int_eq(creds_remove_tree(&id, top, st.st_dev, st.st_ino, true, err, sizeof(err)),
			 -ESTALE);
	char p[192];
	at(p, sizeof(p), "sub/deep/c");
	ck_assert_int_eq(stat(p, &st), 0);
}
END_TEST

/* Below the top only (top=false): the directory itself stays. */
START_TEST(remove_tree_keeps_top)
{
	struct stat st;
	ck_assert_int_eq(stat(top, &st), 0);
	struct creds_id id = me();
	ck_assert_int_eq(creds_remove_tree(&id, top, st.st_dev, st.st_ino, false, NULL, 0), 0);
	ck_assert_int_eq(stat(top, &st), 0);
	ck_assert_int_eq(st.st_nlink, 2); /* empty: no subdirectory left */
	char p[192];
	at(p, sizeof(p), "a");
	ck_assert_int_eq(lstat(p, &st), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("creds");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, remove_tree_hostile_links);
	tcase_add_test(tc, remove_tree_swapped_top);
	tcase_add_test(tc, remove_tree_keeps_top);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
