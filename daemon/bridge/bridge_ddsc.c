/* SPDX-License-Identifier: Apache-2.0 */
/* libddsc's loader: see bridge_ddsc.h. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "daemon/bridge/bridge_ddsc.h"

struct bridge_ddsc_fns bridge_ddsc;

int bridge_ddsc_load(char *why, size_t len)
{
	if (D.lib)
		return 0;
	/* Debian's soname first, then upstream's */
	static const char *const names[] = { "libddsc.so.0debian", "libddsc.so.0", "libddsc.so" };
	void *lib = NULL;
	for (size_t i = 0; !lib && i < sizeof(names) / sizeof(names[0]); i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, len, "cannot load CycloneDDS (libddsc): %s", dlerror());
		return -ENOENT;
	}
#define LOAD(n)                                                                   \
	if (!(D.n = (__typeof__(n) *)dlsym(lib, #n))) {                           \
		snprintf(why, len, "libddsc has no %s", #n);                      \
		dlclose(lib);                                                     \
		return -ENOENT;                                                   \
	}
	DDS_FUNCS(LOAD)
#undef LOAD
	/* never unloaded: CycloneDDS keeps threads and atexit handlers */
	D.lib = lib;
	return 0;
}
