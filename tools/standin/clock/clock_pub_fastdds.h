/* SPDX-License-Identifier: Apache-2.0 */
/* caret-standin-clock's Fast DDS side (clock_pub_fastdds.cpp), called from
 * C by clock_pub.c, which has the CycloneDDS side itself: open a /clock
 * writer on a domain, write one rosgraph_msgs/msg/Clock; 0 or -1 (why on
 * stderr). */
#ifndef STANDIN_CLOCK_PUB_FASTDDS_H
#define STANDIN_CLOCK_PUB_FASTDDS_H
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
