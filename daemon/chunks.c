/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/chunks.h"
#include "util/caret_util.h"

/* What one scan looks at before it stops measuring (its owner can fill
 * the tree, and caretd waits for the scan): entries walked, and depth; a
 * removal has the same budget per chunk. */
#define WALK_MAX 100000
#define DEPTH_MAX 16

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* "YYYYmmddTHHMMSS+zzzz": LTTng's ISO 8601 basic time of a chunk bound. */
static bool stamp(const char *s)
{
	return digits(s, 8) && s[8] == 'T' && digits(s + 9, 6) && (s[15] == '+' || s[15] == '-') &&
	       digits(s + 16, 4);
}

int chunks_parse_name(const char *name, uint64_t *index)
{
	size_t n = strnlen(name, CHUNKS_NAME_MAX);
	if (n >= CHUNKS_NAME_MAX || n < 20 + 1 + 20 + 2)
		return -EINVAL;
	if (!stamp(name) || name[20] != '-' || !stamp(name + 21) || name[41] != '-')
		return -EINVAL;
	const char *ix = name + 42;
	if (!*ix || strlen(ix) > 19 || !digits(ix, strlen(ix)))
		return -EINVAL;
	*index = strtoull(ix, NULL, 10);
	return 0;
}

/* Sums the regular files below dirfd; symlinks are not followed. */
static uint64_t measure(int dirfd, int depth, long *budget)
{
	if (depth > DEPTH_MAX)
		return 0;
	DIR *d = caret_opendir_at(dirfd);
	if (!d)
		return 0;
	uint64_t sum = 0;
	struct dirent *e;
	while ((e = readdir(d)) && --*budget >= 0) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			sum += (uint64_t)st.st_size;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				sum += measure(sub, depth + 1, budget);
				close(sub);
			}
		}
	}
	closedir(d);
	return sum;
}

static int by_index(const void *a, const void *b)
{
	const struct chunk_info *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct prune_arg {
	const char *dir;
	uint64_t dev, ino;
	uint32_t keep;
	uint64_t max_size;
};

static int remove_chunk(int arch, const char *name)
{
	int fd = openat(arch, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	long budget = WALK_MAX;
	int rc = creds_remove_below(fd, &budget);
	close(fd);
	if (unlinkat(arch, name, AT_REMOVEDIR) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* Runs as the recording's owner (creds_run_as). */
static int prune_job(void *arg, void *outp, size_t outlen, char *err, size_t errlen)
{
	(void)outlen;
	const struct prune_arg *a = arg;
	struct chunk_list *out = outp;
	memset(out, 0, sizeof(*out));
	int top = open(a->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0) {
		snprintf(err, errlen, "%s: %s", a->dir, strerror(errno));
		return -errno;
	}
	struct stat st;
	if (fstat(top, &st) < 0 ||
	    ((a->dev || a->ino) && ((uint64_t)st.st_dev != a->dev || (uint64_t)st.st_ino != a->ino))) {
		close(top);
		snprintf(err, errlen, "%s is no longer the recording's trace directory", a->dir);
		return -ESTALE;
	}
	int arch = openat(top, "archives", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(top);
	if (arch < 0)
		return errno == ENOENT ? 0 : -errno; /* no chunk archived yet */
	DIR *d = caret_opendir_at(arch);
	if (!d) {
		int r = -errno;
		close(arch);
		return r;
	}
	struct dirent *e;
	long seen = 0;
	/* one budget for the whole scan: caretd waits for it, and the owner
	 * may fill the tree (sizes beyond it are lower bounds) */
	long budget = WALK_MAX;
	while ((e = readdir(d)) && ++seen < WALK_MAX) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		uint64_t ix;
		if (chunks_parse_name(e->d_name, &ix) < 0 ||
		    fstatat(arch, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    out->n >= CHUNKS_MAX) {
			out->skipped++;
			continue;
		}
		struct chunk_info *c = &out->c[out->n++];
		memcpy(c->name, e->d_name, strlen(e->d_name) + 1); /* parsed: it fits */
		c->index = ix;
		int sub = openat(arch, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		c->bytes = sub >= 0 ? measure(sub, 0, &budget) : 0;
		if (sub >= 0)
			close(sub);
	}
	closedir(d);
	qsort(out->c, (size_t)out->n, sizeof(out->c[0]), by_index);
	for (int i = 0; i < out->n; i++)
		out->bytes += out->c[i].bytes;
	int rc = 0, first = 0;
	while (first < out->n &&
	       ((a->keep && (uint32_t)(out->n - first) > a->keep) ||
		(a->max_size && out->bytes > a->max_size))) {
		struct chunk_info *c = &out->c[first];
		int r = remove_chunk(arch, c->name);
		if (r < 0) {
			if (!rc) {
				rc = r;
				snprintf(err, errlen, "cannot remove chunk %s: %s", c->name,
					 strerror(-r));
			}
			break; /* the bound cannot hold: say so, keep the rest */
		}
		out->removed_index[out->removed++] = c->index;
		out->bytes -= c->bytes;
		first++;
	}
	memmove(out->c, out->c + first, sizeof(out->c[0]) * (size_t)(out->n - first));
	out->n -= first;
	close(arch);
	return rc;
}

int chunks_prune(const struct creds_id *as, const char *trace_dir, uint64_t dev, uint64_t ino,
		 uint32_t keep, uint64_t max_size, struct chunk_list *out, char *err,
		 size_t errlen)
{
	struct prune_arg a = { trace_dir, dev, ino, keep, max_size };
	return creds_run_as(as, prune_job, &a, out, sizeof(*out), err, errlen);
}
