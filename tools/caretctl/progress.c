/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>
#include <unistd.h>

#include "caretctl.h"
#include "progress.h"

static struct {
	FILE *out;
	bool tty, verbose;
	bool open;	/* an in-place line is on screen */
	size_t shown;	/* its length, to blank what a shorter one leaves */
	int64_t last_ms;
	struct ctl_progress last;
	bool have_last;
} bar;

void ctl_progress_begin(FILE *out, bool verbose)
{
	memset(&bar, 0, sizeof(bar));
	bar.out = out;
	bar.tty = isatty(fileno(out));
	bar.verbose = verbose;
}

static int pct(const struct ctl_progress *p)
{
	/* Rounded down (v >= 0): "100 %" only once everything is replayed. */
	double v = p->percent < 0 ? 0 : p->percent > 100 ? 100 : p->percent;
	return (int)v;
}

void ctl_progress_show(const struct ctl_progress *p)
{
	char line[160];
	int64_t now = ctl_now_ms();
	if (!bar.out)
		return;
	if (bar.verbose) {
		if (bar.have_last && p->recording == bar.last.recording &&
		    p->total == bar.last.total && p->records_done == bar.last.records_done &&
		    p->records_total == bar.last.records_total)
			return;
		fprintf(bar.out,
			"%lld/%lld processes recording, %lld/%lld records replayed (%d %%)\n",
			(long long)p->recording, (long long)p->total,
			(long long)p->records_done, (long long)p->records_total, pct(p));
	} else if (bar.tty) {
		int n = snprintf(line, sizeof(line), "%lld/%lld processes recording, %d %%",
				 (long long)p->recording, (long long)p->total, pct(p));
		size_t len = n < 0 ? 0 : (size_t)n;
		fprintf(bar.out, "\r%s%*s", line,
			bar.shown > len ? (int)(bar.shown - len) : 0, "");
		bar.shown = len;
		bar.open = true;
	} else {
		if (bar.have_last && now - bar.last_ms < 1000)
			return;
		fprintf(bar.out, "%lld/%lld processes recording, %d %%\n",
			(long long)p->recording, (long long)p->total, pct(p));
	}
	fflush(bar.out);
	bar.last = *p;
	bar.last_ms = now;
	bar.have_last = true;
}

void ctl_progress_break(void)
{
	if (bar.open) {
		fputc('\n', bar.out);
		fflush(bar.out);
		bar.open = false;
		bar.shown = 0;
	}
}

void ctl_progress_clear(void)
{
	if (bar.open) {
		fprintf(bar.out, "\r%*s\r", (int)bar.shown, "");
		fflush(bar.out);
		bar.open = false;
		bar.shown = 0;
	}
}
