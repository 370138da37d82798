/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng/lttng_drain.h"
#include "util/caret_cleanup.h"

/* CTF 1.8 packet index (lttng-tools' common/index/ctf-index.h): a header
 * then one big-endian entry per packet; sizes are in bits. */
#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HDR 16
#define IDX_MIN_ENTRY 56 /* v1.0: offset .. stream_id */
#define MAX_UIDS 64      /* per-UID buffer directories looked at */
/* LTTng's own counters above this are garbage (DESIGN.md section 6); a
 * claim above it is no number either, and the sums stay far from wrapping */
#define BOGUS (UINT64_C(1) << 48)

struct idx_entry {
	uint64_t offset, packet_size, content_size, ts_begin, ts_end, discarded;
};

/* What one read may still do: the trace belongs to its requester, who
 * may fill it with entries, files and lies. */
struct budget {
	int entries, files;
	uid_t owner;
	int64_t now_ns;
	bool first; /* also each stream's first packet (a chunk's discards) */
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

static bool owned(const struct stat *st, const struct budget *b)
{
	return b->owner == (uid_t)-1 || st->st_uid == b->owner;
}

static void entry_at(const unsigned char *buf, struct idx_entry *e)
{
	e->offset = be64(buf);
	e->packet_size = be64(buf + 8);
	e->content_size = be64(buf + 16);
	e->ts_begin = be64(buf + 24);
	e->ts_end = be64(buf + 32);
	e->discarded = be64(buf + 40);
}

/* The last entry of one index file (and the first, when b->first); 1 if
 * there is one, 2 if the file has no whole entry yet, 0 if it is not
 * believable, -errno. */
static int last_entry(int dirfd, const char *name, struct budget *b, struct idx_entry *first,
		      struct idx_entry *e)
{
	b->files--;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int rc = 0;
	struct stat st;
	unsigned char h[IDX_HDR], buf[IDX_MIN_ENTRY];
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !owned(&st, b) ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || be32(h) != IDX_MAGIC)
		goto out;
	uint32_t len = be32(h + 12);
	if (len < IDX_MIN_ENTRY || len > 4096 || st.st_size < IDX_HDR)
		goto out;
	/* the consumer may be appending: whole entries only */
	uint64_t n = ((uint64_t)st.st_size - IDX_HDR) / len;
	if (n == 0) {
		rc = 2; /* a stream without a packet yet */
		goto out;
	}
	if (pread(fd, buf, sizeof(buf), (off_t)(IDX_HDR + (n - 1) * len)) != (ssize_t)sizeof(buf))
		goto out;
	entry_at(buf, e);
	*first = *e;
	if (b->first && n > 1) {
		if (pread(fd, buf, sizeof(buf), IDX_HDR) != (ssize_t)sizeof(buf))
			goto out;
		entry_at(buf, first);
	}
	/* a packet cannot end in the future (the UST clock is
	 * CLOCK_MONOTONIC, like now_ns), nor hold more than the bogus
	 * bound: such a stream tells nothing */
	rc = e->ts_end <= (uint64_t)b->now_ns && e->discarded < BOGUS && e->offset < BOGUS &&
	     e->packet_size / 8 < BOGUS && first->discarded < BOGUS;
out:
	close(fd);
	return rc;
}

/* The events a stream's writers discarded while its chunk was written.
 * LTTng's count is the stream's total since the session began; LTTng
 * opens every stream of a new chunk with a packet that holds no event
 * (it begins where it ends), whose count is the previous chunks' share.
 * A stream that begins otherwise began with the chunk (the first chunk,
 * or a ring buffer made during it): all of its count is the chunk's. */
static uint64_t chunk_share(const struct idx_entry *first, const struct idx_entry *last)
{
	uint64_t base = first->ts_begin == first->ts_end ? first->discarded : 0;
	return last->discarded > base ? last->discarded - base : 0;
}

