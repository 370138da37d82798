/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/caret_ctl.h"
#include "json_out.h"
#include "proto/caret_ctl_check.h"
#include "proto/caret_ctl_graph.h"
#include "proto/caret_ctl_record_list.h"
#include "proto/caret_ctl_summary.h"

bool cli_json_envelope(cJSON *o, const char *type, const char *cmd)
{
	if (!cJSON_IsObject(o))
		return false;
	if (!cJSON_HasObjectItem(o, CARET_CTL_K_V) &&
	    !cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION))
		return false;
	if (!cJSON_HasObjectItem(o, CARET_CTL_K_TYPE) &&
	    !cJSON_AddStringToObject(o, CARET_CTL_K_TYPE, type))
		return false;
	if (!cJSON_HasObjectItem(o, CARET_CTL_K_CMD) &&
	    !(cmd ? cJSON_AddStringToObject(o, CARET_CTL_K_CMD, cmd)
		  : cJSON_AddNullToObject(o, CARET_CTL_K_CMD)))
		return false;
	return true;
}

int cli_json_print(cJSON *o, const char *type, const char *cmd)
{
	char *s = cli_json_envelope(o, type, cmd) ? cJSON_PrintUnformatted(o) : NULL;
	if (!s)
		return -ENOMEM;
	printf("%s\n", s);
	free(s);
	return 0;
}

/* {"v", "type", "cmd", key: text}: caretctl's own one-string objects. */
static int print_text(const char *type, const char *cmd, const char *key, const char *text,
		      bool with_errno, int err)
{
	cJSON *o = cJSON_CreateObject();
	int rc = o && cli_json_envelope(o, type, cmd) && cJSON_AddStringToObject(o, key, text) &&
			 (!with_errno || cJSON_AddNumberToObject(o, CARET_CTL_K_ERRNO, err))
		 ? cli_json_print(o, type, cmd)
		 : -ENOMEM;
	cJSON_Delete(o);
	return rc;
}

int cli_json_print_error(const char *cmd, const char *msg, int err)
{
	return print_text(CARET_CTL_T_ERROR, cmd, CARET_CTL_K_ERROR, msg, true, err);
}

int cli_json_print_help(const char *cmd, const char *text)
{
	return print_text(CLI_JSON_T_HELP, cmd, "help", text, false, 0);
}

int cli_json_print_graph(const struct caret_ctl_graph *gr, const char *cmd)
{
	cJSON *o = cJSON_CreateObject();
	/* the envelope first, as every other result line */
	int rc = o && cli_json_envelope(o, CARET_CTL_T_RESULT, cmd) &&
			 caret_ctl_graph_encode(gr, o) == 0
		 ? cli_json_print(o, CARET_CTL_T_RESULT, cmd)
		 : -ENOMEM;
	cJSON_Delete(o);
	return rc;
}

int cli_json_print_check(const struct caret_ctl_check_result *c)
{
	cJSON *o = cJSON_CreateObject();
	int rc = o && cli_json_envelope(o, CARET_CTL_T_RESULT, CARET_CTL_CMD_CHECK) &&
			 caret_ctl_check_encode(c, o) == 0
		 ? cli_json_print(o, CARET_CTL_T_RESULT, CARET_CTL_CMD_CHECK)
		 : -ENOMEM;
	cJSON_Delete(o);
	return rc;
}

int cli_json_print_summary(const struct caret_ctl_summary *s, const char *cmd)
{
	cJSON *o = cJSON_CreateObject();
	int rc = o && cli_json_envelope(o, CARET_CTL_T_RESULT, cmd) &&
			 caret_ctl_summary_encode(s, o) == 0
		 ? cli_json_print(o, CARET_CTL_T_RESULT, cmd)
		 : -ENOMEM;
	cJSON_Delete(o);
	return rc;
}

int cli_json_print_record_list(const struct caret_ctl_record_list *l)
{
	cJSON *o = cJSON_CreateObject();
	int rc = o && cli_json_envelope(o, CARET_CTL_T_RESULT, CARET_CTL_CMD_RECORD) &&
			 caret_ctl_record_list_encode(l, o) == 0
		 ? cli_json_print(o, CARET_CTL_T_RESULT, CARET_CTL_CMD_RECORD)
		 : -ENOMEM;
	cJSON_Delete(o);
	return rc;
}

int cli_json_print_plan(const struct caret_ctl_plan *p, const char *dir, bool append,
			bool sim_time, uint32_t domain)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *po = caret_ctl_plan_obj(p);
	bool ok = r && po && cli_json_envelope(r, CARET_CTL_T_RESULT, CARET_CTL_CMD_RECORD) &&
		  cJSON_AddBoolToObject(r, "caretd", true);
	if (ok && !cJSON_AddItemToObject(r, CARET_CTL_K_PLAN, po))
		ok = false;
	else if (ok)
		po = NULL;
	cJSON *l = ok ? cJSON_AddObjectToObject(r, "list") : NULL;
	ok = l && cJSON_AddStringToObject(l, "trace_directory", dir) &&
	     cJSON_AddBoolToObject(l, "append", append) &&
	     (sim_time ? cJSON_AddNumberToObject(l, "sim_time_domain", domain) != NULL
		       : cJSON_AddNullToObject(l, "sim_time_domain") != NULL);
	int rc = ok ? cli_json_print(r, CARET_CTL_T_RESULT, CARET_CTL_CMD_RECORD) : -ENOMEM;
	cJSON_Delete(po);
	cJSON_Delete(r);
	return rc;
}

int cli_json_print_top(const struct caret_ctl_top *t)
{
	cJSON *j = caret_ctl_enc_top(t);
	if (!j)
		return -ENOMEM;
	int rc = cli_json_print(j, CARET_CTL_T_RESULT, CARET_CTL_CMD_TOP);
	cJSON_Delete(j);
	return rc;
}
