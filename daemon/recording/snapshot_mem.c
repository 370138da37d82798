/* SPDX-License-Identifier: Apache-2.0 */
/* Flight recorders' rings against the host's memory (daemon/recording/snapshot_mem.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "daemon/recording/snapshot_mem.h"
#include "proto/caret_ctl_snapshot.h"
#include "util/caret_err.h"

int snapshot_mem_read_host(struct snapshot_mem_host *h)
{
	*h = (struct snapshot_mem_host){ 0 };
	FILE *f = fopen("/proc/meminfo", "re");
	if (!f)
		return -errno;
	char line[256];
	bool avail = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			h->available = kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
			avail = true;
		} else if (sscanf(line, "Shmem: %llu kB", &kb) == 1) {
			h->shmem = kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
		}
	}
	fclose(f);
	return avail ? 0 : -ENODATA; /* kernels before 3.14 */
}

static uint64_t eighths(uint64_t pool, unsigned n)
{
	return pool / 8 * n;
}

static uint64_t left(uint64_t share, uint64_t held)
{
	return share > held ? share - held : 0;
}

int snapshot_mem_check(const struct snapshot_mem_in *in, uid_t uid, uint64_t ring_bytes,
		       uint64_t least_size, char *err, size_t errlen)
{
	uint32_t ncpu = in->ncpu ? in->ncpu : 1, users = in->users ? in->users : 1;
	uint64_t per_size = snapshot_mem_mul(ncpu, users);
	uint64_t cost = snapshot_mem_mul(ring_bytes, per_size);
	/* the rings running are out of MemAvailable once allocated (Shmem):
	 * counted back, at most at their size */
	uint64_t pool = snapshot_mem_add(in->host.available,
			    in->held_all < in->host.shmem ? in->held_all : in->host.shmem);
	uint64_t room = left(eighths(pool, SNAPSHOT_MEM_ALL), in->held_all);
	char why[256];
	snprintf(why, sizeof(why), "every flight recorder together may hold at most half of "
		 "the %" PRIu64 " bytes of memory the host has for them, and %" PRIu64 " are "
		 "held", pool, in->held_all);
	if (uid != 0) {
		uint64_t users_room = left(eighths(pool, SNAPSHOT_MEM_USERS), in->held_users);
		uint64_t user_room = left(eighths(pool, SNAPSHOT_MEM_USER), in->held_user);
		if (users_room < room) {
			room = users_room;
			snprintf(why, sizeof(why), "users other than root together may hold at "
				 "most three eighths of the %" PRIu64 " bytes of memory the host has "
				 "for flight recorders (root keeps its share), and %" PRIu64 " are "
				 "held", pool, in->held_users);
		}
		if (user_room <= room) {
			room = user_room;
			snprintf(why, sizeof(why), "one user's flight recorders may hold at most "
				 "a quarter of the %" PRIu64 " bytes of memory the host has for them, "
				 "and uid %d's hold %" PRIu64, pool, (int)uid, in->held_user);
		}
	}
	if (in->host.available && cost <= room)
		return 0;
	if (!in->host.available)
		return caret_errf(err, errlen, -ENOMEM, "caretd cannot read the host's available "
				  "memory (/proc/meminfo MemAvailable): no flight recorder is "
				  "started");
	/* the largest --snapshot-size whose rings fit: a power of two, which
	 * the geometry keeps whole (caret_ctl_snapshot_geometry) */
	uint64_t per = room / per_size, largest = 0;
	for (uint64_t s = CARET_CTL_SNAPSHOT_SIZE_MIN; s <= CARET_CTL_SNAPSHOT_SIZE_MAX && s <= per;
	     s *= 2)
		largest = s;
	uint64_t least = least_size > CARET_CTL_SNAPSHOT_SIZE_MIN ? least_size
								  : CARET_CTL_SNAPSHOT_SIZE_MIN;
	char give[128];
	if (largest && largest >= least)
		snprintf(give, sizeof(give), "give --snapshot-size between %" PRIu64 "K and %"
			 PRIu64 "K", least >> 10, largest >> 10);
	else
		snprintf(give, sizeof(give), "no --snapshot-size fits now (at least %" PRIu64
			 "K holds a replay pass)", least >> 10);
	return caret_errf(err, errlen, -ENOMEM, "a flight recorder of %" PRIu64 " bytes per "
			  "CPU holds about %" PRIu64 " bytes of memory here (%u CPUs x %u traced "
			  "users), more than uid %d may take now: %s (the host's available "
			  "memory: %" PRIu64 " bytes); %s", ring_bytes, cost, ncpu, users, (int)uid,
			  why, in->host.available, give);
}