/* A subdirectory of the owner's, never through a link. */
static int sub(int dirfd, const char *name, const struct budget *b)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !owned(&st, b))
		return -EPERM;
	return caret_take_fd(&fd);
}

/* The CPU of "<channel>_<cpu>.idx", whose ".idx" is at end: the digits
 * after the last '_'; -1 when there are none, or too many. */
static int16_t stream_cpu(const char *end, const char *name)
{
	const char *p = end;
	int cpu = 0, mul = 1;
	while (p > name && p[-1] >= '0' && p[-1] <= '9' && end - p < 4) {
		p--;
		cpu += (p[0] - '0') * mul;
		mul *= 10;
	}
	return p < end && p > name && p[-1] == '_' ? (int16_t)cpu : -1;
}

/* <uid>/64-bit/index/<channel>_<n>.idx */
static void read_uid(int uidfd, const char *channel, struct budget *bud, struct lttng_drain *out)
{
	int b = sub(uidfd, "64-bit", bud);
	if (b < 0)
		return;
	int ix = sub(b, "index", bud);
	close(b);
	if (ix < 0)
		return;
	DIR *d = fdopendir(ix);
	if (!d) {
		close(ix);
		return;
	}
	size_t cl = channel ? strlen(channel) : 0;
	for (struct dirent *de; bud->entries > 0 && bud->files > 0 && (de = readdir(d));
	     bud->entries--) {
		size_t l = strlen(de->d_name);
		if (channel ? l <= cl + 5 || strncmp(de->d_name, channel, cl) ||
				      de->d_name[cl] != '_'
			    : l <= 4 || de->d_name[0] == '.')
			continue;
		if (strcmp(de->d_name + l - 4, ".idx"))
			continue;
		struct idx_entry first = { 0 }, e = { 0 };
		int r = last_entry(dirfd(d), de->d_name, bud, &first, &e);
		if (r == 0)
			out->ignored++;
		if (r == 2)
			out->files++;
		if (r != 1)
			continue;
		out->files++;
		out->cpus[out->streams] = stream_cpu(de->d_name + l - 4, de->d_name);
		out->ends[out->streams++] = (int64_t)e.ts_end;
		out->bytes += e.offset + e.packet_size / 8;
		out->discarded += e.discarded;
		if (bud->first)
			out->chunk_discarded += chunk_share(&first, &e);
		if ((int64_t)e.ts_end > out->horizon_ns)
			out->horizon_ns = (int64_t)e.ts_end;
	}
	closedir(d);
}

int lttng_drain_open(const char *trace_dir, uint64_t dev, uint64_t ino, uid_t owner)
{
	_cleanup_close_ int fd = open(trace_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* the path may lead elsewhere now (its owner renames at will): only
	 * the directory created for the recording is read */
	if ((dev || ino) && ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino))
		return -ESTALE;
	if (owner != (uid_t)-1 && st.st_uid != owner)
		return -EPERM;
	return caret_take_fd(&fd);
}

/* A rotating session (lttng-sessiond 2.13) writes its first chunk in
 * <trace>/ust and every later one in <trace>/<begin>-<N>
 * ("20261127T022613+0000-3"), created with its streams' index files when
 * the rotation into it starts; the old one leaves for
 * archives/<begin>-<end>-<N> (the first through .tmp_old_chunk) when the
 * rotation completes. The chunk being written is the one with the highest
 * N; -ENOENT when there is none (a session that never rotated). */
