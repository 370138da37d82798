/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "caretctl.h"
#include "conn.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_req.h"
#include "rpc.h"
#include "parse.h"
#include "proto/caret_ctl_rotation.h"
#include "rotation_cli.h"
#include "sig.h"

static int bad(const char *opt, const char *val, const char *why)
{
	return cli_usage_error("record", "invalid %s '%s': %s", opt, val, why);
}

int cli_rotation_opt(int opt, const char *arg, struct cli_rotation *r, int *code)
{
	char why[160];
	uint64_t v;
	switch (opt) {
	case CLI_OPT_ROTATE_SIZE:
		cli_size_opt("--rotate-size", arg, caret_ctl_check_rotate_size, &r->size, code);
		return 1;
	case CLI_OPT_ROTATE_EVERY:
		if (cli_parse_duration(arg, UINT64_MAX, &v) < 0)
			*code = bad("--rotate-every", arg,
				    "must be a duration: " CLI_DURATION_SYNTAX);
		else if (caret_ctl_check_rotate_every_ms(v, why, sizeof(why)) < 0)
			*code = bad("--rotate-every", arg, why);
		else
			r->every_ms = v;
		return 1;
	case CLI_OPT_KEEP:
		if (cli_parse_count(arg, UINT32_MAX, &v) < 0)
			*code = bad("--keep", arg, "must be a number of chunks");
		else if (caret_ctl_check_keep(v, why, sizeof(why)) < 0)
			*code = bad("--keep", arg, why);
		else
			r->keep = v;
		return 1;
	case CLI_OPT_MAX_SIZE:
		cli_size_opt("--max-size", arg, caret_ctl_check_max_size, &r->max_size, code);
		return 1;
	default:
		return 0;
	}
}

int cli_rotation_check(const struct cli_rotation *r)
{
	if ((r->keep || r->max_size) && !r->size && !r->every_ms)
		return cli_usage_error("record", "--keep and --max-size bound the chunks of a "
				       "rotating recording: add --rotate-size or --rotate-every");
	return 0;
}

void cli_rotation_usage(FILE *f)
{
	fprintf(f,
		"      --rotate-size SIZE      rotate the trace into an archived chunk\n"
		"                              whenever it grew by SIZE bytes (K/M/G; at\n"
		"                              least the UST sub-buffer size, 512K by\n"
		"                              default: LTTng sees a sub-buffer at a time);\n"
		"                              every chunk gets every process's\n"
		"                              initialization records and loads alone\n"
		"      --rotate-every DURATION rotate every DURATION (1s to 366 days;\n"
		"                              seconds, or N with ms, s, m, h)\n"
		"      --keep N                keep the newest N archived chunks (1 to %u)\n"
		"      --max-size SIZE         keep the newest archived chunks that fit in\n"
		"                              SIZE bytes (K/M/G, at least 1M)\n",
		CARET_CTL_KEEP_MAX);
}

static void print_one(const struct caret_ctl_rotation_status *r)
{
	printf("rotating: %.256s:", r->session);
	if (r->rotate_every_ms > 0)
		printf(" every %.3f s", (double)r->rotate_every_ms / 1000.0);
	if (r->rotate_size > 0)
		printf(" at %llu bytes", (unsigned long long)r->rotate_size);
	printf(", %llu rotations; bound:", (unsigned long long)r->rotations);
	if (r->keep > 0)
		printf(" keep %llu", (unsigned long long)r->keep);
	if (r->max_size > 0)
		printf(" max %llu bytes", (unsigned long long)r->max_size);
	if (r->keep == 0 && r->max_size == 0)
		printf(" none");
	printf("; %zu chunks kept (%llu bytes), %llu removed\n", r->n_chunks,
	       (unsigned long long)r->chunks_bytes, (unsigned long long)r->removed);
	for (size_t i = 0; i < r->n_chunks; i++) {
		const struct caret_ctl_chunk *c = &r->chunks[i];
		bool why = !c->complete && c->why;
		printf("  chunk %-48.96s %12llu bytes  %s%s%.128s%s\n", c->name,
		       (unsigned long long)c->bytes, c->complete ? "complete" : "INCOMPLETE",
		       why ? " (" : "", why ? c->why : "", why ? ")" : "");
	}
	if (r->n_incomplete)
		fprintf(stderr, "caretctl: session %.256s: %zu chunk%s not complete (see above)\n",
			r->session, r->n_incomplete, r->n_incomplete == 1 ? "" : "s");
	if (r->error)
		fprintf(stderr, "caretctl: session %.256s: chunks: %.512s\n", r->session, r->error);
}

