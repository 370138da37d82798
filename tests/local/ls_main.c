/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Local-scope loading, as real ROS 2 does it (rmw_implementation and rclpy
 * open their libraries with dlopen(RTLD_LAZY) and no RTLD_GLOBAL): with the
 * agent preloaded, calls made from those libraries must still reach the
 * real functions, and the agent must find tracetools there.
 *
 * Usage: ls_main LIBDIR AGENTCTL. Run with and without LD_PRELOAD of the
 * agent: every call that works without the agent must work with it.
 * Exit 0 when every check passed.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			printf("ok   ");                                     \
		} else {                                                     \
			printf("FAIL ");                                     \
			failures++;                                          \
		}                                                            \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
	} while (0)

static void *open_local(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(2);
	}
	return h;
}

static int counter(void *h, const char *name)
{
	int *p = dlsym(h, name);
	return p ? *p : -1;
}

typedef int (*write_fn)(int32_t, const void *);

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ls_main LIBDIR AGENTCTL\n");
		return 2;
	}
	const char *pre = getenv("LD_PRELOAD");
	bool agent = pre && strstr(pre, "libcaret-agent");
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* No DDS library anywhere yet: the only dds_write is the agent's. A
	 * caller that finds it by name gets an error, not a crash; without the
	 * agent the lookup itself fails. */
	write_fn early = (write_fn)dlsym(RTLD_DEFAULT, "dds_write");
	if (agent) {
		CHECK(early != NULL, "the agent's dds_write is the only one in the process");
		static int m;
		CHECK(early && early(1, &m) < 0, "with no real dds_write the call fails cleanly");
	} else {
		CHECK(early == NULL, "no dds_write without the agent");
	}

	/* The RMW layer in local scope, its DDS library NEEDED by it. */
	void *rmw = open_local(argv[1], "libls_rmw.so");
	int (*publish)(void) = (int (*)(void))dlsym(rmw, "ls_publish");
	CHECK(publish && publish() == 0, "a publish through the local-scope RMW succeeds");
	int writes = counter(rmw, "ls_dds_writes") + counter(rmw, "ls_dds_writes_ts");
	CHECK(writes == 1, "the local-scope DDS library received the write (%d)", writes);

	/* The miss above was not final: the library loaded since is found. */
	if (agent) {
		static int m;
		CHECK(early(1, &m) == 0, "re-resolved after the DDS library was loaded");
		writes = counter(rmw, "ls_dds_writes") + counter(rmw, "ls_dds_writes_ts");
		CHECK(writes == 2, "the second write reached it too (%d)", writes);
	}

	/* tracetools reached only through a local-scope extension module. */
	void *ext = open_local(argv[1], "libls_ext.so");
	void (*ext_init)(void) = (void (*)(void))dlsym(ext, "ls_ext_init");
	void (*ext_rt)(void) = (void (*)(void))dlsym(ext, "ls_ext_runtime");
	ext_init();
	ext_rt();
	int rt = counter(ext, "ls_tt_callback_start");
	if (agent) {
		/* Init events are the agent's (cached, emitted as ros2_caret:);
		 * runtime events are dropped until RECORD. */
		CHECK(counter(ext, "ls_tt_rcl_init") == 0, "rcl_init captured by the agent");
		CHECK(rt == 0, "runtime event dropped in WAIT (%d)", rt);
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "%s state %d record >/dev/null", argv[2], (int)getpid());
		CHECK(system(cmd) == 0, "agent set to RECORD");
		ext_rt();
		rt = counter(ext, "ls_tt_callback_start");
		CHECK(rt == 1, "runtime event forwarded to the local-scope tracetools (%d)", rt);
	} else {
		CHECK(counter(ext, "ls_tt_rcl_init") == 1, "rcl_init reached tracetools");
		CHECK(rt == 1, "runtime event reached tracetools (%d)", rt);
	}
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
