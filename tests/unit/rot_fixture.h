/* SPDX-License-Identifier: Apache-2.0 */
/* What the rotation tests of check_commands share (rot_fixture.c):
 * rotation's lttng-ctl calls faked. */
#ifndef CARET_TESTS_ROT_FIXTURE_H
#define CARET_TESTS_ROT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/recording/rotation.h"
#include "daemon/recording/rotation_lttng.h"

/* Rotation's lttng-ctl calls, faked (struct rotation_lttng_ops): what each
 * was asked; schedule fails when frot.fail_schedule. */
struct frot_state {
	int registered, scheduled, subscribed, unsubscribed, unscheduled;
	uint64_t every_ms;
	bool fail_schedule;
	/* what the next read of the notification channel delivers, in
	 * order, to every subscribed recording (the fault switch of
	 * dropped_notification_starts_a_new_pass) */
	enum rotation_lttng_event next[4];
	int n_next;
	int skip_reads; /* reads that deliver nothing before those */
};
extern struct frot_state frot;
/* The rotation module's collaborators: the fixture's table and registry. */
extern const struct rotation_ops rot_ops;
extern const struct rotation_lttng_ops frot_ops;

#endif
