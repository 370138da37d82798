/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers over sd-event shared by the modules that own timers. */
#ifndef CARETD_LOOP_H
#define CARETD_LOOP_H

#include <stdint.h>
#include <systemd/sd-event.h>

#define USEC_PER_MS 1000ULL
/* sd-event's default accuracy (250 ms) would coalesce the 1 ms replay
 * ticks into a few per second. */
#define LOOP_ACCURACY_USEC 250

/* A periodic timer: the handler calls loop_timer_again() to run again. The
 * first run is immediate, as the daemon's first look at the host should be. */
static inline int loop_timer_add(sd_event *e, sd_event_source **s,
				 sd_event_time_handler_t fn, void *arg)
{
	return sd_event_add_time_relative(e, s, CLOCK_MONOTONIC, 0, LOOP_ACCURACY_USEC, fn, arg);
}

static inline int loop_timer_again(sd_event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time_relative(s, usec);
	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

#endif
