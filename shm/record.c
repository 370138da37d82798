/* SPDX-License-Identifier: Apache-2.0 */
/* Record encoding, lock-free append, and the validating decoder. */
#include <errno.h>
#include <string.h>

#include "shm/caret_shm.h"

static inline uint32_t align8(uint32_t v)
{
	return (v + CARET_REC_ALIGN - 1) & ~(CARET_REC_ALIGN - 1);
}

static inline uint32_t str_len(const char *s)
{
	return s ? (uint32_t)strnlen(s, CARET_STR_MAX) : 0;
}

/* Size of a record of signature `sig`; string lengths go to lens[] so the
 * encoder does not measure them again (the capture path is on app threads). */
static uint32_t measure(const char *sig, const union caret_arg *args, uint32_t *lens)
{
	uint32_t n = sizeof(struct caret_rec_hdr);
	for (unsigned i = 0; sig[i]; i++) {
		if (sig[i] == 's') {
			lens[i] = str_len(args[i].s);
			n += 4 + lens[i] + 1;
		} else {
			n += 8;
		}
	}
	return align8(n);
}

static void encode(uint8_t *buf, uint32_t size, const char *sig, uint32_t kind, int64_t ts,
		   const union caret_arg *args, const uint32_t *lens)
{
	struct caret_rec_hdr *h = (struct caret_rec_hdr *)buf;
	h->size = size;
	h->init_timestamp = ts;
	h->claim = 0;
	uint8_t *p = buf + sizeof(*h);
	for (unsigned i = 0; sig[i]; i++) {
		if (sig[i] == 's') {
			uint32_t l = lens[i];
			memcpy(p, &l, 4);
			if (l)
				memcpy(p + 4, args[i].s, l);
			p[4 + l] = '\0';
			p += 4 + l + 1;
		} else {
			memcpy(p, &args[i].u, 8);
			p += 8;
		}
	}
	/* The area is zero-filled and never reused, so padding is already 0. */
	__atomic_store_n(&h->kind, kind, __ATOMIC_RELEASE);
}

uint32_t caret_rec_encoded_size(uint32_t kind, const union caret_arg *args)
{
	uint32_t lens[CARET_MAX_FIELDS];
	const char *sig = caret_kind_sig(kind);
	return sig ? measure(sig, args, lens) : 0;
}

void caret_rec_encode(uint8_t *buf, uint32_t size, uint32_t kind, int64_t ts,
		      const union caret_arg *args)
{
	uint32_t lens[CARET_MAX_FIELDS];
	const char *sig = caret_kind_sig(kind);
	measure(sig, args, lens);
	encode(buf, size, sig, kind, ts, args, lens);
}

/*
 * The append path (the agent's init hooks, on application threads) reads
 * each kind's layout from this table built at compile time from the same
 * signatures (CARET_KINDS), instead of walking the signature string twice:
 * 270 instructions per rcl_publisher_init record went to 169 (P3 of make
 * bench, callgrind). The generic measure()/encode() above stay the
 * reference: tests/unit/check_shm.c compares both encodings byte for byte.
 */
struct rec_layout {
	uint8_t nfields;
	uint8_t smask;  /* bit i: field i is a string */
	uint16_t fixed; /* header + 8 per non-string + 4 + 1 per string */
};

#define SIG_AT_(sig, i) (sizeof(sig) - 1 > (i) ? (sig)[(i) < sizeof(sig) ? (i) : 0] : 0)
#define SIG_S_(sig, i) (SIG_AT_(sig, i) == 's' ? 1u << (i) : 0u)
#define SIG_W_(sig, i) (SIG_AT_(sig, i) == 0 ? 0u : SIG_AT_(sig, i) == 's' ? 5u : 8u)
#define LAYOUT_(id, name, sig, ...)                                                   \
	[id] = { sizeof(sig) - 1,                                                     \
		 SIG_S_(sig, 0) | SIG_S_(sig, 1) | SIG_S_(sig, 2) | SIG_S_(sig, 3) |  \
			 SIG_S_(sig, 4) | SIG_S_(sig, 5),                             \
		 sizeof(struct caret_rec_hdr) + SIG_W_(sig, 0) + SIG_W_(sig, 1) +     \
			 SIG_W_(sig, 2) + SIG_W_(sig, 3) + SIG_W_(sig, 4) +           \
			 SIG_W_(sig, 5) },
static const struct rec_layout layouts[CARET_KIND_COUNT] = { CARET_KINDS(LAYOUT_) };
#undef LAYOUT_
_Static_assert(CARET_MAX_FIELDS <= 6, "LAYOUT_ reads up to 6 signature characters");

