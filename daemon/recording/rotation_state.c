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

void rotation_state_init(struct recordings *t, struct registry *r)
{
	S.recs = t;
	S.reg = r;
}

void rotation_state_free(void)
{
	for (int i = 0; S.recs && i < MAX_ROT; i++) {
		struct rotation *t = rotation_at(i);
		free(t->list);
		free(t->base);
		t->list = NULL;
		t->base = NULL;
	}
}

struct recordings *rotation_recs(void)
{
	return S.recs;
}

struct lttng_view *rotation_view(void)
{
	return S.recs ? S.recs->view : NULL;
}

struct registry *rotation_reg(void)
{
	return S.reg;
}

struct rotation *rotation_at(int i)
{
	/* no table (rotation not started): every slot unused */
	static struct rotation none;
	if (!S.recs) {
		memset(&none, 0, sizeof(none));
		return &none;
	}
	return &S.recs->slot[i].rot;
}

struct rotation *rotation_find(const char *session)
{
	struct recording *r = S.recs ? recordings_find(S.recs, session) : NULL;
	return r && r->rot.used ? &r->rot : NULL;
}

bool rotation_any(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (rotation_at(i)->used)
			return true;
	return false;
}
