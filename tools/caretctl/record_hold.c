/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s hold on its recording (record_hold.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record_hold.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "rpc.h"

/* How long taking a hold waits for caretd's answer (the request sent, the
 * hold is taken whether or not it came), and releasing one. */
#define HOLD_MS 5000
#define RELEASE_MS 30000

static struct caret_ctl_req hold_req(const char *session, bool release)
{
	return (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_HOLD,
				       .u.hold = { .session = session, .release = release } };
}

/* One exchange on c: 0 with the hold's state in *held, or a negative
 * errno with why. */
static int exchange(struct cli_conn *c, const struct caret_ctl_req *q, int64_t wait_ms,
		    bool *held, struct ctl_why *why)
{
	struct cli_reply r;
	int e = cli_exchange(c, q, cli_now_ms() + wait_ms, false, NULL, NULL, &r, why);
	if (e < 0)
		return e;
	struct caret_ctl_error err;
	struct ctl_hold_result res;
	if (r.type == CTL_REPLY_ERROR) {
		e = caret_ctl_error_decode(r.root, &err, why->msg, sizeof(why->msg)) == 0
			    ? -err.err : -EPROTO;
		if (e != -EPROTO)
			snprintf(why->msg, sizeof(why->msg), "%s", err.error ? err.error : "");
	} else if ((e = ctl_decode_hold(r.root, &res, why)) == 0) {
		*held = res.held;
	}
	cli_reply_free(&r);
	return e;
}

static int take(const struct cli_opts *g, struct cli_hold *h, bool quiet)
{
	struct ctl_why why = { "" };
	struct caret_ctl_req q = hold_req(h->session, false);
	bool held = false;
	int e = cli_conn_open(&h->c, g->socket, cli_now_ms() + HOLD_MS);
	if (e == 0) {
		e = exchange(&h->c, &q, HOLD_MS, &held, &why);
		/* A caretd too busy to answer yet holds it all the same once it
		 * reads the request: closing now would stop the recording then.
		 * The connection is the hold; its answer is read later. */
		if (e == -ETIMEDOUT) {
			e = 0;
			held = true;
		}
		if (e == 0 && !held)
			e = -EPROTO;
		if (e < 0)
			cli_conn_close(&h->c);
	}
	h->open = e == 0;
	/* refused (an older caretd, a recording already gone): not asked
	 * again every half second */
	if (e < 0 && !cli_conn_gone(e))
		h->ended = true;
	if (e < 0 && !(quiet && cli_conn_gone(e)))
		cli_warn("cannot hold session %s (%s): if this command is killed, the recording "
			 "runs on; stop it then with 'caretctl stop -s %s'", h->session,
			 why.msg[0] ? why.msg : strerror(-e), h->session);
	return e;
}

int cli_hold_take(const struct cli_opts *g, struct cli_hold *h, const char *session)
{
	memset(h, 0, sizeof(*h));
	h->c.fd = -1;
	snprintf(h->session, sizeof(h->session), "%s", session);
	return take(g, h, false);
}

void cli_hold_adopt(struct cli_hold *h, const char *session, struct cli_conn *c)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->session, sizeof(h->session), "%s", session);
	h->c = *c;
	*c = (struct cli_conn){ .fd = -1 };
	h->open = true;
}

void cli_hold_check(const struct cli_opts *g, struct cli_hold *h)
{
	while (h->open) {
		struct cli_reply r;
		struct ctl_why why;
		struct ctl_hold_result res;
		int e = cli_read_reply(&h->c, cli_now_ms() + 1, &r, &why);
		if (e == -ETIMEDOUT)
			return;
		if (e < 0) {
			cli_conn_close(&h->c);
			h->open = false;
			break;
		}
		/* its last line: the recording ended, or was released */
		if (r.type == CTL_REPLY_RESULT && ctl_decode_hold(r.root, &res, &why) == 0 &&
		    !res.held)
			h->ended = true;
		cli_reply_free(&r);
	}
	if (!h->ended && h->session[0] && take(g, h, true) == 0)
		fprintf(stderr, "caretctl: holding session %s again (caretd restarted)\n",
			h->session);
}

int cli_hold_release(const struct cli_opts *g, struct cli_hold *h)
{
	struct ctl_why why = { "" };
	struct caret_ctl_req q = hold_req(h->session, true);
	struct cli_conn c;
	bool held = true;
	int e = cli_conn_open(&c, g->socket, cli_now_ms() + HOLD_MS);
	if (e == 0) {
		/* longer: the hold's connection closes after it, and must not
		 * be read first */
		e = exchange(&c, &q, RELEASE_MS, &held, &why);
		cli_conn_close(&c);
	}
	if (e < 0 && h->open)
		cli_warn("cannot release session %s (%s): caretd stops it as this command exits",
			 h->session, why.msg[0] ? why.msg : strerror(-e));
	if (e < 0)
		return e;
	h->ended = true;
	if (h->open)
		cli_conn_close(&h->c);
	h->open = false;
	return 0;
}

bool cli_hold_held(const struct cli_hold *h)
{
	return h->open && !h->ended;
}
