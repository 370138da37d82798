/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pacer's per-CPU accounting (issue 34): where the agents' replayed
 * records landed, read from the counts their replay threads keep per CPU
 * in their segments (proto/caret_segment.h, CARET_SHM_CPU_OFFSET), and
 * how much a tick may grant so that no CPU's ring holds more than its own
 * window. The pacer (daemon/agents/pacer.h) owns the drain side: each
 * CPU's horizon, and the history that tells what of these bytes it
 * drained.
 */
#ifndef CARETD_PACER_CPUS_H
#define CARETD_PACER_CPUS_H

#include <stdint.h>

#include "daemon/agents/registry.h"

#define PACER_HIST 512

/* Per CPU, for n CPUs, allocated once by the pacer's start (n 0: no
 * per-CPU windows, the CPUs' sum in one window as before). */
struct pacer_cpus {
	int n;                    /* CPUs paced, <= CARET_SHM_CPUS */
	uint64_t *now;            /* [c]: estimated bytes replayed on c since the base */
	uint64_t *tick;           /* [c]: of them, this tick's (pacer_cpus_count) */
	uint64_t *home;           /* [c]: granted, not written, to agents last seen on c */
	int64_t *h;               /* [c]: c's drain horizon (-1: none yet) */
	uint64_t *hist;           /* [c * PACER_HIST + k]: now[c] at the pacer's sample k */
	uint64_t home_max;        /* the most of one agent's grant placed on its CPU */
};

/*
 * The most of one agent's grant counted on its thread's CPU alone
 * (pacer_cpus_margin); the rest of it may land on any CPU. A thread the
 * kernel moves carries what it was granted to its new CPU before its slot
 * says so: at most a quarter of a sub-buffer per thread, so the window's
 * margin of one sub-buffer covers four threads moving at once, and at
 * most a scheduler turn's grant (SCHED_MIN_GRANT): eight at 512 KiB. 0
 * (before a target): nothing placed, all on every CPU.
 */
void pacer_cpus_margin(struct pacer_cpus *c, uint64_t subbuf);

/* Per-CPU windows for n CPUs (at most CARET_SHM_CPUS; none when n <= 0 or
 * out of memory: c->n 0), and their release. */
void pacer_cpus_alloc(struct pacer_cpus *c, long n);
void pacer_cpus_free(struct pacer_cpus *c);

/* Of d records `replayed` grew by, those each CPU's slot says (dc[c], its
 * growth, lowered to what is left of d in CPU order: a slot may count
 * records of the agent's next advance, whose `replayed` is not read yet,
 * or lie), and returns the rest: on a CPU no slot covers, or an older
 * agent's, so possibly on any. */
uint64_t pacer_cpus_split(uint64_t d, uint64_t *dc, int n);

/*
 * Agent a's d new replayed records (its `replayed` growth since the last
 * call) of rb estimated bytes each: adds those its slots place on a CPU
 * to that CPU's c->tick, and those no slot places to every CPU's; the
 * records its pass filter kept out of the trace count nowhere. Returns the
 * estimated bytes written to the trace (all d records' but the filtered
 * ones'); *skipped_bytes: the filtered ones'. Where the agent's counts are
 * when first seen is its base (nothing counted then). pend: the bytes
 * granted to it and not walked yet, added to c->home of the CPU its
 * replay thread last wrote on (the slot that grew last), if it has one.
 */
uint64_t pacer_cpus_count(struct pacer_cpus *c, struct agent *a, uint64_t d, uint64_t rb,
			  uint64_t pend, uint64_t *skipped_bytes);

/*
 * The bytes a tick may grant (issue 34, item 1), so that no CPU's ring
 * holds more than its window: in[c], CPU c's bytes in flight (written to
 * its ring and not drained yet); home[c], the bytes granted and not
 * written yet to agents whose replay thread last wrote on c; loose, the
 * rest of what is granted and not written (agents with no CPU seen yet,
 * older agents): it may land on any CPU, so it counts on each, as does
 * the tick's new grant (the scheduler hands it out in turns, to agents
 * whichever their CPU). A thread that moves to another CPU takes at most
 * its grant with it, within the window's margin of one sub-buffer.
 * With one window for all that is granted and not yet written (pending
 * on every CPU), a tick granted at most one window less the fullest
 * CPU's bytes over the whole machine, and the replay threads' grants
 * waiting for a CPU kept it there (bench/NOTES.md); with each grant
 * counted where its thread writes, up to a window per CPU is in flight.
 */
uint64_t pacer_cpus_room(const uint64_t *in, const uint64_t *home, int n, uint64_t loose,
			 uint64_t window);

#endif
