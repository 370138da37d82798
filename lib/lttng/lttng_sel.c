/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "lib/lttng/lttng_ctl.h"
#include "lib/lttng/lttng_sel.h"
#include "util/caret_err.h"

/* proto's context names (caret_ctl_sel_context_domains) as LTTng's. */
static const struct {
	const char *name;
	enum lttng_event_context_type type;
	uint64_t perf_config; /* PERF_TYPE_HARDWARE counters */
} ctx_map[] = {
	{ "pid", LTTNG_EVENT_CONTEXT_PID, 0 },
	{ "procname", LTTNG_EVENT_CONTEXT_PROCNAME, 0 },
	{ "prio", LTTNG_EVENT_CONTEXT_PRIO, 0 },
	{ "nice", LTTNG_EVENT_CONTEXT_NICE, 0 },
	{ "vpid", LTTNG_EVENT_CONTEXT_VPID, 0 },
	{ "tid", LTTNG_EVENT_CONTEXT_TID, 0 },
	{ "vtid", LTTNG_EVENT_CONTEXT_VTID, 0 },
	{ "ppid", LTTNG_EVENT_CONTEXT_PPID, 0 },
	{ "vppid", LTTNG_EVENT_CONTEXT_VPPID, 0 },
	{ "pthread_id", LTTNG_EVENT_CONTEXT_PTHREAD_ID, 0 },
	{ "hostname", LTTNG_EVENT_CONTEXT_HOSTNAME, 0 },
	{ "ip", LTTNG_EVENT_CONTEXT_IP, 0 },
	{ "interruptible", LTTNG_EVENT_CONTEXT_INTERRUPTIBLE, 0 },
	{ "preemptible", LTTNG_EVENT_CONTEXT_PREEMPTIBLE, 0 },
	{ "need_reschedule", LTTNG_EVENT_CONTEXT_NEED_RESCHEDULE, 0 },
	{ "migratable", LTTNG_EVENT_CONTEXT_MIGRATABLE, 0 },
	{ "callstack-kernel", LTTNG_EVENT_CONTEXT_CALLSTACK_KERNEL, 0 },
	{ "callstack-user", LTTNG_EVENT_CONTEXT_CALLSTACK_USER, 0 },
	{ "cgroup_ns", LTTNG_EVENT_CONTEXT_CGROUP_NS, 0 },
	{ "ipc_ns", LTTNG_EVENT_CONTEXT_IPC_NS, 0 },
	{ "mnt_ns", LTTNG_EVENT_CONTEXT_MNT_NS, 0 },
	{ "net_ns", LTTNG_EVENT_CONTEXT_NET_NS, 0 },
	{ "pid_ns", LTTNG_EVENT_CONTEXT_PID_NS, 0 },
	{ "user_ns", LTTNG_EVENT_CONTEXT_USER_NS, 0 },
	{ "uts_ns", LTTNG_EVENT_CONTEXT_UTS_NS, 0 },
	{ "time_ns", LTTNG_EVENT_CONTEXT_TIME_NS, 0 },
	{ "uid", LTTNG_EVENT_CONTEXT_UID, 0 },
	{ "euid", LTTNG_EVENT_CONTEXT_EUID, 0 },
	{ "suid", LTTNG_EVENT_CONTEXT_SUID, 0 },
	{ "gid", LTTNG_EVENT_CONTEXT_GID, 0 },
	{ "egid", LTTNG_EVENT_CONTEXT_EGID, 0 },
	{ "sgid", LTTNG_EVENT_CONTEXT_SGID, 0 },
	{ "vuid", LTTNG_EVENT_CONTEXT_VUID, 0 },
	{ "veuid", LTTNG_EVENT_CONTEXT_VEUID, 0 },
	{ "vsuid", LTTNG_EVENT_CONTEXT_VSUID, 0 },
	{ "vgid", LTTNG_EVENT_CONTEXT_VGID, 0 },
	{ "vegid", LTTNG_EVENT_CONTEXT_VEGID, 0 },
	{ "vsgid", LTTNG_EVENT_CONTEXT_VSGID, 0 },
	{ "perf:thread:instructions", LTTNG_EVENT_CONTEXT_PERF_THREAD_COUNTER,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "perf:thread:cycles", LTTNG_EVENT_CONTEXT_PERF_THREAD_COUNTER, PERF_COUNT_HW_CPU_CYCLES },
	{ "perf:thread:cpu-cycles", LTTNG_EVENT_CONTEXT_PERF_THREAD_COUNTER,
	  PERF_COUNT_HW_CPU_CYCLES },
};

int caret_lttng_add_context(struct lttng_handle *h, const char *channel, const char *name,
			    const char *session, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(ctx_map) / sizeof(ctx_map[0]); i++) {
		if (strcmp(ctx_map[i].name, name) != 0)
			continue;
		struct lttng_event_context c;
		memset(&c, 0, sizeof(c));
		c.ctx = ctx_map[i].type;
		if (c.ctx == LTTNG_EVENT_CONTEXT_PERF_THREAD_COUNTER) {
			c.u.perf_counter.type = PERF_TYPE_HARDWARE;
			c.u.perf_counter.config = ctx_map[i].perf_config;
			/* LTTng's field name: the counter's, ':' and '-' as '_' */
			snprintf(c.u.perf_counter.name, sizeof(c.u.perf_counter.name), "%s", name);
			for (char *p = c.u.perf_counter.name; *p; p++)
				if (*p == ':' || *p == '-')
					*p = '_';
		}
		int ret = lttng_add_context(h, &c, NULL, channel);
		if (ret < 0) {
			char step[96];
			snprintf(step, sizeof(step), "adding context %s to channel %s", name,
				 channel);
			return caret_lttng_fail(err, errlen, ret, step, session);
		}
		return 0;
	}
	return caret_errf(err, errlen, -EINVAL, "lttng: unknown context %s", name);
}

