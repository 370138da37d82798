/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main() of caret-standin (built from the jazzy stand-in) and
 * caret-standin-humble. The executable links libtracetools, librclcpp and
 * librmw_implementation like a C++ node. When --distro or --python-like
 * asks for another build, it runs that one instead (same arguments), so
 * `caret-standin --distro humble` is the humble stand-in.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/standin/workload/main.h"

#ifdef STANDIN_HUMBLE
#define SELF_DISTRO "humble"
#else
#define SELF_DISTRO "jazzy"
#endif

static void run_sibling(const char *name, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		perror("caret-standin: /proc/self/exe");
		return;
	}
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dirname(self), name);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "caret-standin: cannot run %s: %m\n", path);
}

int main(int argc, char **argv)
{
	const char *distro = SELF_DISTRO;
	int python = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--distro") && i + 1 < argc)
			distro = argv[i + 1];
		else if (!strncmp(argv[i], "--distro=", 9))
			distro = argv[i] + 9;
		else if (!strcmp(argv[i], "--python-like"))
			python = 1;
	}
	if (python) {
		run_sibling("caret-standin-py", argv);
		return 1;
	}
	if (strcmp(distro, SELF_DISTRO)) {
		if (!strcmp(distro, "humble"))
			run_sibling("caret-standin-humble", argv);
		else if (!strcmp(distro, "jazzy"))
			run_sibling("caret-standin", argv);
		else
			return wl_main(argc, argv);	/* reports the bad value */
		return 1;
	}
	return wl_main(argc, argv);
}
