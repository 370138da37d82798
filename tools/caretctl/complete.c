/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_wire.h"
#include "complete.h"
#include "proto/caret_ctl.h"

/* Stop waits for a trace of overlapping recordings no longer than this. */
#define STOP_READ_MS 30000
/* A trace read in about a second or less. */
#define SMALL_TRACE (64ull << 20)

static uint64_t walked;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		walked += (uint64_t)st->st_size;
	return walked > SMALL_TRACE; /* enough: it is not small */
}

/* The bytes of the regular files under path (more than SMALL_TRACE once
 * past it), UINT64_MAX if it cannot be walked. */
static uint64_t trace_bytes(const char *path)
{
	walked = 0;
	int rc = nftw(path, add_size, 16, FTW_PHYS);
	return rc < 0 ? UINT64_MAX : walked;
}

char *complete_dup_sentence(uint64_t n)
{
	char *s;
	if (asprintf(&s,
		     "%" PRIu64 " replayed initialization record%s twice (a session that "
		     "started during this one got a replay of its own); the analyzer ignores "
		     "duplicates: they do not make the trace incomplete",
		     n, n == 1 ? " appears" : "s appear") < 0)
		return NULL;
	return s;
}

int complete_trace_dups(const char *path, int64_t timeout_ms, uint64_t *n, char *err,
			size_t errlen)
{
	struct check_report r;
	int rc = check_run_isolated(path, timeout_ms, &r, err, errlen);
	if (rc < 0)
		return rc;
	*n = 0;
	for (size_t i = 0; i < r.nprocs; i++)
		*n += r.procs[i].dup_total;
	check_wire_free(&r);
	return 0;
}

void complete_stop_duplicates(FILE *out, cJSON *root, const char *path, uint64_t counted)
{
	/* caretd's count misses the copies a pass cut short by another
	 * session's start leaves (it charges a pass only to the sessions an
	 * earlier pass had covered): a small trace is always counted */
	if (!counted && !(path && path[0] == '/' && trace_bytes(path) <= SMALL_TRACE))
		return;
	uint64_t n = 0;
	char err[1024];
	int rc = path && path[0] == '/' ? complete_trace_dups(path, STOP_READ_MS, &n, err,
							      sizeof(err))
					: -ENOENT;
	if (root) {
		if (rc == 0) {
			cJSON *v = cJSON_CreateNumber((double)n);
			if (v && cJSON_GetObjectItem(root, CARET_CTL_K_DUPLICATES))
				cJSON_ReplaceItemInObject(root, CARET_CTL_K_DUPLICATES, v);
			else if (v)
				cJSON_AddItemToObject(root, CARET_CTL_K_DUPLICATES, v);
		}
		return;
	}
	if (rc < 0) {
		fprintf(out,
			"  caretd saw replays reach this recording twice (%" PRIu64 " records); "
			"'caretctl check %s' counts the copies (the analyzer ignores them)\n",
			counted, path && path[0] ? path : "TRACE_DIR");
		return;
	}
	if (!n)
		return;
	char *s = complete_dup_sentence(n);
	if (s)
		fprintf(out, "  %s\n", s);
	free(s);
}
