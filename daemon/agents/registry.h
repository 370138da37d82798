/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent registry: every agent segment of this host. The segments are
 * the truth (state, epoch, grant, cursor live in them), so a restarted
 * caretd rebuilds everything from a scan.
 */
#ifndef CARETD_REGISTRY_H
#define CARETD_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/caret_shm.h"

struct registry;
struct agent;

/*
 * What the modules above keep per agent (the scheduler's pass, the copies
 * counted), each behind a key of its own: the registry frees it with the
 * agent and never reads it, so it knows none of them. Allocated zeroed
 * at the module's first agent_state() for the agent: a restarted caretd
 * (or a test's fresh agent) starts from zeros, which each module's own
 * adoption expects.
 */
#define AGENT_KEYS 5
struct agent_key {
	size_t size;
	/* optional: the agent's process exited (state: its segment's state
	 * then; mine: the module's state, NULL if it never asked for it) */
	void (*exited)(struct registry *r, const struct agent *a, uint32_t state,
		       const void *mine);
	int id; /* 1 + the slot, given at the key's first use (registry.c) */
};

/* k's state of a, allocated zeroed at the first call; NULL when out of
 * memory (or of slots: AGENT_KEYS is too small, which any test shows). */
void *agent_state(struct agent *a, struct agent_key *k);
/* k's state of a if it has one yet, else NULL. */
const void *agent_state_peek(const struct agent *a, const struct agent_key *k);
/* Frees k's state of a, if any: its module is done with the agent for
 * now (the next agent_state() gives zeros again). */
void agent_state_drop(struct agent *a, struct agent_key *k);
/* Frees every module's state of a (the registry's agents: when they go;
 * an agent a test made itself: by the test). */
void agent_state_free(struct agent *a);

struct agent {
	struct caret_seg seg;
	int guard;                /* daemon/base/sigbus.h slot of the header mapping */
	pid_t pid;
	uint64_t start_time;
	char procname[16];
	bool dead;                /* process gone, segment reclaimed at next sweep */
	/* node names, parsed again only when the record count changes;
	 * allocated as they come (an inline 4 KiB buffer was most of an
	 * agent's memory: issue 24, caretd's RSS at N = 1,000) */
#define AGENT_NODES_MAX 4096
	char *nodes;              /* NUL-separated, AGENT_NODES_MAX at most */
	size_t nodes_cap;
	int n_nodes;
	uint64_t nodes_at_records; /* records when parsed; UINT64_MAX: never */
	void *state[AGENT_KEYS];  /* the modules' own (struct agent_key) */
	struct agent *next;
};

struct exited_agent {
	pid_t pid;
	uint32_t uid; /* a member's wait names only their own */
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
/* Keeps a's exit (its process died in this state) for `wait` to report.
 * The registry keeps those in PREPARE; one in RECORD is news only if it
 * was in a pass, which the scheduler knows (its struct agent_key exited). */
void registry_note_exit(struct registry *r, const struct agent *a, uint32_t state);

/* Node names of an agent (from its rcl_node_init records) as NUL-separated
 * strings in a->nodes; returns the count. The cache is walked only when it
 * grew since the last call. */
int agent_node_names(struct agent *a);

#endif
