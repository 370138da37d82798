/* SPDX-License-Identifier: Apache-2.0 */
/* The recordings table's walk (daemon/recording/recordings_table.h). */
#include <string.h>

#include "daemon/recording/recordings_table.h"

struct recording *recordings_next(struct recordings *t, struct recording *prev)
{
	for (struct recording *r = prev ? prev + 1 : t->slot; r < t->slot + RECORDINGS_MAX; r++)
		if (r->used)
			return r;
	return NULL;
}

struct recording *recordings_find(struct recordings *t, const char *session)
{
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		if (strcmp(r->name, session) == 0)
			return r;
	return NULL;
}

bool recordings_any(const struct recordings *t)
{
	for (int i = 0; i < RECORDINGS_MAX; i++)
		if (t->slot[i].used)
			return true;
	return false;
}