/* LTTng takes a perf counter context at the session without asking the
 * hardware; each traced process opens the counter when its channel is
 * made, and where there is none (most VMs) its channel is refused inside
 * the session daemon, whose client never hears of it: the processes
 * would wait for events that never come. The same open as the process's
 * (its own thread, user space only), tried here first, fails the same. */
static int perf_counter_open(uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

int caret_lttng_sel_perf_check(const struct caret_ctl_sel *s, char *err, size_t errlen)
{
	for (int i = 0; s && i < s->n_context; i++)
		for (size_t j = 0; j < sizeof(ctx_map) / sizeof(ctx_map[0]); j++) {
			if (ctx_map[j].type != LTTNG_EVENT_CONTEXT_PERF_THREAD_COUNTER ||
			    strcmp(ctx_map[j].name, s->context[i]) != 0)
				continue;
			int rc = perf_counter_open(ctx_map[j].perf_config);
			if (rc < 0)
				return caret_errf(err, errlen, -ENOTSUP,
						  "--context %s: this machine has no such perf "
						  "counter for the traced processes to read "
						  "(perf_event_open: %s; a virtual machine "
						  "often has no hardware counters)",
						  s->context[i], strerror(-rc));
		}
	return 0;
}

/* In the requester's helper (creds_run_as: their fsuid, fsgid and groups,
 * caretd's capabilities over files dropped with its fsuid): what connect()
 * to the client socket would judge, without connecting. faccessat2 with
 * AT_EACCESS checks with those file system ids; glibc's fallback for an
 * old kernel would check caretd's effective ids instead, so the system
 * call is made directly, and refused when missing. */
static int kernel_right_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)arg;
	(void)out;
	(void)outlen;
#ifdef SYS_faccessat2
	if (syscall(SYS_faccessat2, AT_FDCWD, CARET_LTTNG_CLIENT_SOCK, W_OK, AT_EACCESS) == 0)
		return 0;
	int e = errno;
#else
	int e = ENOSYS;
#endif
	snprintf(err, errlen, "%s", strerror(e));
	return -e;
}

int caret_lttng_kernel_check(const struct creds_id *as, char *err, size_t errlen)
{
	if (as && as->uid != 0 && geteuid() == 0) {
		char why[256] = "";
		int rc = creds_run_as(as, kernel_right_job, NULL, NULL, 0, why, sizeof(why));
		if (rc < 0)
			return caret_errf(err, errlen, -EACCES,
					  "uid %d may not record kernel events: LTTng lets only root "
					  "and the members of the session daemon's group (tracing) "
					  "trace the kernel, and caretd gives no one more (%s: %s)",
					  (int)as->uid, CARET_LTTNG_CLIENT_SOCK, why);
	}
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_KERNEL };
	struct lttng_handle *h = lttng_create_handle(NULL, &dom);
	if (!h)
		return caret_errf(err, errlen, -ENOMEM, "lttng: no handle for the kernel domain");
	struct lttng_event *ev = NULL;
	int n = lttng_list_tracepoints(h, &ev);
	free(ev);
	lttng_destroy_handle(h);
	if (n == -LTTNG_ERR_KERN_NA || n == -LTTNG_ERR_NEED_ROOT_SESSIOND ||
	    n == -LTTNG_ERR_KERN_LIST_FAIL)
		return caret_errf(err, errlen, -ENOTSUP,
				  "kernel tracer not available: the session daemon cannot trace "
				  "the kernel (lttng-modules not installed or not loaded, or "
				  "lttng-sessiond runs with --no-kernel); -k/--kernel and --syscall "
				  "need it (%s)", lttng_strerror(n));
	if (n < 0)
		return caret_lttng_fail(err, errlen, n, "listing kernel events", NULL);
	return 0;
}

int caret_lttng_sel_own_uid(const char *session, uid_t uid, char *err, size_t errlen)
{
	struct lttng_process_attr_tracker_handle *h = NULL;
	enum lttng_error_code code = lttng_session_get_tracker_handle(
		session, LTTNG_DOMAIN_UST, LTTNG_PROCESS_ATTR_VIRTUAL_USER_ID, &h);
	const char *step = "getting the user space uid tracker";
	if (code == LTTNG_OK) {
		enum lttng_process_attr_tracker_handle_status s =
			lttng_process_attr_tracker_handle_set_tracking_policy(
				h, LTTNG_TRACKING_POLICY_INCLUDE_SET);
		step = "tracking only the listed uids";
		if (s == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
			s = lttng_process_attr_virtual_user_id_tracker_handle_add_uid(h, uid);
			step = "tracking the requester's uid";
		}
		code = s == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK ? LTTNG_OK : LTTNG_ERR_UNK;
	}
	lttng_process_attr_tracker_handle_destroy(h);
	if (code != LTTNG_OK)
		return caret_lttng_fail(err, errlen, -(int)code, step, session);
	return 0;
}
