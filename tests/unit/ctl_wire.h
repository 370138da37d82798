/* SPDX-License-Identifier: Apache-2.0 */
/* What the tests of the typed results share: a result sent as caretd
 * sends it and read back as caretctl reads it. */
#ifndef CARET_TESTS_CTL_WIRE_H
#define CARET_TESTS_CTL_WIRE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"

/* o as a line, parsed back the way caretctl does (o is consumed). */
static inline cJSON *wire(cJSON *o)
{
	ck_assert_ptr_nonnull(o);
	char *line = caret_ctl_enc_line(o);
	ck_assert_ptr_nonnull(line);
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why = { "" };
	int r = ctl_reply_parse(line, strlen(line), &root, &type, &why);
	ck_assert_msg(r == 0, "%s: %s", line, why.msg);
	free(line);
	return root;
}

/* text as a JSON value, which it must be. */
static inline cJSON *parse(const char *text)
{
	cJSON *o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	return o;
}

#endif
