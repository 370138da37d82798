/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETD_LOG_H
#define CARETD_LOG_H

#include <syslog.h>

/* Levels are syslog priorities; under systemd (JOURNAL_STREAM set) each
 * line carries a "<N>" prefix so the journal keeps the level. A message is
 * one line of valid UTF-8 whatever its arguments hold: control characters
 * and invalid bytes become '?', so no string from another process can forge
 * a line or a level. */
void log_init(int max_level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether a line of this level would be written (--log-level). */
_Bool log_enabled(int level);
/* The same, with ": <strerror(-err)>" appended when err < 0 (the project's
 * negative errno); returns err, so a failure is logged and passed on in
 * one statement: `return log_err_errno(r, "cannot watch %s", dir);`. */
int log_msg_errno(int level, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Lines caused by other users (refused segments, refused clients) are
 * rate-limited per call site, as systemd's log_ratelimit_*() do: at most
 * LOG_RL_BURST per LOG_RL_INTERVAL_S seconds, then one line saying how many
 * were suppressed. */
#define LOG_RL_BURST 10
#define LOG_RL_INTERVAL_S 10
struct log_ratelimit {
	long long begin_ns;
	unsigned n, suppressed;
};
_Bool log_ratelimit_ok(struct log_ratelimit *rl, int level);
#define log_msg_rl(level, ...)                                   \
	do {                                                     \
		static struct log_ratelimit rl_;                 \
		if (log_ratelimit_ok(&rl_, level))               \
			log_msg(level, __VA_ARGS__);             \
	} while (0)
#define log_warn_rl(...) log_msg_rl(LOG_WARNING, __VA_ARGS__)

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_err_errno(err, ...) log_msg_errno(LOG_ERR, err, __VA_ARGS__)
#define log_warn_errno(err, ...) log_msg_errno(LOG_WARNING, err, __VA_ARGS__)
#define log_debug_errno(err, ...) log_msg_errno(LOG_DEBUG, err, __VA_ARGS__)
#define log_warn_rl_errno(err, ...)                              \
	do {                                                     \
		static struct log_ratelimit rl_;                 \
		if (log_ratelimit_ok(&rl_, LOG_WARNING))         \
			log_msg_errno(LOG_WARNING, err, __VA_ARGS__); \
	} while (0)

#endif
