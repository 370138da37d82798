/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/recording/chunks.h"
#include "util/caret_util.h"

/* What one scan looks at before it stops measuring (its owner can fill
 * the tree): entries walked, and depth. Removal has its own budget,
 * CHUNKS_REMOVE_MAX for the whole prune. */
#define WALK_MAX 100000
#define DEPTH_MAX 16
/* Removal goes by slices of the budget, the deadline looked at between
 * them: a slice of a tmpfs takes about a millisecond. */
#define SLICE 1024

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

struct scan {
	long budget;         /* entries still looked at */
	int64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
	bool cut;            /* stopped at the deadline */
};

static bool past(struct scan *w)
{
	if (w->deadline_ns && caret_now_ns() >= w->deadline_ns)
		w->cut = true;
	return w->cut;
}

/* Sums the regular files below dirfd; symlinks are not followed. */
static uint64_t measure(int dirfd, int depth, struct scan *w)
{
	if (depth > DEPTH_MAX)
		return 0;
	DIR *d = caret_opendir_at(dirfd);
	if (!d)
		return 0;
	uint64_t sum = 0;
	struct dirent *e;
	while ((e = readdir(d)) && --w->budget >= 0) {
		if (!(w->budget % SLICE) && past(w))
			break;
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
				sum += measure(sub, depth + 1, w);
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
	int64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
	bool background;     /* caretd does not wait: below everyone else's CPU */
};

/* Empties and removes archives/name, within what is left of the prune's
 * budget and before its deadline: 0 (gone), 1 (cut: the rest stays for
 * the next prune) or -errno. */
static int remove_chunk(int arch, const char *name, struct scan *rm, uint64_t *entries)
{
	int fd = openat(arch, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = -EFBIG;
	while (rc == -EFBIG) {
		if (rm->budget <= 0 || past(rm)) {
			rc = 1;
			break;
		}
		long slice = rm->budget < SLICE ? rm->budget : SLICE, left = slice;
		rc = creds_remove_below(fd, &left);
		long used = slice - (left > 0 ? left : 0);
		rm->budget -= used;
		*entries += (uint64_t)used;
	}
	close(fd);
	if (!rc && unlinkat(arch, name, AT_REMOVEDIR) < 0)
		rc = -errno;
	return rc;
}

/* The chunks of archives, oldest first: false when the listing was cut
 * (its deadline), and then nothing may be removed on its word. */
static bool list_chunks(int arch, struct chunk_list *out, struct scan *w)
{
	DIR *d = caret_opendir_at(arch);
	if (!d)
		return false;
	struct dirent *e;
	long seen = 0;
	bool whole = true;
	while ((e = readdir(d)) && ++seen < WALK_MAX) {
		if (!(seen % SLICE) && past(w)) {
			whole = false;
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		uint64_t ix;
		struct stat st;
		if (chunks_parse_name(e->d_name, &ix) < 0 ||
		    fstatat(arch, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    out->n >= CHUNKS_MAX) {
			out->skipped++;
			continue;
		}
		struct chunk_info *c = &out->c[out->n++];
		memcpy(c->name, e->d_name, strlen(e->d_name) + 1); /* parsed: it fits */
		c->index = ix;
	}
	closedir(d);
	qsort(out->c, (size_t)out->n, sizeof(out->c[0]), by_index);
	return whole;
}

/* Runs as the recording's owner (creds_run_as). */
static int prune_job(void *arg, void *outp, size_t outlen, char *err, size_t errlen)
{
	(void)outlen;
	const struct prune_arg *a = arg;
	struct chunk_list *out = outp;
	memset(out, 0, sizeof(*out));
	if (a->background) {
		/* caretd's loop and the traced processes first; and nothing
		 * left removing after caretd is gone */
		(void)setpriority(PRIO_PROCESS, 0, 10);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
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
	/* one budget for the whole measure (sizes beyond it are lower
	 * bounds), another for the whole removal (caretd(8): entries removed
	 * per rotation), one deadline for both */
	struct scan w = { .budget = WALK_MAX, .deadline_ns = a->deadline_ns };
	bool whole = list_chunks(arch, out, &w);
	for (int i = 0; i < out->n; i++) {
		int sub = openat(arch, out->c[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		out->c[i].bytes = sub >= 0 && !w.cut ? measure(sub, 0, &w) : 0;
		if (sub >= 0)
			close(sub);
		out->bytes += out->c[i].bytes;
	}
	struct scan rm = { .budget = CHUNKS_REMOVE_MAX, .deadline_ns = a->deadline_ns };
	int rc = 0, first = 0;
	while (whole && first < out->n &&
	       ((a->keep && (uint32_t)(out->n - first) > a->keep) ||
		(a->max_size && out->bytes > a->max_size))) {
		struct chunk_info *c = &out->c[first];
		int r = remove_chunk(arch, c->name, &rm, &out->removed_entries);
		if (r > 0) {
			out->cut = rm.cut ? CHUNKS_CUT_DEADLINE : CHUNKS_CUT_BUDGET;
			break; /* the rest at the next prune */
		}
		if (r < 0) {
			rc = r;
			snprintf(err, errlen, "cannot remove chunk %s: %s", c->name, strerror(-r));
			break; /* the bound cannot hold: say so, keep the rest */
		}
		out->removed_index[out->removed++] = c->index;
		out->bytes -= c->bytes;
		first++;
	}
	/* sizes cut short understate a --max-size bound: say so */
	if (!whole || (w.cut && a->max_size && !out->cut))
		out->cut = CHUNKS_CUT_DEADLINE;
	memmove(out->c, out->c + first, sizeof(out->c[0]) * (size_t)(out->n - first));
	out->n -= first;
	close(arch);
	return rc;
}

static int64_t deadline_of(int64_t deadline_ms)
{
	return deadline_ms > 0 ? caret_now_ns() + deadline_ms * 1000000 : 0;
}

int chunks_prune(const struct creds_id *as, const char *trace_dir, uint64_t dev, uint64_t ino,
		 uint32_t keep, uint64_t max_size, int64_t deadline_ms, struct chunk_list *out,
		 char *err, size_t errlen)
{
	struct prune_arg a = { trace_dir, dev, ino, keep, max_size, deadline_of(deadline_ms),
			       false };
	return creds_run_as(as, prune_job, &a, out, sizeof(*out), err, errlen);
}

int chunks_prune_start(const struct creds_id *as, const char *trace_dir, uint64_t dev,
		       uint64_t ino, uint32_t keep, uint64_t max_size, int64_t deadline_ms,
		       struct chunk_list *out, struct creds_job *job)
{
	struct prune_arg a = { trace_dir, dev, ino, keep, max_size, deadline_of(deadline_ms),
			       true };
	return creds_job_start(as, prune_job, &a, out, sizeof(*out), job);
}

int chunks_prune_finish(struct creds_job *job, struct chunk_list *out, char *err, size_t errlen)
{
	return creds_job_finish(job, out, sizeof(*out), err, errlen);
}
