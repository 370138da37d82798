/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/server/cmd_events.h"
#include "daemon/base/log.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_events.h"
#include "shm/reader.h"
#include "util/caret_err.h"

struct events {
	struct caret_reader *r;
};

struct events *events_new(void)
{
	return calloc(1, sizeof(struct events));
}

void events_free(struct events *ev)
{
	if (!ev)
		return;
	caret_reader_close(ev->r);
	free(ev);
}

struct filter {
	const int64_t *pids;
	size_t npids;
	bool kinds[CARET_KIND_COUNT];
	bool any_kind;
};

static bool accept(pid_t pid, uint32_t kind, void *ctx)
{
	const struct filter *f = ctx;
	if (!f->any_kind && (kind >= CARET_KIND_COUNT || !f->kinds[kind]))
		return false;
	if (!f->npids)
		return true;
	for (size_t i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

struct page {
	struct caret_ctl_events_page *result;
	int64_t bytes;
	int err;
};

static int add(const struct caret_reader_event *e, void *ctx)
{
	struct page *p = ctx;
	struct caret_ctl_field f[CARET_MAX_FIELDS];
	const char *sig = caret_kind_sig(e->rec.kind);
	const char *names = caret_kind_fields(e->rec.kind);
	char namebuf[CARET_MAX_FIELDS][48];
	for (unsigned i = 0; i < e->rec.nfields; i++) {
		size_t n = strcspn(names, ",");
		snprintf(namebuf[i], sizeof(namebuf[i]), "%.*s", (int)n, names);
		names += n + (names[n] == ',');
		f[i] = (struct caret_ctl_field){ namebuf[i], sig[i], e->rec.args[i].u,
						 sig[i] == 's' ? e->rec.args[i].s : NULL };
	}
	struct caret_ctl_event ce = { e->rec.init_timestamp, e->pid, e->procname, e->index,
				      caret_kind_name(e->rec.kind), f, e->rec.nfields };
	int64_t b = caret_ctl_events_page_add(p->result, &ce);
	if (b < 0) {
		p->err = (int)b;
		return 1;
	}
	p->bytes += b;
	/* Stop once the line could outgrow its limit: the token continues
	 * exactly after this event. */
	return p->bytes > CARET_CTL_EVENTS_PAGE_BYTES;
}

static const char *seek_error(int r)
{
	switch (r) {
	case -ESRCH:
		return "the position names an event of a process whose cache is gone";
	case -EBADMSG:
		return "the position names an event of a corrupted cache";
	default:
		return "the position is malformed or names an event that does not exist";
	}
}

int events_request(struct events *ev, const struct caret_ctl_events_req *q,
		   struct caret_ctl_events_page **out,
		   char *err, size_t errlen)
{
	struct filter *f = calloc(1, sizeof(*f));
	int rc = 0;
	*out = NULL;
	if (!f) {
		rc = caret_errf(err, errlen, -ENOMEM, "out of memory");
		goto done;
	}
	f->pids = q->pids;
	f->npids = q->npids;
	f->any_kind = q->nkinds == 0;
	for (size_t i = 0; i < q->nkinds; i++) {
		int k = caret_kind_by_name(q->kinds[i]);
		if (k < 0) {
			rc = caret_errf(err, errlen, -EINVAL, "unknown kind \"%.64s\"", q->kinds[i]);
			goto done;
		}
		f->kinds[k] = true;
	}
	int r = ev->r ? caret_reader_refresh(ev->r) : caret_reader_open(&ev->r, NULL);
	if (r < 0) {
		rc = caret_errf(err, errlen, r, "cannot read the caches: %s", strerror(-r));
		goto done;
	}
	caret_reader_set_filter(ev->r, accept, f);
	if (q->after) {
		if ((r = caret_reader_seek_position(ev->r, q->after)) < 0) {
			rc = caret_errf(err, errlen, r, "%s", seek_error(r));
			goto done;
		}
	} else if (q->has_since) {
		caret_reader_seek_time(ev->r, q->since);
	} else {
		caret_reader_seek_begin(ev->r);
	}
	struct page p = { caret_ctl_events_page_new(), 0, 0 };
	if (!p.result) {
		rc = caret_errf(err, errlen, -ENOMEM, "out of memory");
		goto done;
	}
	int64_t until = q->has_until ? q->until : INT64_MAX;
	int64_t n = caret_reader_read_time(ev->r, until,
					   q->count ? (uint64_t)q->count
						    : CARET_CTL_EVENTS_DEFAULT_COUNT,
					   add, &p);
	char next[CARET_READER_TOKEN_LEN];
	int64_t ts;
	bool more = caret_reader_next_ts(ev->r, &ts) && ts < until;
	struct caret_reader_stats st;
	caret_reader_stats(ev->r, &st);
	struct caret_ctl_events_trailer t = { next, more, st.segments, st.corrupt_segments,
					      st.late };
	if (n < 0 || p.err) {
		caret_ctl_events_page_free(p.result);
		rc = n < 0 ? caret_errf(err, errlen, -EBADMSG, "a cache changed under the reader")
			   : caret_errf(err, errlen, -ENOMEM, "out of memory");
	} else if (caret_reader_tell(ev->r, next, sizeof(next)) < 0 ||
		   caret_ctl_events_page_end(p.result, &t) < 0) {
		caret_ctl_events_page_free(p.result);
		rc = caret_errf(err, errlen, -ENOMEM, "out of memory");
	} else {
		*out = p.result;
	}
done:
	if (ev->r)
		caret_reader_set_filter(ev->r, NULL, NULL);
	free(f);
	return rc;
}
