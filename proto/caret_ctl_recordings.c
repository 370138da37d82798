/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_snapshot.h"

#define K_CHUNKS "chunks"
#define K_INCOMPLETE "incomplete"
#define K_INDEX "index"
#define K_BYTES "bytes"
#define K_REMOVED "removed"
#define K_CHUNKS_BYTES "chunks_bytes"

/* Replies carry no count above CARET_CTL_COUNT_MAX (caretd(8)). */
static double count(uint64_t v)
{
	return (double)(v > CARET_CTL_COUNT_MAX ? CARET_CTL_COUNT_MAX : v);
}

/* ---- encoding (key order: as daemon/recording/ writes them) ---- */

static bool add_chunk(cJSON *arr, const struct caret_ctl_chunk *c)
{
	cJSON *x = ctl_add_object(arr);
	if (!x)
		return false;
	return cJSON_AddStringToObject(x, CARET_CTL_K_NAME, c->name) &&
	       cJSON_AddNumberToObject(x, K_INDEX, count(c->index)) &&
	       cJSON_AddNumberToObject(x, K_BYTES, count(c->bytes)) &&
	       cJSON_AddBoolToObject(x, CARET_CTL_K_COMPLETE, c->complete) &&
	       (!c->why || cJSON_AddStringToObject(x, CARET_CTL_K_WHY, c->why));
}

