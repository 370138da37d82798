/* SPDX-License-Identifier: Apache-2.0 */
#ifndef STANDIN_WL_EXECUTOR_H
#define STANDIN_WL_EXECUTOR_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/standin/workload/system.h"

/* Construct the executor and add every node's default group to it. */
int wl_executor_setup(struct wl_system *sys);
/* `executor 0x.. groups 0x..:mutually_exclusive 0x..:reentrant ...` */
void wl_print_groups(const struct wl_system *sys, FILE *f);
/* Spin on executor threads until wl_executor_stop(). */
int wl_executor_start(struct wl_system *sys);
void wl_executor_stop(void);
/* False if some thread did not finish within timeout_s. */
bool wl_executor_join(double timeout_s);

#endif
