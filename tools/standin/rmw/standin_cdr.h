/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stand-in message in CDR, as the ROS 2 RMWs put it on the wire and in
 * an rmw_serialized_message_t: a 4-byte encapsulation header (CDR_LE:
 * 00 01 00 00) then the members in declaration order, each aligned to its
 * size relative to the end of the header (XCDR1, which rmw_cyclonedds
 * allows (allowed_data_representation = XCDR1) and rmw_fastrtps writes
 * (Fast-CDR DDS_CDR / XCDRv1 PLAIN_CDR)). Shared by both RMW libraries so a
 * buffer serialized by rmw_serialize is what either publishes.
 */
#ifndef STANDIN_CDR_H
#define STANDIN_CDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tools/standin/rmw/rmw.h"

/* header 4 + seq 8 @0 + stamp_ns 8 @8 + publisher_id 4 @16 + data @20 */
#define STANDIN_CDR_SIZE (4u + 8u + 8u + 4u + STANDIN_RMW_PAYLOAD)

static inline void standin_cdr_write(const struct standin_sample *m, uint8_t *p)
{
	p[0] = 0; p[1] = 1; p[2] = 0; p[3] = 0;
	memcpy(p + 4, &m->seq, 8);
	memcpy(p + 12, &m->stamp_ns, 8);
	memcpy(p + 20, &m->publisher_id, 4);
	memcpy(p + 24, m->data, STANDIN_RMW_PAYLOAD);
}

/* Bytes from another process: length and encapsulation checked. */
static inline bool standin_cdr_read(const uint8_t *p, size_t len, struct standin_sample *m)
{
	if (len < STANDIN_CDR_SIZE || p[0] != 0 || p[1] != 1)
		return false;
	memcpy(&m->seq, p + 4, 8);
	memcpy(&m->stamp_ns, p + 12, 8);
	memcpy(&m->publisher_id, p + 20, 4);
	memcpy(m->data, p + 24, STANDIN_RMW_PAYLOAD);
	return true;
}

#endif
