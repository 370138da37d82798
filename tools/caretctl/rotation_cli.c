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
		if (cli_parse_size(arg, &v) < 0)
			*code = bad("--rotate-size", arg, "must be bytes, with K, M or G");
		else if (caret_ctl_check_rotate_size(v, why, sizeof(why)) < 0)
			*code = bad("--rotate-size", arg, why);
		else
			r->size = v;
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
		if (cli_parse_size(arg, &v) < 0)
			*code = bad("--max-size", arg, "must be bytes, with K, M or G");
		else if (caret_ctl_check_max_size(v, why, sizeof(why)) < 0)
			*code = bad("--max-size", arg, why);
		else
			r->max_size = v;
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

static double num(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

static void print_one(const cJSON *r)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "session");
	const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(r, "chunks");
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(r, "incomplete");
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
	if (!cJSON_IsString(s))
		return;
	printf("rotating: %.256s:", s->valuestring);
	if (num(r, CARET_CTL_K_ROTATE_EVERY_MS) > 0)
		printf(" every %.3f s", num(r, CARET_CTL_K_ROTATE_EVERY_MS) / 1000.0);
	if (num(r, CARET_CTL_K_ROTATE_SIZE) > 0)
		printf(" at %.0f bytes", num(r, CARET_CTL_K_ROTATE_SIZE));
	printf(", %.0f rotations; bound:", num(r, "rotations"));
	if (num(r, CARET_CTL_K_KEEP) > 0)
		printf(" keep %.0f", num(r, CARET_CTL_K_KEEP));
	if (num(r, CARET_CTL_K_MAX_SIZE) > 0)
		printf(" max %.0f bytes", num(r, CARET_CTL_K_MAX_SIZE));
	if (num(r, CARET_CTL_K_KEEP) <= 0 && num(r, CARET_CTL_K_MAX_SIZE) <= 0)
		printf(" none");
	printf("; %d chunks kept (%.0f bytes), %.0f removed\n", cJSON_GetArraySize(chunks),
	       num(r, "chunks_bytes"), num(r, "removed"));
	const cJSON *c;
	cJSON_ArrayForEach(c, chunks) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "why");
		bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "complete"));
		printf("  chunk %-48.96s %12.0f bytes  %s%s%.128s%s\n",
		       cJSON_IsString(n) ? n->valuestring : "?", num(c, "bytes"),
		       ok ? "complete" : "INCOMPLETE", !ok && cJSON_IsString(w) ? " (" : "",
		       !ok && cJSON_IsString(w) ? w->valuestring : "",
		       !ok && cJSON_IsString(w) ? ")" : "");
	}
	int ni = cJSON_GetArraySize(inc);
	if (ni)
		fprintf(stderr, "caretctl: session %.256s: %d chunk%s not complete (see above)\n",
			s->valuestring, ni,
			ni == 1 ? "" : "s");
	if (cJSON_IsString(err))
		fprintf(stderr, "caretctl: session %.256s: chunks: %.512s\n", s->valuestring,
			err->valuestring);
}

void cli_rotation_print(const cJSON *root)
{
	const cJSON *one = cJSON_GetObjectItemCaseSensitive(root, CARET_CTL_K_ROTATION);
	if (cJSON_IsObject(one))
		print_one(one);
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(root, CARET_CTL_K_ROTATIONS), *r;
	cJSON_ArrayForEach(r, all)
		if (cJSON_IsObject(r))
			print_one(r);
	all = cJSON_GetObjectItemCaseSensitive(root, CARET_CTL_K_ROTATIONS_ENDED);
	cJSON_ArrayForEach(r, all) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "session");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "error");
		if (cJSON_IsString(n) && cJSON_IsString(w))
			printf("ended:    %.256s: %.600s\n", n->valuestring, w->valuestring);
	}
}

/* One status request, answered within 2 s: 0 and the reply in *r (freed
 * by the caller), or -errno. */
static int quick_status(const struct cli_opts *g, struct cli_reply *r)
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
	return e < 0 ? e : 0;
}

int cli_rotation_why_ended(const struct cli_opts *g, const char *session)
{
	struct cli_reply r;
	if (quick_status(g, &r) < 0)
		return 0;
	int found = 0;
	const cJSON *x, *all = r.type == CTL_REPLY_RESULT
				       ? cJSON_GetObjectItemCaseSensitive(r.root,
									  CARET_CTL_K_ROTATIONS_ENDED)
				       : NULL;
	cJSON_ArrayForEach(x, all) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "session");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(x, "error");
		if (cJSON_IsString(n) && cJSON_IsString(w) && !strcmp(n->valuestring, session)) {
			cli_fail(0, "session %.256s ended: %.600s", session, w->valuestring);
			found = 1;
		}
	}
	cli_reply_free(&r);
	return found;
}

/* One status: 1 when `session` rotates and the chunk being written lacks
 * part of its replay, 0 when not (or not rotating), -errno. */
static int pass_running(const struct cli_opts *g, const char *session)
{
	struct cli_reply r;
	int e = quick_status(g, &r);
	if (e < 0)
		return e;
	int running = 0;
	const cJSON *x, *all = r.type == CTL_REPLY_RESULT
				       ? cJSON_GetObjectItemCaseSensitive(r.root, CARET_CTL_K_ROTATIONS)
				       : NULL;
	cJSON_ArrayForEach(x, all) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "session");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_PASS_COMPLETE);
		if (cJSON_IsString(n) && !strcmp(n->valuestring, session) && cJSON_IsFalse(d))
			running = 1;
	}
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
