/* SPDX-License-Identifier: Apache-2.0 */
/* The caret-simclock helpers of -c recordings (daemon/recording/simclock.h). */
#include "daemon/recording/simclock.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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

#define SIMCLOCK_MAX LTTNG_VIEW_MAX_RECORDINGS
/* a helper told to end is killed if still there after this */
#define SIMCLOCK_KILL_MS 2000
#define SIMCLOCK_TICK_USEC (500 * USEC_PER_MS)
/* how long a helper has to say it reads /clock (lttng-ust's own start-up
 * wait for the session daemon is 3 s at most) */
#define SIMCLOCK_READY_MS 5000

struct helper {
	bool used;
	char session[CARET_LTTNG_NAME_MAX];
	uid_t uid;
	gid_t gid;
	uint32_t domain;
	pid_t pid;       /* 0: not running (armed, ended, or dead) */
	int64_t term_ns; /* CLOCK_MONOTONIC of its SIGTERM; 0: not told */
	bool ended;      /* the recording is gone: forget it once reaped */
};

static struct {
	struct helper h[SIMCLOCK_MAX];
	/* ended helpers still to reap (their recording forgotten) */
	struct helper dying[SIMCLOCK_MAX];
	struct lttng_view *view;
	struct loop_job job;
	bool started;
} S;

bool simclock_running(void)
{
	for (int i = 0; i < SIMCLOCK_MAX; i++)
		if (S.h[i].pid > 0 || S.dying[i].pid > 0)
			return true;
	return false;
}

static struct helper *find(const char *session)
{
	for (int i = 0; i < SIMCLOCK_MAX; i++)
		if (S.h[i].used && strcmp(S.h[i].session, session) == 0)
			return &S.h[i];
	return NULL;
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

/* Slot i's ended helper goes, to make room for another: an earlier one
 * still there (told twice within a tick) is killed and reaped now. */
static void retire(int i)
{
	struct helper *d = &S.dying[i];
	if (d->pid > 0) {
		terminate(d);
		poll_one(d, caret_now_ns());
	}
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
	}
	terminate(&S.h[i]);
	*d = S.h[i];
	S.h[i] = (struct helper){ 0 };
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	int64_t now = caret_now_ns();
	bool busy = false;
	for (int i = 0; i < SIMCLOCK_MAX; i++) {
		struct helper *h = &S.h[i];
		if (h->used && !lttng_view_find_rec(S.view, h->session)) {
			/* its recording is gone without a stop through caretd */
			retire(i);
		}
		poll_one(h, now);
		poll_one(&S.dying[i], now);
		busy = busy || h->used || S.dying[i].pid > 0;
	}
	return busy ? SIMCLOCK_TICK_USEC : LOOP_IDLE;
}

int simclock_start(struct loop *l, const struct simclock_ops *ops)
{
	memset(&S, 0, sizeof(S));
	S.view = ops->lttng;
	S.job = LOOP_JOB("simclock", LOOP_OBSERVE, on_tick, NULL);
	int rc = loop_add(l, &S.job);
	S.started = rc >= 0;
	return rc;
}

void simclock_stop(void)
{
	for (int i = 0; i < SIMCLOCK_MAX; i++) {
		terminate(&S.h[i]);
		terminate(&S.dying[i]);
	}
	/* a short grace, then nothing of ours is left behind */
	for (int t = 0; t < 100; t++) {
		bool left = false;
		for (int i = 0; i < SIMCLOCK_MAX; i++) {
			poll_one(&S.h[i], caret_now_ns());
			poll_one(&S.dying[i], caret_now_ns());
			left = left || S.h[i].pid > 0 || S.dying[i].pid > 0;
		}
		if (!left)
			break;
		usleep(10000);
	}
	for (int i = 0; i < SIMCLOCK_MAX; i++) {
		struct helper *hs[2] = { &S.h[i], &S.dying[i] };
		for (int k = 0; k < 2; k++)
			if (hs[k]->pid > 0) {
				kill(hs[k]->pid, SIGKILL);
				waitpid(hs[k]->pid, NULL, 0);
			}
	}
	if (S.started)
		loop_remove(&S.job);
	S.started = false;
}

int simclock_begin(const char *session, uid_t uid, gid_t gid, uint32_t domain, char *err,
		   size_t errlen)
{
	/* only a caretd that reaps and ends them starts helpers (the unit
	 * tests' and fuzzers' command harnesses do not run the job) */
	if (!S.started)
		return caret_errf(err, errlen, -ENOTSUP, "record -c: this caretd runs no sim-time "
				  "helper");
	struct helper *h = find(session);
	for (int i = 0; !h && i < SIMCLOCK_MAX; i++)
		if (!S.h[i].used && S.dying[i].pid <= 0)
			h = &S.h[i];
	if (!h)
		return caret_errf(err, errlen, -ENOSPC, "record -c: too many sim-time helpers");
	/* a helper left for a recording of the same name (its session went
	 * behind caretd's back, a tick ago) is ended and reaped first */
	if (h->used)
		retire((int)(h - S.h));
	*h = (struct helper){ .used = true, .uid = uid, .gid = gid, .domain = domain };
	snprintf(h->session, sizeof(h->session), "%s", session);
	int r = spawn(h, err, errlen);
	if (r < 0)
		*h = (struct helper){ 0 };
	else if (S.started)
		loop_job_soon(&S.job, 0);
	return r;
}

void simclock_end(const char *session)
{
	struct helper *h = find(session);
	if (!h)
		return;
	retire((int)(h - S.h));
	if (S.started)
		loop_job_soon(&S.job, 0);
}
