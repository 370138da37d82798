/* SPDX-License-Identifier: Apache-2.0 */
/* The caret-simclock helpers of -c recordings (daemon/recording/simclock.h). */
#include "daemon/recording/simclock.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "util/caret_err.h"
#include "util/caret_util.h"

#define SIMCLOCK_MAX RECORDINGS_MAX
/* a helper told to end is killed if still there after this */
#define SIMCLOCK_KILL_MS 2000
#define SIMCLOCK_TICK_USEC (500 * USEC_PER_MS)
/* how long a helper has to say it reads /clock (lttng-ust's own start-up
 * wait for the session daemon is 3 s at most) */
#define SIMCLOCK_READY_MS 5000

/* A helper process: its recording's (struct recording's clock, copied in
 * and out around each call) or, once its recording ended, one of the
 * dying still to reap. */
struct helper {
	char session[CARET_LTTNG_NAME_MAX];
	uid_t uid;
	gid_t gid;
	uint32_t domain;
	pid_t pid;       /* 0: not running (ended, or dead) */
	int64_t term_ns; /* CLOCK_MONOTONIC of its SIGTERM; 0: not told */
};

static struct {
	/* ended helpers still to reap (their recording gone or stopped) */
	struct helper dying[SIMCLOCK_MAX];
	struct recordings *t;
	struct loop_job job;
	bool started;
} S;

#define EACH(rec) \
	for (struct recording *rec = S.t ? recordings_next(S.t, NULL) : NULL; rec; \
	     rec = recordings_next(S.t, rec))

bool simclock_running(void)
{
	EACH(r)
		if (r->clock.pid > 0)
			return true;
	for (int i = 0; i < SIMCLOCK_MAX; i++)
		if (S.dying[i].pid > 0)
			return true;
	return false;
}

static struct helper helper_of(const struct recording *r)
{
	struct helper h = { .uid = r->uid, .gid = r->gid, .domain = r->clock.domain,
			    .pid = r->clock.pid, .term_ns = r->clock.term_ns };
	snprintf(h.session, sizeof(h.session), "%s", r->name);
	return h;
}

static void put_back(struct recording *r, const struct helper *h)
{
	r->clock.pid = h->pid;
	r->clock.term_ns = h->term_ns;
}

/* ../lib/caretd/caret-simclock from caretd's own bin/ (build tree and
 * install alike); -errno */
static int helper_path(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (snprintf(out, len, "%s/../lib/caretd/caret-simclock", exe) >= (int)len)
		return -ENAMETOOLONG;
	return access(out, X_OK) < 0 ? -errno : 0;
}

/* The child, between fork and exec: async-signal-safe calls only (caretd
 * has threads: DDS, LTTng notifications). */
static void child(const struct helper *h, int ready, const char *path, char *const argv[],
		  char *const envp[])
{
	/* sd-event keeps caretd's signals blocked: the helper must see
	 * SIGTERM */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
		_exit(126);
	/* its answer on fd 3 (--ready-fd 3); nothing else of caretd's
	 * (control socket, segments, LTTng) goes along */
	if (ready == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(ready, 3) < 0)
		_exit(126);
	close_range(4, ~0U, 0);
	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(h->gid) < 0 || setuid(h->uid) < 0))
		_exit(126);
	/* after the uid change (which clears it): it ends with caretd */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	execve(path, argv, envp);
	_exit(127);
}

/* The helper's "ok" once it reads /clock, or why not: a -c recording that
 * would get no sim time is refused with the reason (caretd's systemd
 * sandbox without network, a domain CycloneDDS refuses). A helper that
 * does not answer in time, or fails, is killed and reaped here. */
