/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A deterministic mutation driver for the fuzz targets, for compilers
 * without libFuzzer and for the short run of `make check`:
 *   fuzz-<target>-driver CORPUS_DIR RUNS [SEED]
 * Each corpus file is run as it is, then RUNS mutants of them (bit flips,
 * interesting bytes and integers, insertions, deletions, copies, splices)
 * from a seeded xorshift generator: the same arguments run the same inputs.
 * A crash is the sanitizer's report and a non-zero exit; under a sanitizer
 * the input is saved in ./fuzz-crash-<pid> (replay: a corpus of it, RUNS 0).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

#define FUZZ_MAX_INPUT (128u << 10)
#define MAX_SEEDS 4096

struct input {
	uint8_t *p;
	size_t n;
};

static struct input seeds[MAX_SEEDS];
static int n_seeds;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

static void load(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		exit(2);
	}
	struct dirent *e;
	char path[4096];
	while ((e = readdir(d)) && n_seeds < MAX_SEEDS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		uint8_t *p = malloc(FUZZ_MAX_INPUT);
		size_t n = p ? fread(p, 1, FUZZ_MAX_INPUT, f) : 0;
		fclose(f);
		if (!p)
			exit(2);
		seeds[n_seeds++] = (struct input){ p, n };
	}
	closedir(d);
	if (n_seeds == 0)
		seeds[n_seeds++] = (struct input){ calloc(1, 1), 0 };
}

static const uint8_t bytes[] = { 0, 1, 0x7f, 0x80, 0xff, '"', '\\', '{', '}', '[', ']',
				 ':', ',', '\n', '-', '0', '9', 'e', '.', 0xc3, 0xed, 0xf4 };
static const uint64_t ints[] = { 0, 1, 2, 7, 8, 16, 24, 4096, 8192, 65535, 65536,
				 0x7fffffff, 0x80000000, 0xffffffff, 1ULL << 32,
				 1ULL << 34, 1ULL << 53, 1ULL << 63, ~0ULL, ~0ULL - 7 };

static size_t mutate(uint8_t *b, size_t n)
{
	int rounds = 1 + (int)below(8);
	for (int r = 0; r < rounds; r++) {
		switch (below(9)) {
		case 0: /* flip a bit */
			if (n)
				b[below(n)] ^= (uint8_t)(1u << below(8));
			break;
		case 1: /* a random byte */
			if (n)
				b[below(n)] = (uint8_t)next();
			break;
		case 2: /* an interesting byte */
			if (n)
				b[below(n)] = bytes[below(sizeof(bytes))];
			break;
		case 3: /* an interesting 32- or 64-bit integer, aligned */
		case 4: {
			size_t w = below(2) ? 4 : 8;
			if (n < w)
				break;
			size_t at = below(n - w + 1) & ~(w - 1);
			uint64_t v = ints[below(sizeof(ints) / sizeof(ints[0]))];
			if (below(2))
				v -= below(3);
			memcpy(b + at, &v, w);
			break;
		}
		case 5: { /* insert random or interesting bytes */
			size_t k = 1 + below(16);
			if (n + k > FUZZ_MAX_INPUT)
				break;
			size_t at = below(n + 1);
			memmove(b + at + k, b + at, n - at);
			for (size_t i = 0; i < k; i++)
				b[at + i] = below(2) ? (uint8_t)next() : bytes[below(sizeof(bytes))];
			n += k;
			break;
		}
		case 6: { /* delete a chunk */
			if (!n)
				break;
			size_t at = below(n), k = 1 + below(n - at < 64 ? n - at : 64);
			memmove(b + at, b + at + k, n - at - k);
			n -= k;
			break;
		}
		case 7: { /* copy a chunk within the input */
			if (n < 2)
				break;
			size_t from = below(n), to = below(n);
			size_t k = 1 + below(64);
			if (k > n - from)
				k = n - from;
			if (k > n - to)
				k = n - to;
			memmove(b + to, b + from, k);
			break;
		}
		case 8: { /* splice: the tail of another seed */
			const struct input *o = &seeds[below((size_t)n_seeds)];
			size_t at = below(n + 1), from = below(o->n + 1);
			size_t k = o->n - from;
			if (at + k > FUZZ_MAX_INPUT)
				k = FUZZ_MAX_INPUT - at;
			memcpy(b + at, o->p + from, k);
			n = at + k;
			break;
		}
		}
	}
	return n;
}

static char crash_path[64];
static const uint8_t *cur;
static size_t cur_n;

/* The sanitizers call this before exiting on an error: the input that
 * caused it is saved for a replay. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void save_input(void)
{
	/* between inputs (LeakSanitizer's report at exit): no input caused
	 * it, and the last one's buffer is freed */
	if (!cur) {
		fprintf(stderr, "no input was running: nothing saved\n");
		return;
	}
	FILE *f = fopen(crash_path, "wb");
	if (f) {
		fwrite(cur, 1, cur_n, f);
		fclose(f);
		fprintf(stderr, "input saved in %s\n", crash_path);
	}
}

static void run(const uint8_t *b, size_t n)
{
	/* a private exact-size copy: ASan sees any over-read */
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, b, n);
	cur = p;
	cur_n = n;
	LLVMFuzzerTestOneInput(p, n);
	cur = NULL;
	free(p);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR RUNS [SEED]\n", argv[0]);
		return 2;
	}
	unsigned long long runs = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		rng ^= strtoull(argv[3], NULL, 10) * 0x2545f4914f6cdd1dULL;
	load(argv[1]);
	snprintf(crash_path, sizeof(crash_path), "fuzz-crash-%d", (int)getpid());
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(save_input);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint8_t *buf = malloc(FUZZ_MAX_INPUT);
	for (int i = 0; i < n_seeds; i++)
		run(seeds[i].p, seeds[i].n);
	for (unsigned long long i = 0; i < runs; i++) {
		const struct input *s = &seeds[below((size_t)n_seeds)];
		memcpy(buf, s->p, s->n);
		run(buf, mutate(buf, s->n));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	unsigned long long total = runs + (unsigned long long)n_seeds;
	printf("%s: %llu executions in %.1f s (%.0f/s) from %d seeds, no crash\n", argv[0],
	       total, secs, secs > 0 ? (double)total / secs : 0.0, n_seeds);
	free(buf);
	return 0;
}
