/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The armed marker (proto/caret_segment.h): caretd says a recording waits
 * for Enter with its channel enabled, and a process that starts then must
 * not record at once. Written whole or not at all (a fresh file renamed
 * over the name), read by the agent once, at its start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/caret_shm.h"

static int marker_path(char *buf, size_t len, const char *tail)
{
	int n = snprintf(buf, len, "%s/%s%s%s", CARET_SHM_DIR, caret_shm_prefix(), CARET_ARMED_SUFFIX,
			 tail);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

int caret_armed_set(bool on)
{
	char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
	int r = marker_path(path, sizeof(path), "");
	if (r < 0)
		return r;
	if (!on)
		return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
	struct caret_armed_marker m = { .magic = CARET_ARMED_MAGIC, .version = 1,
					.pid = (int32_t)getpid() };
	if ((r = caret_proc_start_time(getpid(), &m.start_time)) < 0)
		return r;
	char tmp[sizeof(path) + 16];
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()); /* a name no segment has */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* 0644 whatever the umask: every process reads it */
	bool ok = fchmod(fd, 0644) == 0 && write(fd, &m, sizeof(m)) == (ssize_t)sizeof(m);
	r = ok ? 0 : -(errno ? errno : EIO);
	close(fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

bool caret_armed_now(void)
{
	char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
	if (marker_path(path, sizeof(path), "") < 0)
		return false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	struct caret_armed_marker m;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
		  st.st_size == (off_t)sizeof(m) && read(fd, &m, sizeof(m)) == (ssize_t)sizeof(m);
	close(fd);
	uint64_t start;
	return ok && m.magic == CARET_ARMED_MAGIC && m.version == 1 && m.pid > 0 &&
	       caret_proc_start_time((pid_t)m.pid, &start) == 0 && start == m.start_time;
}
