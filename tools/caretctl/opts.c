/* SPDX-License-Identifier: Apache-2.0 */
/* The options every command accepts (caretctl.h), apart from main.c,
 * which calls every command: the commands call these, not back into
 * main.c (tests/unit/check_layers.py). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "caretctl.h"
#include "json_out.h"
#include "parse.h"

void cli_size_opt(const char *opt, const char *arg,
		  int (*check)(uint64_t v, char *why, size_t len), uint64_t *out, int *code)
{
	char why[160];
	uint64_t v;
	if (cli_parse_size(arg, &v) < 0)
		*code = cli_usage_error("record", "invalid %s '%s': must be bytes, with K, M or G",
					opt, arg);
	else if (check(v, why, sizeof(why)) < 0)
		*code = cli_usage_error("record", "invalid %s '%s': %s", opt, arg, why);
	else
		*out = v;
}

int cli_common_opt(struct cli_opts *g, int opt, const char *arg)
{
	switch (opt) {
	case CLI_OPT_SOCKET:
		if (!*arg) {
			fprintf(stderr, "caretctl: --socket needs a path\n");
			return -EINVAL;
		}
		g->socket = arg;
		return 0;
	case CLI_OPT_JSON:
		g->json = true;
		return 0;
	default:
		return -EINVAL;
	}
}

int cli_simple_args(struct cli_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *))
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(cli_help_out(), cmd);
			return cli_help_done(cmd);
		}
		if (cli_common_opt(g, opt, optarg) < 0)
			return cli_bad_option(cmd, argv[optind - 1]);
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return -1;
}
