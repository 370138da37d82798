/* SPDX-License-Identifier: Apache-2.0 */
/* Never blocks the loop on a slow or hostile client: every socket is
 * non-blocking, output is buffered up to OUT_MAX, and the client is
 * dropped beyond that. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/recording/recordings_state.h"
#include "daemon/server/cmd_hold.h"
#include "daemon/server/server.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "shm/caret_shm.h"
#include "util/caret_cleanup.h"

/* a client that reads nothing is dropped */
#define OUT_MAX (CARET_CTL_MAX_REPLY + CARET_CTL_MAX_LINE)
/* Clients at once: MAX_CLIENTS in all, at most UID_SHARE of them of one
 * user other than root; root has ROOT_RESERVE more, so that no user can
 * lock root out (B8). */
#define MAX_CLIENTS 64
#define UID_SHARE 16
#define ROOT_RESERVE 8
/* A client with no request in progress that completes no request line for
 * this long is closed: idle and slow clients cannot hold their slot (B8). */
#define CLIENT_IDLE_NS (10LL * 1000000000)
#define IDLE_CHECK_USEC (1000 * USEC_PER_MS)
/* How soon a finished wait is answered. */
#define WAIT_POLL_USEC (10 * USEC_PER_MS)
/* How soon a slow one (a hold) is (daemon/agents/wait.h). */
#define SLOW_WAIT_POLL_USEC (1000 * USEC_PER_MS)
/* How long accepting pauses when caretd is out of descriptors. */
#define ACCEPT_PAUSE_USEC (200 * USEC_PER_MS)

struct client {
	struct server *srv;
	sd_event_source *io; /* owns the fd */
	int fd;
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_cap;
	bool closing;
	uid_t uid;
	int64_t last_ns;       /* accepted, or last request line / reply ended */
	struct wait_req *wait; /* a request in progress: no other is read */
	struct cmd_peer peer;
	struct client *next;
};

struct server {
	sd_event *event;
	struct server_cfg cfg;
	struct cmd_ctx ctx;
	int listen_fd;
	bool socket_activated;
	sd_event_source *accept;
	sd_event_source *accept_resume; /* accepting paused: out of descriptors */
	/* report stage of the tick: the clients' waits, idle clients */
	struct loop_job waits, idle;
	struct client *clients;
	int n_clients;
};

static int mkdir_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int listen_activated(struct server *s)
{
	if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_err("the socket passed by systemd is not a listening unix stream socket");
		return -EINVAL;
	}
	s->listen_fd = SD_LISTEN_FDS_START;
	s->socket_activated = true;
	fcntl(s->listen_fd, F_SETFD, FD_CLOEXEC);
	fcntl(s->listen_fd, F_SETFL, fcntl(s->listen_fd, F_GETFL) | O_NONBLOCK);
	log_info("using the control socket passed by systemd");
	return 0;
}

static int listen_own(struct server *s)
{
	const char *path = s->cfg.socket_path;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int r = mkdir_parent(path);
	if (r < 0) {
		log_err_errno(r, "cannot create the directory of %s", path);
		return r;
	}
	{
		_cleanup_close_ int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
						   0);
		if (probe < 0)
			return -errno;
		/* A stale socket from a killed caretd: remove it only if
		 * nobody answers on it. */
		if (connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			log_err("another caretd is already listening on %s", path);
			return -EADDRINUSE;
		}
	}
	unlink(path);
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	mode_t old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, 16) < 0) {
		r = -errno;
		log_err_errno(r, "cannot listen on %s", path);
		return r;
	}
	if (s->cfg.have_group) {
		if (chown(path, (uid_t)-1, s->cfg.group) < 0)
			log_warn("cannot give %s to the group: %s", path, strerror(errno));
	} else {
		chmod(path, 0600);
	}
	s->listen_fd = caret_take_fd(&fd);
	log_info("listening on %s", path);
	return 0;
}

static bool in_group(pid_t pid, gid_t primary, gid_t want)
{
	if (primary == want)
		return true;
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Groups:", 7))
			continue;
		char *p = line + 7, *end;
		for (;;) {
			unsigned long g = strtoul(p, &end, 10);
			if (end == p)
				break;
			if ((gid_t)g == want)
				found = true;
			p = end;
		}
	}
	return found;
}

/* A deferred request changes the recordings outside any command, whose
 * end would save them (commands.c): LTTng's start ended and made one, its
 * requester left and it was stopped, a holder left. Saved when it says so
 * (before the line goes out: a caretd killed once its requester read it
 * still knows the recording) and when it is released. */
static void save_deferred(struct server *s)
{
	recordings_save_changed(s->ctx.recs);
}

