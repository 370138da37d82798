/* SPDX-License-Identifier: Apache-2.0 */
/* The drain tests' index files (drain_fixture.h). */
#include <check.h>
#include <errno.h>
#include <time.h>
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/drain_fixture.h"

char dir[64];

void put64(FILE *f, uint64_t v)
{
	v = htobe64(v);
	fwrite(&v, 8, 1, f);
}

void put32(FILE *f, uint32_t v)
{
	v = htobe32(v);
	fwrite(&v, 4, 1, f);
}

/* npackets packets of 64 KiB ending at ts0 + i * 1000, discarded d at the
 * last; `partial` extra bytes of a half-written entry */
void index_file(const char *path, uint32_t magic, int npackets, uint64_t ts0, uint64_t d,
		int partial)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	put32(f, magic);
	put32(f, 1);
	put32(f, 1);
	put32(f, 72);
	for (int i = 0; i < npackets; i++) {
		put64(f, (uint64_t)i * 65536);      /* offset (bytes) */
		put64(f, 65536 * 8);                /* packet_size (bits) */
		put64(f, 60000 * 8);                /* content_size (bits) */
		put64(f, ts0 + (uint64_t)i * 1000 - 500);
		put64(f, ts0 + (uint64_t)i * 1000); /* timestamp_end */
		put64(f, i == npackets - 1 ? d : 0);
		put64(f, 0);
		put64(f, 1);
		put64(f, (uint64_t)i);
	}
	for (int i = 0; i < partial; i++)
		fputc(0x7f, f);
	fclose(f);
}

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
