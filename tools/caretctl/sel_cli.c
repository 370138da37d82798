/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "caretctl.h"
#include "parse.h"
#include "sel_cli.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"

static int add(const char *opt, const char *name, const char **list, int *n,
	       int (*check)(const char *, char *, size_t))
{
	char why[160];
	if (check(name, why, sizeof(why)) < 0)
		return cli_usage_error("record", "invalid %s '%s': %s", opt, name, why);
	if (*n >= CARET_CTL_SEL_MAX)
		return cli_usage_error("record", "%s: more than %d names", opt, CARET_CTL_SEL_MAX);
	list[(*n)++] = name;
	return 0;
}

int cli_sel_opt(int opt, const char *arg, int argc, char **argv, struct caret_ctl_sel *s,
		int *code)
{
	const char *name;
	const char **list;
	int *n;
	int (*check)(const char *, char *, size_t) = caret_ctl_sel_check_event;
	switch (opt) {
	case CLI_OPT_UST:
		name = "-u/--ust";
		list = s->ust;
		n = &s->n_ust;
		s->ust_given = true;
		break;
	case CLI_OPT_KERNEL:
		name = "-k/--kernel";
		list = s->kernel;
		n = &s->n_kernel;
		break;
	case CLI_OPT_CONTEXT:
		name = "--context";
		list = s->context;
		n = &s->n_context;
		check = caret_ctl_sel_check_context;
		break;
	case CLI_OPT_SYSCALL:
		name = "--syscall";
		list = s->syscall;
		n = &s->n_syscall;
		break;
	case CLI_OPT_SUBBUF_SIZE_KERNEL: {
		char why[160];
		if (cli_parse_size(arg, &s->subbuf_size_kernel) < 0) {
			*code = cli_usage_error("record", "invalid --subbuffer-size-kernel '%s': %s",
						arg, caret_ctl_rule_subbuf_size());
			return 1;
		}
		if (caret_ctl_check_subbuf_size(s->subbuf_size_kernel, why, sizeof(why)) < 0) {
			*code = cli_usage_error("record", "invalid --subbuffer-size-kernel '%s': %s",
						arg, why);
			return 1;
		}
		return 1;
	}
	default:
		return 0;
	}
	*code = 0;
	if (arg && (*code = add(name, arg, list, n, check)) != 0)
		return 1;
	/* nargs='*': every following word up to the next option */
	while (!arg && optind < argc && argv[optind][0] != '-')
		if ((*code = add(name, argv[optind++], list, n, check)) != 0)
			return 1;
	return 1;
}

int cli_sel_check(struct caret_ctl_sel *s, bool light)
{
	if (s->ust_given && light)
		return cli_usage_error("record", "--light is a list of UST events and -u/--ust "
				       "gives its own: choose one");
	char why[160];
	if (caret_ctl_sel_check_domains(s, why, sizeof(why)) < 0)
		return cli_usage_error("record", "--context %s", why);
	/* ros2 caret record takes it without kernel events (it has none to
	 * enable): a script written for it must run here too (issue 33 L5) */
	if (s->subbuf_size_kernel && !caret_ctl_sel_kernel(s)) {
		fprintf(stderr, "caretctl: note: --subbuffer-size-kernel ignored: without "
			"-k/--kernel or --syscall events there is no kernel channel to size\n");
		s->subbuf_size_kernel = 0;
	}
	return 0;
}

void cli_sel_usage(FILE *f)
{
	fprintf(f,
		"  -u, --ust [EVENT...]        the UST events to enable (as ros2 trace -u;\n"
		"                              LTTng's '*' wildcard allowed), instead of\n"
		"                              CARET's list; CARET's initialization events\n"
		"                              (ros2_caret:caret_init, ros2_caret:rcl_*init,\n"
		"                              ...) are always added, so the trace stays one\n"
		"                              caret_analyze loads: -u narrows the runtime\n"
		"                              events only, and record names those the\n"
		"                              analyzer reads that it leaves out; -u alone:\n"
		"                              the initialization events only\n"
		"      --context [CONTEXT...]  context fields to add (as ros2 trace --context):\n"
		"                              vpid, vtid and procname are always there (the\n"
		"                              analyzer needs them); each goes to the\n"
		"                              channels whose tracer has it. Both: *_ns\n"
		"                              (cgroup ipc mnt net pid user uts time), vuid\n"
		"                              veuid vsuid vgid vegid vsgid; UST only:\n"
		"                              pthread_id, ip, perf:thread:{instructions,\n"
		"                              cycles,cpu-cycles} (refused at once where\n"
		"                              the machine lacks the counter); kernel only\n"
		"                              (needs -k or --syscall): pid, tid, ppid,\n"
		"                              vppid, prio, nice,\n"
		"                              hostname, interruptible, preemptible,\n"
		"                              need_reschedule, migratable, callstack-kernel,\n"
		"                              callstack-user, uid euid suid gid egid sgid\n"
		"  -k, --kernel [EVENT...]     kernel events to enable (as ros2 trace -k;\n"
		"                              default none), in a kernel channel '%s' of\n"
		"                              the same session; needs the kernel tracer\n"
		"                              (lttng-modules) and a user who may trace the\n"
		"                              kernel: root or a member of the session\n"
		"                              daemon's group (tracing); such a recording\n"
		"                              is not armed before Enter\n"
		"      --syscall [NAME...]     system calls to record, in that channel\n"
		"                              (ours: not in ros2 trace of Humble or Jazzy)\n"
		"      --subbuffer-size-kernel BYTES  its sub-buffer size, as\n"
		"                              --subbuffer-size-ust (default %uK, %u\n"
		"                              sub-buffers; as ros2 caret record, which\n"
		"                              takes it without kernel events: ignored then,\n"
		"                              with a note)\n"
		"                              Each list option takes the names after it, up\n"
		"                              to the next option; repeated, lists add up\n",
		CARET_CTL_KERNEL_CHANNEL, CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL >> 10,
		CARET_CTL_KERNEL_SUBBUF_COUNT);
}

