/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verdict table the runtime hooks read without a lock: open addressing
 * over handle addresses, keys only ever added (claimed with a CAS, since
 * runtime threads claim unknown publishers while init code stores
 * verdicts), values stored with release and read with acquire.
 */
#include <string.h>

#include "agent/filter_verdicts.h"

#define VT_BITS 15
#define VT_SIZE (1u << VT_BITS)
static struct filter_vslot {
	uintptr_t key;                 /* atomic; 0 = empty */
	uint32_t value[FILTER_NSETS];  /* atomic */
} vt[VT_SIZE];

static uint32_t vt_hash(uintptr_t k)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - VT_BITS));
}

/* The null pointer is a key too (rclcpp_publish passes it), stored as ~0. */
struct filter_vslot *filter_vt_claim(const void *key, bool *fresh)
{
	uintptr_t k = key ? (uintptr_t)key : ~(uintptr_t)0;
	for (uint32_t i = vt_hash(k), n = 0; n < VT_SIZE; n++, i = (i + 1) & (VT_SIZE - 1)) {
		uintptr_t cur = __atomic_load_n(&vt[i].key, __ATOMIC_ACQUIRE);
		if (cur == 0) {
			uintptr_t zero = 0;
			if (__atomic_compare_exchange_n(&vt[i].key, &zero, k, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				*fresh = true;
				return &vt[i];
			}
			cur = zero;
		}
		if (cur == k) {
			*fresh = false;
			return &vt[i];
		}
	}
	return NULL;
}

/* A full table leaves the verdict unknown, which keeps the events. */
void filter_vt_set(const void *key, int set, uint32_t v)
{
	bool fresh;
	struct filter_vslot *sl = key ? filter_vt_claim(key, &fresh) : NULL;
	if (sl)
		__atomic_store_n(&sl->value[set], v, __ATOMIC_RELEASE);
}

uint32_t filter_vt_get(const void *key, int set)
{
	uintptr_t k = key ? (uintptr_t)key : ~(uintptr_t)0;
	for (uint32_t i = vt_hash(k), n = 0; n < VT_SIZE; n++, i = (i + 1) & (VT_SIZE - 1)) {
		uintptr_t cur = __atomic_load_n(&vt[i].key, __ATOMIC_ACQUIRE);
		if (cur == k)
			return __atomic_load_n(&vt[i].value[set], __ATOMIC_ACQUIRE);
		if (cur == 0)
			return V_UNKNOWN;
	}
	return V_UNKNOWN;
}

void filter_vt_clear(void)
{
	memset(vt, 0, sizeof(vt));
}
