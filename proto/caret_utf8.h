/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Strings that came from another process (segment identities, node names,
 * request fields) are made printable before they reach a log line or a
 * reply: a forged "\n<0>" would otherwise become an emergency line in the
 * journal, and invalid UTF-8 invalid JSON (B13).
 */
#ifndef CARET_PROTO_UTF8_H
#define CARET_PROTO_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Replaces, in place, every byte of s[0, n) that is not part of a valid
 * UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF)
 * with '?', and with `controls` also every C0 control and DEL. Returns how
 * many bytes were replaced. */
size_t caret_utf8_scrub(char *s, size_t n, bool controls);

#endif
