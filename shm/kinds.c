/* SPDX-License-Identifier: Apache-2.0 */
/* The record schema and state name tables, expanded from proto/caret_segment.h. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "shm/caret_shm.h"

struct kind_desc {
	const char *name, *sig, *fields;
};

static const struct kind_desc kinds[CARET_KIND_COUNT] = {
#define KIND_DESC_(id, name, sig, fields, ...) [id] = { #name, sig, fields },
	CARET_KINDS(KIND_DESC_)
#undef KIND_DESC_
};

static const struct kind_desc *desc(uint32_t kind)
{
	if (kind == 0 || kind >= CARET_KIND_COUNT || !kinds[kind].name)
		return NULL;
	return &kinds[kind];
}

const char *caret_kind_name(uint32_t kind)
{
	const struct kind_desc *d = desc(kind);
	return d ? d->name : NULL;
}

const char *caret_kind_sig(uint32_t kind)
{
	const struct kind_desc *d = desc(kind);
	return d ? d->sig : NULL;
}

const char *caret_kind_fields(uint32_t kind)
{
	const struct kind_desc *d = desc(kind);
	return d ? d->fields : NULL;
}

int caret_kind_by_name(const char *name)
{
	for (uint32_t k = 1; k < CARET_KIND_COUNT; k++)
		if (kinds[k].name && strcmp(kinds[k].name, name) == 0)
			return (int)k;
	return -ENOENT;
}

static const char *const state_names[] = {
#define STATE_NAME_(v, name) [v] = #name,
	CARET_STATES(STATE_NAME_)
#undef STATE_NAME_
};

const char *caret_state_name(uint32_t state)
{
	return state <= CARET_STATE_MAX ? state_names[state] : "INVALID";
}

int caret_state_by_name(const char *name)
{
	for (uint32_t v = 0; v <= CARET_STATE_MAX; v++)
		if (strcasecmp(state_names[v], name) == 0)
			return (int)v;
	return -ENOENT;
}
