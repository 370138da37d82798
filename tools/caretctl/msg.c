/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Messages for the user: one line each, on stderr, prefixed "caretctl: ".
 * With --json, the message that ends a command with a failure is also
 * printed on stdout as {"v": 1, "type": "error", "cmd": C, "error": "...",
 * "errno": N}, so a script reading stdout always gets one object saying
 * what happened, in the envelope of every other (json_out.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>


#include "proto/caret_ctl.h"
#include "caretctl.h"
#include "json_out.h"
#include "progress.h"

static bool json_mode;
static int pending_errno;
static const char *msg_cmd; /* the command running, for the envelope */

void cli_msg_json(bool on)
{
	json_mode = on;
}

bool cli_msg_is_json(void)
{
	return json_mode;
}

void cli_msg_cmd(const char *cmd)
{
	msg_cmd = cmd;
}

void cli_set_errno(int err)
{
	pending_errno = err < 0 ? -err : err;
}

/* The errno a failure of this kind stands for when no call set one. */
static int errno_for(int code)
{
	switch (code) {
	case CLI_EXIT_USAGE:
		return EINVAL;
	case CLI_EXIT_UNREACHABLE:
		return ECONNREFUSED;
	case CLI_EXIT_TIMEOUT:
		return ETIMEDOUT;
	case CLI_EXIT_PROTOCOL:
		return EPROTO;
	default:
		return code >= 128 ? EINTR : EIO;
	}
}

static void json_error(int code, const char *msg)
{
	int e = pending_errno ? pending_errno : errno_for(code);
	if (cli_json_print_error(msg_cmd, msg, e) < 0)
		printf("{\"v\":%d,\"type\":\"error\",\"cmd\":null,\"error\":\"out of memory\","
		       "\"errno\":%d}\n", CARET_CTL_VERSION, ENOMEM);
	fflush(stdout);
}

static void vsay(int code, const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Never append to a progress line rewritten in place. */
	cli_progress_break();
	fflush(stdout);
	fprintf(stderr, "caretctl: %s%s\n", prefix, msg);
	if (json_mode && code != 0)
		json_error(code, msg);
	pending_errno = 0;
}

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(code, "", fmt, ap);
	va_end(ap);
	return code;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(0, "warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(CLI_EXIT_USAGE, "", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'caretctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return CLI_EXIT_USAGE;
}

int cli_bad_option(const char *cmd, const char *arg)
{
	/* getopt has said what is wrong with it, on stderr. */
	if (json_mode) {
		char msg[512];
		snprintf(msg, sizeof(msg), "invalid option or missing value: '%s'", arg);
		json_error(CLI_EXIT_USAGE, msg);
	}
	fprintf(stderr, "Try 'caretctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return CLI_EXIT_USAGE;
}
