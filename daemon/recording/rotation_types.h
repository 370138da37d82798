/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A rotating recording's state (daemon/recording/rotation.h), held in its
 * recording (daemon/recording/recording.h): what every part of rotation
 * reads and writes about one recording.
 */
#ifndef CARETD_ROTATION_TYPES_H
#define CARETD_ROTATION_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/recording/chunks.h"
#include "lib/lttng/session.h"

struct rotation_opts {
	uint64_t size;     /* bytes; 0: no size schedule */
	uint64_t every_ms; /* 0: no periodic schedule */
	uint32_t keep;     /* archived chunks kept; 0: all */
	uint64_t max_size; /* bytes of archived chunks kept; 0: no bound */
};

static inline bool rotation_wanted(const struct rotation_opts *o)
{
	return o->size || o->every_ms;
}

/* chunks named incomplete, per recording (the newest kept) */
#define MAX_INCOMPLETE 64
struct rotation {
	bool used;
	bool armed; /* waits for its recording's go */
	/* restored after a caretd restart: taken over (its triggers again,
	 * a verdict on what was archived meanwhile) once the scheduler
	 * adopted every agent (rotation_store.c) */
	bool adopting;
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	uint64_t dev, ino;
	uid_t uid;
	gid_t gid;
	struct rotation_opts o;
	bool subscribed;     /* on the current notification channel */
	uint32_t serial;     /* the session's serial the current chunk's pass is for */
	bool cur_complete;   /* every live agent finished that pass (latched) */
	/* a rotation started (its chunk closed, the next one's pass begun)
	 * and LTTng has not archived the chunk yet */
	bool archiving;
	int64_t started_ns;  /* caretd's notice of the last rotation start (0: none) */
	int64_t stop_wait_ns; /* a stop first refused for its chunk's replay (0: none) */
	uint64_t cur_index;  /* LTTng's id of the chunk being written */
	uint64_t verdict_upto; /* chunks below this index have a verdict */
	uint64_t incomplete[MAX_INCOMPLETE]; /* ring of chunk indexes */
	unsigned n_incomplete;
	/* chunks that may hold an init record twice (what `caretctl check`
	 * calls incomplete too; the analyzer ignores duplicates): a pass
	 * still running when its chunk was rotated goes on in the next one,
	 * which then gets its own full pass */
	uint64_t dups[MAX_INCOMPLETE];
	unsigned n_dups;
	bool spill; /* the chunk just closed had a pass in flight */
	/* archived chunks whose packets report events the tracer discarded
	 * (count UINT64_MAX: not counted, its index unreadable), what
	 * `caretctl check` calls incomplete too; chunks below disc_upto were
	 * counted (again after a restart: the archives tell) */
	struct rotation_disc { uint64_t index, count; } disc[MAX_INCOMPLETE];
	unsigned n_disc;
	uint64_t disc_upto;
	/* every agent's pass epoch when the current chunk began (its
	 * rotation started): each pass begun since writes the whole cache
	 * into it, so more than one means records twice */
	struct base { pid_t pid; uint64_t start; uint32_t epoch; } *base;
	int n_base;
	uint64_t rotations, removed;
	struct chunk_list *list; /* the last listing of its archives */
	char error[256];
	int64_t space_ns; /* when the free space was last looked at */
};

#endif