static cJSON *rotation_obj(const struct caret_ctl_rotation_status *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *chunks = o ? cJSON_AddArrayToObject(o, K_CHUNKS) : NULL;
	cJSON *inc = chunks ? cJSON_AddArrayToObject(o, K_INCOMPLETE) : NULL;
	bool ok = inc && cJSON_AddStringToObject(o, CARET_CTL_K_SESSION, t->session) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_MODE, t->mode ? t->mode
								       : CARET_CTL_MODE_ROTATING) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_SIZE, count(t->rotate_size)) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_EVERY_MS, count(t->rotate_every_ms)) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_KEEP, count(t->keep)) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_MAX_SIZE, count(t->max_size)) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATIONS, count(t->rotations)) &&
		  cJSON_AddNumberToObject(o, K_REMOVED, count(t->removed)) &&
		  cJSON_AddNumberToObject(o, K_CHUNKS_BYTES, count(t->chunks_bytes)) &&
		  (!t->have_pass_complete ||
		   cJSON_AddBoolToObject(o, CARET_CTL_K_PASS_COMPLETE, t->pass_complete)) &&
		  (!t->error || cJSON_AddStringToObject(o, CARET_CTL_K_ERROR, t->error));
	for (size_t i = 0; ok && i < t->n_chunks; i++)
		ok = add_chunk(chunks, &t->chunks[i]);
	for (size_t i = 0; ok && i < t->n_incomplete; i++) {
		cJSON *s = cJSON_CreateString(t->incomplete[i]);
		ok = s && cJSON_AddItemToArray(inc, s);
		if (!ok)
			cJSON_Delete(s);
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_recording(cJSON *x, const struct caret_ctl_recording_status *s)
{
	return (!s->session || cJSON_AddStringToObject(x, CARET_CTL_K_SESSION, s->session)) &&
	       (!s->path || cJSON_AddStringToObject(x, CARET_CTL_K_PATH, s->path)) &&
	       cJSON_AddStringToObject(x, CARET_CTL_K_MODE, s->mode) &&
	       (!s->paused || cJSON_AddBoolToObject(x, CARET_CTL_K_PAUSED, true)) &&
	       (!s->held || cJSON_AddBoolToObject(x, CARET_CTL_K_HELD, true)) &&
	       (!s->have_ring_size ||
		cJSON_AddNumberToObject(x, CARET_CTL_K_RING_SIZE, count(s->ring_size))) &&
	       (!s->have_snapshots ||
		cJSON_AddNumberToObject(x, CARET_CTL_K_SNAPSHOTS, count(s->snapshots))) &&
	       (!s->last_snapshot ||
		cJSON_AddStringToObject(x, CARET_CTL_K_LAST_SNAPSHOT, s->last_snapshot)) &&
	       (!s->have_trigger ||
		(cJSON_AddStringToObject(x, CARET_CTL_K_SNAPSHOT_ON, s->snapshot_on) &&
		 (!s->snapshot_filter ||
		  cJSON_AddStringToObject(x, CARET_CTL_K_SNAPSHOT_FILTER, s->snapshot_filter)) &&
		 cJSON_AddNumberToObject(x, CARET_CTL_K_TRIGGERED, count(s->triggered)) &&
		 cJSON_AddNumberToObject(x, CARET_CTL_K_COALESCED, count(s->coalesced))));
}

static bool add_to(cJSON *arr, cJSON *x)
{
	if (x && cJSON_AddItemToArray(arr, x))
		return true;
	cJSON_Delete(x);
	return false;
}

static bool add_lists(const struct caret_ctl_recordings *r, cJSON *out)
{
	cJSON *a;
	if (r->have_ended) {
		if (!(a = cJSON_AddArrayToObject(out, CARET_CTL_K_ROTATIONS_ENDED)))
			return false;
		for (size_t i = 0; i < r->n_ended; i++) {
			cJSON *x = cJSON_CreateObject();
			if (!add_to(a, x) ||
			    !cJSON_AddStringToObject(x, CARET_CTL_K_SESSION, r->ended[i].session) ||
			    !cJSON_AddStringToObject(x, CARET_CTL_K_ERROR, r->ended[i].error))
				return false;
		}
	}
	if (r->have_rotations) {
		if (!(a = cJSON_AddArrayToObject(out, CARET_CTL_K_ROTATIONS)))
			return false;
		for (size_t i = 0; i < r->n_rotations; i++)
			if (!add_to(a, rotation_obj(&r->rotations[i])))
				return false;
	}
	if (r->have_recordings) {
		if (!(a = cJSON_AddArrayToObject(out, CARET_CTL_K_RECORDINGS)))
			return false;
		for (size_t i = 0; i < r->n_recordings; i++) {
			cJSON *x = cJSON_CreateObject();
			if (!add_to(a, x) || !add_recording(x, &r->recordings[i]))
				return false;
		}
	}
	return true;
}

int caret_ctl_recordings_encode(const struct caret_ctl_recordings *r, cJSON *out)
{
	if (!add_lists(r, out))
		return -ENOMEM;
	if (r->rotation) {
		cJSON *x = rotation_obj(r->rotation);
		if (!x || !cJSON_AddItemToObject(out, CARET_CTL_K_ROTATION, x)) {
			cJSON_Delete(x);
			return -ENOMEM;
		}
	}
	if (r->have_self && !add_recording(out, &r->self))
		return -ENOMEM;
	return 0;
}

/* ---- decoding ---- */

static int get_count(const cJSON *o, const char *where, const char *key, uint64_t *out,
		     struct ctl_why *w)
{
	int64_t v;
	if (ctl_get_int(o, where, key, 0, (int64_t)CARET_CTL_COUNT_MAX, &v, w) < 0)
		return -EPROTO;
	*out = (uint64_t)v;
	return 0;
}

static int get_count_opt(const cJSON *o, const char *where, const char *key, bool *have,
			 uint64_t *out, struct ctl_why *w)
{
	*have = cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
	return *have ? get_count(o, where, key, out, w) : 0;
}

static int oom(struct ctl_why *w)
{
	ctl_why_set(w, "out of memory");
	return -ENOMEM;
}

static int decode_chunk(const cJSON *e, const char *where, struct caret_ctl_chunk *c,
			struct ctl_why *w)
{
	if (ctl_get_str(e, where, CARET_CTL_K_NAME, false, &c->name, w) < 0 ||
	    get_count(e, where, K_INDEX, &c->index, w) < 0 ||
	    get_count(e, where, K_BYTES, &c->bytes, w) < 0 ||
	    ctl_get_bool(e, where, CARET_CTL_K_COMPLETE, &c->complete, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_WHY, true, &c->why, w) < 0)
		return -EPROTO;
	return 0;
}

static int decode_incomplete(const cJSON *o, const char *where,
			     struct caret_ctl_rotation_status *t, struct ctl_why *w)
{
	const cJSON *arr, *e;
	if (ctl_get_array(o, where, K_INCOMPLETE, &arr, w) < 0)
		return -EPROTO;
	int n = cJSON_GetArraySize(arr);
	if (n > CARET_CTL_CHUNKS_MAX) {
		ctl_why_set(w, "field \"%s.incomplete\" has too many entries", where);
		return -EPROTO;
	}
	if (n && !(t->incomplete = calloc((size_t)n, sizeof(*t->incomplete))))
		return oom(w);
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e) || !e->valuestring) {
			ctl_why_set(w, "field \"%s.incomplete\" holds something other than strings",
				    where);
			return -EPROTO;
		}
		t->incomplete[t->n_incomplete++] = e->valuestring;
	}
	return 0;
}

