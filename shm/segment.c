/* SPDX-License-Identifier: Apache-2.0 */
/* Creating, attaching and validating segments. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shm/caret_shm.h"

static void copy_str(char *dst, size_t dlen, const char *src)
{
	size_t n = src ? strnlen(src, dlen - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static void keep_identity(struct caret_seg *s, const struct caret_shm_header *h)
{
	struct caret_seg_identity *id = &s->id;
	id->pid = h->pid;
	id->uid = h->uid;
	id->start_time = h->start_time;
	id->capacity = h->capacity;
	id->created_ns = h->created_ns;
	id->ctr_slots = h->ctr_slots;
	id->ctr_offset = h->ctr_offset;
	memcpy(id->procname, h->procname, sizeof(id->procname));
	memcpy(id->distribution, h->distribution, sizeof(id->distribution));
	id->procname[sizeof(id->procname) - 1] = '\0';
	id->distribution[sizeof(id->distribution) - 1] = '\0';
}

static int map_fd(struct caret_seg *s, int fd, uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	s->fd = fd;
	s->base = p;
	s->map_len = len;
	s->shared_hdr = p;
	s->area = (uint8_t *)p + CARET_SHM_HEADER_SIZE;
	s->area_cap = len - CARET_SHM_HEADER_SIZE;
	return 0;
}

static int open_excl(const char *path)
{
	int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* Who holds the name: 1 our own user, 0 someone else, -errno. */
static int taken_by_us(const char *path)
{
	int fd = shm_open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? 1 : 0; /* gone: ours to take */
	struct stat st;
	int r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid();
	close(fd);
	return r;
}

/* Creates the segment file under name (path = "/" name), or under a name
 * with a random suffix when another user holds it (B10: any user can
 * pre-create the predictable names). A file of our own user is the
 * segment of this process's previous image (B12: exec keeps pid and start
 * time; its records describe the old image) and is replaced. */
static int create_fresh(char *name, char *path)
{
	int fd = open_excl(path);
	if (fd == -EEXIST && taken_by_us(path) == 1) {
		shm_unlink(path);
		fd = open_excl(path);
	}
	size_t base = strlen(name);
	for (int i = 0; fd == -EEXIST && i < 8; i++) {
		uint64_t rnd;
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
			rnd = (uint64_t)caret_now_ns() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
		if (base + 1 + CARET_SHM_SUFFIX_LEN >= CARET_SHM_NAME_MAX)
			return -ENAMETOOLONG;
		snprintf(name + base, CARET_SHM_NAME_MAX - base, ".%016llx",
			 (unsigned long long)rnd);
		snprintf(path, CARET_SHM_NAME_MAX + 1, "/%s", name);
		fd = open_excl(path);
	}
	return fd;
}

