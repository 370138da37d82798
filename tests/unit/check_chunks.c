/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/chunks: the archived chunks of a rotating recording, their names,
 * and the disk bound (--keep, --max-size): oldest first, by LTTng's chunk
 * index, never through a link, only under the directory given.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/recording/chunks.h"

static char top[64];

static void put(const char *rel, size_t bytes)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < bytes; i++)
		fputc('x', f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static bool exists(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	return lstat(p, &st) == 0;
}

#define C(n) "20261127T0226" #n "+0000-20261127T0227" #n "+0000-"

START_TEST(names)
{
	uint64_t ix = 0;
	ck_assert_int_eq(chunks_parse_name(C(10) "7", &ix), 0);
	ck_assert_uint_eq(ix, 7);
	ck_assert_int_eq(chunks_parse_name(C(10) "12345", &ix), 0);
	ck_assert_uint_eq(ix, 12345);
	ck_assert_int_eq(chunks_parse_name("20261127T022610-0000-20261127T022710+0130-3", &ix), 0);
	static const char *const bad[] = {
		"", "archives", "20261127T022610+0000-3", /* the active chunk's name */
		C(10), C(10) "x", C(10) "-1", C(10) "1 ", "2026112XT022610+0000-20261127T022710+0000-1",
		"20261127T022610+0000_20261127T022710+0000-1",
		C(10) "123456789012345678901234",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(chunks_parse_name(bad[i], &ix) < 0, "%s", bad[i]);
}
END_TEST

static void setup_tree_in(const char *base)
{
	snprintf(top, sizeof(top), "%s/caret-ut-chunks-%d", base, (int)getpid());
	ck_assert_int_eq(mkdir(top, 0755), 0);
	dir("archives");
	/* five chunks, out of name order: 1000 bytes each, index 3 larger */
	static const char *const c[] = { C(14) "4", C(10) "0", C(12) "2", C(11) "1", C(13) "3" };
	for (int i = 0; i < 5; i++) {
		char d[256], f[300];
		snprintf(d, sizeof(d), "archives/%s", c[i]);
		dir(d);
		snprintf(d, sizeof(d), "archives/%s/ust", c[i]);
		dir(d);
		snprintf(f, sizeof(f), "archives/%s/ust/data", c[i]);
		put(f, c[i][sizeof(C(10)) - 1] == '3' ? 5000 : 1000);
	}
	put("archives/notes.txt", 10);   /* not a chunk: left alone */
	dir("20261127T022615+0000-5");   /* the active chunk: not archived */
}

static void setup_tree(void)
{
	setup_tree_in("/tmp");
}

static void teardown_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s /tmp/caret-ut-chunks-victim-%d", top, (int)getpid());
	ck_assert_int_eq(system(cmd), 0);
}

static struct chunk_list L;
static const struct creds_id me = { .uid = 0, .gid = 0, .groups = NULL, .n_groups = -1 };

START_TEST(keep_removes_the_oldest)
{
	setup_tree();
	struct creds_id id = me;
	id.uid = geteuid();
	id.gid = getegid();
	char err[256] = "";
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 0, 0, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.n, 5);
	ck_assert_int_eq(L.removed, 0);
	ck_assert_int_eq(L.skipped, 1);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(L.c[i].index, (uint64_t)i);
	ck_assert_uint_eq(L.c[3].bytes, 5000);
	ck_assert_uint_eq(L.bytes, 9000);
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 2, 0, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.removed, 3);
	ck_assert_uint_eq(L.removed_index[0], 0);
	ck_assert_uint_eq(L.removed_index[2], 2);
	ck_assert_int_eq(L.n, 2);
	ck_assert_uint_eq(L.c[0].index, 3);
	ck_assert(!exists("archives/" C(10) "0"));
	ck_assert(exists("archives/" C(13) "3/ust/data"));
	ck_assert(exists("archives/notes.txt"));
	ck_assert(exists("20261127T022615+0000-5"));
	/* max_size: 6000 holds 3 (5000) and 4 (1000); 5999 only 4 */
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 0, 6000, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.removed, 0);
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 0, 5999, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.removed, 1);
	ck_assert_int_eq(L.n, 1);
	ck_assert_uint_eq(L.c[0].index, 4);
	ck_assert_uint_eq(L.bytes, 1000);
	teardown_tree();
}
END_TEST

