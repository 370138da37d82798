/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader's tests' fixture (reader_fixture.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "shm/reader.h"
#include "tests/unit/reader_fixture.h"

char prefix[32];
static int tmp_counter;

void setup(void)
{
	snprintf(prefix, sizeof(prefix), "caret-rd-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
}

/* A segment that looks like agent `pid` (start time `start`) made it: made
 * by caret_seg_create under a scratch prefix, then given that identity. */
struct caret_seg mk(pid_t pid, uint64_t start)
{
	char tmp[32];
	struct caret_seg s;
	snprintf(tmp, sizeof(tmp), "caret-tmp-%d-%d", (int)getpid(), tmp_counter++);
	setenv("CARET_SHM_PREFIX", tmp, 1);
	ck_assert_int_eq(caret_seg_create(&s, 1 << 20, "proc", "jazzy"), 0);
	setenv("CARET_SHM_PREFIX", prefix, 1);
	s.shared_hdr->pid = pid;
	s.shared_hdr->start_time = start;
	snprintf(s.shared_hdr->procname, sizeof(s.shared_hdr->procname), "p%d", (int)pid);
	char from[160], to[160], name[CARET_SHM_NAME_MAX];
	ck_assert_int_eq(caret_seg_name(name, sizeof(name), pid, start), 0);
	snprintf(from, sizeof(from), "/dev/shm/%s", s.name);
	snprintf(to, sizeof(to), "/dev/shm/%s", name);
	ck_assert_int_eq(rename(from, to), 0);
	snprintf(s.name, sizeof(s.name), "%s", name);
	return s;
}

void put(struct caret_seg *s, int64_t ts, uint64_t handle)
{
	union caret_arg a[] = { CARET_P(handle) };
	ck_assert_int_eq(caret_seg_append(s, CARET_KIND_rcl_init, ts, a), 0);
}

void drop(struct caret_seg *s)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, s->name);
	caret_seg_close(s);
	caret_seg_unlink(name);
}


int collect(const struct caret_reader_event *e, void *ctx)
{
	struct evs *l = ctx;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		ck_assert_ptr_nonnull(l->v);
	}
	ck_assert_uint_eq(e->rec.kind, CARET_KIND_rcl_init);
	struct ev *v = &l->v[l->n++];
	memset(v, 0, sizeof(*v)); /* compared with memcmp: no stray padding */
	v->ts = e->rec.init_timestamp;
	v->pid = e->pid;
	v->start = e->start_time;
	v->idx = e->index;
	v->handle = e->rec.args[0].u;
	return 0;
}

int ev_cmp(const struct ev *a, const struct ev *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

void assert_sorted(const struct evs *l)
{
	for (size_t i = 1; i < l->n; i++)
		ck_assert_msg(ev_cmp(&l->v[i - 1], &l->v[i]) < 0, "not in order at %zu", i);
}

struct caret_reader *open_reader(int64_t window)
{
	struct caret_reader *r;
	struct caret_reader_opts o = { .window_ns = window };
	ck_assert_int_eq(caret_reader_open(&r, &o), 0);
	return r;
}

struct evs read_all(struct caret_reader *r)
{
	struct evs l = { 0 };
	caret_reader_seek_begin(r);
	ck_assert_int_ge(caret_reader_read_count(r, UINT64_MAX, collect, &l), 0);
	return l;
}

struct caret_seg set3[3];
size_t set3_total;

void make_set3(void)
{
	set3[0] = mk(300, 7);
	set3[1] = mk(100, 5);
	set3[2] = mk(300, 2);
	static const int64_t ts[3][8] = {
		{ 10, 10, 30, 20, 20, 50, 40, 40 },
		{ 20, 10, 10, 10, 60, 55, 50, 50 },
		{ 40, 30, 20, 10, 10, 30, 70, 70 },
	};
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 8; i++)
			put(&set3[s], ts[s][i], (uint64_t)(s * 100 + i));
	set3_total = 24;
}

void drop_set3(void)
{
	for (int s = 0; s < 3; s++)
		drop(&set3[s]);
}
