/* SPDX-License-Identifier: Apache-2.0 */
/* Rotation's lttng-ctl calls, faked (rot_fixture.h). */
#include <check.h>
#include <errno.h>
#include <stdio.h>

#include "daemon/recording/rotation.h"
#include "daemon/recording/rotation_lttng.h"
#include "tests/unit/cmd_fixture.h"
#include "tests/unit/rot_fixture.h"

struct frot_state frot;


static int frot_register(const char *session, char *err, size_t errlen)
{
	(void)session;
	(void)err;
	(void)errlen;
	frot.registered++;
	return 0;
}

static void frot_ensure(void)
{
	for (int i = 0; i < MAX_ROT; i++) {
		struct rotation *t = rotation_at(i);
		if (t->used && !t->armed && !t->subscribed) {
			t->subscribed = true;
			frot.subscribed++;
		}
	}
}

static void frot_close(void)
{
}

static int frot_subscribe(struct rotation *t, bool on)
{
	t->subscribed = on;
	if (on)
		frot.subscribed++;
	else
		frot.unsubscribed++;
	return 0;
}

static int frot_schedule(const char *session, const struct rotation_opts *o, char *err,
			 size_t errlen)
{
	frot.scheduled++;
	frot.every_ms = o->every_ms;
	if (frot.fail_schedule) {
		snprintf(err, errlen, "fake: no schedule for %s", session);
		return -EIO;
	}
	return 0;
}

static int frot_unschedule(const char *session)
{
	(void)session;
	frot.unscheduled++;
	return 0;
}

static void frot_read(rotation_lttng_on_event *cb, void *arg)
{
	if (frot.skip_reads > 0) {
		frot.skip_reads--;
		return;
	}
	int n = frot.n_next;
	frot.n_next = 0;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < MAX_ROT; i++)
			if (rotation_at(i)->used && rotation_at(i)->subscribed)
				cb(frot.next[k], rotation_at(i), NULL, arg);
}

const struct rotation_ops rot_ops = { .recs = &recs, .reg = &reg };

const struct rotation_lttng_ops frot_ops = {
	.register_triggers = frot_register,
	.ensure_channel = frot_ensure,
	.close_channel = frot_close,
	.subscribe = frot_subscribe,
	.schedule = frot_schedule,
	.unschedule = frot_unschedule,
	.read_notifications = frot_read,
};
