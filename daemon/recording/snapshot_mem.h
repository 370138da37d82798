/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host's memory against flight recorders' rings (issue 30 H3). A
 * flight recorder's ring lives in memory for as long as it records:
 * lttng-ust gives it each CPU of each traced user (per-UID buffers: every
 * user with a traced process, whoever owns the recording), so a ring of
 * S bytes per CPU pins S x CPUs x users. Two rings of 256 MiB took the
 * host's Shmem from 8 MB to 2.3 GB; one at the limit (8 GiB) needs about
 * 32 GiB, a member's 8 recorders hundreds.
 *
 * The bound, when a flight recorder is asked for, against the memory the
 * host has for them: MemAvailable (/proc/meminfo), plus what the rings
 * already running hold of Shmem (they are out of MemAvailable once
 * allocated; counted back at most at their size):
 *   - all flight recorders together: half of it (the other half is the
 *     traced processes');
 *   - one user other than root: a quarter;
 *   - every user other than root together: three eighths, so that root
 *     always has an eighth left.
 * Users are counted from the live agents (at least one: the recording's
 * own processes to come); users who start traced processes later make
 * the rings grow beyond the estimate, which the next request then sees.
 * A refusal names the least size (one replay pass fits: snapshot.h) and
 * the largest the requester may still have.
 */
#ifndef CARETD_SNAPSHOT_MEM_H
#define CARETD_SNAPSHOT_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Byte counts saturate: a lying segment or a huge table never wraps one
 * into a small number. */
static inline uint64_t snapshot_mem_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t snapshot_mem_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The shares of the memory for flight recorders, in eighths. */
#define SNAPSHOT_MEM_ALL 4   /* every recorder */
#define SNAPSHOT_MEM_USER 2  /* one user other than root */
#define SNAPSHOT_MEM_USERS 3 /* every user other than root */

/* What the host has, as /proc/meminfo says (bytes; both 0 when it cannot
 * be read: then nothing is admitted). */
struct snapshot_mem_host {
	uint64_t available, shmem;
};
int snapshot_mem_read_host(struct snapshot_mem_host *h);

/* What the bound looks at: the host, ncpu CPUs, users traced users, and
 * held_all / held_user / held_users the rings running (bytes, all CPUs
 * and users) in all, of the requester, of every user other than root
 * (daemon/recording/snapshot.c gathers them: snapshot_admit_memory). */
struct snapshot_mem_in {
	struct snapshot_mem_host host;
	uint32_t ncpu, users;
	uint64_t held_all, held_user, held_users;
};
/* A ring of ring_bytes per CPU for uid: 0, or -ENOMEM with the least
 * (least_size: one replay pass fits) and largest sizes allowed in err. */
int snapshot_mem_check(const struct snapshot_mem_in *in, uid_t uid, uint64_t ring_bytes,
		       uint64_t least_size, char *err, size_t errlen);

#endif
