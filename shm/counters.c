/* SPDX-License-Identifier: Apache-2.0 */
/*
 * top's counters (the counter area of proto/caret_segment.h): the owner
 * counts while watched, the controller sets `watched` and copies the area
 * with pread (no SIGBUS when the owner truncates its file).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "shm/caret_shm.h"

const uint32_t *caret_own_watched_word(const struct caret_seg *s)
{
	return &s->shared_hdr->watched;
}

unsigned caret_ctr_bucket(uint64_t ns)
{
	if (ns < (1ULL << CARET_CTR_HIST_SHIFT))
		return 0;
	unsigned b = 64u - (unsigned)__builtin_clzll(ns) - CARET_CTR_HIST_SHIFT;
	return b < CARET_CTR_BUCKETS ? b : CARET_CTR_BUCKETS - 1;
}

/* The slot of key, claimed when it has none; NULL when every slot is
 * taken by others. Fibonacci hashing: callbacks are 8- or 16-byte aligned
 * heap objects, whose low bits carry nothing. */
static inline __attribute__((always_inline)) struct caret_ctr_slot *
slot_of(struct caret_seg *s, uint64_t key)
{
	uint32_t n = s->id.ctr_slots;
	struct caret_ctr_slot *t = (struct caret_ctr_slot *)(s->base + s->id.ctr_offset);
	uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 40) % n;
	for (uint32_t probe = 0; probe < n; probe++, i = i + 1 == n ? 0 : i + 1) {
		uint64_t k = __atomic_load_n(&t[i].key, __ATOMIC_RELAXED);
		if (k == key)
			return &t[i];
		if (k)
			continue;
		if (__atomic_compare_exchange_n(&t[i].key, &k, key, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED) ||
		    k == key)
			return &t[i];
	}
	return NULL;
}

static void raise_max(uint64_t *word, uint64_t ns, uint32_t generation)
{
	uint64_t want = CARET_CTR_MAX(generation, ns);
	uint64_t m = __atomic_load_n(word, __ATOMIC_RELAXED);
	while (CARET_CTR_MAX_GEN(m) != (generation & CARET_CTR_GEN_MASK) ||
	       CARET_CTR_MAX_NS(m) < CARET_CTR_MAX_NS(want)) {
		if (__atomic_compare_exchange_n(word, &m, want, 1, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
}

void caret_own_count(struct caret_seg *s, enum caret_ctr_kind kind, const void *key,
		     uint64_t ns, uint32_t generation)
{
	if (!s || !s->owner || !s->id.ctr_slots || !key)
		return;
	struct caret_ctr_slot *c = slot_of(s, CARET_CTR_KEY(kind, (uintptr_t)key));
	if (!c) {
		__atomic_fetch_add(&s->shared_hdr->ctr_lost, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&c->count, 1, __ATOMIC_RELAXED);
	if (kind != CARET_CTR_CALLBACK)
		return;
	__atomic_fetch_add(&c->total_ns, ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->hist[caret_ctr_bucket(ns)], 1, __ATOMIC_RELAXED);
	raise_max(&c->max, ns, generation);
}

/* caret_own_count's steps again rather than shared, and slot_of inlined
 * in both: with two callers gcc made calls of them, 10 instructions more
 * per watched callback pair (P13). */
void caret_own_take(struct caret_seg *s, const void *sub, bool timed, int64_t lat_ns,
		    uint32_t generation)
{
	if (!s || !s->owner || !s->id.ctr_slots || !sub)
		return;
	struct caret_ctr_slot *c = slot_of(s, CARET_CTR_KEY(CARET_CTR_SUBSCRIPTION, (uintptr_t)sub));
	if (!c) {
		__atomic_fetch_add(&s->shared_hdr->ctr_lost, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&c->count, 1, __ATOMIC_RELAXED);
	if (!timed)
		return;
	if (lat_ns < 0 || (uint64_t)lat_ns > CARET_CTR_LAT_ABSURD_NS) {
		__atomic_fetch_add(&c->lat_apart, 1, __ATOMIC_RELAXED);
		return;
	}
	uint64_t ns = (uint64_t)lat_ns;
	__atomic_fetch_add(&c->lat_n, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->total_ns, ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->hist[caret_ctr_bucket(ns)], 1, __ATOMIC_RELAXED);
	raise_max(&c->max, ns, generation);
}

/* Bucket b's bounds in ns (the last one open: bounded by max_ns). */
static void bucket_bounds(unsigned b, uint64_t *lo, uint64_t *hi)
{
	*lo = b ? 1ULL << (CARET_CTR_HIST_SHIFT + b - 1) : 0;
	*hi = 1ULL << (CARET_CTR_HIST_SHIFT + b);
}

uint64_t caret_ctr_quantile(const uint32_t hist[CARET_CTR_BUCKETS], double q, uint64_t max_ns)
{
	uint64_t n = 0;
	for (unsigned b = 0; b < CARET_CTR_BUCKETS; b++)
		n += hist[b];
	if (!n || !(q > 0.0))
		return 0;
	if (q > 1.0)
		q = 1.0;
	/* the rank of the quantile, 1-based: the smallest call count whose
	 * share reaches q */
	double rank = q * (double)n;
	uint64_t below = 0;
	for (unsigned b = 0; b < CARET_CTR_BUCKETS; b++) {
		if (!hist[b] || (double)(below + hist[b]) < rank) {
			below += hist[b];
			continue;
		}
		uint64_t lo, hi;
		bucket_bounds(b, &lo, &hi);
		if (b == CARET_CTR_BUCKETS - 1 || (max_ns && hi > max_ns))
			hi = max_ns > lo ? max_ns : hi;
		double frac = (rank - (double)below) / (double)hist[b];
		uint64_t v = lo + (uint64_t)(frac * (double)(hi - lo));
		return max_ns && v > max_ns ? max_ns : v;
	}
	return max_ns;
}

void caret_drive_watch(struct caret_seg *s, uint32_t generation)
{
	__atomic_store_n(&s->shared_hdr->watched, generation, __ATOMIC_RELEASE);
}

int caret_seg_watched(const struct caret_seg *s, uint32_t *out)
{
	/* the 8 bytes read are `watched`, then ctr_slots, as in memory */
	_Static_assert(offsetof(struct caret_shm_header, watched) % 8 == 0 &&
			       offsetof(struct caret_shm_header, ctr_slots) ==
				       offsetof(struct caret_shm_header, watched) + 4,
		       "watched, then ctr_slots, in one aligned word");
	uint64_t w;
	int r = caret_seg_hdr_word(s, offsetof(struct caret_shm_header, watched), &w);
	if (r < 0)
		return r;
	uint32_t half[2];
	memcpy(half, &w, sizeof(half));
	*out = half[0];
	return 0;
}

int caret_seg_read_counters(const struct caret_seg *s, struct caret_ctr_slot *out,
			    uint32_t max, uint64_t *lost)
{
	*lost = 0;
	uint32_t n = s->id.ctr_slots < max ? s->id.ctr_slots : max;
	if (!n)
		return 0;
	int r = caret_seg_hdr_word(s, offsetof(struct caret_shm_header, ctr_lost), lost);
	if (r < 0 && r != -EAGAIN)
		return r;
	size_t len = (size_t)n * sizeof(*out), got = 0;
	while (got < len) {
		ssize_t k = pread(s->fd, (uint8_t *)out + got, len - got,
				  (off_t)(s->id.ctr_offset + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EBADMSG;
		got += (size_t)k;
	}
	return (int)n;
}
