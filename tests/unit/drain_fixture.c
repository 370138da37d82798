/* SPDX-License-Identifier: Apache-2.0 */
/* The drain tests' recording directories and streams (drain_fixture.h). */
#include <check.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/drain_fixture.h"

char dir[64];

/* The recording directory of one test: /tmp/caret-ut-drain<tag>-<pid>. */
void new_dir(const char *tag)
{
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-drain%s-%d", tag, (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
}

/* <root>/ust/uid/<uid>/64-bit/index, as the consumer lays out per-uid
 * buffers (the parts that exist already are kept). */
const char *index_dir(const char *root, int uid)
{
	static char p[200];
	char u[16];
	snprintf(u, sizeof(u), "%d", uid);
	const char *parts[] = { "ust", "uid", u, "64-bit", "index" };
	snprintf(p, sizeof(p), "%s", root);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t n = strlen(p);
		snprintf(p + n, sizeof(p) - n, "/%s", parts[i]);
		if (mkdir(p, 0755) < 0)
			ck_assert_int_eq(errno, EEXIST);
	}
	return p;
}

/* index_file() of the stream file `name` in the index directory ix. */
void stream(const char *ix, const char *name, uint32_t magic, int npackets, uint64_t ts0,
	    uint64_t d, int partial)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", ix, name);
	index_file(p, magic, npackets, ts0, d, partial);
}

void remove_dirs(const char *also)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", dir, also);
	ck_assert_int_eq(system(cmd), 0);
}
