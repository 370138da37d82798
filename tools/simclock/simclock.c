/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-simclock: ROS 2's /clock into the trace as ros2_caret:sim_time,
 * for `caretctl record -c` (as `ros2 caret record -c`).
 *
 * Upstream, `ros2 caret record -c` (ros2caret verb/record.py) launches
 * caret_trace's clock_recorder, one extra ROS node for the whole system:
 * it sets use_sim_time, and a 1 s wall timer emits
 * ros2_caret:sim_time(stamp = this->now()), the last /clock received,
 * skipping while none came (src/clock_recorder.cpp). caret_analyze pairs
 * each event's own timestamp with its stamp and fits system time to sim
 * time (Lttng.get_sim_time_converter; the handler takes sim_time from any
 * process: no caret_init needed, vpid ignored).
 *
 * Here there is no ROS node at all: this program is a plain DDS reader of
 * the topic rmw puts /clock on ("rt/clock", rosgraph_msgs::msg::dds_::
 * Clock_, XCDR1, keyless; proto/ros_clock.idl), which any RMW's /clock
 * publisher (CycloneDDS or Fast DDS: the type name and the wire format
 * are rosidl's, not an RMW's) matches. Its reader is best-effort, keep
 * last 1, volatile: what rclcpp's TimeSource subscribes with (ClockQoS),
 * so both the best-effort and the reliable publishers of simulators and
 * `ros2 bag play --clock` match it.
 *
 * Who runs it, and why a process of its own: caretd starts one per -c
 * recording when it creates it (an armed one records nothing until its
 * go), as the requester (their uid and gid: it could do nothing a process
 * of theirs could not, since every process of theirs may emit ros2_caret
 * events into the same session), waits for its answer on --ready-fd
 * ("ok" once it reads /clock, else why not: the record fails with it),
 * and ends it just before the recording stops (daemon/recording/simclock.c). Emitting a
 * tracepoint needs lttng-ust in the emitting process and its registration
 * with the session daemon; caretd itself stays out of lttng-ust (it is
 * the lttng-ctl client, and an lttng-ust app blocks at start-up waiting
 * for the session daemon and keeps threads in every fork). One process
 * per recording keeps the DDS domain, the requester and the lifetime
 * together; a crash here costs sim time, not the recording.
 *
 * When it emits: at the reception of a sample, not on a timer, so each
 * (timestamp, stamp) pair is exact instead of lagging by up to a /clock
 * period; at most one per --interval-ms (default 1000, clock_recorder's
 * density), plus at once when sim time goes backwards (a simulation
 * reset; clock_recorder warns of it too), but then too at most ten per
 * interval: anyone on the domain may publish /clock. Like any tracepoint, it reaches
 * every active session that enables ros2_caret:sim_time, not only the
 * recording's (LTTng cannot target one session; clock_recorder does the
 * same).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <dds/dds.h>

#include "ros_clock.h"

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tools/simclock/simclock_tp.h"

#define NSEC 1000000000LL
/* ROS 2's domain ids (rcl: 0..232 on Linux, where DDS's port
 * arithmetic still fits) */
#define DOMAIN_MAX 232

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: caret-simclock --domain N [--session NAME] [--interval-ms MS]\n"
		   "  [--ready-fd FD]\n"
		   "ROS 2's /clock (DDS topic rt/clock) on domain N into LTTng as\n"
		   "ros2_caret:sim_time, at most one event per MS (default 1000), until\n"
		   "SIGTERM or SIGINT. Started by caretd for 'caretctl record -c'; FD gets\n"
		   "\"ok\" once /clock is read, or why not.\n");
}

