/* SPDX-License-Identifier: Apache-2.0 */
/* The consumer's index files as lttng-tools writes them (CTF index 1.1,
 * big-endian, sizes in bits), for the tests that feed lttng_drain.c: the
 * drain's (drain_fixture.h) and the pacer's. */
#ifndef CARET_TESTS_INDEX_FIXTURE_H
#define CARET_TESTS_INDEX_FIXTURE_H

#include <stdint.h>
#include <stdio.h>

/* v big-endian. */
void put64(FILE *f, uint64_t v);
void put32(FILE *f, uint32_t v);
/* npackets packets of 64 KiB ending at ts0 + i * 1000, discarded d at the
 * last; `partial` extra bytes of a half-written entry */
void index_file(const char *path, uint32_t magic, int npackets, uint64_t ts0, uint64_t d,
		int partial);

#endif
