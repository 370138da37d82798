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
/* Seconds, decimals allowed, > 0 and at most 2^31-1 ms. */
int cli_parse_seconds(const char *s, int64_t *ms);

#endif
