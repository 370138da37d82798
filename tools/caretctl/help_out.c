/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "caretctl.h"
#include "json_out.h"

/* With --json, the usage text is gathered here, to be one string. */
static char *help_buf;
static size_t help_len;
static FILE *help_f;

FILE *cli_help_out(void)
{
	if (!cli_msg_is_json())
		return stdout;
	if (!help_f)
		help_f = open_memstream(&help_buf, &help_len);
	/* no buffer: the text goes out as text rather than not at all */
	return help_f ? help_f : stdout;
}

int cli_help_done(const char *cmd)
{
	if (!help_f)
		return CLI_EXIT_OK;
	bool ok = fclose(help_f) == 0;
	help_f = NULL;
	int rc = ok ? cli_json_print_help(cmd, help_buf) : -ENOMEM;
	free(help_buf);
	help_buf = NULL;
	return rc < 0 ? cli_fail(CLI_EXIT_FAILED, "out of memory") : CLI_EXIT_OK;
}
