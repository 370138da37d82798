/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of check_daemon share (daemon_fixture.c): an
 * agent per test with a real segment under this process's own prefix, the
 * agent's half of the handshake played by the test, and two session
 * views. */
#ifndef CARET_TESTS_DAEMON_FIXTURE_H
#define CARET_TESTS_DAEMON_FIXTURE_H

#include <check.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"

#define MS 1000000LL

extern char prefix[48];
void set_prefix(const char *tag);
/* n records of kind 1, all of the same size */
void fill(struct caret_seg *s, int n);
/* One agent per prefix: a segment's name is the prefix, pid and start time. */
void make_agent(struct agent *a, const char *tag, int records);
void drop_agent(struct agent *a);
struct caret_seg_status status(const struct agent *a);
uint32_t granted(const struct agent *a);
/* What the agent's replay thread does once the session enabled its
 * tracepoints for this pass (through the agent's half of the handshake). */
void tracepoints_on(struct agent *a);
void replayed(struct agent *a, uint32_t count);
struct registry one(struct agent *a);
/* One session enabling ros2_caret events, ready for replay; none. */
extern const struct sched_lttng ON, OFF;
struct sched freq_sched(uint32_t f);
/* n agents tagged tag0, tag1... (records each), chained into one registry;
 * dropped together. */
struct registry make_agents(struct agent *ag, int n, const char *tag, int records);
void drop_agents(struct agent *ag, int n);
/* a then b, as one registry. */
struct registry two(struct agent *a, struct agent *b);

/* check_daemon_pacing.c: a fixed frequency, adaptive pacing's shares. */
void add_pacing_tests(TCase *t);

/* check_daemon_restart.c: a caretd killed inside a pass and restarted. */
void add_restart_tests(TCase *t);
/* check_daemon_registry.c: the config file, the registry (scan, inotify,
 * sweep) in a case of its own, and the copy counts of dups.c. */
void add_registry_tests(Suite *s, TCase *scheduler);

#endif
