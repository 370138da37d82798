/* SPDX-License-Identifier: Apache-2.0 */
/* The ros2_caret provider, loaded on first need (provider.h). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/provider.h"

static int rmw_args;
static bool failed;
static bool attached;

void caret_provider_choose(int rmw_publish_args)
{
	rmw_args = rmw_publish_args;
}

/* The provider of the detected distribution: ros2_caret:dds_write has
 * CARET's one-field layout (message) where rmw_publish has one argument
 * (Humble, Iron), its Jazzy layout otherwise (caret_tp.h). */
static const struct caret_tp_api *open_provider(void)
{
	char path[PATH_MAX];
	const char *env = getenv("CARET_AGENT_TP_LIB");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		Dl_info info;
		if (!dladdr((void *)open_provider, &info) || !info.dli_fname)
			return NULL;
		snprintf(path, sizeof(path), "%s", info.dli_fname);
		char *slash = strrchr(path, '/');
		size_t dir = slash ? (size_t)(slash - path + 1) : 0;
		snprintf(path + dir, sizeof(path) - dir, "%s",
			 rmw_args == 1 ? "libcaret-agent-tp-humble.so" : "libcaret-agent-tp.so");
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		caret_warn("caret-agent: cannot load %s: %s", path, dlerror());
		return NULL;
	}
	const struct caret_tp_api *api = dlsym(h, CARET_TP_API_SYMBOL);
	if (!api || api->version != CARET_TP_API_VERSION) {
		caret_warn("caret-agent: %s is not a matching provider", path);
		return NULL;
	}
	return api;
}

/* No lock of ours around dlopen: an application thread may get here from a
 * constructor that dlopen runs (the loader's lock held), while the replay
 * thread loads; the loader serialises the two dlopens itself, and both
 * find the same provider. */
const struct caret_tp_api *caret_provider_load(void)
{
	const struct caret_tp_api *tp = __atomic_load_n(&caret_tp, __ATOMIC_ACQUIRE);
	if (tp || __atomic_load_n(&failed, __ATOMIC_ACQUIRE))
		return tp;
	tp = open_provider();
	if (!tp) {
		__atomic_store_n(&failed, true, __ATOMIC_RELEASE);
		return NULL;
	}
	/* Release: the replay thread acknowledges the pass's tracepoints
	 * (shm step 3) after this, and caretd moves the process to RECORD
	 * only after that acknowledgement; the hooks read caret_tp once they
	 * see RECORD. */
	__atomic_store_n(&caret_tp, tp, __ATOMIC_RELEASE);
	return tp;
}

bool caret_provider_session_mapped(void)
{
	/* Without lttng-ust already here (a program that has no tracetools
	 * provider of its own), no session knows this process until the
	 * provider brings lttng-ust in: only loading it tells. */
	void *ust = dlopen("liblttng-ust.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!ust)
		return true;
	dlclose(ust);
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return true; /* cannot tell: as if one were, the provider at once */
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/shm-ust-consumer-") != NULL;
	fclose(f);
	return found;
}

void caret_provider_note_attached(void)
{
	__atomic_store_n(&attached, true, __ATOMIC_RELAXED);
}

bool caret_provider_attached(void)
{
	return __atomic_load_n(&attached, __ATOMIC_RELAXED);
}

bool caret_provider_failed(void)
{
	return __atomic_load_n(&failed, __ATOMIC_ACQUIRE);
}