static int await_ready(const struct helper *h, pid_t pid, int fd, char *err, size_t errlen)
{
	char buf[256];
	size_t n = 0;
	int64_t deadline = caret_now_ns() + SIMCLOCK_READY_MS * 1000000LL;
	while (n < sizeof(buf) - 1 && !memchr(buf, '\n', n)) {
		int64_t left = deadline - caret_now_ns();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int k = left > 0 ? poll(&p, 1, (int)(left / 1000000 + 1)) : 0;
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		ssize_t m = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			break;
		n += (size_t)m;
	}
	buf[n] = '\0';
	if (n >= 3 && memcmp(buf, "ok\n", 3) == 0)
		return 0;
	kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	/* what the helper said is its own words (a DDS return code's name):
	 * still, only printable bytes reach the client */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	if (n)
		return caret_errf(err, errlen, -ENETUNREACH, "record -c: caret-simclock cannot "
				  "read /clock of ROS domain %u: %s (caretd needs the network: "
				  "see caretd(8), LIMITS AND HOSTILE USERS)", (unsigned)h->domain, buf);
	if (WIFEXITED(status) || WIFSIGNALED(status))
		return caret_errf(err, errlen, -ECHILD, "record -c: caret-simclock ended before "
				  "reading /clock (%s %d)", WIFEXITED(status) ? "exit status" : "signal",
				  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return caret_errf(err, errlen, -ETIMEDOUT, "record -c: caret-simclock did not start "
			  "reading /clock within %d ms", SIMCLOCK_READY_MS);
}

static int spawn(struct helper *h, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r = helper_path(path, sizeof(path));
	if (r < 0)
		return caret_errf(err, errlen, r, "record -c: cannot run %s: %s",
				  r == -ENAMETOOLONG ? "caret-simclock" : path, strerror(-r));
	char dom[16];
	snprintf(dom, sizeof(dom), "%u", (unsigned)h->domain);
	char *const argv[] = { "caret-simclock", "--domain", dom, "--session", h->session,
			       "--ready-fd", "3", NULL };
	/* A clean environment: the domain comes as an argument; caretd's own
	 * CycloneDDS configuration (its interfaces, peers) is the host's. */
	static char uri[4096];
	const char *u = getenv("CYCLONEDDS_URI");
	int nenv = 0;
	char *envp[3];
	envp[nenv++] = "PATH=/usr/bin:/bin";
	if (u && snprintf(uri, sizeof(uri), "CYCLONEDDS_URI=%s", u) < (int)sizeof(uri))
		envp[nenv++] = uri;
	envp[nenv] = NULL;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return caret_errf(err, errlen, -errno, "record -c: cannot start caret-simclock: %s",
				  strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return caret_errf(err, errlen, -e, "record -c: cannot start caret-simclock: %s",
				  strerror(e));
	}
	if (pid == 0)
		child(h, pfd[1], path, argv, envp);
	close(pfd[1]);
	r = await_ready(h, pid, pfd[0], err, errlen);
	close(pfd[0]);
	if (r < 0)
		return r;
	h->pid = pid;
	h->term_ns = 0;
	log_info("session %s: caret-simclock (pid %d, uid %d) records /clock of ROS domain %u",
		 h->session, (int)pid, (int)h->uid, (unsigned)h->domain);
	return 0;
}

static void reaped(const struct helper *h, int status)
{
	if (h->term_ns && ((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
			   (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)))
		return;
	if (WIFEXITED(status))
		log_warn("session %s: caret-simclock (pid %d) exited with status %d: no more sim "
			 "time in this recording", h->session, (int)h->pid, WEXITSTATUS(status));
	else
		log_warn("session %s: caret-simclock (pid %d) killed by signal %d%s", h->session,
			 (int)h->pid, WTERMSIG(status),
			 h->term_ns ? " (it did not end when told)" : ": no more sim time in this recording");
}

/* Reaps h's helper if it ended; SIGKILL when it outlived its SIGTERM. */
static void poll_one(struct helper *h, int64_t now)
{
	if (h->pid <= 0)
		return;
	int status;
	pid_t w = waitpid(h->pid, &status, WNOHANG);
	if (w == h->pid || (w < 0 && errno == ECHILD)) {
		if (w == h->pid)
			reaped(h, status);
		h->pid = 0;
		return;
	}
	if (h->term_ns && now - h->term_ns > SIMCLOCK_KILL_MS * 1000000LL)
		kill(h->pid, SIGKILL);
}

static void terminate(struct helper *h)
{
	if (h->pid > 0 && !h->term_ns) {
		kill(h->pid, SIGTERM);
		h->term_ns = caret_now_ns();
	}
}

/* r's helper is told to end and joins the dying (a free place; else the
 * oldest told, killed and reaped now). */
static void retire(struct recording *r)
{
	struct helper h = helper_of(r);
	r->clock.on = false;
	r->clock.pid = 0;
	r->clock.term_ns = 0;
	if (h.pid <= 0)
		return;
	terminate(&h);
	struct helper *d = NULL;
	for (int i = 0; i < SIMCLOCK_MAX && !d; i++)
		if (S.dying[i].pid <= 0)
			d = &S.dying[i];
	if (!d) {
		d = &S.dying[0];
		poll_one(d, caret_now_ns());
		if (d->pid > 0) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, NULL, 0);
		}
	}
	*d = h;
	if (S.started)
		loop_job_soon(&S.job, 0);
}

