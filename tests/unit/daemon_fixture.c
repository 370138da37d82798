/* SPDX-License-Identifier: Apache-2.0 */
/* The fixture of check_daemon (daemon_fixture.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"
#include "tests/unit/daemon_fixture.h"

char prefix[48];

void set_prefix(const char *tag)
{
	snprintf(prefix, sizeof(prefix), "caret-ut-%s-%d", tag, (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
}

/* n records of kind 1, all of the same size */
void fill(struct caret_seg *s, int n)
{
	const char *sig = caret_kind_sig(1);
	union caret_arg a[CARET_MAX_FIELDS];
	for (unsigned i = 0; sig[i]; i++) {
		if (sig[i] == 's')
			a[i].s = "/node";
		else
			a[i].u = i;
	}
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(caret_seg_append(s, 1, i, a), 0);
}

/* One agent per prefix: a segment's name is the prefix, pid and start time. */
void make_agent(struct agent *a, const char *tag, int records)
{
	memset(a, 0, sizeof(*a));
	set_prefix(tag);
	ck_assert_int_eq(caret_seg_create(&a->seg, 1 << 20, "unit", "jazzy"), 0);
	fill(&a->seg, records);
	a->pid = getpid();
	snprintf(a->procname, sizeof(a->procname), "unit-%s", tag);
	caret_own_set_state(&a->seg, CARET_STATE_WAIT); /* the agent's start */
}

void drop_agent(struct agent *a)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, a->seg.name);
	agent_state_free(a);
	caret_seg_close(&a->seg);
	caret_seg_unlink(name);
}

struct caret_seg_status status(const struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	return st;
}

uint32_t granted(const struct agent *a)
{
	return CARET_COUNT_OF(status(a).grant);
}

/* What the agent's replay thread does once the session enabled its
 * tracepoints for this pass (through the agent's half of the handshake). */
void tracepoints_on(struct agent *a)
{
	uint32_t e = CARET_EPOCH_OF(status(a).grant);
	caret_own_set_flags(&a->seg, CARET_AGENT_REPLAY_THREAD, 0);
	caret_own_begin_pass(&a->seg, e);
	caret_own_tp_enabled(&a->seg, e);
}

void replayed(struct agent *a, uint32_t count)
{
	uint32_t e = CARET_EPOCH_OF(status(a).grant);
	struct caret_seg_status st = status(a);
	uint32_t before = sched_done_in(&st, e);
	caret_own_advance(&a->seg, e, count, count > before ? count - before : 0);
}

struct registry one(struct agent *a)
{
	a->next = NULL;
	return (struct registry){ .head = a, .count = 1 };
}

/* One session enabling ros2_caret events, ready for replay; none. */
const struct sched_lttng ON = { .any = true, .caret = true, .ready = 1, .newest = 1 };
const struct sched_lttng OFF = { 0 };

struct sched freq_sched(uint32_t f)
{
	return (struct sched){ .cfg = { .pacing = PACING_FREQUENCY, .frequency = f } };
}

/* n agents tagged tag0, tag1..., chained into one registry. */
struct registry make_agents(struct agent *ag, int n, const char *tag, int records)
{
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%s%d", tag, i);
		make_agent(&ag[i], name, records);
		ag[i].next = i + 1 < n ? &ag[i + 1] : NULL;
	}
	return (struct registry){ .head = &ag[0], .count = n };
}

void drop_agents(struct agent *ag, int n)
{
	for (int i = 0; i < n; i++)
		drop_agent(&ag[i]);
}

struct registry two(struct agent *a, struct agent *b)
{
	a->next = b;
	b->next = NULL;
	return (struct registry){ .head = a, .count = 2 };
}
