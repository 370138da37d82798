/* SPDX-License-Identifier: Apache-2.0 */
/* The table of rotating recordings (daemon/recording/rotation_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/recording/rotation_state.h"

static struct {
	struct lttng_view *v;
	struct registry *reg;
	struct rot rots[MAX_ROT];
	struct { char name[CARET_LTTNG_NAME_MAX]; char why[512]; } ended[MAX_ENDED];
	unsigned n_ended;
} S;

void rot_state_init(struct lttng_view *v, struct registry *r)
{
	memset(&S, 0, sizeof(S));
	S.v = v;
	S.reg = r;
}

void rot_state_free(void)
{
	for (int i = 0; i < MAX_ROT; i++) {
		free(S.rots[i].list);
		free(S.rots[i].base);
		S.rots[i].list = NULL;
		S.rots[i].base = NULL;
	}
}

struct lttng_view *rot_view(void)
{
	return S.v;
}

struct registry *rot_reg(void)
{
	return S.reg;
}

struct rot *rot_at(int i)
{
	return &S.rots[i];
}

struct rot *rot_find(const char *session)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (S.rots[i].used && strcmp(S.rots[i].name, session) == 0)
			return &S.rots[i];
	return NULL;
}

struct rot *rot_slot(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (!S.rots[i].used)
			return &S.rots[i];
	return NULL;
}

bool rot_any(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (S.rots[i].used)
			return true;
	return false;
}

void rot_ended_add(const char *session, const char *why)
{
	unsigned k = S.n_ended++ % MAX_ENDED;
	snprintf(S.ended[k].name, sizeof(S.ended[k].name), "%s", session);
	snprintf(S.ended[k].why, sizeof(S.ended[k].why), "%s", why);
}

unsigned rot_ended_count(void)
{
	return S.n_ended < MAX_ENDED ? S.n_ended : MAX_ENDED;
}

void rot_ended_at(unsigned i, const char **session, const char **why)
{
	*session = S.ended[i].name;
	*why = S.ended[i].why;
}
