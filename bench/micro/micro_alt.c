/* SPDX-License-Identifier: Apache-2.0 */
/* caret-microbench's A/B interleaving: the chunks of two variants
 * alternated and their medians, means, minima and ratio per rep. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/micro/micro_alt.h"

#define MAX_CHUNKS 4096
static double chunk_a[MAX_CHUNKS], chunk_b[MAX_CHUNKS], chunk_r[MAX_CHUNKS];

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * n calls of each variant, interleaved in chunks (A B, B A, A B, ...): a
 * change of the machine's speed lasting longer than a chunk (~1 ms) hits
 * both variants alike, and the medians over chunks ignore the chunks a
 * burst of load or a front-end hiccup hit. One variant only when the other
 * is NULL.
 */
struct rep_result alternate(const struct variant *va, const struct variant *vb,
			    uint64_t n, uint64_t chunk, uint64_t rep)
{
	struct rep_result r = { 0, 0, 0, 0, 1e30, 1e30, 0 };
	double ta = 0, tb = 0;
	uint64_t done = 0;
	size_t k = 0;
	if (chunk == 0 || chunk > n)
		chunk = n;
	if (n / chunk >= MAX_CHUNKS)
		chunk = n / (MAX_CHUNKS - 1) + 1;
	for (; done < n; k++) {
		uint64_t c = n - done < chunk ? n - done : chunk;
		double x = 0, y = 0;
		if ((k + rep) % 2 == 0) {
			if (va)
				x = va->run(va, c);
			if (vb)
				y = vb->run(vb, c);
		} else {
			if (vb)
				y = vb->run(vb, c);
			if (va)
				x = va->run(va, c);
		}
		ta += x * (double)c;
		tb += y * (double)c;
		if (x < r.amin)
			r.amin = x;
		if (y < r.bmin)
			r.bmin = y;
		chunk_a[k] = x;
		chunk_b[k] = y;
		chunk_r[k] = va && vb && y > 0 ? x / y : 0;
		done += c;
	}
	r.amean = ta / (double)n;
	r.bmean = tb / (double)n;
	r.a = median(chunk_a, k);
	r.b = median(chunk_b, k);
	r.ratio = median(chunk_r, k);
	return r;
}

void print_rep(uint64_t rep, const struct rep_result *r)
{
	printf("{\"rep\": %llu, \"a\": %.4f, \"b\": %.4f, \"ratio\": %.4f, "
	       "\"amean\": %.4f, \"bmean\": %.4f, \"amin\": %.4f, \"bmin\": %.4f}\n",
	       (unsigned long long)rep, r->a, r->b, r->ratio, r->amean, r->bmean,
	       r->amin, r->bmin);
	fflush(stdout);
}
