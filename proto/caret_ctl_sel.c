/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_sel.h"
#include "proto/caret_segment.h"

/* ros2_tracing's context names (lttngpy context_lttng.cpp, and its perf
 * counters of Humble's names.py), with the domains whose tracer has them
 * (`lttng add-context --list -u` and `-k`). */
#define U CARET_CTL_SEL_UST
#define K CARET_CTL_SEL_KERNEL
static const struct {
	const char *name;
	unsigned domains;
} contexts[] = {
	{ "pid", K }, { "procname", U | K }, { "prio", K }, { "nice", K }, { "vpid", U | K },
	{ "tid", K }, { "vtid", U | K }, { "ppid", K }, { "vppid", K }, { "pthread_id", U },
	{ "hostname", K }, { "ip", U }, { "interruptible", K }, { "preemptible", K },
	{ "need_reschedule", K }, { "migratable", K }, { "callstack-kernel", K },
	{ "callstack-user", K }, { "cgroup_ns", U | K }, { "ipc_ns", U | K },
	{ "mnt_ns", U | K }, { "net_ns", U | K }, { "pid_ns", U | K }, { "user_ns", U | K },
	{ "uts_ns", U | K }, { "time_ns", U | K }, { "uid", K }, { "euid", K }, { "suid", K },
	{ "gid", K }, { "egid", K }, { "sgid", K }, { "vuid", U | K }, { "veuid", U | K },
	{ "vsuid", U | K }, { "vgid", U | K }, { "vegid", U | K }, { "vsgid", U | K },
	{ "perf:thread:instructions", U }, { "perf:thread:cycles", U },
	{ "perf:thread:cpu-cycles", U },
};
#undef U
#undef K

unsigned caret_ctl_sel_context_domains(const char *name)
{
	for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++)
		if (strcmp(contexts[i].name, name) == 0)
			return contexts[i].domains;
	return 0;
}

/* CARET's initialization events: without them (and caret_init, which
 * caret_analyze needs from every process) the trace cannot be analysed,
 * and caretd would not see the session as one that records CARET. */
#define SEL_INIT_NAME_(id, name, ...) "ros2_caret:" #name,
static const char *const init_events[] = {
	"ros2_caret:caret_init",
	/* ours, not read by caret_analyze: `caretctl check` tells a
	 * replay pass cut short by them (agent/tp/caret_tp.h) */
	"ros2_caret:caret_replay_begin", "ros2_caret:caret_replay_end",
	CARET_KINDS(SEL_INIT_NAME_)
};
#define N_INIT (int)(sizeof(init_events) / sizeof(init_events[0]))

/* The runtime events caret_analyze reads (its latencies and message
 * flows), as the agent emits or forwards them. */
static const char *const runtime_events[] = {
	"ros2:callback_start", "ros2:callback_end", "ros2:rclcpp_publish",
	"ros2:rclcpp_intra_publish", "ros2:rcl_publish", "ros2_caret:dds_write",
	"ros2_caret:dds_bind_addr_to_stamp", "ros2:rmw_take",
	"ros2:dispatch_subscription_callback",
	"ros2:dispatch_intra_process_subscription_callback", "ros2:message_construct",
	"ros2:rclcpp_ring_buffer_enqueue", "ros2:rclcpp_ring_buffer_dequeue",
	"ros2:rcl_lifecycle_transition", "ros2_caret:sim_time",
};
#define N_RUNTIME (int)(sizeof(runtime_events) / sizeof(runtime_events[0]))

bool caret_ctl_sel_any(const struct caret_ctl_sel *s)
{
	return s && (s->ust_given || s->n_context > 0 || caret_ctl_sel_kernel(s));
}

bool caret_ctl_sel_kernel(const struct caret_ctl_sel *s)
{
	return s && (s->n_kernel > 0 || s->n_syscall > 0);
}

int caret_ctl_sel_check_event(const char *name, char *why, size_t len)
{
	size_t n = strnlen(name, CARET_CTL_SEL_NAME_MAX + 1);
	if (n == 0 || n > CARET_CTL_SEL_NAME_MAX) {
		if (why)
			snprintf(why, len, "must be 1 to %d bytes", CARET_CTL_SEL_NAME_MAX);
		return -EINVAL;
	}
	if (name[0] == '-') {
		if (why)
			snprintf(why, len, "must not start with '-'");
		return -EINVAL;
	}
	for (const char *p = name; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || strchr("_:.*-", c);
		if (!ok) {
			if (why)
				snprintf(why, len, "may hold only letters, digits and _ : . - "
					 "and '*' (LTTng's wildcard)");
			return -EINVAL;
		}
	}
	return 0;
}

int caret_ctl_sel_check_context(const char *name, char *why, size_t len)
{
	if (caret_ctl_sel_context_domains(name))
		return 0;
	if (why)
		snprintf(why, len, "not a context LTTng knows (see 'caretctl record --help')");
	return -EINVAL;
}

int caret_ctl_sel_check_domains(const struct caret_ctl_sel *s, char *why, size_t len)
{
	unsigned have = CARET_CTL_SEL_UST | (caret_ctl_sel_kernel(s) ? CARET_CTL_SEL_KERNEL : 0);
	for (int i = 0; i < s->n_context; i++) {
		if (caret_ctl_sel_context_domains(s->context[i]) & have)
			continue;
		if (why)
			snprintf(why, len, "%.64s is a context of kernel events only: it needs "
				 "-k/--kernel or --syscall events", s->context[i]);
		return -EINVAL;
	}
	return 0;
}

/* Whether an LTTng pattern (only '*' is special; names hold none of
 * fnmatch's other specials: caret_ctl_sel_check_event) matches name. */
static bool matches(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, 0) == 0;
}

static bool covered(const struct caret_ctl_sel *s, const char *name)
{
	for (int i = 0; i < s->n_ust; i++)
		if (matches(s->ust[i], name))
			return true;
	return false;
}

int caret_ctl_sel_ust(const struct caret_ctl_sel *s, bool light, bool rcl_publish,
		      const char **out, int max, int *added)
{
	int n = 0;
	if (!s || !s->ust_given) {
		for (const char *const *e = caret_ctl_evlist(light, rcl_publish); *e; e++, n++)
			if (n < max)
				out[n] = *e;
		if (added)
			*added = n;
		return n <= max ? n : -E2BIG;
	}
	for (int i = 0; i < s->n_ust; i++, n++)
		if (n < max)
			out[n] = s->ust[i];
	if (added)
		*added = n;
	for (int i = 0; i < N_INIT; i++) {
		if (covered(s, init_events[i]))
			continue;
		if (n < max)
			out[n] = init_events[i];
		n++;
	}
	return n <= max ? n : -E2BIG;
}

int caret_ctl_sel_unrecorded(const struct caret_ctl_sel *s, const char **out, int max)
{
	int n = 0;
	if (!s || !s->ust_given)
		return 0;
	for (int i = 0; i < N_RUNTIME; i++) {
		if (covered(s, runtime_events[i]))
			continue;
		if (n < max)
			out[n] = runtime_events[i];
		n++;
	}
	return n;
}
