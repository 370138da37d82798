/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl top`'s counter area at the end of a caret segment
 * (proto/caret_segment.h, which includes this; the header's watched,
 * ctr_slots, ctr_offset and ctr_lost words say where it is and whether
 * it is written).
 */
#ifndef CARET_PROTO_SEG_COUNTERS_H
#define CARET_PROTO_SEG_COUNTERS_H

#include <stdint.h>

/*
 * The counter area (`caretctl top`, issue 35): the last ctr_offset..
 * capacity bytes of the file, CARET_CTR_SLOTS slots, written only by the
 * owner and only while `watched` is non-zero; caretd reads it with pread
 * (hostile bytes: every value is bounded before use) and turns two reads'
 * differences into rates. 32 KiB of the default 64 MiB sparse segment,
 * touched (made resident) only once watched.
 *
 * A slot is claimed once, for good, by compare-and-swap of key 0 ->
 * CARET_CTR_KEY(kind, pointer) (open addressing from the pointer's hash,
 * linear probing); a process with more callbacks, publishers and
 * subscriptions than slots counts the rest in the header's ctr_lost. Every
 * other field is only incremented (relaxed atomics; several executor
 * threads may run the same entity), so a reader sees each word whole but
 * the words of a slot from slightly different instants.
 *
 *   count     callbacks: calls ended; publishers: messages published
 *             (rcl_publish); subscriptions: messages taken (rmw_take
 *             with taken true)
 *   total_ns  callbacks: the sum of their durations (callback_start to
 *             callback_end on the same thread, CLOCK_MONOTONIC);
 *             subscriptions: the sum of the latencies in lat_n
 *   max       callbacks: CARET_CTR_MAX(generation, ns), the longest call that
 *             ended while `watched` held that generation (a call in an older
 *             generation is replaced by the first of the new one);
 *             subscriptions: the same of the latencies in lat_n
 *   hist      callbacks: calls per duration bucket, log2 scale: bucket 0
 *             below 2^CARET_CTR_HIST_SHIFT ns (1.024 us), bucket i in
 *             [2^(SHIFT+i-1), 2^(SHIFT+i)) ns, the last one everything
 *             from 2^(SHIFT+BUCKETS-2) ns (268 ms) on; 32 bits, wrapping:
 *             readers take differences; subscriptions: the latencies in
 *             lat_n, in the same buckets
 *   lat_n     subscriptions: takes whose latency, CLOCK_REALTIME at the
 *             take minus the sample's DDS source timestamp (the writer's
 *             CLOCK_REALTIME), lies in [0, CARET_CTR_LAT_ABSURD_NS]
 *   lat_apart subscriptions: takes with a source timestamp whose latency
 *             lies outside that range (the writer's clock is another
 *             host's, or a clock was stepped): counted, never averaged
 * A take without a source timestamp (0) is in count only. Publishers use
 * count alone.
 */
enum caret_ctr_kind {
	CARET_CTR_CALLBACK = 1, /* key: the callback pointer of callback_start */
	CARET_CTR_PUBLISHER = 2, /* key: rcl_publish's publisher_handle */
	CARET_CTR_SUBSCRIPTION = 3, /* key: rmw_take's rmw_subscription_handle */
};
/* User-space pointers fit 56 bits on x86-64 and aarch64. */
#define CARET_CTR_KEY(kind, ptr) (((uint64_t)(kind) << 56) | ((uint64_t)(ptr) & ((1ULL << 56) - 1)))
#define CARET_CTR_KEY_KIND(key) ((uint32_t)((uint64_t)(key) >> 56))
#define CARET_CTR_KEY_PTR(key) ((uint64_t)(key) & ((1ULL << 56) - 1))
#define CARET_CTR_GEN_MASK 0xffffffu
/* `watched`: a session in the top 8 bits, a generation (never 0) below */
#define CARET_CTR_WATCH(session, generation) \
	(((uint32_t)(session) << 24) | ((uint32_t)(generation) & CARET_CTR_GEN_MASK))
#define CARET_CTR_WATCH_SESSION(w) ((uint32_t)(w) >> 24)
#define CARET_CTR_NS_MAX ((1ULL << 40) - 1)
#define CARET_CTR_MAX(generation, ns) \
	(((uint64_t)((generation) & CARET_CTR_GEN_MASK) << 40) | ((uint64_t)(ns) & CARET_CTR_NS_MAX))
#define CARET_CTR_MAX_GEN(m) ((uint32_t)((uint64_t)(m) >> 40))
#define CARET_CTR_MAX_NS(m) ((uint64_t)(m) & CARET_CTR_NS_MAX)
#define CARET_CTR_BUCKETS 20u
#define CARET_CTR_HIST_SHIFT 10u
#define CARET_CTR_SLOTS 256u
/* A same-host latency beyond this is a stepped clock or a sample kept
 * that long in a history: counted apart (lat_apart), as negative ones. */
#define CARET_CTR_LAT_ABSURD_NS (10ULL * 1000000000ULL)
struct caret_ctr_slot {
	uint64_t key;      /* atomic, CAS once */
	uint64_t count;    /* atomic */
	uint64_t total_ns; /* atomic */
	uint64_t max;      /* atomic */
	uint32_t hist[CARET_CTR_BUCKETS]; /* atomic */
	uint64_t lat_n;     /* atomic */
	uint64_t lat_apart; /* atomic */
};
_Static_assert(sizeof(struct caret_ctr_slot) == 128, "caret_ctr_slot size");
#define CARET_CTR_AREA_SIZE ((uint64_t)CARET_CTR_SLOTS * sizeof(struct caret_ctr_slot))

#endif
