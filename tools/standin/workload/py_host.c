/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-standin-py: the python-like loader. Like the python interpreter
 * importing rclpy's extension module, it links none of the ROS libraries
 * and loads the node code with dlopen(RTLD_NOW | RTLD_LOCAL) (CPython's
 * default sys.getdlopenflags()). The module's own dependencies -
 * libtracetools, librclcpp, librmw_implementation, and later the rmw and
 * DDS libraries - therefore all live in local scope: a preloaded agent
 * cannot find their functions with dlsym(RTLD_NEXT or RTLD_DEFAULT).
 *
 * One difference from rclpy, on purpose: rclpy's extension links rcl but
 * not rclcpp (its executors are Python). The module here runs the same
 * node code as the C++ build, so librclcpp is local too, which also
 * covers a preloaded agent's rclcpp hooks when rclcpp is not global.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 96];
	const char *distro = "jazzy", *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int (*wl_main)(int, char **);
	void *h;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--distro") && i + 1 < argc)
			distro = argv[i + 1];
		else if (!strncmp(argv[i], "--distro=", 9))
			distro = argv[i] + 9;
	}
	if (strcmp(distro, "jazzy") && strcmp(distro, "humble")) {
		fprintf(stderr, "caret-standin-py: --distro: unknown value '%s'\n",
			distro);
		return 2;
	}
	if (n <= 0) {
		perror("caret-standin-py: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	dir = dirname(self);	/* may modify self: call once */
	/* Build tree: bin/ -> lib/standin/<d>; installed: lib/caretd/standin/<d>. */
	snprintf(path, sizeof(path), "%s/../lib/standin/%s/libstandin_rclpy.so",
		dir, distro);
	if (access(path, R_OK) != 0)
		snprintf(path, sizeof(path),
			"%s/../lib/caretd/standin/%s/libstandin_rclpy.so",
			dir, distro);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "caret-standin-py: %s\n", dlerror());
		return 1;
	}
	*(void **)&wl_main = dlsym(h, "wl_main");
	if (!wl_main) {
		fprintf(stderr, "caret-standin-py: %s\n", dlerror());
		return 1;
	}
	return wl_main(argc, argv);
}
