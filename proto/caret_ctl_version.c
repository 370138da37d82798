/* SPDX-License-Identifier: Apache-2.0 */
/* The control protocol's version as users meet it (caret_ctl_version.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_version.h"
#include "proto/caret_version.h"

void caret_ctl_version_refusal(int64_t v, char *out, size_t len)
{
	/* "request speaks protocol version N, caretd speaks M" is what a
	 * caretctl of any release reads (caret_ctl_version_hint) */
	snprintf(out, len, "request speaks protocol version %lld, caretd speaks %d: %s",
		 (long long)v, CARET_CTL_VERSION,
		 v > CARET_CTL_VERSION ? "caretd is older than this caretctl: upgrade caretd, or "
					 "use a caretctl of caretd's release"
				       : "use a caretctl of caretd's release");
}

bool caret_ctl_version_hint(const char *cmd, int err, const char *msg, char *out, size_t len)
{
	long long ours, theirs;
	if (!msg)
		return false;
	if (err == EPROTO &&
	    sscanf(msg, "request speaks protocol version %lld, caretd speaks %lld", &ours,
		   &theirs) == 2 && ours != theirs) {
		snprintf(out, len, "caretd speaks protocol %lld, this caretctl %lld: %s", theirs, ours,
			 theirs < ours ? "upgrade caretd, or use a caretctl of caretd's release"
				       : "upgrade caretctl to caretd's release");
		return true;
	}
	char unknown[96];
	snprintf(unknown, sizeof(unknown), "unknown command \"%.64s\"", cmd ? cmd : "");
	if (err == EINVAL && cmd && !strcmp(msg, unknown)) {
		snprintf(out, len, "caretd does not know the request \"%.64s\" of this caretctl "
			 "(%s): caretd is of an older release; upgrade caretd, or use a caretctl "
			 "of its release", cmd, CARETD_VERSION);
		return true;
	}
	return false;
}

void caret_ctl_version_reply(int64_t v, char *out, size_t len)
{
	snprintf(out, len, "caretd speaks protocol %lld, this caretctl %d: %s", (long long)v,
		 CARET_CTL_VERSION,
		 v > CARET_CTL_VERSION ? "upgrade caretctl to caretd's release"
				       : "upgrade caretd, or use a caretctl of caretd's release");
}
