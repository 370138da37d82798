/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of rotating recordings (daemon/recording/rotation.h), which every part
 * of rotation reads and writes: the triggers and notifications
 * (rotation_lttng.h), the chunks' verdicts (rotation_verdict.h), the
 * state file and adoption (rotation_store.h), the disk guard
 * (rotation_space.h), status (rotation_report.h). It owns the table, the
 * view and the registry the rotations look at, and the recordings caretd
 * ended itself; it calls nothing of rotation's.
 */
#ifndef CARETD_ROTATION_STATE_H
#define CARETD_ROTATION_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/recording/chunks.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"

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

#define MAX_ROT LTTNG_VIEW_MAX_RECORDINGS
/* chunks named incomplete, per recording (the newest kept) */
#define MAX_INCOMPLETE 64
/* Recordings caretd ended itself (a disk about to fill), for `status` and
 * the caretctl that waits on them: the newest kept. */
#define MAX_ENDED 8


struct rot {
	bool used;
	bool armed; /* waits for rotation_go() */
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	uint64_t dev, ino;
	uid_t uid;
	gid_t gid;
	struct rotation_opts o;
	bool subscribed;     /* on the current notification channel */
	uint32_t serial;     /* the session's serial the current chunk's pass is for */
	bool cur_complete;   /* every live agent finished that pass (latched) */
	bool closing;        /* a rotation is ongoing: cur_complete is its verdict */
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
	struct rot_disc { uint64_t index, count; } disc[MAX_INCOMPLETE];
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

/* Empties the table (what it held is not freed: rot_state_free). */
void rot_state_init(struct lttng_view *v, struct registry *r);
/* Frees what every slot holds (its listing, its baseline). */
void rot_state_free(void);

struct lttng_view *rot_view(void);
struct registry *rot_reg(void);

/* Slot i of the table, 0 <= i < MAX_ROT (used or not). */
struct rot *rot_at(int i);
struct rot *rot_find(const char *session);
/* A free slot, NULL when the table is full. */
struct rot *rot_slot(void);
bool rot_any(void);

/* A recording caretd ended itself, and why. */
void rot_ended_add(const char *session, const char *why);
/* How many are kept; the i-th of them. */
unsigned rot_ended_count(void);
void rot_ended_at(unsigned i, const char **session, const char **why);

#endif
