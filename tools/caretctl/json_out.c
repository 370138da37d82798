/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/caret_ctl.h"
#include "json_out.h"

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
