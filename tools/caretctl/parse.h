/* SPDX-License-Identifier: Apache-2.0 */
/* Strict parsing of option values: no signs, no blanks, no silent wrap. */
#ifndef CARETCTL_PARSE_H
#define CARETCTL_PARSE_H

#include <stdint.h>

/* Largest integer a JSON number (a double) carries exactly. */
#define CLI_JSON_INT_MAX (1ull << 53)

/* Decimal digits only, 1..max. 0, -EINVAL or -ERANGE. */
int cli_parse_count(const char *s, uint64_t max, uint64_t *out);
/* N, NK, NM or NG (powers of 1024, either case), 1..CLI_JSON_INT_MAX. */
int cli_parse_size(const char *s, uint64_t *out);
/* Every duration caretctl takes (issue 33 L7): decimal digits with an
 * optional fraction, then no unit (seconds) or ms, s, m, min or h;
 * rounded to ms, 1..max_ms. 0, -EINVAL or -ERANGE. */
int cli_parse_duration(const char *s, uint64_t max_ms, uint64_t *ms);
#define CLI_DURATION_SYNTAX "seconds, or N with ms, s, m or h"
/* A duration within 2^31-1 ms (about 596 h): waits and timeouts. */
int cli_parse_timeout(const char *s, int64_t *ms);

#endif
