/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small containers `caretctl check` builds its model with: an open
 * addressing u64 -> u64 map, growable arrays and 64-bit hashing of keys.
 */
#ifndef CARETCTL_CHECK_MAP_H
#define CARETCTL_CHECK_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* `used` marks slots: every u64, 0 included, is a valid key. */
struct check_map {
	uint64_t *k, *v;
	uint8_t *used;
	size_t cap, n;
};

uint64_t check_mix64(uint64_t x);
uint64_t check_hcomb(uint64_t h, uint64_t v);
uint64_t check_hstr(uint64_t h, const char *s);

/* The value slot of key, added (as 0) if absent; NULL on ENOMEM. */
uint64_t *check_map_slot(struct check_map *m, uint64_t key, bool *added);
bool check_map_has(const struct check_map *m, uint64_t key);
void check_map_free(struct check_map *m);


#endif