static int active_chunk(int top, struct budget *b, uint64_t *n_out)
{
	/* a descriptor of its own: one dup()ed from top would share top's
	 * directory offset, which the first read leaves at the end, and every
	 * later read through the same top (the pacer's, every tick) would
	 * find no chunk at all */
	int fd = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = -errno;
		if (fd >= 0)
			close(fd);
		return e;
	}
	char best[64] = "";
	unsigned long long best_n = 0;
	for (struct dirent *de; b->entries > 0 && (de = readdir(d)); b->entries--) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len < 22 || len >= sizeof(best) || n[8] != 'T' || n[20] != '-' ||
		    (n[15] != '+' && n[15] != '-'))
			continue;
		bool ok = true;
		for (size_t i = 0; i < len && ok; i++)
			if (i != 8 && i != 15 && i != 20)
				ok = n[i] >= '0' && n[i] <= '9';
		unsigned long long k = ok ? strtoull(n + 21, NULL, 10) : 0;
		if (ok && (!best[0] || k > best_n)) {
			memcpy(best, n, len + 1);
			best_n = k;
		}
	}
	closedir(d);
	*n_out = best_n;
	return best[0] ? sub(top, best, b) : -ENOENT;
}

/* <ust>/uid/<uid>/64-bit/index/ of every uid, into out. */
static int read_ust(int u, const char *channel, struct budget *b, struct lttng_drain *out)
{
	int uid = sub(u, "uid", b);
	if (uid < 0)
		return uid;
	DIR *d = fdopendir(uid);
	if (!d) {
		int e = -errno;
		close(uid);
		return e;
	}
	int n = 0;
	for (struct dirent *de;
	     n < MAX_UIDS && b->entries > 0 && b->files > 0 && (de = readdir(d)); b->entries--) {
		if (de->d_name[0] == '.')
			continue;
		int fd = sub(dirfd(d), de->d_name, b);
		if (fd < 0)
			continue;
		n++;
		read_uid(fd, channel, b, out);
		close(fd);
	}
	closedir(d);
	out->truncated = b->entries <= 0 || b->files <= 0 || n >= MAX_UIDS;
	return 0;
}

int lttng_drain_read_at(int top, const char *channel, uid_t owner, int64_t now_ns,
			struct lttng_drain *out)
{
	*out = (struct lttng_drain){ .horizon_ns = -1 };
	struct budget b = { .entries = LTTNG_DRAIN_MAX_ENTRIES, .files = LTTNG_DRAIN_MAX_FILES,
			    .owner = owner, .now_ns = now_ns };
	/* the chunk being written first: when the first rotation starts,
	 * <trace>/ust (the first chunk, no longer written) may still be
	 * there beside it */
	uint64_t n = 0;
	int c = active_chunk(top, &b, &n), u;
	if (c >= 0) {
		out->chunk = n;
		u = sub(c, "ust", &b);
		close(c);
	} else if (c == -ENOENT) {
		u = sub(top, "ust", &b);
	} else {
		return c;
	}
	if (u < 0)
		return u;
	int rc = read_ust(u, channel, &b, out);
	close(u);
	return rc;
}

int lttng_drain_read_chunk(int top, const char *name, uid_t owner, struct lttng_drain *out)
{
	*out = (struct lttng_drain){ .horizon_ns = -1 };
	/* one name below archives/, never a path */
	if (!name[0] || name[0] == '.' || strchr(name, '/'))
		return -EINVAL;
	struct budget b = { .entries = LTTNG_DRAIN_MAX_ENTRIES, .files = LTTNG_DRAIN_MAX_FILES,
			    .owner = owner, .now_ns = INT64_MAX, .first = true };
	int a = sub(top, "archives", &b);
	if (a < 0)
		return a;
	int c = sub(a, name, &b);
	close(a);
	if (c < 0)
		return c;
	int u = sub(c, "ust", &b);
	close(c);
	if (u < 0)
		return u;
	int rc = read_ust(u, NULL, &b, out);
	close(u);
	return rc;
}

int64_t lttng_drain_horizon(const struct lttng_drain *d, int64_t since_ns, int64_t stale_ns)
{
	int n = d->streams < LTTNG_DRAIN_MAX_FILES ? d->streams : LTTNG_DRAIN_MAX_FILES;
	int64_t newest = -1, h = -1;
	for (int i = 0; i < n; i++)
		if (d->ends[i] > newest)
			newest = d->ends[i];
	for (int i = 0; i < n; i++) {
		int64_t t = d->ends[i];
		if (t <= since_ns || newest - t > stale_ns)
			continue;
		if (h < 0 || t < h)
			h = t;
	}
	return h;
}

