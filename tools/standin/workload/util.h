/* SPDX-License-Identifier: Apache-2.0 */
#ifndef STANDIN_WL_UTIL_H
#define STANDIN_WL_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *wl_xcalloc(size_t n, size_t size);
int64_t wl_now_ns(void);
void wl_sleep_ns(int64_t ns);

#endif
