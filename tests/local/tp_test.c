/* SPDX-License-Identifier: Apache-2.0 */
/* A ros2_caret provider for tests (CARET_AGENT_TP_LIB): records what the
 * agent emits in memory instead of LTTng, and reports a recording session
 * so the agent starts in RECORD. */
#include <stdint.h>
#include <string.h>

#include "agent/tp/caret_tp_api.h"

#define MAX_LOG 4096

struct tp_rec {
	uint32_t kind;       /* caret kind, or 1000 bind, 1001 dds_write */
	uint64_t a[3];
	char s[32];
};

__attribute__((visibility("default"))) struct tp_rec test_tp_log[MAX_LOG];
__attribute__((visibility("default"))) unsigned test_tp_n;

static struct tp_rec *next(uint32_t kind)
{
	unsigned i = __atomic_fetch_add(&test_tp_n, 1, __ATOMIC_RELAXED);
	if (i >= MAX_LOG)
		return NULL;
	struct tp_rec *r = &test_tp_log[i];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	return r;
}

static int enabled(void)
{
	return 1;
}

static void emit_record(uint32_t kind, int64_t ts, const union caret_arg *v)
{
	(void)ts;
	struct tp_rec *r = next(kind);
	const char *sig = caret_kind_sig(kind);
	if (!r || !sig)
		return;
	for (unsigned i = 0; sig[i] && i < 3; i++) {
		if (sig[i] == 's')
			strncpy(r->s, v[i].s ? v[i].s : "", sizeof(r->s) - 1);
		else
			r->a[i] = v[i].u;
	}
}

static void caret_init(int64_t off, const char *d)
{
	(void)off;
	(void)d;
}

static void dds_write(const void *pub, const void *msg, int64_t ts)
{
	struct tp_rec *r = next(1001);
	if (r) {
		r->a[0] = (uintptr_t)pub;
		r->a[1] = (uintptr_t)msg;
		r->a[2] = (uint64_t)ts;
	}
}

static void bind(const void *addr, uint64_t stamp)
{
	struct tp_rec *r = next(1000);
	if (r) {
		r->a[0] = (uintptr_t)addr;
		r->a[1] = stamp;
	}
}

/* The replay-pass marks, apart from the records: (end, pass, records). */
__attribute__((visibility("default"))) uint64_t test_tp_marks[64][3];
__attribute__((visibility("default"))) unsigned test_tp_marks_n;

static void replay_mark(int end, uint64_t pass, uint64_t records)
{
	unsigned i = __atomic_load_n(&test_tp_marks_n, __ATOMIC_RELAXED);
	if (i >= 64)
		return;
	test_tp_marks[i][0] = (uint64_t)end;
	test_tp_marks[i][1] = pass;
	test_tp_marks[i][2] = records;
	__atomic_store_n(&test_tp_marks_n, i + 1, __ATOMIC_RELEASE);
}

__attribute__((visibility("default")))
const struct caret_tp_api caret_tp_api_v1 = {
	.version = CARET_TP_API_VERSION,
	.enabled = enabled,
	.emit_record = emit_record,
	.caret_init = caret_init,
	.dds_write = dds_write,
	.dds_bind_addr_to_stamp = bind,
	.replay_mark = replay_mark,
};
