/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent registry: every agent segment of this host. The segments are
 * the truth (state, epoch, grant, cursor live in them), so a restarted
 * caretd rebuilds everything from a scan.
 */
#ifndef CARETD_REGISTRY_H
#define CARETD_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/caret_shm.h"

struct agent {
	struct caret_seg seg;
	int guard;                /* daemon/base/sigbus.h slot of the header mapping */
	pid_t pid;
	uint64_t start_time;
	char procname[16];
	/* daemon-side replay bookkeeping, rebuilt from the segment on restart */
	double credit;            /* fractional grants (frequency pacing) */
	int64_t prepare_since_ns; /* when this daemon saw PREPARE begin */
	int64_t last_bell_ns;     /* last doorbell rung while waiting */
	uint32_t start_frequency; /* records/s asked by the Start that began this pass; 0: none */
	bool start_mark;          /* startend: in WAIT when the Start came */
	/* per-session completeness (scheduler.h): serials of LTTng sessions
	 * as numbered by caretd, in the order they became active */
	bool sched_seen;          /* the scheduler has adopted this agent */
	bool extra_pass;          /* replaying again while in RECORD */
	uint32_t pass_serial;     /* the pass in progress covers sessions <= this */
	uint32_t covered_serial;  /* a completed pass covered sessions <= this */
	uint64_t acct_replayed;   /* `replayed` already attributed to sessions */
	/* the pass and position dups_charge saw last, and what each active
	 * session holds of the cache (positions [lo, hi)) while no completed
	 * pass covered it (daemon/agents/dups.h) */
	uint32_t dup_epoch, dup_pos;
#define AGENT_HELD_MAX 8
	struct agent_held {
		uint32_t serial, lo, hi;
	} held[AGENT_HELD_MAX];
	uint32_t tp_warned_epoch; /* pass whose tracepoint timeout was logged */
	/* its scope (sched_scope_agents): the newest active session that
	 * sees it, and whether none does while some session is active */
	bool scoped;              /* some active session sees only one uid's */
	uint32_t seen_newest;     /* then: the newest that sees it */
	bool unseen;
	bool dead;                /* process gone, segment reclaimed at next sweep */
	/* node names, parsed again only when the record count changes;
	 * allocated as they come (an inline 4 KiB buffer was most of an
	 * agent's memory: issue 24, caretd's RSS at N = 1,000) */
#define AGENT_NODES_MAX 4096
	char *nodes;              /* NUL-separated, AGENT_NODES_MAX at most */
	size_t nodes_cap;
	int n_nodes;
	uint64_t nodes_at_records; /* records when parsed; UINT64_MAX: never */
	struct agent *next;
};

struct exited_agent {
	pid_t pid;
	char procname[16];
	uint32_t state;
};

struct registry {
	struct agent *head;
	int count;
	int inotify_fd;
	/* processes that died while not in RECORD, for `wait` to report */
	/* a ring: exit number i is exited[i % REGISTRY_EXITS], the last
	 * REGISTRY_EXITS are kept; n_exited counts every one */
#define REGISTRY_EXITS 64
	struct exited_agent exited[REGISTRY_EXITS];
	uint64_t n_exited;
	/* every agent is complete once it covered this session serial (the
	 * newest active session enabling ros2_caret events; 0: none) */
	uint32_t want_serial;
	/* IN_ATTRIB on a segment: an agent's tracepoints of ros2 or
	 * ros2_caret events were attached or detached (agent/tpwatch.c), so
	 * a session may have started or stopped. Counts; anyone who can
	 * create a file there can raise it, so it only hastens a poll. */
	uint64_t lttng_hints;
	unsigned sweeps; /* registry_sweep() calls so far */
};

int registry_open(struct registry *r);
void registry_close(struct registry *r);
/* Attaches every valid segment not yet known. */
void registry_scan(struct registry *r);
/* Retries segments that were still being set up when first seen. */
void registry_retry_pending(struct registry *r);
/* Drains inotify events (call when inotify_fd is readable). */
void registry_on_inotify(struct registry *r);
/* Whether segments wait for their owner to finish setting them up. */
bool registry_has_pending(void);
/* Reclaims the segments of dead processes; returns how many. A process is
 * asked whether it lives with kill(pid, 0); its start time (whether the
 * pid now names another process) is read at one sweep in
 * REGISTRY_SWEEP_FULL and whenever kill says it is gone. */
#define REGISTRY_SWEEP_FULL 10
int registry_sweep(struct registry *r);
struct agent *registry_find(struct registry *r, pid_t pid);

/* Node names of an agent (from its rcl_node_init records) as NUL-separated
 * strings in a->nodes; returns the count. The cache is walked only when it
 * grew since the last call. */
int agent_node_names(struct agent *a);

#endif
