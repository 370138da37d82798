/* SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "caretctl.h"
#include "progress.h"
#include "progress_text.h"

#define BAR_WIDTH 20

static struct {
	FILE *out;
	const char *what;
	bool tty, verbose;
	bool open;	/* an in-place line is on screen */
	size_t shown;	/* its length, to blank what a shorter one leaves */
	int64_t begin_ms, last_ms;
	int64_t first_done;	/* records replayed at the first report */
	struct ctl_progress last;
	bool have_first, have_last;
} bar;

void cli_progress_begin(FILE *out, bool verbose, const char *what)
{
	memset(&bar, 0, sizeof(bar));
	bar.out = out;
	bar.what = what;
	bar.tty = isatty(fileno(out));
	bar.verbose = verbose;
	bar.begin_ms = cli_now_ms();
}

void cli_progress_show(const struct ctl_progress *p)
{
	char text[256], line[300];
	int64_t now = cli_now_ms();
	if (!bar.out)
		return;
	if (!bar.have_first) {
		/* The rate counts what was replayed while we watched. */
		bar.first_done = p->records_done;
		bar.have_first = true;
	}
	bool same = bar.have_last && p->recording == bar.last.recording &&
		    p->total == bar.last.total && p->records_done == bar.last.records_done &&
		    p->records_total == bar.last.records_total;
	cli_progress_text(p, bar.what, now - bar.begin_ms, p->records_done - bar.first_done, text,
			  sizeof(text));
	if (bar.verbose && !bar.tty) {
		if (same)
			return;
		fprintf(bar.out, "%s\n", text);
	} else if (bar.tty) {
		/* Redrawn at most 10 times a second, and each second for the clock. */
		if (bar.have_last && now - bar.last_ms < (same ? 1000 : 100))
			return;
		int fill = cli_progress_pct(p) * BAR_WIDTH / 100;
		char cells[BAR_WIDTH + 1];
		memset(cells, '#', (size_t)fill);
		memset(cells + fill, '.', (size_t)(BAR_WIDTH - fill));
		cells[BAR_WIDTH] = '\0';
		int n = snprintf(line, sizeof(line), "[%s] %s", cells, text);
		size_t l = n < 0 ? 0 : (size_t)n >= sizeof(line) ? sizeof(line) - 1 : (size_t)n;
		/* A line that wraps cannot be redrawn with '\r': cut it to fit. */
		struct winsize ws;
		if (ioctl(fileno(bar.out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
		    l >= ws.ws_col) {
			l = ws.ws_col - 1u;
			line[l] = '\0';
		}
		fprintf(bar.out, "\r%s%*s", line, bar.shown > l ? (int)(bar.shown - l) : 0, "");
		bar.shown = l;
		bar.open = true;
		/* -v on a terminal: each change also stays on screen. */
		if (bar.verbose && !same)
			cli_progress_break();
	} else {
		if (bar.have_last && now - bar.last_ms < 1000)
			return;
		fprintf(bar.out, "%s\n", text);
	}
	fflush(bar.out);
	bar.last = *p;
	bar.last_ms = now;
	bar.have_last = true;
}

void cli_progress_break(void)
{
	if (bar.open) {
		fputc('\n', bar.out);
		fflush(bar.out);
		bar.open = false;
		bar.shown = 0;
	}
}

void cli_progress_clear(void)
{
	if (bar.open) {
		fprintf(bar.out, "\r%*s\r", (int)bar.shown, "");
		fflush(bar.out);
		bar.open = false;
		bar.shown = 0;
	}
}
