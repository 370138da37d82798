/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tells caretd, without it polling, that a session enabled (or disabled)
 * ros2 or ros2_caret events in this process (issue 24).
 *
 * lttng-ust attaches an enabled event's probe to its tracepoint through
 * lttng_ust_tp_probe_register_queue_release() of liblttng-ust-tracepoint,
 * and detaches it through ..._unregister_queue_release(); liblttng-ust
 * calls both through the dynamic linker, so the preloaded agent stands in
 * front of them. They run in lttng-ust's listener thread, never on an
 * application thread, precisely when a session starts or stops recording
 * our events here (or when this process registers while one records).
 *
 * The signal is futimens() on the agent's own segment file: an IN_ATTRIB
 * that caretd's inotify watch on the segment directory already receives.
 * Nothing in the segment changes.
 *
 * The real functions are found by reading liblttng-ust-tracepoint's
 * dynamic symbol table through dl_iterate_phdr, not with dlsym: the first
 * call may come while the application's thread is inside dlopen() of
 * lttng-ust (its constructor waits for this listener thread to register),
 * and dlsym would wait for that dlopen to return (the loader's lock),
 * delaying the application's start by lttng-ust's registration timeout.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/provider.h"
#include "agent/state.h"

/*
 * Both are forwarded with every argument register they may use: 2.13
 * passes (name "provider:event", func, data[, signature]), later versions
 * (provider, event, func, data[, signature]); not part of lttng-ust's API.
 */
typedef int (*probe_fn)(void *a, void *b, void *c, void *d, void *e);

struct find {
	const char *sym;
	void *found;
};

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct find *f = data;
	if (!info->dlpi_name || strncmp(base_name(info->dlpi_name), "liblttng-ust-tracepoint.so",
					26) != 0)
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	ElfW(Addr) symtab = 0, strtab = 0, gnuhash = 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		/* glibc relocates these in place on x86-64; not everywhere */
		ElfW(Addr) p = dyn->d_un.d_ptr;
		if (p < info->dlpi_addr)
			p += info->dlpi_addr;
		if (dyn->d_tag == DT_SYMTAB)
			symtab = p;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = p;
		else if (dyn->d_tag == DT_GNU_HASH)
			gnuhash = p;
	}
	if (!symtab || !strtab || !gnuhash)
		return 0;
	const uint32_t *h = (const void *)gnuhash;
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
	if (!nbuckets)
		return 0;
	const uint32_t *buckets = (const void *)((const ElfW(Addr) *)&h[4] + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	const ElfW(Sym) *syms = (const void *)symtab;
	uint32_t hash = gnu_hash(f->sym);
	uint32_t i = buckets[hash % nbuckets];
	if (i < symoffset)
		return 0;
	for (;; i++) {
		uint32_t h2 = chain[i - symoffset];
		if ((hash | 1) == (h2 | 1) && syms[i].st_shndx != SHN_UNDEF &&
		    strcmp((const char *)strtab + syms[i].st_name, f->sym) == 0) {
			f->found = (void *)(info->dlpi_addr + syms[i].st_value);
			return 1;
		}
		if (h2 & 1)
			return 0;
	}
}

static probe_fn real_fn(probe_fn *cache, const char *sym)
{
	probe_fn p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	if (p)
		return p;
	struct find f = { .sym = sym };
	dl_iterate_phdr(find_cb, &f);
	p = (probe_fn)f.found;
	if (!p) /* not where 2.13 keeps it: the loader's lookup, which may
		 * wait for a dlopen in progress, rather than no tracing */
		p = (probe_fn)dlsym(RTLD_NEXT, sym);
	if (p)
		__atomic_store_n(cache, p, __ATOMIC_RELEASE);
	return p;
}

/* "ros2:..." / "ros2_caret:..." (2.13), or the provider alone. */
static bool ours(const char *name)
{
	if (!name || strncmp(name, "ros2", 4) != 0)
		return false;
	const char *t = name + 4;
	if (strncmp(t, "_caret", 6) == 0)
		t += 6;
	return *t == ':' || *t == '\0';
}

/* One signal per burst: a session start attaches dozens of probes. The
 * last of a burst is not signalled again: caretd reads the sessions at
 * the first, and the session daemon answers it only after the command
 * that caused the burst. */
#define BURST_NS (5 * 1000000LL)

static void ring(void)
{
	static int64_t last;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	int64_t prev = __atomic_load_n(&last, __ATOMIC_RELAXED);
	if (prev && now - prev < BURST_NS && now >= prev)
		return;
	__atomic_store_n(&last, now, __ATOMIC_RELAXED);
	int fd = caret_agent_seg_fd();
	if (fd >= 0)
		futimens(fd, NULL);
}

/* Both stand-ins forward to the real function of their own name. An
 * attach also tells provider.h that a session records ros2 events here
 * (only a flag: this is lttng-ust's listener thread). */
static int forward(probe_fn *real, const char *sym, bool attach, void *a, void *b, void *c,
		   void *d, void *e)
{
	probe_fn f = real_fn(real, sym);
	if (!f)
		return -ENOSYS;
	int r = f(a, b, c, d, e);
	if (r == 0 && ours(a)) {
		if (attach)
			caret_provider_note_attached();
		ring();
	}
	return r;
}

CARET_EXPORT int lttng_ust_tp_probe_register_queue_release(void *a, void *b, void *c, void *d,
							   void *e)
{
	static probe_fn real;
	return forward(&real, __func__, true, a, b, c, d, e);
}

CARET_EXPORT int lttng_ust_tp_probe_unregister_queue_release(void *a, void *b, void *c, void *d,
							     void *e)
{
	static probe_fn real;
	return forward(&real, __func__, false, a, b, c, d, e);
}
