/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "snapshot" result (proto/caret_ctl_snapshot.h has the protocol) as
 * a C struct, with its one encoder and its one decoder:
 *
 *  {"session", "path"?, "complete", "why"?, "snapshots"?, "pass_ms"?,
 *   "hosts"? [{"host", "self", "bridge_version"?, "path", "complete",
 *              "why"?} or {"host", "self", "bridge_version"?, "error",
 *              "errno"}]}
 *
 * One host's result has path, snapshots and pass_ms; an --all-hosts one
 * has hosts (this host first), and this host's path, snapshots and
 * pass_ms when it wrote one. Also the error reply any command may get, as
 * a struct (caret_ctl_error_decode). Strings of a decoded result point
 * into the cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_SNAPSHOT_RES_H
#define CARET_PROTO_CTL_SNAPSHOT_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Far above BRIDGE_MAX_HOSTS: bounds a decoder's memory. */
#define CARET_CTL_SNAPSHOT_HOSTS_MAX 4096

struct caret_ctl_snapshot_host {
	const char *host;
	bool self;
	uint32_t version; /* another host's bridge version; 0: not said (this host) */
	const char *error; /* NULL: it wrote one, at path */
	int64_t err;	   /* with error: the errno, positive */
	const char *path;
	bool complete;
	const char *why; /* NULL when complete */
};

struct caret_ctl_snapshot_result {
	const char *session;
	const char *path; /* NULL: this host wrote none (--all-hosts) */
	bool complete;	  /* --all-hosts: every host's */
	const char *why;  /* why not complete; may be NULL */
	bool have_counts; /* snapshots and pass_ms are there */
	uint64_t snapshots; /* written by this recording so far */
	int64_t pass_ms;
	bool all_hosts; /* hosts is there (it may be empty only when encoding) */
	size_t n_hosts;
	struct caret_ctl_snapshot_host *hosts;
};

/* Adds the result's fields to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_snapshot_result_encode(const struct caret_ctl_snapshot_result *s, cJSON *out);
/* 0, -EPROTO (why names the field) or -ENOMEM; on failure s holds nothing
 * to free. */
int caret_ctl_snapshot_result_decode(const cJSON *in, struct caret_ctl_snapshot_result *s,
				     char *why, size_t len);
void caret_ctl_snapshot_result_free(struct caret_ctl_snapshot_result *s);

/* An error reply: {"error", "errno"}. */
struct caret_ctl_error {
	const char *error;
	int64_t err; /* positive errno; 0 when an older caretd left it out */
};
/* 0 when in is an error reply (e filled), -ENOENT when it is not one,
 * -EPROTO when its fields are wrong (why says which). */
int caret_ctl_error_decode(const cJSON *in, struct caret_ctl_error *e, char *why, size_t len);

#endif
