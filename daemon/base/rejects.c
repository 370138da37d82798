/* SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/rejects.h"
#include "shm/caret_shm.h"

struct reject {
	char name[CARET_SHM_NAME_MAX];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	uint64_t seq; /* insertion order: the oldest goes first */
};

static struct reject tab[REJECTS_MAX];
static int used;
static uint64_t seq;

static struct reject *find(const char *name)
{
	for (int i = 0; i < used; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

static bool same_ts(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool rejects_unchanged(const char *name, const struct stat *st)
{
	const struct reject *r = find(name);
	return r && r->dev == st->st_dev && r->ino == st->st_ino && r->size == st->st_size &&
	       same_ts(r->mtime, st->st_mtim) && same_ts(r->ctime, st->st_ctim);
}

void rejects_add(const char *name, const struct stat *st)
{
	struct reject *r = find(name);
	if (!r && used < REJECTS_MAX)
		r = &tab[used++];
	if (!r) {
		r = &tab[0];
		for (int i = 1; i < used; i++)
			if (tab[i].seq < r->seq)
				r = &tab[i];
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->size = st->st_size;
	r->mtime = st->st_mtim;
	r->ctime = st->st_ctim;
	r->seq = ++seq;
}

void rejects_forget(const char *name)
{
	struct reject *r = find(name);
	if (r)
		*r = tab[--used];
}

int rejects_count(void)
{
	return used;
}
