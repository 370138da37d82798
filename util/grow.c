/* SPDX-License-Identifier: Apache-2.0 */
/* The one growable-array helper of the project: the cache reader (shm/)
 * and caretctl's check both grow arrays whose lengths come from another
 * process's bytes or a trace, so the doubling and the multiplication are
 * checked here once rather than in each copy. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/caret_util.h"

int caret_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	if (!size)
		return -EINVAL;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	void *n = realloc(*p, c * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}
