/* SPDX-License-Identifier: Apache-2.0 */
/* The segment validator: a header page and the file size it came with, as
 * caret_seg_attach() sees them, and the name parser (any user names files
 * in /dev/shm), and the pass filter block an agent reads from its header
 * page. Input: header bytes, then 8 bytes of file size (the filter block:
 * the same bytes from the start). */
#include <string.h>

#include "shm/caret_shm.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct caret_shm_header h;
	uint64_t file_size = 0;
	memset(&h, 0, sizeof(h));
	size_t n = size < sizeof(h) ? size : sizeof(h);
	memcpy(&h, data, n);
	if (size >= sizeof(h) + 8)
		memcpy(&file_size, data + sizeof(h), 8);
	else if (size >= 8)
		memcpy(&file_size, data + size - 8, 8);
	int r = caret_hdr_validate(&h, file_size);
	if (r == 0) {
		/* what a controller then trusts: strings terminated, tail in range */
		if (!memchr(h.procname, 0, sizeof(h.procname)) ||
		    h.tail > file_size - CARET_SHM_HEADER_SIZE)
			__builtin_trap();
	}
	char name[CARET_SHM_NAME_MAX + 1];
	size_t m = size < CARET_SHM_NAME_MAX ? size : CARET_SHM_NAME_MAX;
	memcpy(name, data, m);
	name[m] = '\0';
	pid_t pid;
	uint64_t start;
	if (caret_seg_parse_name(name, &pid, &start) == 0 && pid <= 0)
		__builtin_trap();
	/* a block the agent accepts is lists caretd could have staged, and
	 * encodes back to the same lists */
	static struct caret_shm_filter fb, again;
	static struct caret_filter_text ft, ft2;
	memset(&fb, 0, sizeof(fb));
	memcpy(&fb, data, size < sizeof(fb) ? size : sizeof(fb));
	if (caret_filter_decode(&fb, &ft) == 0) {
		if (caret_filter_check(&ft.f) != 0 || caret_filter_encode(&ft.f, &again) != 0 ||
		    caret_filter_decode(&again, &ft2) != 0)
			__builtin_trap();
		for (int i = 0; i < CARET_FILTER_LISTS; i++)
			if (strcmp(ft.f.list[i], ft2.f.list[i]) != 0)
				__builtin_trap();
	}
	return 0;
}