void cli_sel_list(const struct caret_ctl_sel *s, bool light)
{
	const char *evs[2 * CARET_CTL_SEL_MAX + 64];
	int added = 0;
	int n = caret_ctl_sel_ust(s, light, true, evs, (int)(sizeof(evs) / sizeof(evs[0])),
				  &added);
	if (!s->ust_given)
		printf("UST events enabled (%s list):\n", light ? "light" : "full");
	else
		printf("UST events enabled (-u list):\n");
	for (int i = 0; i < n; i++)
		printf("  %s%s\n", evs[i],
		       s->ust_given && i >= added ? "  (added: CARET initialization event)" : "");
	const char *miss[32];
	int nm = caret_ctl_sel_unrecorded(s, miss, 32);
	if (nm > 0) {
		printf("not recorded (runtime events caret_analyze reads):\n");
		for (int i = 0; i < nm && i < 32; i++)
			printf("  %s\n", miss[i]);
	}
	printf("context fields:\n");
	for (const char *const *c = caret_ctl_contexts; *c; c++)
		printf("  %s\n", *c);
	for (int i = 0; i < s->n_context; i++) {
		bool dup = false;
		for (const char *const *c = caret_ctl_contexts; *c; c++)
			dup = dup || !strcmp(*c, s->context[i]);
		for (int j = 0; j < i; j++)
			dup = dup || !strcmp(s->context[j], s->context[i]);
		unsigned d = caret_ctl_sel_context_domains(s->context[i]);
		if (!dup)
			printf("  %s%s\n", s->context[i],
			       d == CARET_CTL_SEL_UST ? "  (UST events only)"
			       : d == CARET_CTL_SEL_KERNEL ? "  (kernel events only)" : "");
	}
	if (!caret_ctl_sel_kernel(s))
		return;
	printf("kernel channel %s: global buffers, discard mode, %u sub-buffers of %llu bytes "
	       "per CPU (needs the kernel tracer)\n",
	       CARET_CTL_KERNEL_CHANNEL, CARET_CTL_KERNEL_SUBBUF_COUNT,
	       (unsigned long long)(s->subbuf_size_kernel ? s->subbuf_size_kernel
							  : CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL));
	if (s->n_kernel)
		printf("kernel events enabled:\n");
	for (int i = 0; i < s->n_kernel; i++)
		printf("  %s\n", s->kernel[i]);
	if (s->n_syscall)
		printf("system calls enabled:\n");
	for (int i = 0; i < s->n_syscall; i++)
		printf("  %s\n", s->syscall[i]);
}

void cli_sel_fill(const struct caret_ctl_sel *s, bool light, struct cli_sel_names *b,
		  struct caret_ctl_record_list *l)
{
	int added = 0;
	int n = caret_ctl_sel_ust(s, light, true, b->evs, (int)(sizeof(b->evs) / sizeof(b->evs[0])),
				  &added);
	int nm = caret_ctl_sel_unrecorded(s, b->miss, 32);
	/* the contexts as the text lists them: CARET's, then the others once */
	size_t nc = 0, max_ctx = sizeof(b->ctx) / sizeof(b->ctx[0]);
	for (const char *const *c = caret_ctl_contexts; *c && nc < max_ctx; c++)
		b->ctx[nc++] = *c;
	for (int i = 0; i < s->n_context; i++) {
		bool dup = false;
		for (size_t j = 0; j < nc; j++)
			dup = dup || !strcmp(b->ctx[j], s->context[i]);
		if (!dup && nc < max_ctx)
			b->ctx[nc++] = s->context[i];
	}
	l->ust_list = s->ust_given ? "-u" : light ? "light" : "full";
	l->ust_events = (struct caret_ctl_strings){ (size_t)(n < 0 ? 0 : n), b->evs };
	l->ust_events_added = (struct caret_ctl_strings){
		(size_t)(s->ust_given && n > added ? n - added : 0), b->evs + (s->ust_given ? added : n)
	};
	l->not_recorded = (struct caret_ctl_strings){ (size_t)(nm < 0 ? 0 : (nm < 32 ? nm : 32)),
						      b->miss };
	l->context = (struct caret_ctl_strings){ nc, b->ctx };
	l->have_kernel = caret_ctl_sel_kernel(s);
	if (!l->have_kernel)
		return;
	l->kernel = (struct caret_ctl_list_channel){
		.name = CARET_CTL_KERNEL_CHANNEL,
		.subbuf_count = CARET_CTL_KERNEL_SUBBUF_COUNT,
		.subbuf_size = s->subbuf_size_kernel ? s->subbuf_size_kernel
						     : CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL,
	};
	l->kernel_events = (struct caret_ctl_strings){ (size_t)s->n_kernel, (const char **)s->kernel };
	l->syscalls = (struct caret_ctl_strings){ (size_t)s->n_syscall, (const char **)s->syscall };
}

void cli_sel_warn(const struct caret_ctl_sel *s)
{
	const char *miss[32];
	int nm = caret_ctl_sel_unrecorded(s, miss, 32);
	if (nm <= 0)
		return;
	fprintf(stderr, "caretctl: note: -u leaves out %d runtime event%s caret_analyze reads "
		"(its latencies lack them):", nm, nm == 1 ? "" : "s");
	for (int i = 0; i < nm && i < 32; i++)
		fprintf(stderr, " %s", miss[i]);
	fputc('\n', stderr);
}
