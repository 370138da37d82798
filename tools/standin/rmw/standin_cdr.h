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

/* seq 8 @0 + stamp_ns 8 @8 + publisher_id 4 @16 + data @20 */
#define STANDIN_CDR_BODY (8u + 8u + 4u + STANDIN_RMW_PAYLOAD)
#define STANDIN_CDR_SIZE (4u + STANDIN_CDR_BODY)
/* rmw_cyclonedds' service samples put the request header (uint64 guid,
 * int64 seq: cdds_request_header_t) before the message (serdata.cpp
 * "inject the service invocation header data into the CDR stream"). */
#define STANDIN_CDR_REQ_SIZE (4u + 16u + STANDIN_CDR_BODY)

/* The members, at an 8-aligned offset from the end of the header. */
static inline void standin_cdr_write_body(const struct standin_sample *m, uint8_t *b)
{
	memcpy(b, &m->seq, 8);
	memcpy(b + 8, &m->stamp_ns, 8);
	memcpy(b + 16, &m->publisher_id, 4);
	memcpy(b + 20, m->data, STANDIN_RMW_PAYLOAD);
}

static inline void standin_cdr_read_body(const uint8_t *b, struct standin_sample *m)
{
	memcpy(&m->seq, b, 8);
	memcpy(&m->stamp_ns, b + 8, 8);
	memcpy(&m->publisher_id, b + 16, 4);
	memcpy(m->data, b + 20, STANDIN_RMW_PAYLOAD);
}

static inline void standin_cdr_header(uint8_t *p)
{
	p[0] = 0; p[1] = 1; p[2] = 0; p[3] = 0;
}

static inline void standin_cdr_write(const struct standin_sample *m, uint8_t *p)
{
	standin_cdr_header(p);
	standin_cdr_write_body(m, p + 4);
}

/* Bytes from another process: length and encapsulation checked. */
static inline bool standin_cdr_read(const uint8_t *p, size_t len, struct standin_sample *m)
{
	if (len < STANDIN_CDR_SIZE || p[0] != 0 || p[1] != 1)
		return false;
	standin_cdr_read_body(p + 4, m);
	return true;
}

#endif
