/* SPDX-License-Identifier: Apache-2.0 */
/* What the drain tests share (drain_fixture.c): a recording directory per
 * test and the consumer's index files in it, written as lttng-tools
 * writes them (CTF index 1.1, big-endian, sizes in bits). */
#ifndef CARET_TESTS_DRAIN_FIXTURE_H
#define CARET_TESTS_DRAIN_FIXTURE_H

#include <stdint.h>
#include <stdio.h>

/* The recording directory of the test (new_dir). */
extern char dir[64];
/* v big-endian. */
void put64(FILE *f, uint64_t v);
void put32(FILE *f, uint32_t v);
/* npackets packets of 64 KiB ending at ts0 + i * 1000, discarded d at the
 * last; `partial` extra bytes of a half-written entry */
void index_file(const char *path, uint32_t magic, int npackets, uint64_t ts0, uint64_t d,
		int partial);
/* The recording directory of one test: /tmp/caret-ut-drain<tag>-<pid>. */
void new_dir(const char *tag);
/* <root>/ust/uid/<uid>/64-bit/index, as the consumer lays out per-uid
 * buffers (the parts that exist already are kept). */
const char *index_dir(const char *root, int uid);
/* index_file() of the stream file `name` in the index directory ix. */
void stream(const char *ix, const char *name, uint32_t magic, int npackets, uint64_t ts0,
	    uint64_t d, int partial);
/* dir and also (a path, or ""), gone. */
void remove_dirs(const char *also);

#endif
