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

int caret_seg_append(struct caret_seg *s, uint32_t kind, int64_t ts,
		     const union caret_arg *args)
{
	uint32_t lens[CARET_MAX_FIELDS];
	const char *sig = caret_kind_sig(kind);
	if (!sig)
		return -EINVAL;
	uint32_t size = measure(sig, args, lens);
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
	encode(s->area + off, size, sig, kind, ts, args, lens);
	__atomic_fetch_add(&h->records, 1, __ATOMIC_RELEASE);
	return 0;
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
