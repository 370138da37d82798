/* SPDX-License-Identifier: Apache-2.0 */
/* The text of a progress line, apart from the terminal handling. */
#include <stdio.h>

#include "progress_text.h"

int cli_progress_pct(const struct ctl_progress *p)
{
	/* Rounded down (v >= 0): "100 %" only once everything is replayed. */
	double v = p->percent < 0 ? 0 : p->percent > 100 ? 100 : p->percent;
	return (int)v;
}

static void clock_text(char *b, size_t len, int64_t s)
{
	if (s >= 3600)
		snprintf(b, len, "%lld:%02lld:%02lld", (long long)(s / 3600),
			 (long long)(s / 60 % 60), (long long)(s % 60));
	else
		snprintf(b, len, "%02lld:%02lld", (long long)(s / 60), (long long)(s % 60));
}

void cli_progress_text(const struct ctl_progress *p, const char *what, int64_t elapsed_ms,
		       int64_t done_since, char *out, size_t len)
{
	char el[24], eta[24] = "--:--";
	double rate = elapsed_ms > 0 ? (double)done_since * 1000.0 / (double)elapsed_ms : 0;
	int64_t left = p->records_total - p->records_done;
	if (left <= 0)
		snprintf(eta, sizeof(eta), "00:00");
	else if (rate >= 1)
		clock_text(eta, sizeof(eta), (int64_t)((double)left / rate + 0.999));
	clock_text(el, sizeof(el), elapsed_ms / 1000);
	snprintf(out, len,
		 "%lld/%lld processes %s, %lld/%lld records replayed (%d %%), "
		 "%.0f records/s, elapsed %s, ETA %s",
		 (long long)p->recording, (long long)p->total, what, (long long)p->records_done,
		 (long long)p->records_total, cli_progress_pct(p), rate, el, eta);
}

