/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's shared state, owned by the main loop (single-threaded). */
#ifndef CARETD_H
#define CARETD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/lttng.h"
#include "daemon/registry.h"
#include "daemon/scheduler.h"

#define CARETD_VERSION "0.1.0"
#define CARETD_MAX_SESSIONS 32

struct client;

struct caretd {
	struct registry reg;
	struct sched sched;
	int epoll_fd, listen_fd, timer_fd, signal_fd;
	bool socket_activated;
	const char *socket_path;
	gid_t group;        /* may talk to us besides root and our uid */
	bool have_group;
	struct client *clients;

	/* LTTng, as last seen */
	bool lttng_ok;
	char lttng_err[256];
	int n_active;
	char active[CARETD_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	char managed[CARET_LTTNG_NAME_MAX]; /* session created by `record` */
	char managed_path[4096];

	int64_t last_sweep_ns, last_poll_ns, last_watchdog_ns, watchdog_usec;
	bool quit;
};

/* server.c */
int server_listen(struct caretd *d);
void server_on_accept(struct caretd *d);
void server_on_client(struct caretd *d, struct client *c, uint32_t events);
void server_tick(struct caretd *d, int64_t now);
void server_close_all(struct caretd *d);

/* commands.c: handles one request line; replies through client_send. */
void command_dispatch(struct caretd *d, struct client *c, const char *line);
void command_wait_tick(struct caretd *d, struct client *c, int64_t now);
void client_send(struct client *c, const char *json_line);

/* client fields used by commands.c */
struct client {
	int fd;
	uid_t uid;
	pid_t pid;
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_cap;
	bool waiting, closing;
	int exited_base; /* registry exits before this wait began */
	int64_t wait_deadline_ns, last_progress_ns;
	struct client *next;
};

#endif