static int decode_rotation(const cJSON *o, const char *where,
			   struct caret_ctl_rotation_status *t, struct ctl_why *w)
{
	const cJSON *arr, *e;
	if (!cJSON_IsObject(o)) {
		ctl_why_set(w, "field \"%s\" is not an object", where);
		return -EPROTO;
	}
	if (ctl_get_str(o, where, CARET_CTL_K_SESSION, false, &t->session, w) < 0 ||
	    ctl_get_str(o, where, CARET_CTL_K_MODE, false, &t->mode, w) < 0 ||
	    get_count(o, where, CARET_CTL_K_ROTATE_SIZE, &t->rotate_size, w) < 0 ||
	    get_count(o, where, CARET_CTL_K_ROTATE_EVERY_MS, &t->rotate_every_ms, w) < 0 ||
	    get_count(o, where, CARET_CTL_K_KEEP, &t->keep, w) < 0 ||
	    get_count(o, where, CARET_CTL_K_MAX_SIZE, &t->max_size, w) < 0 ||
	    get_count(o, where, CARET_CTL_K_ROTATIONS, &t->rotations, w) < 0 ||
	    get_count(o, where, K_REMOVED, &t->removed, w) < 0 ||
	    get_count(o, where, K_CHUNKS_BYTES, &t->chunks_bytes, w) < 0 ||
	    ctl_get_str(o, where, CARET_CTL_K_ERROR, true, &t->error, w) < 0 ||
	    ctl_get_objects(o, where, K_CHUNKS, CARET_CTL_CHUNKS_MAX, &arr, &t->n_chunks, w) < 0)
		return -EPROTO;
	t->have_pass_complete = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_PASS_COMPLETE);
	if (t->have_pass_complete &&
	    ctl_get_bool(o, where, CARET_CTL_K_PASS_COMPLETE, &t->pass_complete, w) < 0)
		return -EPROTO;
	if (t->n_chunks && !(t->chunks = calloc(t->n_chunks, sizeof(*t->chunks))))
		return oom(w);
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		char cw[80];
		snprintf(cw, sizeof(cw), "%s.chunks[%zu]", where, i);
		if (decode_chunk(e, cw, &t->chunks[i++], w) < 0)
			return -EPROTO;
	}
	return decode_incomplete(o, where, t, w);
}

static void rotation_free(struct caret_ctl_rotation_status *t)
{
	free(t->chunks);
	free(t->incomplete);
}

static int decode_recording(const cJSON *o, const char *where, bool named,
			    struct caret_ctl_recording_status *s, struct ctl_why *w)
{
	if ((named && (ctl_get_str(o, where, CARET_CTL_K_SESSION, false, &s->session, w) < 0 ||
		       ctl_get_str(o, where, CARET_CTL_K_PATH, false, &s->path, w) < 0)) ||
	    ctl_get_str(o, where, CARET_CTL_K_MODE, false, &s->mode, w) < 0 ||
	    get_count_opt(o, where, CARET_CTL_K_RING_SIZE, &s->have_ring_size, &s->ring_size, w) < 0 ||
	    get_count_opt(o, where, CARET_CTL_K_SNAPSHOTS, &s->have_snapshots, &s->snapshots, w) < 0 ||
	    ctl_get_str(o, where, CARET_CTL_K_LAST_SNAPSHOT, true, &s->last_snapshot, w) < 0 ||
	    ctl_get_str(o, where, CARET_CTL_K_SNAPSHOT_ON, true, &s->snapshot_on, w) < 0 ||
	    ctl_get_bool_opt(o, where, CARET_CTL_K_PAUSED, &s->paused, w) < 0 ||
	    ctl_get_bool_opt(o, where, CARET_CTL_K_HELD, &s->held, w) < 0)
		return -EPROTO;
	s->have_trigger = s->snapshot_on != NULL;
	if (s->have_trigger &&
	    (ctl_get_str(o, where, CARET_CTL_K_SNAPSHOT_FILTER, true, &s->snapshot_filter, w) < 0 ||
	     get_count(o, where, CARET_CTL_K_TRIGGERED, &s->triggered, w) < 0 ||
	     get_count(o, where, CARET_CTL_K_COALESCED, &s->coalesced, w) < 0))
		return -EPROTO;
	return 0;
}

