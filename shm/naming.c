/* SPDX-License-Identifier: Apache-2.0 */
/* Segment names: one per process lifetime (pid + start time). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/caret_shm.h"

static int prefix_ok(const char *p)
{
	size_t n = strlen(p);
	if (n == 0 || n > CARET_SHM_PREFIX_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

const char *caret_shm_prefix(void)
{
	const char *p = getenv("CARET_SHM_PREFIX");
	return (p && prefix_ok(p)) ? p : CARET_SHM_DEFAULT_PREFIX;
}

int caret_proc_start_time(pid_t pid, uint64_t *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? -err : -EIO;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields restart after the
	 * last ')'. Field 3 (state) follows it; start time is field 22. */
	char *p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	p++;
	for (int field = 2; field < 21; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EIO;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1)
		return -EIO;
	*out = v;
	return 0;
}

int caret_seg_name(char *buf, size_t len, pid_t pid, uint64_t start_time)
{
	int n = snprintf(buf, len, "%s.%d.%" PRIu64, caret_shm_prefix(),
			 (int)pid, start_time);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

int caret_seg_parse_name(const char *name, pid_t *pid, uint64_t *start_time)
{
	const char *prefix = caret_shm_prefix();
	size_t pl = strlen(prefix);
	if (strncmp(name, prefix, pl) != 0 || name[pl] != '.')
		return -EINVAL;
	const char *p = name + pl + 1;
	char *end;
	if (*p < '1' || *p > '9')
		return -EINVAL;
	errno = 0;
	long v = strtol(p, &end, 10);
	if (errno || *end != '.' || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	unsigned long long st = strtoull(p, &end, 10);
	if (errno)
		return -EINVAL;
	/* A name taken by someone else is replaced by one with a random
	 * suffix (caret_seg_create): ".<16 lowercase hex digits>". */
	if (*end == '.') {
		p = end + 1;
		for (int i = 0; i < CARET_SHM_SUFFIX_LEN; i++)
			if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
				return -EINVAL;
		end = (char *)p + CARET_SHM_SUFFIX_LEN;
	}
	if (*end != '\0')
		return -EINVAL;
	*pid = (pid_t)v;
	*start_time = st;
	return 0;
}

int caret_seg_scan(int (*cb)(const char *name, pid_t pid, uint64_t start_time, void *ctx),
		   void *ctx)
{
	DIR *d = opendir(CARET_SHM_DIR);
	if (!d)
		return -errno;
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d))) {
		pid_t pid;
		uint64_t start;
		if (caret_seg_parse_name(e->d_name, &pid, &start) == 0)
			r = cb(e->d_name, pid, start, ctx);
	}
	closedir(d);
	return r;
}
