/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s keys (top_keys.h). */
#include <errno.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include "caretctl.h"
#include "sig.h"
#include "top_keys.h"

static struct termios saved;
static bool raw;

const char top_keys_help[] = "keys: c cpu, r rate, m mean, p p99, x max, n node, s symbol, q quit";

bool top_keys_open(void)
{
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved) < 0)
		return false;
	struct termios t = saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	return raw;
}

void top_keys_close(void)
{
	if (raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	raw = false;
}

static int sort_of(char c)
{
	static const char keys[TOP_SORTS] = {
		[TOP_SORT_CPU] = 'c', [TOP_SORT_RATE] = 'r', [TOP_SORT_MEAN] = 'm',
		[TOP_SORT_P99] = 'p', [TOP_SORT_MAX] = 'x', [TOP_SORT_NODE] = 'n',
		[TOP_SORT_SYMBOL] = 's',
	};
	for (int i = 0; i < TOP_SORTS; i++)
		if (keys[i] == c)
			return i;
	return -1;
}

enum top_key_act top_keys_wait(int64_t deadline_ms, enum top_sort *sort)
{
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		int n = cli_ppoll(&p, raw ? 1 : 0, deadline_ms);
		if (n < 0 && errno == EINTR && cli_sig_caught())
			return TOP_KEY_STOP;
		if (n < 0 && errno != EINTR)
			return TOP_KEY_STOP;
		if (n == 0)
			return TOP_KEY_NONE;
		if (n < 0)
			continue;
		char c;
		if (read(STDIN_FILENO, &c, 1) != 1) {
			top_keys_close(); /* end of input: no keys from now on */
			continue;
		}
		if (c == 'q')
			return TOP_KEY_QUIT;
		int s = sort_of(c);
		if (s >= 0) {
			*sort = (enum top_sort)s;
			return TOP_KEY_SORT;
		}
	}
}
