/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control protocol's version as users mixing releases meet it (a
 * newer caretctl against an older caretd after a partial upgrade, or the
 * other way round); the rule is in caret_ctl.h, under CARET_CTL_VERSION.
 * caretd's refusals keep their wording (scripts and tests read it);
 * caretctl turns them into what to upgrade.
 */
#ifndef CARET_PROTO_CTL_VERSION_H
#define CARET_PROTO_CTL_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* caretd's refusal of a request of version v (it speaks
 * CARET_CTL_VERSION), into out: which side to upgrade. */
void caret_ctl_version_refusal(int64_t v, char *out, size_t len);

/*
 * caretd's error reply (errno err, message msg) to caretctl's request
 * cmd, when it says caretd is of another release: what caretctl tells
 * the user instead, into out, and true. Such a reply: the request's
 * version refused (EPROTO, caret_ctl_version_refusal's or the wording of
 * a caretd before it), or cmd itself unknown to caretd (EINVAL: a request
 * added after caretd's release, the version unchanged).
 */
bool caret_ctl_version_hint(const char *cmd, int err, const char *msg, char *out, size_t len);

/* caretctl's check of a reply's version v, into out (v is not
 * CARET_CTL_VERSION): which side to upgrade. */
void caret_ctl_version_reply(int64_t v, char *out, size_t len);

#endif
