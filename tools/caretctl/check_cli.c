/* SPDX-License-Identifier: Apache-2.0 */
#include <getopt.h>
#include <stdint.h>

#include "check_cli.h"
#include "json_out.h"
#include "parse.h"

int check_cli_read(struct cli_opts *g, const char *cmd, const char *extra, int argc,
		   char **argv, struct check_report *rep, const char **dir)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'T' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int64_t timeout_ms = CHECK_DEFAULT_TIMEOUT_MS;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return CHECK_CLI_HELP;
		if (opt == 'T') {
			if (cli_parse_timeout(optarg, &timeout_ms) < 0)
				return cli_usage_error(cmd, "invalid --timeout '%s': a "
						       "duration (" CLI_DURATION_SYNTAX ") > 0 "
						       "expected", optarg);
			continue;
		}
		if (cli_common_opt(g, opt, optarg) < 0)
			return cli_bad_option(cmd, argv[optind - 1]);
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "no trace directory given");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "%s '%s'", extra, argv[optind + 1]);
	*dir = argv[optind];
	char err[1024] = "";
	int rc = check_run_isolated(*dir, timeout_ms, rep, err, sizeof(err));
	if (rc < 0) {
		cli_set_errno(rc);
		return cli_fail(CLI_EXIT_FAILED, "%s: %s", cmd, err);
	}
	return CHECK_CLI_READ;
}