/* One of the three arrays: its objects, n of them, into *out (elem bytes each). */
static int array_of(const cJSON *in, const char *key, size_t elem, bool *have, void **out,
		    size_t *n, const cJSON **arr, struct ctl_why *w)
{
	*have = cJSON_GetObjectItemCaseSensitive(in, key) != NULL;
	if (!*have)
		return 0;
	if (ctl_get_objects(in, NULL, key, CARET_CTL_RECORDINGS_MAX, arr, n, w) < 0)
		return -EPROTO;
	if (*n && !(*out = calloc(*n, elem)))
		return oom(w);
	return 0;
}

static int decode_lists(const cJSON *in, struct caret_ctl_recordings *r, struct ctl_why *w)
{
	const cJSON *arr, *e;
	char where[48];
	size_t i = 0;
	int err = array_of(in, CARET_CTL_K_ROTATIONS_ENDED, sizeof(*r->ended), &r->have_ended,
			   (void **)&r->ended, &r->n_ended, &arr, w);
	if (err < 0)
		return err;
	if (r->have_ended)
		cJSON_ArrayForEach(e, arr) {
			snprintf(where, sizeof(where), "rotations_ended[%zu]", i);
			if (ctl_get_str(e, where, CARET_CTL_K_SESSION, false, &r->ended[i].session,
					w) < 0 ||
			    ctl_get_str(e, where, CARET_CTL_K_ERROR, false, &r->ended[i].error, w) < 0)
				return -EPROTO;
			i++;
		}
	if ((err = array_of(in, CARET_CTL_K_ROTATIONS, sizeof(*r->rotations), &r->have_rotations,
			    (void **)&r->rotations, &r->n_rotations, &arr, w)) < 0)
		return err;
	i = 0;
	if (r->have_rotations)
		cJSON_ArrayForEach(e, arr) {
			snprintf(where, sizeof(where), "rotations[%zu]", i);
			if ((err = decode_rotation(e, where, &r->rotations[i++], w)) < 0)
				return err;
		}
	if ((err = array_of(in, CARET_CTL_K_RECORDINGS, sizeof(*r->recordings),
			    &r->have_recordings, (void **)&r->recordings, &r->n_recordings, &arr,
			    w)) < 0)
		return err;
	i = 0;
	if (r->have_recordings)
		cJSON_ArrayForEach(e, arr) {
			snprintf(where, sizeof(where), "recordings[%zu]", i);
			if (decode_recording(e, where, true, &r->recordings[i++], w) < 0)
				return -EPROTO;
		}
	return 0;
}

int caret_ctl_recordings_decode(const cJSON *in, struct caret_ctl_recordings *r, char *why,
				size_t len)
{
	struct ctl_why w = { "" };
	int err = -EPROTO;
	memset(r, 0, sizeof(*r));
	if (!cJSON_IsObject(in)) {
		ctl_why_set(&w, "the result is not an object");
		return ctl_why_out(&w, why, len, -EPROTO);
	}
	if ((err = decode_lists(in, r, &w)) < 0)
		goto fail;
	const cJSON *rot = cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_ROTATION);
	if (rot) {
		if (!(r->rotation = calloc(1, sizeof(*r->rotation)))) {
			err = oom(&w);
			goto fail;
		}
		if ((err = decode_rotation(rot, CARET_CTL_K_ROTATION, r->rotation, &w)) < 0)
			goto fail;
	}
	/* a stop result's own mode; a status result's "mode" is its recordings' */
	r->have_self = !r->have_recordings &&
		       cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_MODE) != NULL;
	if (r->have_self && (err = decode_recording(in, NULL, false, &r->self, &w)) < 0)
		goto fail;
	return 0;
fail:
	caret_ctl_recordings_free(r);
	return ctl_why_out(&w, why, len, err);
}

void caret_ctl_recordings_free(struct caret_ctl_recordings *r)
{
	for (size_t i = 0; r->rotations && i < r->n_rotations; i++)
		rotation_free(&r->rotations[i]);
	if (r->rotation)
		rotation_free(r->rotation);
	free(r->rotations);
	free(r->rotation);
	free(r->ended);
	free(r->recordings);
	memset(r, 0, sizeof(*r));
}

const struct caret_ctl_rotation_status *
caret_ctl_recordings_rotation(const struct caret_ctl_recordings *r, const char *session)
{
	for (size_t i = 0; i < r->n_rotations; i++)
		if (!strcmp(r->rotations[i].session, session))
			return &r->rotations[i];
	return NULL;
}
