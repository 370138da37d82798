/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <string.h>

#include "lib/lttng/lttng_limit.h"
#include "util/caret_err.h"

int caret_lttng_limit_size(const char *session, uint64_t bytes, char *err, size_t errlen)
{
	char name[64 + 256];
	if (snprintf(name, sizeof(name), CARET_LTTNG_LIMIT_PREFIX "%s", session) >=
	    (int)sizeof(name))
		return caret_errf(err, errlen, -ENAMETOOLONG, "lttng: session name too long");
	/* one bound per session: a stale one of the same name goes first */
	caret_lttng_limit_remove(session);
	struct lttng_condition *c = lttng_condition_session_consumed_size_create();
	struct lttng_action *a = lttng_action_stop_session_create();
	struct lttng_trigger *t = NULL;
	int rc = -ENOMEM;
	if (!c || !a)
		goto out;
	rc = -EINVAL;
	if (lttng_condition_session_consumed_size_set_threshold(c, bytes) !=
		    LTTNG_CONDITION_STATUS_OK ||
	    lttng_condition_session_consumed_size_set_session_name(c, session) !=
		    LTTNG_CONDITION_STATUS_OK ||
	    lttng_action_stop_session_set_session_name(a, session) != LTTNG_ACTION_STATUS_OK)
		goto out;
	rc = -ENOMEM;
	if (!(t = lttng_trigger_create(c, a)))
		goto out;
	enum lttng_error_code code = lttng_register_trigger_with_name(t, name);
	if (code != LTTNG_OK) {
		rc = caret_errf(err, errlen, -EIO, "lttng: registering the size bound of %s failed: %s",
			       session, lttng_strerror(-(int)code));
		goto out;
	}
	rc = 0;
out:
	if (rc == -ENOMEM || rc == -EINVAL)
		caret_errf(err, errlen, rc, "lttng: cannot build the size bound of %s", session);
	lttng_trigger_destroy(t);
	lttng_action_destroy(a);
	lttng_condition_destroy(c);
	return rc;
}

/* Unregisters the triggers named `name` (or, with prefix, starting with it). */
static int remove_named(const char *name, int prefix)
{
	struct lttng_triggers *ts = NULL;
	if (lttng_list_triggers(&ts) != LTTNG_OK)
		return -EIO;
	unsigned n = 0;
	int removed = 0;
	lttng_triggers_get_count(ts, &n);
	for (unsigned i = 0; i < n; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(ts, i);
		const char *tn = NULL;
		if (!t || lttng_trigger_get_name(t, &tn) != LTTNG_TRIGGER_STATUS_OK || !tn)
			continue;
		if (prefix ? strncmp(tn, name, strlen(name)) != 0 : strcmp(tn, name) != 0)
			continue;
		if (lttng_unregister_trigger(t) == 0)
			removed++;
	}
	lttng_triggers_destroy(ts);
	return removed;
}

int caret_lttng_limit_remove(const char *session)
{
	char name[64 + 256];
	if (snprintf(name, sizeof(name), CARET_LTTNG_LIMIT_PREFIX "%s", session) >=
	    (int)sizeof(name))
		return 0;
	int r = remove_named(name, 0);
	return r < 0 ? r : 0;
}

int caret_lttng_limit_remove_all(void)
{
	return remove_named(CARET_LTTNG_LIMIT_PREFIX, 1);
}
