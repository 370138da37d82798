/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's process-wide state (state.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "agent/state.h"

static uint32_t local_state = CARET_STATE_WAIT;
const uint32_t *caret_state_word = &local_state;
static const uint32_t unwatched;
const uint32_t *caret_watched_word = &unwatched;
const struct caret_tp_api *caret_tp;
int caret_rmw_publish_args;
bool caret_jazzy_or_later;
__thread bool caret_tls_publish_kept __attribute__((tls_model("initial-exec")));

void caret_state_use(const uint32_t *word)
{
	__atomic_store_n(&caret_state_word, word, __ATOMIC_RELEASE);
}

void caret_state_use_local(uint32_t state)
{
	local_state = state;
	__atomic_store_n(&caret_state_word, &local_state, __ATOMIC_RELEASE);
}

void caret_warn(const char *fmt, ...)
{
	const char *q = getenv("CARET_AGENT_QUIET");
	if (q && *q == '1')
		return;
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write: app output interleaves by line at worst. */
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
}
