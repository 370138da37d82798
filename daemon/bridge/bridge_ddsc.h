/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libddsc, dlopen()ed when the bridge loads DDS, and the bridge's
 * CycloneDDS entities: shared by bridge_dds.c (entities, take, jobs) and
 * bridge_send.c (what this host publishes), private to the bridge.
 */
#ifndef CARETD_BRIDGE_DDSC_H
#define CARETD_BRIDGE_DDSC_H

#include <dds/dds.h>
#include <stddef.h>

struct bridge_dds {
	dds_entity_t dom, pp;
	dds_entity_t r_start, r_end, r_status, r_relay, r_snap_req, r_snap_reply, r_top_ask, r_top_summary;
	dds_entity_t w_start, w_end, w_status, w_relay, w_snap_req, w_snap_reply, w_top_ask, w_top_summary;
};

/*
 * libddsc is loaded when the bridge starts, not when caretd does: a daemon
 * with --no-bridge pays nothing for it (it is most of the bridge's memory),
 * and a host without CycloneDDS still records locally.
 */
#define DDS_FUNCS(X)                                                                       \
	X(dds_builtintopic_free_endpoint) X(dds_create_domain) X(dds_create_participant)   \
	X(dds_create_qos) X(dds_create_reader) X(dds_create_topic) X(dds_create_writer)    \
	X(dds_delete) X(dds_delete_qos) X(dds_free) X(dds_get_matched_publication_data)    \
	X(dds_qget_userdata) X(dds_qset_durability) X(dds_qset_history)                    \
	X(dds_qset_ignorelocal) X(dds_qset_reliability) X(dds_qset_userdata)               \
	X(dds_return_loan) X(dds_strretcode) X(dds_take) X(dds_write)                      \
	X(dds_create_listener) X(dds_delete_listener) X(dds_lset_data_available)            \
	X(dds_set_log_sink)

struct bridge_ddsc_fns {
	void *lib;
#define BRIDGE_DDSC_FIELD(n) __typeof__(n) *n;
	DDS_FUNCS(BRIDGE_DDSC_FIELD)
#undef BRIDGE_DDSC_FIELD
};
/* libddsc's functions once loaded (lib not NULL) */
extern struct bridge_ddsc_fns bridge_ddsc;
#define D bridge_ddsc

/* 0 once loaded (never unloaded); -ENOENT with why filled. */
int bridge_ddsc_load(char *why, size_t len);

#endif
