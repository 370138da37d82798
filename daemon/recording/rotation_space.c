/* SPDX-License-Identifier: Apache-2.0 */
/* The disk guard of rotating recordings (daemon/recording/rotation_space.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/recording/rotation_space.h"

/* The least free space a rotating recording needs to go on: room for the
 * chunk being written and the one after it (twice the largest chunk seen,
 * or the size schedule), and never under this floor. Below it, caretd ends
 * the recording while the last chunk can still be closed: the rest of the
 * host keeps its disk, and every chunk written stays readable. */
#define SPACE_FLOOR (4ull << 20)

static uint64_t reserve(const struct rotation *t)
{
	uint64_t r = SPACE_FLOOR, big = 0;
	for (int i = 0; t->list && i < t->list->n; i++)
		if (t->list->c[i].bytes > big)
			big = t->list->c[i].bytes;
	if (2 * big > r)
		r = 2 * big;
	if (t->o.size && 2 * t->o.size > r)
		r = 2 * t->o.size;
	return r;
}

/* Free space for unprivileged writers on the trace directory's file
 * system (the consumer writes as the owner): 0 and *avail, or -errno. The
 * directory is the one created for the recording (dev:ino), never a link. */
static int space_left(const struct rotation *t, uint64_t *avail)
{
	int fd = open(t->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	struct statvfs vfs;
	int rc = 0;
	if (fstat(fd, &st) < 0 || fstatvfs(fd, &vfs) < 0)
		rc = -errno;
	else if ((t->dev || t->ino) &&
		 ((uint64_t)st.st_dev != t->dev || (uint64_t)st.st_ino != t->ino))
		rc = -ESTALE;
	else
		*avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
	close(fd);
	return rc;
}

/* At most once a second: whether the free space is below what t needs
 * (then *avail and *need say how much). */
bool rotation_space_low(struct rotation *t, int64_t now, uint64_t *avail, uint64_t *need)
{
	if (now - t->space_ns < 1000000000)
		return false;
	t->space_ns = now;
	*avail = 0;
	*need = reserve(t);
	int r = space_left(t, avail);
	if (r < 0) {
		log_debug_errno(r, "session %s: free space not known", t->name);
		return false;
	}
	return *avail < *need;
}
