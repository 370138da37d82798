/* SPDX-License-Identifier: Apache-2.0 */
/* Messages for the user: one line each, on stderr, prefixed "caretctl: ". */
#include <stdarg.h>
#include <stdio.h>

#include "caretctl.h"
#include "progress.h"

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	/* Never append to a progress line rewritten in place. */
	ctl_progress_break();
	fflush(stdout);
	fprintf(stderr, "caretctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int ctl_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return code;
}

void ctl_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

int ctl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'caretctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return CTL_EXIT_USAGE;
}

int ctl_bad_option(const char *cmd)
{
	/* getopt has named the option already. */
	fprintf(stderr, "Try 'caretctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return CTL_EXIT_USAGE;
}