int caret_seg_create(struct caret_seg *s, uint64_t capacity,
		     const char *procname, const char *distribution)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (capacity < CARET_SHM_MIN_CAPACITY || capacity > CARET_SHM_MAX_CAPACITY)
		return -EINVAL;
	capacity &= ~(uint64_t)(CARET_REC_ALIGN - 1);
	pid_t pid = getpid();
	uint64_t start = 0;
	int r = caret_proc_start_time(pid, &start);
	if (r < 0)
		return r;
	r = caret_seg_name(s->name, sizeof(s->name), pid, start);
	if (r < 0)
		return r;
	char path[CARET_SHM_NAME_MAX + 1] = "/";
	strcat(path, s->name);
	int fd = create_fresh(s->name, path);
	if (fd < 0)
		return fd;
	/* umask may have widened nothing, but be explicit: owner only. */
	if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t)capacity) < 0 ||
	    (r = map_fd(s, fd, capacity)) < 0) {
		if (r == 0)
			r = -errno;
		close(fd);
		shm_unlink(path);
		s->fd = -1;
		return r;
	}
	s->owner = true;
	struct caret_shm_header *h = s->shared_hdr;
	h->layout_version = CARET_SHM_LAYOUT_VERSION;
	h->header_size = CARET_SHM_HEADER_SIZE;
	h->capacity = capacity;
	h->pid = pid;
	h->uid = getuid();
	h->start_time = start;
	copy_str(h->procname, sizeof(h->procname), procname);
	copy_str(h->distribution, sizeof(h->distribution), distribution);
	h->created_ns = caret_now_ns();
	/* top's counters take the file's end when the records keep at least
	 * three quarters of it (a small test cache has none) */
	if (capacity >= CARET_SHM_HEADER_SIZE + 4 * CARET_CTR_AREA_SIZE) {
		h->ctr_slots = CARET_CTR_SLOTS;
		h->ctr_offset = capacity - CARET_CTR_AREA_SIZE;
		s->area_cap = h->ctr_offset - CARET_SHM_HEADER_SIZE;
	}
	keep_identity(s, h);
	/* magic last: a reader never accepts a half-filled identity. */
	__atomic_store_n(&h->magic, CARET_SHM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

static int str_terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

int caret_hdr_validate(const struct caret_shm_header *h, uint64_t file_size)
{
	if (h->magic != CARET_SHM_MAGIC)
		return -EBADMSG;
	if (h->layout_version != CARET_SHM_LAYOUT_VERSION)
		return -EPROTO;
	if (h->header_size != CARET_SHM_HEADER_SIZE)
		return -EBADMSG;
	if (h->capacity != file_size || h->capacity < CARET_SHM_MIN_CAPACITY ||
	    h->capacity > CARET_SHM_MAX_CAPACITY ||
	    h->capacity % CARET_REC_ALIGN)
		return -EBADMSG;
	if (h->pid <= 0)
		return -EBADMSG;
	if (!str_terminated(h->procname, sizeof(h->procname)) ||
	    !str_terminated(h->distribution, sizeof(h->distribution)))
		return -EBADMSG;
	if (h->state > CARET_STATE_MAX)
		return -EBADMSG;
	if (h->tail > h->capacity - CARET_SHM_HEADER_SIZE ||
	    h->tail % CARET_REC_ALIGN)
		return -EBADMSG;
	if (h->ctr_slots > CARET_CTR_SLOTS ||
	    (h->ctr_slots == 0) != (h->ctr_offset == 0))
		return -EBADMSG;
	if (h->ctr_slots &&
	    (h->ctr_offset != h->capacity - (uint64_t)h->ctr_slots * sizeof(struct caret_ctr_slot) ||
	     h->ctr_offset < CARET_SHM_HEADER_SIZE + h->tail))
		return -EBADMSG;
	return 0;
}

/* The controller writes the header words: the file it validated (the same
 * inode, whatever the name points to by now) is opened again read-write. */
static int reopen_rw(int *fd)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", *fd);
	int rw = open(proc, O_RDWR | O_CLOEXEC);
	if (rw < 0)
		return -errno;
	close(*fd);
	*fd = rw;
	return 0;
}

int caret_seg_attach(struct caret_seg *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!name || strchr(name, '/') || strlen(name) >= sizeof(s->name))
		return -EINVAL;
	char path[CARET_SHM_NAME_MAX + 1] = "/";
	strcat(path, name);
	/* Validated through a read-only descriptor: closing it on rejection
	 * raises no IN_CLOSE_WRITE (a watcher of /dev/shm would otherwise see
	 * its own rejection as a new event, forever); O_NONBLOCK: a FIFO
	 * planted under the name must not block the open. */
	int fd = shm_open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EBADF;
	/* Writable by others: anyone could forge its records and control words. */
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		r = -EACCES;
	else if ((uint64_t)st.st_size < CARET_SHM_MIN_CAPACITY ||
		 (uint64_t)st.st_size > CARET_SHM_MAX_CAPACITY)
		r = -EBADMSG;
	if (r < 0) {
		close(fd);
		return r;
	}
	/* Validate a private copy, read with pread: no SIGBUS if the owner
	 * truncated the file, and no value changes between check and use. */
	struct caret_shm_header h;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h)) {
		close(fd);
		return -EBADMSG;
	}
	r = caret_hdr_validate(&h, (uint64_t)st.st_size);
	if (r == 0 && h.uid != (uint32_t)st.st_uid)
		r = -EPERM;
	if (r == 0) {
		pid_t npid;
		uint64_t nstart;
		if (caret_seg_parse_name(name, &npid, &nstart) == 0 &&
		    (npid != h.pid || nstart != h.start_time))
			r = -EBADMSG;
	}
	/* Only the header page is mapped: a controller needs its words, and
	 * reads records with pread. Mapping the whole cache would also charge
	 * the agent's pages to our RSS through fault-around. */
	if (r == 0)
		r = reopen_rw(&fd);
	if (r == 0)
		r = map_fd(s, fd, CARET_SHM_HEADER_SIZE);
	if (r == 0) {
		keep_identity(s, &h);
		s->area = NULL;
		s->area_cap = (h.ctr_slots ? h.ctr_offset : (uint64_t)st.st_size) -
			      CARET_SHM_HEADER_SIZE;
	}
	if (r < 0) {
		close(fd);
		s->fd = -1;
		return r;
	}
	strcpy(s->name, name);
	return 0;
}

