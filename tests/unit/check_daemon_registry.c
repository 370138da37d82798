/* SPDX-License-Identifier: Apache-2.0 */
/* caretd's config file, its registry of agents (scan, inotify, sweep of
 * dead processes) and its count of replayed copies per session (dups.c),
 * against real segments and processes. Part of check_daemon. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/config.h"
#include "daemon/agents/dups.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"
#include "tests/unit/daemon_fixture.h"

/* caretd(8): the file, then the command line; a bad file changes nothing. */
START_TEST(config_file_and_overlay)
{
	char path[] = "/tmp/caretd-conf-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char *text = "# defaults\npacing = frequency\n  recording-frequency=7 \n"
			   "subbuffer-size = 1M # per sub-buffer\nsubbuffer-count = 8\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	struct daemon_cfg c, cli;
	unsigned set = 0, cli_set = 0;
	char err[256];
	config_builtin(&c);
	ck_assert_int_eq(config_load(path, &c, &set, err, sizeof(err)), 0);
	ck_assert_int_eq(c.sched.pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(c.sched.frequency, 7);
	ck_assert_uint_eq(c.subbuf_size, 1 << 20);
	ck_assert_uint_eq(c.subbuf_count, 8);
	ck_assert_uint_eq(set, CFG_PACING | CFG_FREQUENCY | CFG_SUBBUF_SIZE | CFG_SUBBUF_COUNT);

	config_builtin(&cli);
	ck_assert_int_eq(config_set(&cli, "recording-frequency", "9", &cli_set, err, sizeof(err)),
			 0);
	config_overlay(&c, &cli, cli_set);
	ck_assert_uint_eq(c.sched.frequency, 9);
	ck_assert_int_eq(c.sched.pacing, PACING_FREQUENCY); /* the file's, not overlaid */

	fd = open(path, O_WRONLY | O_TRUNC);
	const char *bad = "pacing = adaptive\nsubbuffer-size = 3000\n";
	ck_assert_int_eq(write(fd, bad, strlen(bad)), (int)strlen(bad));
	close(fd);
	struct daemon_cfg before = c;
	ck_assert_int_eq(config_load(path, &c, &set, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ":2: subbuffer-size '3000'"));
	ck_assert_int_eq(memcmp(&before, &c, sizeof(c)), 0);
	unlink(path);
	ck_assert_int_eq(config_load(path, &c, &set, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(config_set(&c, "nope", "1", &set, err, sizeof(err)), -EINVAL);
	/* B17: how long an armed recording may wait for Enter */
	config_builtin(&c);
	ck_assert_uint_eq(c.arm_timeout_s, 600);
	set = 0;
	ck_assert_int_eq(config_set(&c, "arm-timeout", "30", &set, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.arm_timeout_s, 30);
	ck_assert_uint_eq(set, CFG_ARM_TIMEOUT);
	ck_assert_int_eq(config_set(&c, "arm-timeout", "0", &set, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(config_set(&c, "arm-timeout", "604801", &set, err, sizeof(err)),
			 -EINVAL);
}
END_TEST


/* ---- registry ---- */

/* A child process that owns a segment until told to exit. */
struct child {
	pid_t pid;
	int go; /* write end: closing it lets the child exit */
};

static struct child spawn_agent(void)
{
	int ready[2], go[2];
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		struct caret_seg s;
		char c = caret_seg_create(&s, 1 << 20, "child", "jazzy") == 0 ? 'y' : 'n';
		if (c == 'y') {
			fill(&s, 5);
			caret_own_set_state(&s, CARET_STATE_WAIT);
		}
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0); /* the segment stays behind, as after a crash */
	}
	close(ready[1]);
	close(go[0]);
	char c = 0;
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	close(ready[0]);
	return (struct child){ pid, go[1] };
}

static void end_child(struct child *c)
{
	close(c->go);
	ck_assert_int_eq(waitpid(c->pid, NULL, 0), c->pid);
}

static void drain_inotify(struct registry *r)
{
	struct pollfd p = { .fd = r->inotify_fd, .events = POLLIN };
	while (poll(&p, 1, 200) > 0)
		registry_on_inotify(r);
}

START_TEST(registry_scan_inotify_sweep)
{
	struct agent self;
	make_agent(&self, "reg", 3);
	struct registry r;
	ck_assert_int_eq(registry_open(&r), 0);
	/* found by the scan */
	ck_assert_int_eq(r.count, 1);
	struct agent *a = registry_find(&r, getpid());
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->procname, "unit");
	/* a segment of another prefix is not ours to see */
	ck_assert_ptr_null(registry_find(&r, 1));

	/* a new agent: seen through inotify, no rescan */
	struct child c = spawn_agent();
	drain_inotify(&r);
	ck_assert_int_eq(r.count, 2);
	struct agent *ca = registry_find(&r, c.pid);
	ck_assert_ptr_nonnull(ca);
	ck_assert_str_eq(ca->procname, "child");
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, ca->seg.name);

	/* alive: the sweep keeps it */
	ck_assert_int_eq(registry_sweep(&r), 0);
	/* dies mid-replay: reclaimed, and reported to `wait` */
	caret_drive_begin_replay(&ca->seg, CARET_STATE_WAIT);
	end_child(&c);
	ck_assert_int_eq(registry_sweep(&r), 1);
	ck_assert_int_eq(r.count, 1);
	ck_assert_ptr_null(registry_find(&r, c.pid));
	ck_assert_int_eq(r.n_exited, 1);
	ck_assert_int_eq(r.exited[0].pid, c.pid);
	ck_assert_uint_eq(r.exited[0].state, CARET_STATE_PREPARE);
	/* its segment is gone from /dev/shm */
	char path[CARET_SHM_NAME_MAX + 2];
	snprintf(path, sizeof(path), "/%s", name);
	ck_assert_int_lt(shm_open(path, O_RDONLY, 0), 0);
	ck_assert_int_eq(errno, ENOENT);

	/* an agent that exits in WAIT is not a `wait` failure */
	c = spawn_agent();
	drain_inotify(&r);
	ck_assert_int_eq(r.count, 2);
	end_child(&c);
	ck_assert_int_eq(registry_sweep(&r), 1);
	ck_assert_int_eq(r.n_exited, 1);

	registry_close(&r);
	drop_agent(&self);
}
END_TEST

/* What the modules keep per agent (registry.h's struct agent_key) starts
 * as zeros and goes with the agent; the scheduler's tells whether a
 * process that died in RECORD was still in a pass, which `wait` reports. */
START_TEST(agent_state_goes_with_the_agent)
{
	struct agent self;
	make_agent(&self, "ast", 3);
	struct registry r;
	ck_assert_int_eq(registry_open(&r), 0);
	for (int in_pass = 0; in_pass < 2; in_pass++) {
		struct child c = spawn_agent();
		drain_inotify(&r);
		struct agent *ca = registry_find(&r, c.pid);
		ck_assert_ptr_nonnull(ca);
		ck_assert(!sched_agent_peek(ca)->seen);
		ck_assert_int_ge(caret_drive_set_state(&ca->seg, CARET_STATE_WAIT,
						       CARET_STATE_RECORD), 0);
		struct sched_agent *sa = sched_agent(ca);
		ck_assert_ptr_nonnull(sa);
		ck_assert(!sa->seen && !sa->extra_pass && sa->covered_serial == 0);
		sa->seen = true;
		sa->extra_pass = in_pass;
		uint64_t before = r.n_exited;
		end_child(&c);
		ck_assert_int_eq(registry_sweep(&r), 1);
		ck_assert_uint_eq(r.n_exited - before, (uint64_t)in_pass);
		if (in_pass)
			ck_assert_uint_eq(r.exited[before % REGISTRY_EXITS].state,
					  CARET_STATE_RECORD);
	}
	registry_close(&r);
	drop_agent(&self);
}
END_TEST

/* One tick of dups_charge: the agent's cursor now (epoch, position) and
 * the records it replayed since the last one. */
static void charge(struct lttng_view *v, struct agent *a, uint32_t epoch, uint32_t pos,
		   uint64_t emitted, bool filtered)
{
	struct caret_seg_status st = { .cursor = CARET_EPOCH_COUNT(epoch, pos),
				       .agent_flags = filtered ? CARET_AGENT_PASS_FILTER : 0 };
	dups_charge(v, a, &st, emitted);
}

/* caretd's count of copies per session is what the trace holds twice
 * (issue 22 D12): a pass started over gives an earlier session the
 * records it already had, a session seen mid-pass the slice it got; a
 * covered session gets every record of another session's pass; a pass
 * with a filter is counted as an upper bound. */
START_TEST(dups_follow_the_replay_positions)
{
	static struct lttng_view v;
	memset(&v, 0, sizeof(v));
	struct agent a = { 0 };
	v.n_active = 1;
	v.sess[0] = (struct lttng_view_session){ .serial = 1, .rules = CARET_LTTNG_RULE_CARET };
	charge(&v, &a, 0, 0, 0, false); /* adopted in WAIT */
	/* A's pass: 10 of 30 records */
	charge(&v, &a, 1, 4, 4, false);
	charge(&v, &a, 1, 10, 6, false);
	/* B appears; A's pass goes on to 14 (B gets 10..14, then 14..15) */
	v.n_active = 2;
	v.sess[1] = (struct lttng_view_session){ .serial = 2, .rules = CARET_LTTNG_RULE_CARET };
	charge(&v, &a, 1, 14, 4, false);
	/* started over: the agent finished 14..15 of pass 1 first, then 0..5 */
	charge(&v, &a, 2, 5, 6, false);
	ck_assert_uint_eq(v.sess[0].dups, 5);
	ck_assert_uint_eq(v.sess[1].dups, 0);
	charge(&v, &a, 2, 30, 25, false);
	ck_assert_uint_eq(v.sess[0].dups, 15); /* 0..15 twice */
	ck_assert_uint_eq(v.sess[1].dups, 5);  /* 10..15 twice */
	ck_assert(!v.sess[0].dups_bound);
	sched_agent(&a)->covered_serial = 2; /* the pass completed */
	/* C (a session without ros2_caret events) and D: D's own pass */
	v.n_active = 4;
	v.sess[2] = (struct lttng_view_session){ .serial = 3 };
	v.sess[3] = (struct lttng_view_session){ .serial = 4, .rules = CARET_LTTNG_RULE_CARET };
	charge(&v, &a, 3, 30, 30, true);
	ck_assert_uint_eq(v.sess[0].dups, 45);
	ck_assert_uint_eq(v.sess[1].dups, 35);
	ck_assert_uint_eq(v.sess[2].dups, 0);
	ck_assert_uint_eq(v.sess[3].dups, 0);
	ck_assert(v.sess[0].dups_bound && v.sess[1].dups_bound && !v.sess[3].dups_bound);
	agent_state_free(&a);
}
END_TEST

void add_registry_tests(Suite *s, TCase *scheduler)
{
	tcase_add_test(scheduler, config_file_and_overlay);
	tcase_add_test(scheduler, dups_follow_the_replay_positions);
	TCase *r = tcase_create("registry");
	tcase_add_test(r, registry_scan_inotify_sweep);
	tcase_add_test(r, agent_state_goes_with_the_agent);
	suite_add_tcase(s, r);
}
