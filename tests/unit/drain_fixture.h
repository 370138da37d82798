/* SPDX-License-Identifier: Apache-2.0 */
/* What the drain tests share (drain_fixture.c): a recording directory per
 * test and the consumer's index files in it (index_fixture.h). */
#ifndef CARET_TESTS_DRAIN_FIXTURE_H
#define CARET_TESTS_DRAIN_FIXTURE_H

#include <stdint.h>
#include <stdio.h>

#include "tests/unit/index_fixture.h"

/* The recording directory of the test (new_dir). */
extern char dir[64];
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
