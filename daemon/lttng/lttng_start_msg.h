/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What caretd and its LTTng start helper (daemon/lttng/lttng_helper.h)
 * say to each other over their socket pair (SOCK_SEQPACKET: one message
 * each): a start request (the session's configuration, flattened: the
 * helper is another process, which sees none of caretd's memory), a
 * cancel (one byte), and the result. The helper reads a request as it
 * would any input: lengths and counts checked, strings ended.
 */
#ifndef CARETD_LTTNG_START_MSG_H
#define CARETD_LTTNG_START_MSG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/lttng/session.h"
#include "proto/caret_ctl_sel.h"

/* The largest request: every string of a selection at its longest fits
 * (4 x 64 names of 255 bytes, three paths). */
#define LTTNG_START_MSG_MAX (128 * 1024)
/* The requester's groups carried (SO_PEERGROUPS' own bound in caretd). */
#define LTTNG_START_MAX_GROUPS 64
/* A cancel: the one message of this length. */
#define LTTNG_START_CANCEL 'c'
/* A drop: a session a helper that died left half-made, stopped and
 * destroyed by the next one: 'd', the name (ended, in
 * CARET_LTTNG_NAME_MAX bytes), then what tells the session that start
 * made from another of that name made since (ended, in PATH_MAX bytes:
 * lttng_start_drop_ours). Its result: r 0 with stopped (it was there, now
 * gone), r 0 without (there was none, or foreign: one that is not ours,
 * left as it is, its output in path), or r < 0 with err. */
#define LTTNG_START_DROP 'd'
#define LTTNG_START_DROP_LEN (1 + CARET_LTTNG_NAME_MAX + PATH_MAX)

struct lttng_start_result {
	int r; /* caret_lttng_record()'s, or -errno of the helper itself */
	char name[CARET_LTTNG_NAME_MAX];
	char path[PATH_MAX];
	struct caret_lttng_dir_id dir; /* cfg->dir_out's, when r >= 0 */
	char err[512];                 /* why, when r < 0 */
	bool stopped; /* r >= 0, and the helper stopped it: cancelled before */
	bool foreign; /* a drop's: the session of that name is not ours */
};

/*
 * Whether session name, whose output LTTng lists as out, is the one a
 * start with this ident made: our rule is never to touch a session caretd
 * did not start, and a name alone may have been taken again between a
 * crash and the next caretd. ident is the start's trace parent directory
 * (local: out is ident/name, or ident/name/append-N) or its URL (network:
 * out is not a path and names the URL's host, or host: one of the
 * addresses that host resolves to, as LTTng lists a network output). An
 * empty ident (a marker of a caretd before this one) matches nothing.
 */
bool lttng_start_drop_ours(const char *name, const char *ident, const char *out,
			   const char *host);

/* The host of a network ident (a URL) into buf: 0, or -EINVAL. */
int lttng_start_url_host(const char *ident, char *buf, size_t len);

/* A request as the helper reads it: cfg's pointers lead into it. */
struct lttng_start_req {
	struct caret_lttng_cfg cfg;
	struct creds_id as;
	gid_t groups[LTTNG_START_MAX_GROUPS];
	struct caret_ctl_sel sel;
	struct caret_lttng_dir_id dir;
	char strings[LTTNG_START_MSG_MAX];
};

/* cfg flattened into buf: its length, or -E2BIG (more than cap, or more
 * groups than LTTNG_START_MAX_GROUPS). cfg->dir_out is not sent. */
ssize_t lttng_start_msg_pack(const struct caret_lttng_cfg *cfg, void *buf, size_t cap);

/* A request read back into req (cfg.dir_out points at req->dir): 0, or
 * -EPROTO when it is not one pack() makes. */
int lttng_start_msg_unpack(const void *buf, size_t len, struct lttng_start_req *req);

#endif