static int parse_u(const char *s, long long max, long long *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end || x < 0 || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

struct counts {
	uint64_t taken, emitted, rejected, backwards;
};

struct emitter {
	int64_t interval_ns;
	int64_t last_emit_ns; /* monotonic; 0: none yet */
	int64_t last_warn_ns; /* of the last "went back" line */
	uint64_t last_stamp;
	const char *session;
	struct counts n;
};

/* One /clock sample from anyone on the domain: a stamp ROS accepts
 * (rclcpp::Time refuses negative seconds; nanosec is below a second), or
 * counted and dropped. */
static void on_sample(struct emitter *e, const rosgraph_msgs_msg_dds__Clock_ *m)
{
	e->n.taken++;
	if (m->clock.sec < 0 || m->clock.nanosec >= (uint32_t)NSEC) {
		e->n.rejected++;
		return;
	}
	uint64_t stamp = (uint64_t)m->clock.sec * (uint64_t)NSEC + m->clock.nanosec;
	int64_t now = mono_ns();
	bool back = e->last_emit_ns && stamp < e->last_stamp;
	if (back) {
		/* a peer sending stamps back and forth gets one line per
		 * interval into caretd's log, the rest counted */
		if (e->n.backwards++ == 0 || now - e->last_warn_ns >= e->interval_ns) {
			fprintf(stderr, "caret-simclock: %s: sim time went back: %" PRIu64
					" -> %" PRIu64 " ns (%" PRIu64 " times so far)\n",
				e->session, e->last_stamp, stamp, e->n.backwards);
			e->last_warn_ns = now;
		}
	}
	/* going back is emitted at once, but never more than ten times an
	 * interval: whoever publishes /clock cannot flood the trace */
	int64_t wait = back ? e->interval_ns / 10 : e->interval_ns;
	if (e->last_emit_ns && now - e->last_emit_ns < wait)
		return;
	lttng_ust_tracepoint(ros2_caret, sim_time, stamp);
	e->last_emit_ns = now;
	e->last_stamp = stamp;
	e->n.emitted++;
}

/* caretd's answer (--ready-fd): "ok", or why /clock cannot be read, so
 * that `record -c` fails with the reason instead of recording no sim
 * time (e.g. caretd's systemd sandbox has no network) */
static void tell(int fd, const char *what, dds_return_t r)
{
	if (fd < 0)
		return;
	char line[256];
	int n = what ? snprintf(line, sizeof(line), "%s: %s\n", what, dds_strretcode(r))
		     : snprintf(line, sizeof(line), "ok\n");
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		fprintf(stderr, "caret-simclock: cannot answer caretd: %s\n", strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	long long domain = -1, interval_ms = 1000;
	int ready_fd = -1;
	/* caretd waits for our answer: the requester (our uid) may not
	 * ptrace us to stall it or to write into its pipe */
	prctl(PR_SET_DUMPABLE, 0);
	struct emitter e = { .session = "-" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v)
			goto bad;
		if (!strcmp(a, "--domain")) {
			if (parse_u(v, DOMAIN_MAX, &domain) < 0)
				goto bad;
		} else if (!strcmp(a, "--interval-ms")) {
			if (parse_u(v, 3600 * 1000, &interval_ms) < 0 || interval_ms == 0)
				goto bad;
		} else if (!strcmp(a, "--session")) {
			e.session = v;
		} else if (!strcmp(a, "--ready-fd")) {
			long long fd;
			if (parse_u(v, 1024, &fd) < 0)
				goto bad;
			ready_fd = (int)fd;
		} else {
			goto bad;
		}
		i++;
	}
	if (domain < 0)
		goto bad;
	e.interval_ns = interval_ms * 1000000LL;

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "caret-simclock: %s: cannot join DDS domain %lld: %s\n", e.session,
			domain, dds_strretcode(pp));
		tell(ready_fd, "cannot join the DDS domain", pp);
		return 1;
	}
	int rc = 1;
	dds_entity_t topic = dds_create_topic(pp, &rosgraph_msgs_msg_dds__Clock__desc, "rt/clock",
					      NULL, NULL);
	dds_qos_t *qos = dds_create_qos();
	dds_qset_reliability(qos, DDS_RELIABILITY_BEST_EFFORT, 0);
	dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
	dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 1);
	dds_entity_t rd = topic < 0 ? topic : dds_create_reader(pp, topic, qos, NULL);
	dds_delete_qos(qos);
	dds_entity_t ws = rd < 0 ? rd : dds_create_waitset(pp);
	dds_entity_t cond = ws < 0 ? ws : dds_create_readcondition(rd, DDS_ANY_STATE);
	dds_return_t r = cond < 0 ? cond : dds_waitset_attach(ws, cond, 0);
	if (r < 0) {
		fprintf(stderr, "caret-simclock: %s: cannot read rt/clock: %s\n", e.session,
			dds_strretcode(r));
		tell(ready_fd, "cannot read rt/clock", r);
		goto out;
	}
	tell(ready_fd, NULL, 0);
	fprintf(stderr, "caret-simclock: %s: recording /clock of domain %lld\n", e.session,
		domain);
	while (!stop) {
		/* the signal flag is polled: nothing in DDS may be called from
		 * a handler */
		r = dds_waitset_wait(ws, NULL, 0, DDS_MSECS(200));
		if (r < 0 && r != DDS_RETCODE_TIMEOUT)
			break;
		for (;;) {
			rosgraph_msgs_msg_dds__Clock_ m;
			void *buf = &m;
			dds_sample_info_t si;
			int n = dds_take(rd, &buf, &si, 1, 1);
			if (n <= 0)
				break;
			if (si.valid_data)
				on_sample(&e, &m);
		}
	}
	rc = r < 0 && r != DDS_RETCODE_TIMEOUT ? 1 : 0;
	if (rc)
		fprintf(stderr, "caret-simclock: %s: waiting for rt/clock failed: %s\n", e.session,
			dds_strretcode(r));
out:
	fprintf(stderr, "caret-simclock: %s: %" PRIu64 " /clock samples, %" PRIu64
			" sim_time events, %" PRIu64 " invalid, %" PRIu64 " backwards\n",
		e.session, e.n.taken, e.n.emitted, e.n.rejected, e.n.backwards);
	dds_delete(pp);
	return rc;
bad:
	usage(stderr);
	return 2;
}
