/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fixture of check_commands: one agent (this process) in a registry, a
 * view of LTTng whose ops are a fake session daemon that records every
 * call, and `ask` to run a request line as caretd's server does.
 */
#ifndef CARET_TESTS_CMD_FIXTURE_H
#define CARET_TESTS_CMD_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "daemon/server/commands.h"
#include "proto/caret_ctl_reply.h"

#define MS 1000000LL

extern struct registry reg;
extern struct sched_cfg cfg;
extern struct sched scheduler; /* no pacer: its inputs wait (struct sched_input) */
/* The scheduler's tick, as the pacer runs it right after a command posts
 * a Start or End (daemon/agents/startend.h). */
void sched_tick_now(void);
extern struct lttng_view view;
extern struct recordings recs; /* over view */
extern struct cmd_ctx ctx;
extern struct agent agent;
/* Who asks: root unless a test says otherwise (setup resets it). */
extern struct cmd_peer peer;

void setup(void);
void teardown(void);
/* The reply to one request line, as caretctl parses it; with w, the wait
 * request the line started instead. */
cJSON *ask(const char *line, enum ctl_reply_type want, struct wait_req **w);
/* line, a request that goes on (a hold, a held record): *first is its first
 * line, then nothing until something changes; the request. */
struct wait_req *ask_slow(const char *line, cJSON **first);
/* Nothing more said on w, which goes on. */
void expect_quiet(struct wait_req *w);
int err_of(const cJSON *r);
/* The reply's "error" text. */
const char *msg_of(const cJSON *r);
/* x as caretd writes it on the wire, byte for byte, against want (older
 * caretctls and the integration tests parse that text). */
void expect_text(const cJSON *x, const char *want);
/* o's keys in order, comma-separated, against want. */
void expect_keys(const cJSON *o, const char *want);
/* A request line refused with errno err, its error text holding says. */
struct refusal {
	const char *line;
	int err;
	const char *says;
};
/* Each of the n lines asked, refused as it says. */
void expect_refusals(const struct refusal *cases, size_t n);
#define EXPECT_REFUSALS(cases) expect_refusals((cases), sizeof(cases) / sizeof((cases)[0]))

/* The fake session daemon behind view.ops. */
#define FAKE_CALLS 32
#define FAKE_SESSIONS 8
struct fake_lttng {
	char calls[FAKE_CALLS][600]; /* "record s1 path=/t ...", "stop s1", ... */
	int n_calls;
	char sessions[FAKE_SESSIONS][CARET_LTTNG_NAME_MAX];
	int n_sessions;
	unsigned rules; /* of every session */
	int n_lists;    /* reads of the session list */
	/* < 0: the next such call fails with it, saying "fake cause" */
	int fail_list, fail_record, fail_go, fail_stop, fail_snapshot;
	bool snapshot_mode[FAKE_SESSIONS]; /* created as a snapshot session */
	bool stopped[FAKE_SESSIONS]; /* paused: listed, not active */
	uint64_t discarded; /* the stopped channel's count */
	bool discarded_unknown;
	/* the trace directory record says it found or made (cfg.dir_out) */
	struct caret_lttng_dir_id dir;
};
extern struct fake_lttng fake;
extern const struct caret_lttng_ops fake_lttng_ops;
/* The first call that starts with prefix, or NULL. */
const char *fake_call(const char *prefix);
/* How many sessions were stopped. */
int fake_stops(void);

/* The tests of check_commands_state.c. */
void add_state_tests(TCase *tc);
/* The tests of check_commands_status.c. */
void add_status_tests(TCase *tc);
/* The tests of check_commands_events.c. */
void add_events_tests(TCase *tc);
/* The session record created, as status shows it, decoded. */
void assert_record_reply(cJSON *r, const char *session, const char *path);
/* The tests of check_commands_arm.c. */
void add_arm_tests(TCase *tc);
/* The tests of check_commands_make.c. */
void add_make_tests(TCase *tc);
/* The tests of check_commands_rotation.c. */
void add_rotation_tests(TCase *tc);
/* The tests of check_commands_rotation_passes.c. */
void add_rotation_pass_tests(TCase *tc);
/* The tests of check_commands_snapshot.c. */
void add_snapshot_tests(TCase *tc);
/* The tests of check_commands_poll.c. */
void add_poll_tests(TCase *tc);
/* The tests of check_commands_simclock.c (record -c). */
void add_simclock_tests(TCase *tc);
/* The tests of check_commands_pause.c. */
void add_pause_tests(TCase *tc);
/* The tests of check_commands_hold.c. */
void add_hold_tests(TCase *tc);
/* The tests of check_commands_held.c (record's "hold", status's "held"). */
void add_held_tests(TCase *tc);
/* The tests of check_commands_plan.c. */
void add_plan_tests(TCase *tc);
/* The tests of check_commands_top.c. */
void add_top_tests(TCase *tc);

#endif