static void client_free(struct client *c)
{
	struct server *s = c->srv;
	for (struct client **pp = &s->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	s->n_clients--;
	sd_event_source_disable_unref(c->io);
	if (c->wait) {
		wait_free(c->wait);
		save_deferred(s);
	}
	free(c->in);
	free(c->out);
	free(c);
}

/* Queues o (deleted) as one line. */
static void client_send(struct client *c, cJSON *o)
{
	char *line = caret_ctl_enc_line(o);
	size_t n = line ? strlen(line) : 0;
	if (n > CARET_CTL_MAX_REPLY) {
		free(line);
		line = caret_ctl_enc_line(caret_ctl_enc_error(EMSGSIZE, "reply too large"));
		n = line ? strlen(line) : 0;
	}
	if (!line || c->out_len + n + 1 > OUT_MAX) {
		free(line);
		c->closing = true;
		return;
	}
	if (c->out_len + n + 1 > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + n + 1)
			cap *= 2;
		char *p = realloc(c->out, cap);
		if (!p) {
			free(line);
			c->closing = true;
			return;
		}
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, line, n);
	c->out[c->out_len + n] = '\n';
	c->out_len += n + 1;
	free(line);
}

/* Sends what it can; frees the client when it is done with. Returns false
 * if c is gone. */
static bool client_flush(struct client *c)
{
	while (c->out_len) {
		ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			c->closing = true;
			c->out_len = 0;
			break;
		}
		memmove(c->out, c->out + w, c->out_len - (size_t)w);
		c->out_len -= (size_t)w;
	}
	if (c->closing && c->out_len == 0) {
		client_free(c);
		return false;
	}
	/* A closing client is only written to: its end-of-file would keep
	 * the socket readable and spin the loop. */
	uint32_t ev = c->closing ? 0 : EPOLLIN | EPOLLRDHUP;
	sd_event_source_set_io_events(c->io, ev | (c->out_len ? EPOLLOUT : 0));
	return true;
}


static void run_line(struct client *c, const char *line)
{
	struct cmd_out out;
	command_run(&c->srv->ctx, &c->peer, line, caret_now_ns(), &out);
	if (out.wait) {
		c->wait = out.wait;
		loop_job_soon(&c->srv->waits, 0);
	} else if (out.reply) {
		client_send(c, out.reply);
	} else {
		c->closing = true; /* out of memory */
	}
}

static void read_in(struct client *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->in_len, CARET_CTL_MAX_LINE - c->in_len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			c->closing = true;
			return;
		}
		if (n < 0)
			return;
		c->in_len += (size_t)n;
		char *nl;
		while ((nl = memchr(c->in, '\n', c->in_len))) {
			*nl = '\0';
			if (!c->wait && !c->closing) {
				run_line(c, c->in);
				c->last_ns = caret_now_ns();
			}
			size_t used = (size_t)(nl - c->in) + 1;
			memmove(c->in, nl + 1, c->in_len - used);
			c->in_len -= used;
		}
		if (c->in_len >= CARET_CTL_MAX_LINE) {
			client_send(c, caret_ctl_enc_error(EMSGSIZE, "request line too long"));
			c->in_len = 0;
			c->closing = true;
			return;
		}
	}
}

static int on_client(sd_event_source *src, int fd, uint32_t events, void *arg)
{
	(void)src, (void)fd;
	struct client *c = arg;
	if (events & EPOLLIN)
		read_in(c);
	if (events & (EPOLLHUP | EPOLLERR)) {
		c->closing = true;
		c->out_len = 0;
	}
	client_flush(c);
	return 0;
}

/* Tells a refused peer why, best effort, and hangs up. */
static void refuse(int fd, int err, const char *msg)
{
	char *line = caret_ctl_enc_line(caret_ctl_enc_error(err, msg));
	if (line) {
		size_t n = strlen(line);
		line[n] = '\n'; /* replaces the NUL: written by length */
		ssize_t w = write(fd, line, n + 1);
		(void)w;
		free(line);
	}
	close(fd);
}

static void accept_one(struct server *s, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		close(fd);
		return;
	}
	bool allowed = cr.uid == 0 || cr.uid == geteuid() ||
		       (s->cfg.have_group && in_group(cr.pid, cr.gid, s->cfg.group));
	int same_uid = 0;
	for (struct client *o = s->clients; o; o = o->next)
		same_uid += o->uid == cr.uid;
	bool room = cr.uid == 0 ? s->n_clients < MAX_CLIENTS + ROOT_RESERVE
				: s->n_clients < MAX_CLIENTS && same_uid < UID_SHARE;
	if (!allowed || !room) {
		log_warn_rl("refused a client: pid %d uid %d%s", (int)cr.pid, (int)cr.uid,
			    allowed ? " (too many clients)" : "");
		/* the group it runs with (--group), not the one it usually has */
		char why[160];
		if (s->cfg.have_group)
			snprintf(why, sizeof(why), "permission denied: caretd accepts root, its own "
				 "user and members of group %s only", s->cfg.group_name[0] ?
				 s->cfg.group_name : "(unnamed)");
		else
			snprintf(why, sizeof(why), "permission denied: caretd accepts root and its "
				 "own user only (it runs without --group)");
		refuse(fd, allowed ? EBUSY : EACCES, allowed ? "too many clients" : why);
		return;
	}
	struct client *c = calloc(1, sizeof(*c));
	if (!c || !(c->in = malloc(CARET_CTL_MAX_LINE + 1))) {
		free(c);
		close(fd);
		return;
	}
	c->srv = s;
	c->fd = fd;
	c->peer.pid = cr.pid;
	c->peer.uid = cr.uid;
	c->peer.gid = cr.gid;
	socklen_t glen = sizeof(c->peer.groups);
	c->peer.n_groups = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, c->peer.groups, &glen) == 0
				   ? (int)(glen / sizeof(gid_t))
				   : -1;
	c->last_ns = caret_now_ns();
	if (sd_event_add_io(s->event, &c->io, fd, EPOLLIN | EPOLLRDHUP, on_client, c) < 0) {
		free(c->in);
		free(c);
		close(fd);
		return;
	}
	sd_event_source_set_io_fd_own(c->io, true);
	c->next = s->clients;
	s->clients = c;
	s->n_clients++;
}

