/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's LTTng start helper: a process of its own, caretd's binary run
 * again in this mode (LTTNG_HELPER_ARG), spawned by daemon/lttng/lttng_start.c
 * through posix_spawn (safe while caretd has threads, CycloneDDS's for one,
 * where a fork's child may call async-signal-safe functions only), that
 * makes sessions one at a time (caret_lttng_record(): lttng-ctl, malloc,
 * the log) and answers on its socket (daemon/lttng/lttng_start_msg.h).
 *
 * Nothing it makes runs with no owner: a session made after caretd
 * cancelled, or left (its socket closed), is stopped here before the
 * helper answers or exits. It exits when caretd closes its end; caretd's
 * SIGTERM and SIGINT are blocked in it (as they are in caretd, which
 * reads them from a signalfd), so that a start under way ends and is
 * cleaned up rather than left half made.
 */
#ifndef CARETD_LTTNG_HELPER_H
#define CARETD_LTTNG_HELPER_H

/* caretd's argv[1] that makes it the helper, its socket on fd 3 */
#define LTTNG_HELPER_ARG "--lttng-start-helper"
#define LTTNG_HELPER_FD 3

/* The helper's life: exits once caretd is gone, never returns. */
_Noreturn void lttng_helper_main(void);

#endif
