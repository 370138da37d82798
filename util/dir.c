/* SPDX-License-Identifier: Apache-2.0 */
/* Listing a directory held by a descriptor. fdopendir() of a dup() shares
 * the open file's offset with the original: the first listing leaves it at
 * the end and every later listing through the same descriptor finds
 * nothing (caretd's pacer lost every rotated chunk that way). Reopening
 * "." gives the listing an offset of its own. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/caret_util.h"

DIR *caret_opendir_at(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}
