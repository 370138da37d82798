/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETD_LOG_H
#define CARETD_LOG_H

#include <syslog.h>

/* Levels are syslog priorities; under systemd (JOURNAL_STREAM set) each
 * line carries a "<N>" prefix so the journal keeps the level. */
void log_init(int max_level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
