/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What status, list and stop results say of recordings (the protocol:
 * proto/caret_ctl_rotation.h and proto/caret_ctl_snapshot.h) as C
 * structs, with one encoder and one decoder:
 *
 *  status: "rotations": [ROTATION], "rotations_ended": [{"session",
 *          "error"}], "recordings": [RECORDING]
 *  list:   "recordings": [RECORDING]
 *  stop:   "rotation"? ROTATION, and a flight recorder's "mode",
 *          "ring_size"?, "snapshots", "last_snapshot"? beside its fields
 *
 *  ROTATION = {"chunks": [{"name", "index", "bytes", "complete", "why"?}],
 *              "incomplete": [names], "session", "mode", "rotate_size",
 *              "rotate_every_ms", "keep", "max_size", "rotations",
 *              "removed", "chunks_bytes", "pass_complete"?, "error"?}
 *  RECORDING = {"session", "path", "mode", "ring_size"?, "snapshots"?,
 *               "last_snapshot"?, "snapshot_on"?, "snapshot_filter"?,
 *               "triggered"?, "coalesced"?, "paused"?, "held"?}
 *  ("held": true while a connection holds it, proto/caret_ctl.h's "hold";
 *  absent when none does, as "paused" is when not paused: the text an
 *  older caretctl read stays the same)
 *
 * caretd's recording features (daemon/recording/) fill these structs and
 * its reply layer encodes them. Strings of a decoded result point into
 * the cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_RECORDINGS_H
#define CARET_PROTO_CTL_RECORDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Bounds on what a decoder accepts: above what caretd keeps (MAX_ROT
 * recordings, CARET_CTL_KEEP_MAX chunks each), low enough to bound memory. */
#define CARET_CTL_RECORDINGS_MAX 4096
#define CARET_CTL_CHUNKS_MAX 4096

struct caret_ctl_chunk {
	const char *name;
	uint64_t index, bytes;
	bool complete;
	const char *why; /* what it may lack or hold twice; NULL when complete */
};

struct caret_ctl_rotation_status {
	const char *session, *mode;
	uint64_t rotate_size, rotate_every_ms, keep, max_size; /* 0: not given */
	uint64_t rotations, removed, chunks_bytes;
	bool have_pass_complete; /* absent from caretds before it */
	bool pass_complete;	 /* the chunk being written has every replay */
	const char *error;	 /* NULL: none */
	size_t n_chunks;
	struct caret_ctl_chunk *chunks;
	size_t n_incomplete;
	const char **incomplete;
};

struct caret_ctl_rotation_ended {
	const char *session, *error;
};

/* A "recordings" entry; for a stop result's own fields, session and path
 * are NULL. The optional numbers come with their have_ flag. */
struct caret_ctl_recording_status {
	const char *session, *path, *mode;
	bool have_ring_size, have_snapshots, have_trigger;
	uint64_t ring_size, snapshots;
	const char *last_snapshot;		 /* NULL: none yet */
	const char *snapshot_on, *snapshot_filter; /* its trigger; NULL: none */
	uint64_t triggered, coalesced;		 /* with have_trigger */
	bool paused; /* `caretctl pause` stopped its tracing ("paused": true) */
	/* a requester's connection holds it ("held": true): stopped if that
	 * closes unreleased */
	bool held;
};

struct caret_ctl_recordings {
	bool have_rotations, have_ended, have_recordings; /* the arrays were there */
	size_t n_rotations;
	struct caret_ctl_rotation_status *rotations;
	size_t n_ended;
	struct caret_ctl_rotation_ended *ended;
	size_t n_recordings;
	struct caret_ctl_recording_status *recordings;
	/* stop: its "rotation" (NULL: not a rotating recording) and its own
	 * mode fields (have_self: "mode" was there) */
	struct caret_ctl_rotation_status *rotation;
	bool have_self;
	struct caret_ctl_recording_status self;
};

/* Adds what r has to out (a status, list or stop result). 0 or -ENOMEM. */
int caret_ctl_recordings_encode(const struct caret_ctl_recordings *r, cJSON *out);
/* Reads what a status, list or stop result says of recordings (every part
 * optional). 0, -EPROTO (why names the field) or -ENOMEM; on failure r
 * holds nothing to free. */
int caret_ctl_recordings_decode(const cJSON *in, struct caret_ctl_recordings *r, char *why,
				size_t len);
void caret_ctl_recordings_free(struct caret_ctl_recordings *r);

/* The rotation status of session among r's, NULL when it does not rotate. */
const struct caret_ctl_rotation_status *
caret_ctl_recordings_rotation(const struct caret_ctl_recordings *r, const char *session);

#endif
