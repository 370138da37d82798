/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/caret_util.h"

int caret_write_atomic(const char *path, void (*fill)(FILE *f, void *arg), void *arg)
{
	char tmp[4096 + 8];
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = mkstemp(tmp); /* 0600, O_EXCL: nobody's link is followed */
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		return e;
	}
	fill(f, arg);
	int e = fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
	if (fclose(f) != 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e)
		unlink(tmp);
	return e;
}