void caret_seg_close(struct caret_seg *s)
{
	if (s->base)
		munmap(s->base, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	s->base = NULL;
	s->shared_hdr = NULL;
	s->area = NULL;
	s->fd = -1;
}

int caret_seg_unlink(const char *name)
{
	char path[CARET_SHM_NAME_MAX + 1] = "/";
	if (!name || strchr(name, '/') || strlen(name) >= CARET_SHM_NAME_MAX)
		return -EINVAL;
	strcat(path, name);
	return shm_unlink(path) < 0 ? -errno : 0;
}

int caret_seg_hdr_word(const struct caret_seg *s, size_t off, uint64_t *out)
{
	uint64_t prev = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t v;
		ssize_t n = pread(s->fd, &v, sizeof(v), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(v))
			return -EBADMSG;
		if (i > 0 && v == prev) {
			*out = v;
			return 0;
		}
		prev = v;
	}
	return -EAGAIN;
}

int caret_seg_read_area(const struct caret_seg *s, void *buf, uint64_t len, uint64_t off)
{
	uint64_t got = 0;
	while (got < len) {
		ssize_t n = pread(s->fd, (uint8_t *)buf + got, len - got,
				  (off_t)(CARET_SHM_HEADER_SIZE + off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EBADMSG;
		got += (uint64_t)n;
	}
	return 0;
}

/* The committed length, or a negative errno (a truncated file included). */
static int64_t seg_tail(const struct caret_seg *s)
{
	uint64_t tail;
	int r = caret_seg_hdr_word(s, offsetof(struct caret_shm_header, tail), &tail);
	if (r < 0)
		return r;
	return tail > s->area_cap ? -EBADMSG : (int64_t)tail;
}

int64_t caret_seg_snapshot(const struct caret_seg *s, uint8_t **out)
{
	*out = NULL;
	int64_t tail = seg_tail(s);
	if (tail < 0)
		return tail;
	uint8_t *buf = malloc(tail ? (size_t)tail : 1);
	if (!buf)
		return -ENOMEM;
	int r = caret_seg_read_area(s, buf, (uint64_t)tail, 0);
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return tail;
}

int64_t caret_seg_walk(const struct caret_seg *s,
		       int (*cb)(const struct caret_rec_view *v, void *ctx), void *ctx)
{
	enum { CHUNK = 2 * CARET_REC_MAX };
	int64_t t = seg_tail(s);
	if (t < 0)
		return -EBADMSG;
	uint64_t tail = (uint64_t)t;
	uint8_t *buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	int64_t count = 0;
	uint64_t base = 0;
	int r = 0;
	while (base < tail) {
		uint64_t want = tail - base < CHUNK ? tail - base : CHUNK;
		ssize_t n = pread(s->fd, buf, want, (off_t)(CARET_SHM_HEADER_SIZE + base));
		if (n <= 0) {
			r = n < 0 && errno == EINTR ? 0 : -EBADMSG;
			if (r == 0)
				continue;
			break;
		}
		uint64_t off = 0;
		struct caret_rec_view v;
		while ((r = caret_rec_next(buf, (uint64_t)n, &off, &v)) == 1) {
			count++;
			if (cb(&v, ctx)) {
				free(buf);
				return count;
			}
		}
		/* A record cut by the chunk's end is read again from its start
		 * (records are at most half a chunk); anything else is the end
		 * of the committed records or corruption. */
		uint32_t size = 0;
		if (off + sizeof(struct caret_rec_hdr) <= (uint64_t)n)
			memcpy(&size, buf + off + 4, 4);
		bool cut = (uint64_t)n == want && want == CHUNK && off > 0 &&
			   (off + sizeof(struct caret_rec_hdr) > (uint64_t)n ||
			    (size <= CARET_REC_MAX && off + size > (uint64_t)n));
		if (!cut)
			break;
		base += off;
		r = 0;
	}
	free(buf);
	return r < 0 ? r : count;
}