int64_t lttng_drain_pacing_horizon(const struct lttng_drain *d, int64_t since_ns,
				   int64_t stale_ns, int64_t quiet_for_ns, int64_t quiet_ns,
				   int64_t prev_ns)
{
	int64_t h = lttng_drain_horizon(d, since_ns, stale_ns);
	if (h >= 0 && quiet_for_ns > quiet_ns && d->horizon_ns > h)
		h = d->horizon_ns;
	return h > prev_ns ? h : prev_ns;
}

void lttng_drain_cpu_horizons(const struct lttng_drain *d, int64_t since_ns, int64_t stale_ns,
			      int64_t quiet_for_ns, int64_t quiet_ns, const int64_t *prev,
			      const struct lttng_drain_partial *part, int64_t *h, int ncpu)
{
	int n = d->streams < LTTNG_DRAIN_MAX_FILES ? d->streams : LTTNG_DRAIN_MAX_FILES;
	int64_t newest = -1;
	for (int i = 0; i < n; i++)
		if (d->ends[i] > newest)
			newest = d->ends[i];
	bool any = false, more[LTTNG_DRAIN_MAX_CPUS];
	if (ncpu > LTTNG_DRAIN_MAX_CPUS)
		ncpu = LTTNG_DRAIN_MAX_CPUS;
	for (int c = 0; c < ncpu; c++) {
		/* the written streams' oldest end, else the stale ones' */
		int64_t hc = -1, hs = -1;
		bool stale = false;
		for (int i = 0; i < n; i++) {
			int64_t t = d->ends[i];
			if (d->cpus[i] != c)
				continue;
			bool s = newest > since_ns && newest - t > stale_ns;
			stale = stale || s;
			int64_t *m = s ? &hs : &hc;
			if (t > since_ns && (*m < 0 || t < *m))
				*m = t;
		}
		bool own = hc >= 0;
		if (!own)
			hc = hs;
		if (prev[c] > hc)
			hc = prev[c];
		bool partial = !part || part->fn(part->arg, c, hc);
		if (!own && stale && partial && newest > hc)
			hc = newest;
		any = any || hc >= 0;
		h[c] = hc;
		more[c] = partial;
	}
	for (int c = 0; c < ncpu; c++)
		if (any && quiet_for_ns > quiet_ns && d->horizon_ns > h[c] && more[c])
			h[c] = d->horizon_ns;
}

double lttng_drain_ratio(const struct lttng_drain *d, uint64_t bytes0, int64_t h_ns,
			 uint64_t subbuf, uint64_t est)
{
	/* a read cut at its bounds did not see every stream's partial */
	if (!est || d->bytes < bytes0 || h_ns < 0 || d->truncated)
		return -1;
	int n = d->streams < LTTNG_DRAIN_MAX_FILES ? d->streams : LTTNG_DRAIN_MAX_FILES;
	uint64_t out = d->files > d->streams ? (uint64_t)(d->files - d->streams) : 0;
	for (int i = 0; i < n; i++)
		if (d->ends[i] < h_ns)
			out++;
	return ((double)(d->bytes - bytes0) + (double)out * (double)subbuf) / (double)est;
}

int64_t lttng_drain_read_cost(int64_t wall_ns, int64_t cpu_ns, long sleeps)
{
	return sleeps != 0 || cpu_ns > wall_ns ? wall_ns : cpu_ns;
}

int lttng_drain_read(const char *trace_dir, const char *channel, struct lttng_drain *out)
{
	*out = (struct lttng_drain){ .horizon_ns = -1 };
	_cleanup_close_ int fd = lttng_drain_open(trace_dir, 0, 0, (uid_t)-1);
	if (fd < 0)
		return fd;
	return lttng_drain_read_at(fd, channel, (uid_t)-1, INT64_MAX, out);
}
