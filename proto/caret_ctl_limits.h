/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The limits of every `record` option, checked with these functions by
 * caretctl (before sending, to name the option) and by caretd (on the
 * request, which anyone may send): one rule, the same on both sides.
 *
 * Each check returns 0, or -EINVAL / -ERANGE with a text for the user
 * that completes "<option or field> ...", e.g. "must be a power of two
 * from 2 to 1024". The caller names the option (caretctl) or the field
 * (caretd).
 */
#ifndef CARET_PROTO_CTL_LIMITS_H
#define CARET_PROTO_CTL_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* LTTng's session name buffer is LTTNG_NAME_MAX (255) with its NUL. */
#define CARET_CTL_SESSION_NAME_MAX 254

/* Replay rate, records per second per process. Beyond a million an agent
 * replays as fast as it can anyway (a record is about a microsecond). */
#define CARET_CTL_FREQUENCY_MIN 1
#define CARET_CTL_FREQUENCY_MAX 1000000

/*
 * LTTng's rules (lttng-sessiond cmd.cpp, enabling a channel): sub-buffer
 * size a power of two and at least the page size; count a power of two.
 * Ours on top: at least 2 sub-buffers (with one, every event written while
 * it is being consumed is discarded), and upper bounds that keep the
 * per-CPU buffers within a host's memory (LTTng would fail allocating them
 * deep inside session creation).
 */
#define CARET_CTL_SUBBUF_SIZE_MIN 4096ull
#define CARET_CTL_SUBBUF_SIZE_MAX (1ull << 30)
#define CARET_CTL_SUBBUF_COUNT_MIN 2u
#define CARET_CTL_SUBBUF_COUNT_MAX 1024u

/* `wait` timeout: at most a day. */
#define CARET_CTL_TIMEOUT_MAX_MS (24ll * 3600 * 1000)

/* The page size of this host when larger than CARET_CTL_SUBBUF_SIZE_MIN. */
uint64_t caret_ctl_subbuf_size_min(void);

/* A name for a session to create: LTTng's rule, and not starting with '-'. */
int caret_ctl_check_session_name(const char *name, char *why, size_t len);
/* LTTng's own rule, for naming a session that exists (created by anyone). */
int caret_ctl_check_lttng_session_name(const char *name, char *why, size_t len);
int caret_ctl_check_frequency(uint64_t v, char *why, size_t len);
int caret_ctl_check_subbuf_size(uint64_t v, char *why, size_t len);
int caret_ctl_check_subbuf_count(uint64_t v, char *why, size_t len);
int caret_ctl_check_timeout_ms(int64_t ms, char *why, size_t len);

/* The rule alone ("must be ..."), for help texts and parse errors. */
const char *caret_ctl_rule_frequency(void);
const char *caret_ctl_rule_subbuf_size(void);
const char *caret_ctl_rule_subbuf_count(void);
const char *caret_ctl_rule_timeout(void);

#endif
