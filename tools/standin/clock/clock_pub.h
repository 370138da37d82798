/* SPDX-License-Identifier: Apache-2.0 */
/* caret-standin-clock's two RMWs: each opens a /clock writer on a domain
 * and writes one rosgraph_msgs/msg/Clock; 0 or -1 (why on stderr). */
#ifndef STANDIN_CLOCK_PUB_H
#define STANDIN_CLOCK_PUB_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int clock_fastdds_open(int domain, int reliable);
int clock_fastdds_write(int32_t sec, uint32_t nanosec);
void clock_fastdds_close(void);
#ifdef __cplusplus
}
#endif
#endif
