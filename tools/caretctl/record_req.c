/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record's options as its request (record_req.h).
 */
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_sel.h"
#include "record_req.h"

struct caret_ctl_req cli_record_request(const struct rec_opts *o, bool arm, bool plan)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RECORD };
	struct caret_ctl_record_req *r = &q.u.record;
	*r = (struct caret_ctl_record_req){
		.session = o->session, .path = o->url ? NULL : o->path, .url = o->url,
		.pacing = o->pacing, .frequency = o->frequency, .subbuf_size = o->subbuf_size,
		.subbuf_count = o->subbuf_count, .light = o->light, .append = o->append,
		.arm = arm, .all_hosts = o->all_hosts,
		.rotate_size = o->rot.size, .rotate_every_ms = o->rot.every_ms,
		.keep = o->rot.keep, .max_size = o->rot.max_size,
		.snapshot_size = o->snap.size, .snapshot_on = o->snap.on,
		.snapshot_filter = o->snap.filter,
		.sel = o->sel,
	};
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		r->filter[i] = o->filter[i];
	r->record_clock = o->clock.on;
	r->clock_domain = o->clock.domain;
	r->plan = plan;
	return q;
}

struct caret_ctl_req cli_record_go_request(const char *session)
{
	return (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RECORD,
				       .u.record.go = session };
}

bool cli_record_arms(const struct rec_opts *o)
{
	return !o->immediate && !(o->all_hosts && o->url) && !caret_ctl_sel_kernel(&o->sel);
}
