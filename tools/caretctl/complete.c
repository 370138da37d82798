/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_wire.h"
#include "complete.h"
#include "proto/caret_ctl.h"

/* Stop waits for a trace of overlapping recordings no longer than this. */
#define STOP_READ_MS 30000

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
	if (!counted)
		return;
	uint64_t n = 0;
	char err[1024];
	int rc = path && path[0] == '/' ? complete_trace_dups(path, STOP_READ_MS, &n, err,
							      sizeof(err))
					: -ENOENT;
	if (root) {
		if (rc == 0) {
			cJSON *v = cJSON_CreateNumber((double)n);
			if (v)
				cJSON_ReplaceItemInObject(root, CARET_CTL_K_DUPLICATES, v);
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
