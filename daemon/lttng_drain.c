/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng_drain.h"

/* CTF 1.8 packet index (lttng-tools' common/index/ctf-index.h): a header
 * then one big-endian entry per packet; sizes are in bits. */
#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HDR 16
#define IDX_MIN_ENTRY 56 /* v1.0: offset .. stream_id */
#define MAX_UIDS 64      /* per-UID buffer directories looked at */

struct idx_entry {
	uint64_t offset, packet_size, content_size, ts_begin, ts_end, discarded;
};

static uint32_t be32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return be64toh(v);
}

/* The last entry of one index file; 1 if there is one, 0 if none, -errno. */
static int last_entry(int dirfd, const char *name, struct idx_entry *e)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	int rc = 0;
	struct stat st;
	unsigned char h[IDX_HDR], b[IDX_MIN_ENTRY];
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || be32(h) != IDX_MAGIC)
		goto out;
	uint32_t len = be32(h + 12);
	if (len < IDX_MIN_ENTRY || len > 4096)
		goto out;
	/* the consumer may be appending: whole entries only */
	uint64_t n = ((uint64_t)st.st_size - IDX_HDR) / len;
	if (n == 0 || pread(fd, b, sizeof(b), (off_t)(IDX_HDR + (n - 1) * len)) != (ssize_t)sizeof(b))
		goto out;
	e->offset = be64(b);
	e->packet_size = be64(b + 8);
	e->content_size = be64(b + 16);
	e->ts_begin = be64(b + 24);
	e->ts_end = be64(b + 32);
	e->discarded = be64(b + 40);
	rc = 1;
out:
	close(fd);
	return rc;
}

static int sub(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* <uid>/64-bit/index/<channel>_<n>.idx */
static void read_uid(int uidfd, const char *channel, struct lttng_drain *out)
{
	int b = sub(uidfd, "64-bit");
	if (b < 0)
		return;
	int ix = sub(b, "index");
	close(b);
	if (ix < 0)
		return;
	DIR *d = fdopendir(ix);
	if (!d) {
		close(ix);
		return;
	}
	size_t cl = strlen(channel);
	int seen = 0;
	for (struct dirent *de; (de = readdir(d)) && seen < 4096; seen++) {
		size_t l = strlen(de->d_name);
		if (l <= cl + 5 || strncmp(de->d_name, channel, cl) || de->d_name[cl] != '_' ||
		    strcmp(de->d_name + l - 4, ".idx"))
			continue;
		struct idx_entry e = { 0 };
		if (last_entry(dirfd(d), de->d_name, &e) != 1)
			continue;
		out->streams++;
		out->bytes += (e.offset + e.packet_size / 8);
		out->discarded += e.discarded;
		if ((int64_t)e.ts_end > out->horizon_ns)
			out->horizon_ns = (int64_t)e.ts_end;
	}
	closedir(d);
}

int lttng_drain_read(const char *trace_dir, const char *channel, struct lttng_drain *out)
{
	*out = (struct lttng_drain){ .horizon_ns = -1 };
	int top = open(trace_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return -errno;
	int u = sub(top, "ust");
	close(top);
	if (u < 0)
		return u;
	int uid = sub(u, "uid");
	close(u);
	if (uid < 0)
		return uid;
	DIR *d = fdopendir(uid);
	if (!d) {
		int e = -errno;
		close(uid);
		return e;
	}
	int n = 0;
	for (struct dirent *de; (de = readdir(d)) && n < MAX_UIDS;) {
		if (de->d_name[0] == '.')
			continue;
		int fd = sub(dirfd(d), de->d_name);
		if (fd < 0)
			continue;
		n++;
		read_uid(fd, channel, out);
		close(fd);
	}
	closedir(d);
	return 0;
}