static int on_accept_resume(sd_event_source *src, uint64_t usec, void *arg)
{
	(void)src, (void)usec;
	struct server *s = arg;
	sd_event_source_set_enabled(s->accept, SD_EVENT_ON);
	return 0;
}

static int on_accept(sd_event_source *src, int fd, uint32_t events, void *arg)
{
	(void)src, (void)events;
	struct server *s = arg;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd >= 0) {
			accept_one(s, cfd);
			continue;
		}
		/* Out of descriptors, the pending connection stays queued and the
		 * socket readable: pause accepting instead of spinning on it. */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			log_warn_rl("cannot accept a client: %s; pausing for %d ms", strerror(errno),
				 (int)(ACCEPT_PAUSE_USEC / USEC_PER_MS));
			sd_event_source_set_enabled(s->accept, SD_EVENT_OFF);
			loop_timer_again(s->accept_resume, ACCEPT_PAUSE_USEC);
		}
		return 0;
	}
}

static uint64_t on_waits(void *arg)
{
	struct server *s = arg;
	int64_t now = caret_now_ns();
	bool any = false, slow = false;
	struct client *next;
	for (struct client *c = s->clients; c; c = next) {
		next = c->next;
		if (!c->wait)
			continue;
		bool done;
		cJSON *o = wait_poll(c->wait, now, &done);
		if (done) {
			wait_free(c->wait);
			c->wait = NULL;
			c->last_ns = now;
		}
		save_deferred(s);
		if (o)
			client_send(c, o);
		if (client_flush(c) && c->wait) {
			if (wait_slow(c->wait))
				slow = true;
			else
				any = true;
		}
	}
	return any ? WAIT_POLL_USEC : slow ? SLOW_WAIT_POLL_USEC : LOOP_IDLE;
}

void server_poll_waits(void *arg)
{
	struct server *s = arg;
	if (loop_job_due(&s->waits) != LOOP_IDLE) /* some client waits */
		loop_job_soon(&s->waits, 0);
}

static uint64_t on_idle(void *arg)
{
	struct server *s = arg;
	int64_t now = caret_now_ns();
	struct client *next;
	for (struct client *c = s->clients; c; c = next) {
		next = c->next;
		if (c->wait || c->closing || now - c->last_ns < CLIENT_IDLE_NS)
			continue;
		client_send(c, caret_ctl_enc_error(ETIMEDOUT, "idle client closed"));
		c->closing = true;
		client_flush(c);
	}
	return IDLE_CHECK_USEC;
}

int server_start(struct server **out, struct loop *loop, const struct server_cfg *cfg,
		 const struct cmd_ctx *ctx)
{
	struct server *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	sd_event *e = loop->event;
	s->event = e;
	s->waits = LOOP_JOB("client waits", LOOP_REPORT, on_waits, s);
	s->idle = LOOP_JOB("idle clients", LOOP_REPORT, on_idle, s);
	s->cfg = *cfg;
	s->ctx = *ctx;
	s->listen_fd = -1;
	int n = sd_listen_fds(1);
	int r;
	if (n > 1) {
		log_err("expected one socket from systemd, got %d", n);
		r = -EINVAL;
	} else {
		r = n == 1 ? listen_activated(s) : listen_own(s);
	}
	if (r >= 0)
		r = sd_event_add_io(e, &s->accept, s->listen_fd, EPOLLIN, on_accept, s);
	if (r >= 0)
		r = sd_event_add_time_relative(e, &s->accept_resume, CLOCK_MONOTONIC, 0,
					       LOOP_ACCURACY_USEC, on_accept_resume, s);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->accept_resume, SD_EVENT_OFF);
	if (r >= 0 && (r = loop_add(loop, &s->waits)) >= 0)
		r = loop_add(loop, &s->idle);
	if (r < 0) {
		server_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void server_free(struct server *s)
{
	if (!s)
		return;
	/* caretd exiting ends no recording: its holders hold again once a
	 * caretd is back (daemon/server/cmd_hold.h) */
	cmd_hold_shutdown();
	while (s->clients)
		client_free(s->clients);
	sd_event_source_disable_unref(s->accept);
	loop_remove(&s->waits);
	loop_remove(&s->idle);
	sd_event_source_disable_unref(s->accept_resume);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		if (!s->socket_activated)
			unlink(s->cfg.socket_path);
	}
	free(s);
}
