/* SPDX-License-Identifier: Apache-2.0 */
#include "check_pass.h"

/* The pass in flight leaves the model: whole when it ended with every
 * record it emitted in the trace, else remembered as the last cut (the
 * line names one pass: the one the reader can act on is the last). */
static void close_pass(struct check_proc *p, bool ended, uint64_t emitted)
{
	uint64_t want = ended ? emitted : p->open_records;
	p->open = false;
	if (ended && p->open_arrived >= want) {
		p->passes_whole++;
		return;
	}
	p->cut_pass = p->open_pass;
	p->cut_arrived = p->open_arrived;
	p->cut_records = want;
	p->cut_ended = ended;
}

void check_pass_begin(struct check_proc *p, uint64_t vtid, uint64_t pass, uint64_t records)
{
	if (p->open)
		close_pass(p, false, 0);
	p->passes++;
	p->open = true;
	p->open_vtid = vtid;
	p->open_pass = pass;
	p->open_records = records;
	p->open_arrived = 0;
}

void check_pass_record(struct check_proc *p, uint64_t vtid)
{
	/* Live records come from the application's threads, never from the
	 * replay thread: only the pass's own are counted. */
	if (p->open && vtid == p->open_vtid)
		p->open_arrived++;
}

void check_pass_end(struct check_proc *p, uint64_t vtid, uint64_t pass, uint64_t records)
{
	if (p->open && p->open_pass == pass && p->open_vtid == vtid)
		close_pass(p, true, records);
}

void check_pass_finish(struct check_proc *p)
{
	if (p->open)
		close_pass(p, false, 0);
}