void cli_rotation_print(const struct caret_ctl_recordings *rec)
{
	if (rec->rotation)
		print_one(rec->rotation);
	for (size_t i = 0; i < rec->n_rotations; i++)
		print_one(&rec->rotations[i]);
	for (size_t i = 0; i < rec->n_ended; i++)
		printf("ended:    %.256s: %.600s\n", rec->ended[i].session, rec->ended[i].error);
}

/* One status request, answered within 2 s: 0 and the reply in *r (freed
 * by the caller), or -errno. */
static int quick_status(const struct cli_opts *g, struct cli_reply *r,
			struct caret_ctl_recordings *rec)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STATUS };
	struct cli_conn c;
	struct ctl_why why = { "" };
	int64_t deadline = cli_now_ms() + 2000;
	int e = cli_conn_open(&c, g->socket, deadline);
	if (e == 0) {
		e = cli_exchange(&c, &q, deadline, true, NULL, NULL, r, &why);
		cli_conn_close(&c);
	}
	if (e < 0)
		return e;
	/* an error reply, or one that says nothing sure: no recordings */
	if (r->type != CTL_REPLY_RESULT ||
	    caret_ctl_recordings_decode(r->root, rec, why.msg, sizeof(why.msg)) < 0)
		memset(rec, 0, sizeof(*rec));
	return 0;
}

int cli_rotation_why_ended(const struct cli_opts *g, const char *session)
{
	struct cli_reply r;
	struct caret_ctl_recordings rec;
	if (quick_status(g, &r, &rec) < 0)
		return 0;
	int found = 0;
	for (size_t i = 0; i < rec.n_ended; i++)
		if (!strcmp(rec.ended[i].session, session)) {
			cli_fail(0, "session %.256s ended: %.600s", session, rec.ended[i].error);
			found = 1;
		}
	caret_ctl_recordings_free(&rec);
	cli_reply_free(&r);
	return found;
}

/* One status: 1 when `session` rotates and the chunk being written lacks
 * part of its replay, 0 when not (or not rotating), -errno. */
static int pass_running(const struct cli_opts *g, const char *session)
{
	struct cli_reply r;
	struct caret_ctl_recordings rec;
	int e = quick_status(g, &r, &rec);
	if (e < 0)
		return e;
	const struct caret_ctl_rotation_status *t = caret_ctl_recordings_rotation(&rec, session);
	int running = t && t->have_pass_complete && !t->pass_complete;
	caret_ctl_recordings_free(&rec);
	cli_reply_free(&r);
	return running;
}

void cli_rotation_settle(const struct cli_opts *g, const char *session, FILE *info)
{
	int64_t start = cli_now_ms();
	bool said = false;
	while (pass_running(g, session) == 1) {
		int64_t now = cli_now_ms();
		if (now - start >= CLI_SETTLE_MS) {
			if (info)
				fprintf(info, "stopping without waiting longer: the last chunk's replay "
					      "has not finished (it will be named incomplete)\n");
			return;
		}
		if (info && !said && now - start >= 1000) {
			fprintf(info, "waiting for the last chunk's replay to finish (at most %d s)\n",
				CLI_SETTLE_MS / 1000);
			said = true;
		}
		if (cli_sig_caught())
			return;
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
}
