/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check` reads a trace in a child process (B18: babeltrace2 can
 * spin forever on a truncated metadata file): the child sends its report
 * or its error back over a pipe in this format, and the parent, which
 * never trusts what another process wrote, decodes it with every count and
 * length bounded by the bytes it has. Also the metadata preflight, run
 * before babeltrace2 sees a trace.
 *
 * Message: "CKR1", u8 kind, then for kind 0 (report) the report's fields
 * in check_report's order, for kind 1 (error) an i32 -errno and a string.
 * Integers are little-endian, strings a u32 length and their bytes (no
 * NUL inside).
 */
#ifndef CARETCTL_CHECK_WIRE_H
#define CARETCTL_CHECK_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "check.h"

#define CHECK_DEFAULT_TIMEOUT_MS 60000
/* The parent reads at most this much from the child. */
#define CHECK_WIRE_MAX (256u << 20)
/* Longest node, topic or event name carried. */
#define CHECK_WIRE_STR_MAX 4096u

struct check_buf {
	uint8_t *p;
	size_t n, cap;
	int err; /* -ENOMEM once an append failed */
};

void check_wire_append(struct check_buf *b, const void *v, size_t n);
/* Appends the encoded report (or error) to b; b->err says if it failed. */
void check_wire_report(struct check_buf *b, const struct check_report *r);
void check_wire_error(struct check_buf *b, int rc, const char *msg);

/*
 * Decodes a message: 0 with *out filled (free with check_wire_free), the
 * child's negative errno with its message in err, or -EBADMSG (err says
 * what is wrong) / -ENOMEM. On failure *out holds nothing to free.
 */
int check_wire_decode(const uint8_t *p, size_t n, struct check_report *out, char *err,
		      size_t errlen);
void check_wire_free(struct check_report *r);

/*
 * Whether the CTF metadata file at path is whole: packetized metadata
 * (LTTng's) is walked packet by packet, and every packet's header and
 * content must be in the file; plain-text metadata must start as CTF's
 * does. 0, or -EBADMSG with the reason (offset and sizes) in err, or
 * -errno when the file cannot be read. check_meta_buf does the same on
 * bytes in memory.
 */
int check_meta_preflight(const char *path, char *err, size_t errlen);
int check_meta_buf(const uint8_t *p, size_t n, char *err, size_t errlen);

/*
 * Runs check_bt_run on dir in a child process (no babeltrace2 state in the
 * caller), at most timeout_ms: 0 with *out decoded (check_wire_free), or
 * -ETIMEDOUT (the child was killed), -EIO, -ENOENT... with err saying why.
 */
int check_run_isolated(const char *dir, int64_t timeout_ms, struct check_report *out,
		       char *err, size_t errlen);

#endif
