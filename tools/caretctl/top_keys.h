/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s keys in a terminal (top_keys.c): one key changes the
 * sort, q quits, without Enter; the terminal as it was at exit. */
#ifndef CARETCTL_TOP_KEYS_H
#define CARETCTL_TOP_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "top_view.h"

/* Standard input without line editing or echo, when it is a terminal:
 * whether it is (keys are read then). */
bool top_keys_open(void);
/* The terminal's modes as top_keys_open found them. */
void top_keys_close(void);

enum top_key_act { TOP_KEY_NONE, TOP_KEY_SORT, TOP_KEY_QUIT, TOP_KEY_STOP };
/* Waits until deadline_ms for keys: TOP_KEY_SORT with *sort changed (the
 * view is redrawn at once), TOP_KEY_QUIT (q), TOP_KEY_STOP (a stopping
 * signal), TOP_KEY_NONE at the deadline. */
enum top_key_act top_keys_wait(int64_t deadline_ms, enum top_sort *sort);

/* The keys, for the header line: "c cpu  r rate ..." */
extern const char top_keys_help[];

#endif
