/* SPDX-License-Identifier: Apache-2.0 */
/* Finding the real function behind a hook (resolve.c). */
#ifndef CARET_AGENT_RESOLVE_H
#define CARET_AGENT_RESOLVE_H

#include <stdint.h>

/* A real function found once and cached by its caller. */
struct caret_fn {
	void *p;           /* atomic: the definition, NULL until found */
	uint64_t miss_gen; /* atomic: load generation + 1 of the last miss */
};

/* The definition of `sym` the hook stands in front of: the next one after
 * the agent (dlsym RTLD_NEXT) or, when that finds nothing, the first one
 * in any loaded object, local-scope libraries included. */
void *caret_real(struct caret_fn *fn, const char *sym);
/* The same starting from the first definition in the process (RTLD_DEFAULT):
 * functions the agent calls but does not interpose. */
void *caret_global(struct caret_fn *fn, const char *sym);
/* Every loaded object in load order, skipping the agent (uncached). */
void *caret_find_in_loaded(const char *sym);
/* Changes whenever an object is loaded or unloaded. */
uint64_t caret_load_generation(void);

/* How a tracetools hook hands its call on: the real `sym` (cached in
 * slot) with args, when there is one; params types the call. */
#define CARET_FORWARD(slot, sym, params, args)                                \
	do {                                                                  \
		void (*f_) params = (void (*) params)caret_real(slot, sym);   \
		if (f_)                                                       \
			f_ args;                                              \
	} while (0)

#endif
