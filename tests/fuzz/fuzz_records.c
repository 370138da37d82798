/* SPDX-License-Identifier: Apache-2.0 */
/* The record walker: a record area as the replay and caretd read it. Every
 * decoded record is touched field by field, so an out-of-bounds string or
 * size is caught by ASan. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shm/caret_shm.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy: ASan sees a read one byte past the area */
	uint8_t *area = malloc(size ? size : 1);
	if (!area)
		return 0;
	memcpy(area, data, size);
	uint64_t off = 0, prev = 0;
	struct caret_rec_view v;
	size_t sum = 0;
	int r;
	while ((r = caret_rec_next(area, size, &off, &v)) == 1) {
		if (off <= prev || off > size || v.nfields > CARET_MAX_FIELDS ||
		    !caret_kind_name(v.kind))
			__builtin_trap();
		const char *sig = caret_kind_sig(v.kind);
		for (unsigned i = 0; i < v.nfields; i++)
			sum += sig[i] == 's' ? strlen(v.args[i].s) : (size_t)(v.args[i].u & 1);
		prev = off;
	}
	if (r != 0 && r != -EBADMSG)
		__builtin_trap();
	free(area);
	return (int)(sum & 0);
}
