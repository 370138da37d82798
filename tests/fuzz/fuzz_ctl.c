/* SPDX-License-Identifier: Apache-2.0 */
/* The control protocol's parsers, both ends: caretd's request handling
 * (command_run: envelope, fields, status/list/wait/start/end replies) and
 * caretctl's reply parsing and decoders. "record" and "stop" requests are
 * decoded by the reply decoders only: running them would drive LTTng. */
#include <stdlib.h>
#include <string.h>

#include "daemon/commands.h"
#include "daemon/log.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"
#include "tests/fuzz/fuzz.h"

static void decode_all(const char *line, size_t len)
{
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why;
	if (ctl_reply_parse(line, len, &root, &type, &why) < 0)
		return;
	struct ctl_progress p;
	ctl_decode_progress(root, &p, &why);
	struct ctl_wait_result w;
	if (ctl_decode_wait(root, &w, &why) == 0)
		ctl_wait_result_free(&w);
	struct ctl_stop_result s;
	if (ctl_decode_stop(root, &s, &why) == 0)
		ctl_stop_result_free(&s);
	struct ctl_record_result rec;
	ctl_decode_record(root, &rec, &why);
	struct ctl_agents ag;
	if (ctl_decode_agents(root, &ag, &why) == 0)
		ctl_agents_free(&ag);
	struct ctl_status st;
	if (ctl_decode_status(root, &st, &why) == 0)
		ctl_status_free(&st);
	struct ctl_accept acc;
	ctl_decode_accept(root, &acc, &why);
	cJSON_Delete(root);
}

static bool drives_lttng(const char *line)
{
	cJSON *req = cJSON_Parse(line);
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_CMD);
	bool yes = cJSON_IsString(cmd) && (!strcmp(cmd->valuestring, CARET_CTL_CMD_RECORD) ||
					  !strcmp(cmd->valuestring, CARET_CTL_CMD_STOP));
	cJSON_Delete(req);
	return yes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct registry reg;
	static struct sched_cfg sched = { PACING_ADAPTIVE, 100, 1 << 20 };
	static struct lttng_view view = { .ok = true, .n_active = 1, .active = { "fuzz" } };
	static bool once;
	if (!once) {
		log_init(LOG_CRIT); /* Start/End messages would flood */
		reg.inotify_fd = -1;
		once = true;
	}
	if (size > CARET_CTL_MAX_LINE)
		return 0;
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	decode_all(line, strlen(line));
	if (!drives_lttng(line)) {
		struct cmd_ctx ctx = { .reg = &reg, .sched = &sched, .lttng = &view };
		/* a local member of caretd's group, not root */
		struct cmd_peer peer = { .pid = 1, .uid = 1000, .gid = 1000, .n_groups = 0 };
		struct cmd_out out;
		command_run(&ctx, &peer, line, 0, &out);
		char *reply = caret_ctl_enc_line(out.reply);
		/* every reply caretd sends is one it can parse back */
		if (reply) {
			cJSON *root = NULL;
			enum ctl_reply_type type;
			struct ctl_why why;
			if (ctl_reply_parse(reply, strlen(reply), &root, &type, &why) < 0)
				__builtin_trap();
			cJSON_Delete(root);
		}
		free(reply);
		wait_free(out.wait);
	}
	free(line);
	return 0;
}
