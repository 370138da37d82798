/* SPDX-License-Identifier: Apache-2.0 */
/* The consumer's index files (index_fixture.h). */
#include <check.h>
#include <endian.h>
#include <stdio.h>

#include "tests/unit/index_fixture.h"

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
	ck_assert_int_eq(fclose(f), 0);
}
