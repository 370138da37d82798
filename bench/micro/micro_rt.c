/* SPDX-License-Identifier: Apache-2.0 */
/* caret-microbench's view of the runtime: which library's hook a call
 * reaches, the agent brought up by its first tracetools call, its segment
 * attached for the state word. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/micro/micro_rt.h"
#include "tools/standin/tracetools/tracetools.h"

static void lib_of(void *fn, char *buf, size_t len)
{
	Dl_info info;
	if (dladdr(fn, &info) && info.dli_fname)
		snprintf(buf, len, "%s", info.dli_fname);
	else
		snprintf(buf, len, "?");
}

int rt_setup(struct rt *r)
{
	memset(r, 0, sizeof(*r));
	void *h = dlopen("libtracetools.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!h) {
		fprintf(stderr, "microbench: libtracetools.so not loaded: %s\n", dlerror());
		return -1;
	}
	r->real = (cb_fn)dlsym(h, "ros_trace_callback_start");
	r->real_enabled = (en_fn)dlsym(h, "ros_trace_enabled_callback_start");
	/* volatile: the compiler must not assume it is the PLT target. */
	cb_fn volatile hook = ros_trace_callback_start;
	r->hook = hook;
	if (!r->real || !r->real_enabled || !r->hook) {
		fprintf(stderr, "microbench: ros_trace_callback_start not found\n");
		return -1;
	}
	lib_of((void *)r->hook, r->hook_lib, sizeof(r->hook_lib));
	lib_of((void *)r->real, r->real_lib, sizeof(r->real_lib));
	r->agent = r->hook != r->real && strstr(r->hook_lib, "libcaret-agent");
	if (!r->agent)
		return 0;
	/* The agent initialises at its first tracetools call: segment,
	 * provider, replay thread, start state. */
	static int context;
	ros_trace_rcl_init(&context);
	uint64_t start;
	char name[CARET_SHM_NAME_MAX];
	int e = caret_proc_start_time(getpid(), &start);
	if (e == 0)
		e = caret_seg_name(name, sizeof(name), getpid(), start);
	if (e == 0)
		e = caret_seg_attach(&r->seg, name);
	if (e < 0) {
		fprintf(stderr, "microbench: cannot attach the agent's segment: %s\n",
			strerror(-e));
		return 0;
	}
	r->seg_ok = true;
	return 0;
}

uint32_t rt_state(const struct rt *r)
{
	return r->seg_ok ? caret_seg_state(&r->seg) : 0;
}

void rt_info(const struct rt *r, uint32_t start_state)
{
	printf("{\"info\": {\"agent\": %s, \"hook_lib\": \"%s\", \"real_lib\": \"%s\", "
	       "\"segment\": %s, \"start_state\": %u, \"state\": %u, "
	       "\"real_enabled\": %s}}\n",
	       r->agent ? "true" : "false", r->hook_lib, r->real_lib,
	       r->seg_ok ? "true" : "false", start_state, rt_state(r),
	       r->real_enabled() ? "true" : "false");
	fflush(stdout);
}

void rt_close(struct rt *r)
{
	if (r->seg_ok)
		caret_seg_close(&r->seg);
	r->seg_ok = false;
}