static inline __attribute__((always_inline)) int
append(struct caret_seg *s, uint32_t kind, int64_t ts, const union caret_arg *args, uint64_t *at)
{
	if (kind >= CARET_KIND_COUNT || layouts[kind].nfields == 0)
		return -EINVAL;
	const struct rec_layout L = layouts[kind];
	uint32_t lens[CARET_MAX_FIELDS];
	uint32_t size = L.fixed;
	for (unsigned m = L.smask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		lens[i] = str_len(args[i].s);
		size += lens[i];
	}
	size = align8(size);
	struct caret_shm_header *h = s->shared_hdr;
	uint64_t off = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);
	/* CAS rather than fetch_add: a failed reservation must not move tail
	 * past the end, or later smaller records would be refused too early
	 * and readers would see a hole. */
	do {
		if (off + size > s->area_cap) {
			__atomic_fetch_add(&h->dropped, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&h->dropped_bytes, size, __ATOMIC_RELAXED);
			return -ENOSPC;
		}
	} while (!__atomic_compare_exchange_n(&h->tail, &off, off + size, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	uint8_t *buf = s->area + off;
	struct caret_rec_hdr *rh = (struct caret_rec_hdr *)buf;
	rh->size = size;
	rh->init_timestamp = ts;
	uint8_t *p = buf + sizeof(*rh);
	for (unsigned i = 0; i < L.nfields; i++) {
		if (L.smask & (1u << i)) {
			uint32_t l = lens[i];
			memcpy(p, &l, 4);
			memcpy(p + 4, args[i].s ? args[i].s : "", l);
			p[4 + l] = '\0';
			p += 4 + l + 1;
		} else {
			memcpy(p, &args[i].u, 8);
			p += 8;
		}
	}
	/* The area is zero-filled and never reused, so padding and claim are
	 * already 0. */
	__atomic_store_n(&rh->kind, kind, __ATOMIC_RELEASE);
	/* Sequentially consistent: the agent reads `state` next and leaves
	 * the record to the replay unless it is live (caret_own_claim_live);
	 * a controller that moves the state afterwards must count it. */
	__atomic_fetch_add(&h->records, 1, __ATOMIC_SEQ_CST);
	if (at)
		*at = off;
	return 0;
}

int caret_seg_append(struct caret_seg *s, uint32_t kind, int64_t ts,
		     const union caret_arg *args)
{
	return append(s, kind, ts, args, NULL);
}

int caret_seg_append_at(struct caret_seg *s, uint32_t kind, int64_t ts,
			const union caret_arg *args, uint64_t *at)
{
	return append(s, kind, ts, args, at);
}

int caret_rec_next(const uint8_t *area, uint64_t len, uint64_t *off,
		   struct caret_rec_view *v)
{
	uint64_t o = *off;
	if (o % CARET_REC_ALIGN)
		return -EBADMSG;
	if (o >= len || len - o < sizeof(struct caret_rec_hdr))
		return 0;
	const struct caret_rec_hdr *h = (const void *)(area + o);
	uint32_t kind = __atomic_load_n(&h->kind, __ATOMIC_ACQUIRE);
	if (kind == CARET_KIND_NONE)
		return 0; /* being written, or the end of the area */
	uint32_t size = __atomic_load_n(&h->size, __ATOMIC_RELAXED);
	const char *sig = caret_kind_sig(kind);
	if (!sig || size < sizeof(*h) || size > CARET_REC_MAX ||
	    size % CARET_REC_ALIGN || size > len - o)
		return -EBADMSG;
	v->kind = kind;
	v->size = size;
	memcpy(&v->init_timestamp, &h->init_timestamp, 8);
	v->claim = __atomic_load_n(&h->claim, __ATOMIC_RELAXED);
	const uint8_t *p = area + o + sizeof(*h);
	const uint8_t *end = area + o + size;
	unsigned i;
	for (i = 0; sig[i]; i++) {
		if (sig[i] == 's') {
			uint32_t l;
			if (end - p < 4)
				return -EBADMSG;
			memcpy(&l, p, 4);
			if (l > CARET_STR_MAX || (uint64_t)(end - p) < 4ull + l + 1 ||
			    p[4 + l] != '\0' || memchr(p + 4, '\0', l))
				return -EBADMSG;
			v->args[i].s = (const char *)p + 4;
			p += 4 + l + 1;
		} else {
			if (end - p < 8)
				return -EBADMSG;
			memcpy(&v->args[i].u, p, 8);
			p += 8;
		}
	}
	/* Exact size: a record longer than its fields need hides bytes. */
	if (align8((uint32_t)(p - (area + o))) != size)
		return -EBADMSG;
	v->nfields = i;
	*off = o + size;
	return 1;
}
