/* SPDX-License-Identifier: Apache-2.0 */
/* What the rotations look at (daemon/recording/rotation_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/recording/rotation_state.h"

static struct {
	struct recordings *recs;
	struct registry *reg;
} S;

void rot_state_init(struct recordings *t, struct registry *r)
{
	S.recs = t;
	S.reg = r;
}

void rot_state_free(void)
{
	for (int i = 0; S.recs && i < MAX_ROT; i++) {
		struct rot *t = rot_at(i);
		free(t->list);
		free(t->base);
		t->list = NULL;
		t->base = NULL;
	}
}

struct recordings *rot_recs(void)
{
	return S.recs;
}

struct lttng_view *rot_view(void)
{
	return S.recs ? S.recs->view : NULL;
}

struct registry *rot_reg(void)
{
	return S.reg;
}

struct rot *rot_at(int i)
{
	/* no table (rotation not started): every slot unused */
	static struct rot none;
	if (!S.recs) {
		memset(&none, 0, sizeof(none));
		return &none;
	}
	return &S.recs->slot[i].rot;
}

struct rot *rot_find(const char *session)
{
	struct recording *r = S.recs ? recordings_find(S.recs, session) : NULL;
	return r && r->rot.used ? &r->rot : NULL;
}

bool rot_any(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (rot_at(i)->used)
			return true;
	return false;
}
