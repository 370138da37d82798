/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretctl internals shared by the command files. Low-level functions
 * return 0 or a negative errno; command functions return the process exit
 * status (CLI_EXIT_*), having already told the user what went wrong.
 */
#ifndef CARETCTL_H
#define CARETCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILED = 1,	/* the daemon or LTTng said no */
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_UNREACHABLE = 3, /* not running, no permission, or silent */
	CLI_EXIT_TIMEOUT = 4,	/* some processes never reached RECORD */
	CLI_EXIT_PROTOCOL = 5,	/* a reply we cannot trust */
	CLI_EXIT_INCOMPLETE = 6, /* check: the trace lacks something */
};

/* Extra time granted to caretd beyond a request's own duration. */
#define CLI_SLACK_MS 5000
/*
 * How long commands without a user-given timeout may take in caretd:
 * lttng-ctl calls are fast except stop, which waits for the consumer to
 * flush every sub-buffer to disk.
 */
#define CLI_QUICK_MS 5000
#define CLI_RECORD_MS 30000
#define CLI_STOP_MS 60000

struct cli_opts {
	const char *socket;
	bool json;
};

/* "caretctl: " + message on stderr; returns code so callers can return it. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "Try 'caretctl CMD --help'." after the message; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --json: failures are also printed on stdout as {"error", "errno"}. */
void cli_msg_json(bool on);
/* Whether --json was given anywhere on the command line. */
bool cli_msg_is_json(void);
/* The command running (a static string), for --json's envelope; NULL
 * before one is known. */
void cli_msg_cmd(const char *cmd);
/* The errno the next failure message stands for (either sign). */
void cli_set_errno(int err);

/* After getopt reported a bad option: the hint, and 2. */
int cli_bad_option(const char *cmd, const char *arg);

/* `record`'s SIZE options (bytes, with K, M or G) that check (a proto
 * caret_ctl_check_* limit) accepts: *out set, or the usage error printed
 * and its status in *code. */
void cli_size_opt(const char *opt, const char *arg,
		  int (*check)(uint64_t v, char *why, size_t len), uint64_t *out, int *code);

/* Parses the options every command accepts as well as the global ones. */
int cli_common_opt(struct cli_opts *g, int opt, const char *arg);
#define CLI_OPT_SOCKET 0x1000
#define CLI_OPT_JSON 0x1001
#define CLI_COMMON_LONGOPTS \
	{ "socket", required_argument, NULL, CLI_OPT_SOCKET }, \
	{ "json", no_argument, NULL, CLI_OPT_JSON }, \
	{ "help", no_argument, NULL, 'h' }

/* Option loop of a command that takes only the common options. Returns -1
 * to go on, else the exit code (help printed, or a usage error). */
int cli_simple_args(struct cli_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *));

int64_t cli_now_ms(void);

/* Whether standard output's reader is gone (a closed pipe). */
bool cli_out_gone(void);
/* Whether a write to standard output failed because its reader is gone:
 * commands stop producing output then; not an error. */
bool cli_out_cut(void);

struct ctl_drops;
/* Warns of init records dropped by full caches, per process; whether any. */
bool cli_report_drops(const struct ctl_drops *d);

/* Stops a session (NULL: caretd's choice) and prints the summary; 4
 * (CLI_EXIT_TIMEOUT) when full caches dropped initialization records. */
int cli_stop_session(const struct cli_opts *g, const char *session);

int cmd_record(struct cli_opts *g, int argc, char **argv);
int cmd_stop(struct cli_opts *g, int argc, char **argv);
int cmd_status(struct cli_opts *g, int argc, char **argv);
int cmd_list(struct cli_opts *g, int argc, char **argv);
int cmd_start(struct cli_opts *g, int argc, char **argv);
int cmd_end(struct cli_opts *g, int argc, char **argv);
int cmd_check(struct cli_opts *g, int argc, char **argv);
int cmd_events(struct cli_opts *g, int argc, char **argv);
int cmd_nodes(struct cli_opts *g, int argc, char **argv);
int cmd_topics(struct cli_opts *g, int argc, char **argv);
int cmd_snapshot(struct cli_opts *g, int argc, char **argv);
int cmd_pause(struct cli_opts *g, int argc, char **argv);
int cmd_resume(struct cli_opts *g, int argc, char **argv);
int cmd_node_summary(struct cli_opts *g, int argc, char **argv);
int cmd_topic_summary(struct cli_opts *g, int argc, char **argv);
int cmd_trace_point_summary(struct cli_opts *g, int argc, char **argv);
int cmd_top(struct cli_opts *g, int argc, char **argv);

#endif
