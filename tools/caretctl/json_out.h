/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --json's one envelope (issue 33 L8): every object caretctl prints on
 * standard output carries {"v": CARET_CTL_VERSION, "type": T, "cmd": C},
 * whether caretd wrote it (result, progress, error) or caretctl did
 * (check's report, record -l, help, version, a failure): a script reads
 * one shape whatever the command (caretctl(1), JSON OUTPUT).
 */
#ifndef CARETCTL_JSON_OUT_H
#define CARETCTL_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_plan.h"
#include "proto/caret_ctl_top.h"

/* caretctl's own types beside caretd's result, progress and error. */
#define CLI_JSON_T_HELP "help"
#define CLI_JSON_T_VERSION "version"

/* Adds whichever of v, type and cmd o lacks (cmd NULL: JSON null, a
 * failure before any command was known); keys already there are kept.
 * False when out of memory. */
bool cli_json_envelope(cJSON *o, const char *type, const char *cmd);

/* The envelope, then o as one line on stdout. 0 or -ENOMEM. */
int cli_json_print(cJSON *o, const char *type, const char *cmd);

/* caretctl's failure as an error object {"error": msg, "errno": err}, and
 * a usage text as {"help": text}. 0 or -ENOMEM. */
int cli_json_print_error(const char *cmd, const char *msg, int err);
int cli_json_print_help(const char *cmd, const char *text);

/* `nodes` or `topics` (--json): the graph in the envelope. 0 or -ENOMEM. */
struct caret_ctl_graph;
int cli_json_print_graph(const struct caret_ctl_graph *gr, const char *cmd);

/* `check --json`: the result in the envelope. 0 or -ENOMEM. */
struct caret_ctl_check_result;
int cli_json_print_check(const struct caret_ctl_check_result *c);

/* `node-summary`, `topic-summary`, `trace-point-summary --json` (cmd):
 * the table in the envelope. 0 or -ENOMEM. */
struct caret_ctl_summary;
int cli_json_print_summary(const struct caret_ctl_summary *s, const char *cmd);

/* `record -l --json`: the list in the envelope. 0 or -ENOMEM. */
struct caret_ctl_record_list;
int cli_json_print_record_list(const struct caret_ctl_record_list *l);
/* caretctl top --json: one refresh's rows. 0 or -ENOMEM. */
int cli_json_print_top(const struct caret_ctl_top *t);
/* record -l --json with caretd: its plan ("plan", "caretd": true) and what
 * caretctl adds ("list": the trace directory's name pattern, append, the
 * simulation clock's domain or null). 0 or -ENOMEM. */
int cli_json_print_plan(const struct caret_ctl_plan *p, const char *dir, bool append,
			bool sim_time, uint32_t domain);

/* help_out.c. Where a usage text goes: stdout, or with --json a buffer
 * that cli_help_done() prints as {"v", "type": "help", "cmd", "help":
 * TEXT}. */
FILE *cli_help_out(void);
/* After the usage text: CLI_EXIT_OK, or a failure (out of memory). */
int cli_help_done(const char *cmd);

#endif
