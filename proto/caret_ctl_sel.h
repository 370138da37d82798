/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a `record` enables beyond CARET's lists, with `ros2 trace`'s
 * options (ros2_tracing's tracetools_trace/tools/args.py, names.py):
 * -u/--ust EVENT... (the UST events), --context CONTEXT... (context
 * fields), -k/--kernel EVENT..., --syscall NAME... and
 * --subbuffer-size-kernel BYTES (a kernel channel in the same session).
 * Its place in the record request, its one encoder and its one decoder
 * (hostile input: every name is checked here), and the UST event list a
 * recording with it enables.
 *
 * A trace must stay one CARET can analyse, so a selection narrows only
 * what CARET can do without: CARET's initialization events
 * (ros2_caret:caret_init and every ros2_caret:<init kind> the agent
 * replays) are added to any -u list that does not cover them, and the
 * contexts vpid, vtid and procname (caret_ctl_contexts) to any --context
 * list. What a -u list leaves out of the runtime events caret_analyze
 * reads is named by caret_ctl_sel_unrecorded().
 */
#ifndef CARET_PROTO_CTL_SEL_H
#define CARET_PROTO_CTL_SEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_reply.h"

/* Names per list at most (LTTng takes each as one enable-event). */
#define CARET_CTL_SEL_MAX 64
/* An event or syscall name or pattern: LTTng's symbol length (256) - 1. */
#define CARET_CTL_SEL_NAME_MAX 255
/* The kernel channel (as ros2 trace's), its default sub-buffer size (32
 * pages, ros2_tracing's lttng_impl.py) and its sub-buffer count. */
#define CARET_CTL_KERNEL_CHANNEL "kchan"
#define CARET_CTL_DEFAULT_SUBBUF_SIZE_KERNEL (32u * 4096u)
#define CARET_CTL_KERNEL_SUBBUF_COUNT 2u

/* The request's keys. */
#define CARET_CTL_K_UST "ust"
#define CARET_CTL_K_CONTEXT "context"
#define CARET_CTL_K_KERNEL "kernel"
#define CARET_CTL_K_SYSCALL "syscall"
#define CARET_CTL_K_SUBBUF_SIZE_KERNEL "subbuf_size_kernel"

struct caret_ctl_sel {
	/* -u given: ust[] (maybe none) replaces CARET's full list */
	bool ust_given;
	int n_ust, n_context, n_kernel, n_syscall;
	const char *ust[CARET_CTL_SEL_MAX];
	const char *context[CARET_CTL_SEL_MAX]; /* beyond caret_ctl_contexts */
	const char *kernel[CARET_CTL_SEL_MAX];
	const char *syscall[CARET_CTL_SEL_MAX];
	uint64_t subbuf_size_kernel; /* 0: the default */
};

/* Whether the selection changes anything (a -u list, contexts or kernel
 * events). */
bool caret_ctl_sel_any(const struct caret_ctl_sel *s);

/* Whether the selection asks for a kernel channel (-k or --syscall with a
 * name). */
bool caret_ctl_sel_kernel(const struct caret_ctl_sel *s);

/* An event or syscall name (LTTng globbing: '*' only): 1 to 255 bytes of
 * [A-Za-z0-9_:.*-] ('-' not first). 0 or -EINVAL with why. */
int caret_ctl_sel_check_event(const char *name, char *why, size_t len);
/* A context name LTTng knows (caret_ctl_sel_context_domains). 0 or -EINVAL. */
int caret_ctl_sel_check_context(const char *name, char *why, size_t len);

/* The domains whose tracer has a context (as ros2 trace and `lttng
 * add-context` spell it; lib/lttng/lttng_sel.c maps each to LTTng's): a
 * context is added to the channels of those domains the recording has.
 * 0: not a context. */
#define CARET_CTL_SEL_UST 1u
#define CARET_CTL_SEL_KERNEL 2u
unsigned caret_ctl_sel_context_domains(const char *name);
/* Every context of s is one some channel of the recording has (a kernel
 * one needs kernel events). 0 or -EINVAL with why. */
int caret_ctl_sel_check_domains(const struct caret_ctl_sel *s, char *why, size_t len);

/*
 * The UST event patterns a recording with s enables: without -u CARET's
 * list (caret_ctl_evlist(light, rcl_publish)); with it, its names, then
 * every CARET initialization event none of them matches. *added (may be
 * NULL) is set to the index of the first added one. Returns the count
 * (out[] holds at most max; more is -E2BIG).
 */
int caret_ctl_sel_ust(const struct caret_ctl_sel *s, bool light, bool rcl_publish,
		      const char **out, int max, int *added);

/* The runtime events caret_analyze reads that s's -u list does not
 * enable (none without -u): their count, at most max in out. */
int caret_ctl_sel_unrecorded(const struct caret_ctl_sel *s, const char **out, int max);

/* Adds the selection's keys to a record request; false when out of
 * memory. Absent lists are not sent (an old caretd sees nothing new). */
bool caret_ctl_sel_enc(cJSON *o, const struct caret_ctl_sel *s);
/* Reads them: 0, or -EINVAL with why naming the key and the name. The
 * strings point into o. */
int caret_ctl_sel_dec(const cJSON *o, struct caret_ctl_sel *s, struct ctl_why *why);

#endif