/* A -c recording taken over after a restart: its helper died with the
 * caretd before (its parent-death signal), and starts again. */
static void respawn(struct recording *r)
{
	r->clock.respawn = false;
	recordings_hold_armed(S.t); /* before its helper emits */
	struct helper h = helper_of(r);
	char err[512];
	if (spawn(&h, err, sizeof(err)) < 0) {
		log_warn("session %s: its sim-time helper does not start again after the "
			 "restart: %s", r->name, err);
		return;
	}
	put_back(r, &h);
	r->clock.on = true;
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	int64_t now = caret_now_ns();
	bool busy = false;
	EACH(r) {
		if (r->clock.respawn)
			respawn(r);
		struct helper h = helper_of(r);
		poll_one(&h, now);
		put_back(r, &h);
		busy = busy || r->clock.on;
	}
	for (int i = 0; i < SIMCLOCK_MAX; i++) {
		poll_one(&S.dying[i], now);
		busy = busy || S.dying[i].pid > 0;
	}
	return busy ? SIMCLOCK_TICK_USEC : LOOP_IDLE;
}

int simclock_start(struct loop *l, const struct simclock_ops *ops)
{
	memset(&S, 0, sizeof(S));
	S.t = ops->recs;
	S.job = LOOP_JOB("simclock", LOOP_OBSERVE, on_tick, NULL);
	int rc = loop_add(l, &S.job);
	S.started = rc >= 0;
	return rc;
}

void simclock_stop(void)
{
	EACH(r)
		retire(r);
	/* a short grace, then nothing of ours is left behind */
	for (int t = 0; t < 100; t++) {
		bool left = false;
		for (int i = 0; i < SIMCLOCK_MAX; i++) {
			poll_one(&S.dying[i], caret_now_ns());
			left = left || S.dying[i].pid > 0;
		}
		if (!left)
			break;
		usleep(10000);
	}
	for (int i = 0; i < SIMCLOCK_MAX; i++)
		if (S.dying[i].pid > 0) {
			kill(S.dying[i].pid, SIGKILL);
			waitpid(S.dying[i].pid, NULL, 0);
		}
	if (S.started)
		loop_remove(&S.job);
	S.started = false;
}

static int feat_begin(struct recordings *t, struct recording *r, char *err, size_t errlen)
{
	if (!r->clock.wanted)
		return 0;
	recordings_hold_armed(t); /* before its helper emits */
	/* only a caretd that reaps and ends them starts helpers (the unit
	 * tests' and fuzzers' command harnesses do not run the job) */
	if (!S.started)
		return caret_errf(err, errlen, -ENOTSUP, "record -c: this caretd runs no sim-time "
				  "helper");
	struct helper h = helper_of(r);
	int rc = spawn(&h, err, errlen);
	if (rc < 0)
		return rc;
	put_back(r, &h);
	r->clock.on = true;
	loop_job_soon(&S.job, 0);
	return 0;
}

/* -c: no sim time after the stop */
static int feat_quiesce(struct recordings *t, struct recording *r, int64_t now_ns, char *err,
			size_t errlen)
{
	(void)t, (void)now_ns, (void)err, (void)errlen;
	retire(r);
	return 0;
}

static void feat_end(struct recordings *t, struct recording *r, struct recording_end *out)
{
	(void)t, (void)out;
	retire(r);
}

/* " clock=DOMAIN" */
static void feat_save(const struct recording *r, FILE *f)
{
	if (r->clock.wanted)
		fprintf(f, " clock=%" PRIu32, r->clock.domain);
}

static int feat_restore(struct recordings *t, struct recording *r, const char *token)
{
	(void)t;
	char *end;
	errno = 0;
	unsigned long d = strtoul(token, &end, 10);
	if (errno || end == token || *end || d > UINT32_MAX)
		return -EINVAL;
	r->clock = (struct recording_clock){ .wanted = true, .domain = (uint32_t)d,
					     .respawn = true };
	return 0;
}

const struct recording_feature_ops simclock_feature = {
	.name = "clock",
	.begin = feat_begin,
	.quiesce = feat_quiesce,
	.end = feat_end,
	.save = feat_save,
	.restore = feat_restore,
};
