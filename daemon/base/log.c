/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "proto/caret_utf8.h"
#include "util/caret_util.h"

static int max_lvl = LOG_INFO;
static int journal;

_Bool log_enabled(int level)
{
	return level <= max_lvl;
}

void log_init(int max_level)
{
	max_lvl = max_level;
	journal = getenv("JOURNAL_STREAM") != NULL;
}

static void log_vmsg(int level, int err, const char *fmt, va_list ap)
{
	static const char *const names[] = { "emerg", "alert", "crit", "error",
					      "warning", "notice", "info", "debug" };
	if (level > max_lvl)
		return;
	char buf[1024];
	int n;
	if (journal) {
		n = snprintf(buf, sizeof(buf), "<%d>", level);
	} else {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		n = (int)strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ".%03ld caretd %s: ",
			      ts.tv_nsec / 1000000, names[level & 7]);
	}
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	if (err < 0 && m < (int)sizeof(buf) - n - 2)
		m += snprintf(buf + n + m, sizeof(buf) - (size_t)(n + m) - 1, ": %s",
			      strerror(-err));
	if (m > (int)sizeof(buf) - n - 2)
		m = (int)sizeof(buf) - n - 2;
	caret_utf8_scrub(buf + n, (size_t)m, true);
	n += m;
	buf[n++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, 0, fmt, ap);
	va_end(ap);
}

int log_msg_errno(int level, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, err, fmt, ap);
	va_end(ap);
	return err;
}

_Bool log_ratelimit_ok(struct log_ratelimit *rl, int level)
{
	long long now = caret_now_ns();
	if (rl->begin_ns == 0 || now - rl->begin_ns >= LOG_RL_INTERVAL_S * 1000000000LL) {
		if (rl->suppressed)
			log_msg(level, "(%u similar messages suppressed in %d s)", rl->suppressed,
				LOG_RL_INTERVAL_S);
		rl->begin_ns = now;
		rl->n = 0;
		rl->suppressed = 0;
	}
	if (rl->n < LOG_RL_BURST) {
		rl->n++;
		return 1;
	}
	rl->suppressed++;
	return 0;
}
