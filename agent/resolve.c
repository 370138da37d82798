/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finding the real function behind a hook, wherever it is loaded.
 *
 * dlsym(RTLD_NEXT) only searches the global scope. Real ROS 2 loads much of
 * itself in local scope: rmw_implementation opens the RMW library with
 * rcutils_load_shared_library -> dlopen(path, RTLD_LAZY) (no RTLD_GLOBAL;
 * ros2/rcutils src/shared_library.c, humble and jazzy), so libddsc and
 * libfastrtps, NEEDED by librmw_*_cpp.so, are invisible to RTLD_NEXT; rclpy
 * reaches rcl and tracetools through its extension module, also opened
 * without RTLD_GLOBAL. Calls from those libraries still reach the agent's
 * hooks (the preloaded agent is in the global scope, searched first for
 * every relocation), so the hook must find the definition itself:
 *
 *   1. dlsym(RTLD_NEXT / RTLD_DEFAULT, sym), as before;
 *   2. otherwise every loaded object in load order (dl_iterate_phdr), each
 *      through a handle from dlopen(name, RTLD_NOLOAD) so its own local
 *      scope is searched; the handle is closed again at once.
 *
 * A definition inside the agent itself is never returned. A miss is not
 * cached as final: it is retried when the set of loaded objects changed
 * (dlpi_adds/dlpi_subs), so a library dlopened later is found.
 *
 * Why a hook can always reach its target: the dynamic linker bound a caller
 * to the agent's definition only because the caller references the symbol,
 * and the caller was linked against the library that defines it, which is
 * therefore loaded (DT_NEEDED) and enumerated by dl_iterate_phdr. The only
 * miss left is a caller that looked the name up itself (dlsym) in a
 * process where no library defines it: without the agent that lookup would
 * have returned NULL and the call could not have been made at all.
 *
 * dlopen is never called inside the dl_iterate_phdr callback: glibc holds
 * dl_load_write_lock there and dlopen takes dl_load_lock, the opposite
 * order of a concurrent dlopen.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agent/resolve.h"

static uintptr_t self_base;

static uintptr_t agent_base(void)
{
	uintptr_t b = __atomic_load_n(&self_base, __ATOMIC_RELAXED);
	if (!b) {
		Dl_info info;
		if (dladdr((void *)agent_base, &info))
			b = (uintptr_t)info.dli_fbase;
		__atomic_store_n(&self_base, b, __ATOMIC_RELAXED);
	}
	return b;
}

static bool ours(const void *p)
{
	Dl_info info;
	return dladdr(p, &info) && (uintptr_t)info.dli_fbase == agent_base();
}

struct nth {
	unsigned want, seen;
	uint64_t gen;
	char name[PATH_MAX];
	bool found;
};

/* Copies the name of the want-th object with a name that is not the agent;
 * also reports the load generation. */
static int nth_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct nth *n = data;
	(void)size;
	n->gen = (uint64_t)info->dlpi_adds + (uint64_t)info->dlpi_subs;
	if (!info->dlpi_name || !info->dlpi_name[0] || info->dlpi_addr == agent_base())
		return 0;
	if (n->seen++ != n->want)
		return 0;
	size_t l = strnlen(info->dlpi_name, sizeof(n->name) - 1);
	memcpy(n->name, info->dlpi_name, l);
	n->name[l] = '\0';
	n->found = true;
	return 1;
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = (uint64_t)info->dlpi_adds + (uint64_t)info->dlpi_subs;
	return 1;
}

uint64_t caret_load_generation(void)
{
	uint64_t g = 0;
	dl_iterate_phdr(gen_cb, &g);
	return g;
}

void *caret_find_in_loaded(const char *sym)
{
	for (unsigned i = 0;; i++) {
		struct nth n = { .want = i };
		dl_iterate_phdr(nth_cb, &n);
		if (!n.found)
			return NULL;
		void *h = dlopen(n.name, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void *p = dlsym(h, sym);
		dlclose(h);
		if (p && !ours(p))
			return p;
	}
}

static void *lookup(struct caret_fn *fn, void *handle, const char *sym)
{
	void *p = __atomic_load_n(&fn->p, __ATOMIC_ACQUIRE);
	if (__builtin_expect(p != NULL, 1))
		return p;
	uint64_t gen = caret_load_generation();
	if (__atomic_load_n(&fn->miss_gen, __ATOMIC_RELAXED) == gen + 1)
		return NULL;
	p = dlsym(handle, sym);
	if (p && ours(p))
		p = NULL;
	if (!p)
		p = caret_find_in_loaded(sym);
	if (p)
		__atomic_store_n(&fn->p, p, __ATOMIC_RELEASE);
	else /* +1: generation 0 must not read as "never tried" */
		__atomic_store_n(&fn->miss_gen, gen + 1, __ATOMIC_RELAXED);
	return p;
}

void *caret_real(struct caret_fn *fn, const char *sym)
{
	return lookup(fn, RTLD_NEXT, sym);
}

void *caret_global(struct caret_fn *fn, const char *sym)
{
	return lookup(fn, RTLD_DEFAULT, sym);
}
