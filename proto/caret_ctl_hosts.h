/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "hosts" result (proto/caret_ctl.h) as a C struct, with its one
 * encoder (caretd's reply layer) and its one decoder (caretctl):
 *
 *  {"host", "bridge", "bridge_waking"?, "counts"? {"start", "end",
 *   "status", "relay", "rejected", "sent", "foreign"}, "hosts": [{"host",
 *   "self", "age_ms", "bridge_version"?, "ignored"?, "processes": [{"name",
 *   "state", "pid", "nodes"}]}]}
 *
 * The optional keys are absent from caretds before lazy bridges and
 * bridge versions; the decoder reads them as false / 0. Strings of a
 * decoded result point into the cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_HOSTS_H
#define CARET_PROTO_CTL_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_enc.h"

/* What a decoder accepts: far above what a bridge keeps
 * (daemon/bridge/bridge.h), low enough to bound its memory. */
#define CARET_CTL_HOSTS_MAX 4096
#define CARET_CTL_HOST_PROCS_MAX 65536

struct caret_ctl_host_proc {
	const char *name, *state;
	const char *nodes; /* comma-separated; "" when none */
	int64_t pid;
};

struct caret_ctl_host {
	const char *host;
	bool self;
	int64_t age_ms; /* since its last Status (0 for this host) */
	uint32_t version; /* bridge version it speaks; 0: not a caretd, or not said */
	bool ignored;	  /* its samples are, for speaking another version */
	size_t n_procs;
	struct caret_ctl_host_proc *procs;
};

struct caret_ctl_hosts {
	const char *host, *bridge;
	bool waking;
	bool have_counts; /* decoder: "counts" was there */
	struct caret_ctl_bridge_counts counts;
	size_t n_hosts;
	struct caret_ctl_host *hosts;
};

/* Adds the result's fields to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_hosts_encode(const struct caret_ctl_hosts *h, cJSON *out);
/* 0, -EPROTO (why names the field) or -ENOMEM; on failure h holds nothing
 * to free. */
int caret_ctl_hosts_decode(const cJSON *in, struct caret_ctl_hosts *h, char *why, size_t len);
/* Frees what the decoder allocated (not what an encoder's caller did). */
void caret_ctl_hosts_free(struct caret_ctl_hosts *h);

/* A host's processes that record (state RECORD). */
size_t caret_ctl_host_recording(const struct caret_ctl_host *h);

#endif
