/* SPDX-License-Identifier: Apache-2.0 */
/* What librmw_cyclonedds_cpp's files share (not an rmw API). */
#ifndef STANDIN_CDDS_COMMON_H
#define STANDIN_CDDS_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_sertype.h>

#include "tools/standin/rmw/rmw.h"

extern const char cdds_identifier[];

dds_entity_t cdds_participant(const rmw_node_t *node);
/* A topic named dds_name over a new sertype of the RMW's own; *used (when
 * not NULL) gets the sertype the topic actually uses. */
dds_entity_t cdds_create_topic(dds_entity_t pp, const char *dds_name,
	const char *dds_type, bool request_header, struct ddsi_sertype **used);
/* Reliable, volatile, keep last `depth`. */
dds_qos_t *cdds_endpoint_qos(size_t depth);

#endif
