/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>

#include "check_map.h"

uint64_t check_mix64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit reaches every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t check_hcomb(uint64_t h, uint64_t v)
{
	return check_mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

uint64_t check_hstr(uint64_t h, const char *s)
{
	uint64_t f = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		f = (f ^ (uint8_t)*s) * 0x100000001b3ULL;
	return check_hcomb(h, f);
}

static int map_grow(struct check_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct check_map n = { calloc(cap, 8), calloc(cap, 8), calloc(cap, 1), cap, 0 };
	if (!n.k || !n.v || !n.used) {
		free(n.k);
		free(n.v);
		free(n.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = check_mix64(m->k[i]) & (cap - 1);
		while (n.used[j])
			j = (j + 1) & (cap - 1);
		n.used[j] = 1;
		n.k[j] = m->k[i];
		n.v[j] = m->v[i];
		n.n++;
	}
	free(m->k);
	free(m->v);
	free(m->used);
	*m = n;
	return 0;
}

uint64_t *check_map_slot(struct check_map *m, uint64_t key, bool *added)
{
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	size_t j = check_mix64(key) & (m->cap - 1);
	while (m->used[j]) {
		if (m->k[j] == key) {
			*added = false;
			return &m->v[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->used[j] = 1;
	m->k[j] = key;
	m->v[j] = 0;
	m->n++;
	*added = true;
	return &m->v[j];
}

bool check_map_has(const struct check_map *m, uint64_t key)
{
	if (!m->cap)
		return false;
	size_t j = check_mix64(key) & (m->cap - 1);
	while (m->used[j]) {
		if (m->k[j] == key)
			return true;
		j = (j + 1) & (m->cap - 1);
	}
	return false;
}

void check_map_free(struct check_map *m)
{
	free(m->k);
	free(m->v);
	free(m->used);
}

