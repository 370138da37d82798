/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rmw_cyclonedds' own CycloneDDS type for the stand-in message: a
 * ddsi_sertype with its own serdata ops (ros2/rmw_cyclonedds
 * rmw_cyclonedds_cpp/src/serdata.cpp, humble and jazzy: sertype_rmw /
 * serdata_rmw, registered with dds_create_topic_sertype). Keeping the
 * sertype is what lets the RMW publish a serialized message: it builds a
 * serdata of that type from the bytes (serdata_rmw_from_serialized_message)
 * and hands it to dds_writecdr / dds_forwardcdr.
 */
#ifndef STANDIN_CDDS_SERDATA_H
#define STANDIN_CDDS_SERDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>

/* cdds_request_header_t / cdds_request_wrapper_t (rmw_cyclonedds
 * serdata.hpp): what service samples are written from and taken into. */
struct standin_request_wrapper {
	struct {
		uint64_t guid;
		int64_t seq;
	} header;
	void *data;
};

/* A new sertype named `type_name` (one reference, which
 * dds_create_topic_sertype takes over on success). With request_header
 * its samples are struct standin_request_wrapper (upstream's
 * is_request_header, true for both service topics). */
struct ddsi_sertype *standin_sertype_new(const char *type_name, bool request_header);

/* serdata_rmw_from_serialized_message: a serdata of `type` holding a copy
 * of the CDR bytes (encapsulation header included), or NULL. */
struct ddsi_serdata *standin_serdata_from_serialized(
	const struct ddsi_sertype *type, const void *raw, size_t size);

#endif