/* The owner plants links among its chunks, and replaces archives/ by a
 * link: nothing outside the tree goes, and a tree that is no longer the
 * recording's directory (another dev:ino) is not touched at all. */
START_TEST(links_are_never_followed)
{
	setup_tree();
	struct creds_id id = me;
	id.uid = geteuid();
	id.gid = getegid();
	char victim[96], p[512], err[256] = "";
	snprintf(victim, sizeof(victim), "/tmp/caret-ut-chunks-victim-%d", (int)getpid());
	ck_assert_int_eq(mkdir(victim, 0755), 0);
	snprintf(p, sizeof(p), "%s/precious", victim);
	FILE *f = fopen(p, "w");
	fclose(f);
	/* a link named like the oldest chunk, to the victim */
	snprintf(p, sizeof(p), "%s/archives/" C(09) "0", top);
	ck_assert_int_eq(symlink(victim, p), 0);
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 1, 0, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.n, 1);
	snprintf(p, sizeof(p), "%s/precious", victim);
	ck_assert_int_eq(access(p, F_OK), 0);
	/* archives/ itself a link to the victim */
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/archives", top);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/archives", top);
	ck_assert_int_eq(symlink(victim, p), 0);
	char vc[200];
	snprintf(vc, sizeof(vc), "%s/" C(10) "0", victim);
	ck_assert_int_eq(mkdir(vc, 0755), 0);
	ck_assert_int_lt(chunks_prune(&id, top, 0, 0, 1, 0, 0, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(access(vc, F_OK), 0);
	/* the trace directory is not the one given (dev:ino) */
	struct stat st;
	ck_assert_int_eq(stat(top, &st), 0);
	ck_assert_int_eq(chunks_prune(&id, top, st.st_dev, st.st_ino + 1, 1, 0, 0, &L, err,
				      sizeof(err)), -ESTALE);
	teardown_tree();
}
END_TEST

/* Files in archives/<chunk>/ust/: many, empty. */
static void fill(const char *chunk, int files)
{
	char p[512];
	snprintf(p, sizeof(p), "archives/%s/many", chunk);
	dir(p);
	for (int i = 0; i < files; i++) {
		snprintf(p, sizeof(p), "%s/archives/%s/many/f%d", top, chunk, i);
		int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
}

/* A prune stops at its deadline, what it removed stays removed and the
 * rest waits for the next one; in the background (the helper caretd does
 * not wait for) it answers the same way. */
START_TEST(deadline_cuts_the_prune)
{
	setup_tree_in("/dev/shm"); /* many files: a tmpfs makes them fast */
	struct creds_id id = me;
	id.uid = geteuid();
	id.gid = getegid();
	fill(C(10) "0", 20000);
	fill(C(11) "1", 20000);
	char err[256] = "";
	ck_assert_int_eq(chunks_prune(&id, top, 0, 0, 1, 0, 1, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.cut, CHUNKS_CUT_DEADLINE);
	ck_assert_int_lt(L.removed, 4);
	ck_assert(exists("archives/" C(14) "4"));
	/* no deadline, in the background: the bound holds */
	struct creds_job job;
	ck_assert_int_eq(chunks_prune_start(&id, top, 0, 0, 1, 0, 0, &L, &job), 0);
	memset(&L, 0, sizeof(L));
	ck_assert_int_eq(chunks_prune_finish(&job, &L, err, sizeof(err)), 0);
	ck_assert_int_eq(L.cut, 0);
	ck_assert_int_eq(L.n, 1);
	ck_assert_uint_ge(L.removed_entries, 40000);
	ck_assert(!exists("archives/" C(10) "0") && !exists("archives/" C(11) "1"));
	ck_assert(exists("archives/" C(14) "4"));
	teardown_tree();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chunks");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, names);
	tcase_add_test(tc, keep_removes_the_oldest);
	tcase_add_test(tc, links_are_never_followed);
	tcase_add_test(tc, deadline_cuts_the_prune);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
