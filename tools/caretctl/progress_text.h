/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETCTL_PROGRESS_TEXT_H
#define CARETCTL_PROGRESS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/caret_ctl_dec.h"

/* One progress line's text: done_since records were replayed in
 * elapsed_ms (the rate, and the ETA from it). */
void cli_progress_text(const struct ctl_progress *p, const char *what, int64_t elapsed_ms,
		       int64_t done_since, char *out, size_t len);

#endif
