/* SPDX-License-Identifier: Apache-2.0 */
/* The segment validator: a header page and the file size it came with, as
 * caret_seg_attach() sees them, and the name parser (any user names files
 * in /dev/shm). Input: header bytes, then 8 bytes of file size. */
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
	return 0;
}
