/* SPDX-License-Identifier: Apache-2.0 */
/* ECMAScript (CARET's std::regex) to POSIX ERE: see caret_regex.h. */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_regex.h"

#define MAX_DEPTH 32

struct tr {
	const unsigned char *p;
	size_t n, i;
	char *out;
	size_t cap, len;
	char *why;
	size_t whylen;
	int err; /* the first error */
};

static int fail(struct tr *t, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct tr *t, size_t at, const char *fmt, ...)
{
	if (t->err)
		return t->err;
	t->err = -EINVAL;
	if (t->why && t->whylen) {
		char m[160];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m, sizeof(m), fmt, ap);
		va_end(ap);
		snprintf(t->why, t->whylen, "%s at offset %zu", m, at);
	}
	return t->err;
}

static void put(struct tr *t, const char *s, size_t k)
{
	if (t->err)
		return;
	if (t->cap - t->len <= k) {
		t->err = -ENOSPC;
		if (t->why && t->whylen)
			snprintf(t->why, t->whylen, "pattern too long");
		return;
	}
	memcpy(t->out + t->len, s, k);
	t->len += k;
}

static void puts_(struct tr *t, const char *s)
{
	put(t, s, strlen(s));
}

/* A set of ASCII characters (1..127). */
struct set {
	uint8_t b[16];
};

static void set_add(struct set *s, unsigned c)
{
	s->b[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static bool set_has(const struct set *s, unsigned c)
{
	return s->b[c >> 3] & (1u << (c & 7));
}

static void set_range(struct set *s, unsigned a, unsigned z)
{
	for (unsigned c = a; c <= z; c++)
		set_add(s, c);
}

/* \d \w \s as std::regex reads them with char in the C locale. */
static void set_class(struct set *s, int k)
{
	switch (k) {
	case 'd':
		set_range(s, '0', '9');
		break;
	case 'w':
		set_range(s, '0', '9');
		set_range(s, 'A', 'Z');
		set_range(s, 'a', 'z');
		set_add(s, '_');
		break;
	case 's':
		set_range(s, '\t', '\r'); /* \t \n \v \f \r */
		set_add(s, ' ');
		break;
	}
}

/* A POSIX bracket expression for s (negated: [^...]). Characters are
 * listed one by one (no ranges: their meaning follows the locale's
 * collation); ']' first, '-' last, '^' never first, '[' never before
 * ':' '.' '='. The complement of a set is every character outside it,
 * as in std::regex for ASCII names. */
static void emit_set(struct tr *t, const struct set *s, bool neg)
{
	int count = 0, only = 0;
	for (unsigned c = 1; c < 128; c++)
		if (set_has(s, c))
			count++, only = (int)c;
	if (!neg && count == 1) {
		/* one character: a literal (also avoids "[^]") */
		char b[3] = { '\\', (char)only, 0 };
		if (strchr(".[\\()*+?{|^$", only))
			puts_(t, b);
		else
			put(t, b + 1, 1);
		return;
	}
	puts_(t, neg ? "[^" : "[");
	if (set_has(s, ']'))
		puts_(t, "]");
	for (unsigned c = 1; c < 128; c++) {
		if (!set_has(s, c) || c == ']' || c == '-' || c == '^' || c == '[')
			continue;
		char ch = (char)c;
		put(t, &ch, 1);
	}
	if (set_has(s, '^'))
		puts_(t, "^");
	if (set_has(s, '['))
		puts_(t, "[");
	if (set_has(s, '-'))
		puts_(t, "-");
	puts_(t, "]");
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				       : -1;
}

/* A character escape (after '\' at t->i, which points at the letter):
 * its value, or -1 with the error set. */
static int char_escape(struct tr *t, bool in_class)
{
	size_t at = t->i - 1;
	int c = t->p[t->i];
	switch (c) {
	case 't':
		t->i++;
		return '\t';
	case 'n':
		t->i++;
		return '\n';
	case 'v':
		t->i++;
		return '\v';
	case 'f':
		t->i++;
		return '\f';
	case 'r':
		t->i++;
		return '\r';
	case 'b':
		if (in_class) {
			t->i++;
			return '\b';
		}
		break;
	case 'B':
		if (in_class) /* std::regex refuses it there */
			return fail(t, at, "\\B inside [...]"), -1;
		break;
	case 'x': {
		int h = t->i + 2 < t->n ? hexval(t->p[t->i + 1]) : -1;
		int l = h >= 0 ? hexval(t->p[t->i + 2]) : -1;
		if (l < 0)
			return fail(t, at, "\\x needs two hexadecimal digits"), -1;
		int v = h * 16 + l;
		if (v < 1 || v > 0x7f)
			return fail(t, at, "\\x%02x is outside 01 to 7f (not supported)", v), -1;
		t->i += 3;
		return v;
	}
	case '0':
		return fail(t, at, "\\0 (NUL) is not supported"), -1;
	case 'c':
	case 'u':
		return fail(t, at, "\\%c is not supported", c), -1;
	default:
		break;
	}
	if (c >= '1' && c <= '9')
		return fail(t, at, "backreference \\%c is not supported", c), -1;
	if (c >= 0x80)
		return fail(t, at, "escaped non-ASCII byte is not supported"), -1;
	/* an identity escape: \. \\ \/ \- ..., and as libstdc++ reads
	 * ECMAScript, any other letter (\q is q) */
	t->i++;
	return c;
}

/* After '[' (t->i just past it): the bracket expression. */
static void bracket(struct tr *t)
{
	size_t start = t->i - 1;
	struct set s;
	memset(&s, 0, sizeof(s));
	bool neg = false;
	if (t->i < t->n && t->p[t->i] == '^') {
		neg = true;
		t->i++;
	}
	if (t->i < t->n && t->p[t->i] == ']') {
		fail(t, start, neg ? "[^] (any character) is not supported"
				   : "empty class [] (matches nothing) is not supported");
		return;
	}
	for (;;) {
		if (t->i >= t->n) {
			fail(t, start, "unmatched '['");
			return;
		}
		int c = t->p[t->i];
		if (c == ']') {
			t->i++;
			break;
		}
		/* one atom: a character (lo) or a class escape */
		int lo;
		bool is_class = false;
		size_t at = t->i;
		if (c == '\\') {
			t->i++;
			if (t->i >= t->n) {
				fail(t, at, "trailing backslash");
				return;
			}
			int k = t->p[t->i];
			if (k == 'd' || k == 'w' || k == 's') {
				set_class(&s, k);
				t->i++;
				is_class = true;
				lo = -1;
			} else if (k == 'D' || k == 'W' || k == 'S') {
				fail(t, at, "\\%c inside [...] is not supported", k);
				return;
			} else if ((lo = char_escape(t, true)) < 0) {
				return;
			}
		} else if (c >= 0x80) {
			fail(t, at, "non-ASCII byte inside [...] is not supported");
			return;
		} else {
			lo = c;
			t->i++;
		}
		/* a range? ("-" before "]" is a literal) */
		if (t->i + 1 < t->n && t->p[t->i] == '-' && t->p[t->i + 1] != ']') {
			if (is_class) {
				fail(t, at, "a class escape cannot start a range");
				return;
			}
			t->i++;
			int hi;
			size_t hat = t->i;
			if (t->p[t->i] == '\\') {
				t->i++;
				if (t->i >= t->n) {
					fail(t, hat, "trailing backslash");
					return;
				}
				int k = t->p[t->i];
				if (strchr("dwsDWS", k) && k) {
					fail(t, hat, "a class escape cannot end a range");
					return;
				}
				if ((hi = char_escape(t, true)) < 0)
					return;
			} else if (t->p[t->i] >= 0x80) {
				fail(t, hat, "non-ASCII byte inside [...] is not supported");
				return;
			} else {
				hi = t->p[t->i++];
			}
			if (hi < lo) {
				fail(t, at, "range out of order");
				return;
			}
			set_range(&s, (unsigned)lo, (unsigned)hi);
		} else if (!is_class) {
			set_add(&s, (unsigned)lo);
		}
	}
	emit_set(t, &s, neg);
}

/* The literal c outside brackets. */
static void literal(struct tr *t, int c)
{
	if (c < 0x80 && strchr(".[\\()*+?{|^$", c)) {
		char b[2] = { '\\', (char)c };
		put(t, b, 2);
	} else {
		char ch = (char)c;
		put(t, &ch, 1);
	}
}

/* "{n}", "{n,}", "{n,m}" at t->i: true and the bounds, or false. */
static bool braces(struct tr *t, unsigned long *lo, unsigned long *hi, bool *open)
{
	size_t i = t->i + 1;
	unsigned long a = 0, b = 0;
	size_t d = 0;
	while (i < t->n && t->p[i] >= '0' && t->p[i] <= '9' && d < 10)
		a = a * 10 + (t->p[i++] - '0'), d++;
	if (!d || d >= 10)
		return false;
	*open = false;
	b = a;
	if (i < t->n && t->p[i] == ',') {
		i++;
		d = 0;
		b = 0;
		while (i < t->n && t->p[i] >= '0' && t->p[i] <= '9' && d < 10)
			b = b * 10 + (t->p[i++] - '0'), d++;
		if (d >= 10)
			return false;
		if (!d)
			*open = true;
	}
	if (i >= t->n || t->p[i] != '}')
		return false;
	t->i = i + 1;
	*lo = a;
	*hi = b;
	return true;
}

int caret_re_translate(const char *pattern, size_t n, char *ere, size_t cap, char *why,
		       size_t whylen)
{
	struct tr t = { (const unsigned char *)pattern, n, 0, ere, cap, 0, why, whylen, 0 };
	if (!cap)
		return -ENOSPC;
	/* cost[d]: the expanded size so far of the group open at depth d;
	 * last: that of the last atom (what a quantifier repeats), 0 when
	 * there is nothing to repeat */
	unsigned long cost[MAX_DEPTH + 1] = { 0 };
	size_t open_at[MAX_DEPTH + 1], open_out[MAX_DEPTH + 1];
	int depth = 0;
	unsigned long last = 0;
	bool last_nonascii = false;
	/* where the last atom's ERE starts, and whether it is a repetition
	 * already (std::regex repeats "a*" again in "a**": so does the ERE,
	 * in parentheses) */
	size_t last_out = 0;
	bool last_q = false;
	while (t.i < t.n && !t.err) {
		size_t at = t.i, out_at = t.len;
		int c = t.p[t.i];
		unsigned long atom = 0;
		bool nonascii = false;
		switch (c) {
		case '(':
			if (depth == MAX_DEPTH) {
				fail(&t, at, "groups nested deeper than %d", MAX_DEPTH);
				break;
			}
			t.i++;
			if (t.i < t.n && t.p[t.i] == '?') {
				if (t.i + 1 < t.n && t.p[t.i + 1] == ':') {
					t.i += 2;
				} else {
					fail(&t, at, "lookahead (?= (?! and other (? groups are "
						     "not supported");
					break;
				}
			}
			open_out[depth] = t.len;
			puts_(&t, "(");
			open_at[depth] = at;
			cost[++depth] = 0;
			last = 0;
			continue;
		case ')':
			if (!depth) {
				fail(&t, at, "unmatched ')'");
				break;
			}
			t.i++;
			puts_(&t, ")");
			atom = cost[depth--] + 1;
			out_at = open_out[depth];
			break;
		case '|':
			t.i++;
			puts_(&t, "|");
			last = 0;
			continue;
		case '^':
		case '$':
			t.i++;
			put(&t, (const char *)&t.p[at], 1);
			last = 0;
			continue;
		case '*':
		case '+':
		case '?':
		case '{': {
			unsigned long lo = 0, hi = 0, times;
			bool open = true;
			if (c == '{' && !braces(&t, &lo, &hi, &open)) {
				fail(&t, at, "'{' must start a repetition {n}, {n,} or {n,m}");
				break;
			}
			if (!last) {
				fail(&t, at, "'%c' has nothing to repeat", c);
				break;
			}
			if (last_nonascii) {
				fail(&t, at, "a repetition of a non-ASCII byte is not supported");
				break;
			}
			if (last_q) {
				put(&t, "()", 2); /* room for both */
				t.len -= t.err ? 0 : 1;
				if (!t.err) {
					t.out[t.len - 1] = ')';
					memmove(t.out + last_out + 1, t.out + last_out,
						t.len - last_out);
					t.out[last_out] = '(';
					t.len++;
				}
			}
			if (c == '{') {
				if (!open && hi < lo) {
					fail(&t, at, "repetition {%lu,%lu} out of order", lo, hi);
					break;
				}
				if (lo > CARET_RE_DUP_MAX || hi > CARET_RE_DUP_MAX) {
					fail(&t, at, "repetition counts above %d are not supported",
					     CARET_RE_DUP_MAX);
					break;
				}
				char b[32];
				if (open)
					snprintf(b, sizeof(b), "{%lu,}", lo);
				else if (lo == hi)
					snprintf(b, sizeof(b), "{%lu}", lo);
				else
					snprintf(b, sizeof(b), "{%lu,%lu}", lo, hi);
				puts_(&t, b);
				times = (open ? lo : hi) + 1;
			} else {
				t.i++;
				put(&t, (const char *)&t.p[at], 1);
				times = 2;
			}
			/* non-greedy: the same matches exist (see the header) */
			if (t.i < t.n && t.p[t.i] == '?')
				t.i++;
			cost[depth] += last * (times - 1);
			last *= times;
			last_q = true;
			if (cost[depth] > CARET_RE_COST_MAX)
				fail(&t, at, "repetitions expand beyond %d (too complex)",
				     CARET_RE_COST_MAX);
			continue;
		}
		case '.':
			t.i++;
			puts_(&t, "[^\n\r]"); /* std::regex's '.' */
			atom = 1;
			break;
		case '[':
			t.i++;
			bracket(&t);
			atom = 1;
			break;
		case '\\': {
			t.i++;
			if (t.i >= t.n) {
				fail(&t, at, "trailing backslash");
				break;
			}
			int k = t.p[t.i];
			if (strchr("dwsDWS", k) && k) {
				struct set s;
				memset(&s, 0, sizeof(s));
				set_class(&s, k | 0x20);
				emit_set(&t, &s, k < 'a');
				t.i++;
				atom = 1;
				break;
			}
			if (k == 'b' || k == 'B') {
				/* GNU's \b \B: words of alphanumerics and '_', as
				 * ECMAScript's in the C locale */
				put(&t, (const char *)&t.p[at], 2);
				t.i++;
				last = 0;
				continue;
			}
			int v = char_escape(&t, false);
			if (v < 0)
				break;
			literal(&t, v);
			atom = 1;
			break;
		}
		default:
			t.i++;
			literal(&t, c);
			atom = 1;
			nonascii = c >= 0x80;
			break;
		}
		if (t.err)
			break;
		cost[depth] += atom;
		last = atom;
		last_nonascii = nonascii;
		last_out = out_at;
		last_q = false;
		if (cost[depth] > CARET_RE_COST_MAX)
			fail(&t, at, "repetitions expand beyond %d (too complex)", CARET_RE_COST_MAX);
	}
	if (!t.err && depth)
		fail(&t, open_at[depth - 1], "unmatched '('");
	if (t.err)
		return t.err;
	ere[t.len] = '\0';
	return 0;
}

int caret_re_check_list(const char *list, char *why, size_t whylen)
{
	if (!list || !*list)
		return 0;
	const char *p = list;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!(len == 1 && *p == '*')) {
			size_t cap = CARET_RE_ERE_CAP(len);
			char *ere = malloc(cap);
			if (!ere)
				return -ENOMEM;
			char w[200] = "";
			int r = caret_re_translate(p, len, ere, cap, w, sizeof(w));
			if (r == 0) {
				regex_t re;
				int rc = regcomp(&re, ere, REG_EXTENDED | REG_NOSUB);
				if (rc == 0) {
					regfree(&re);
				} else {
					char m[120];
					regerror(rc, &re, m, sizeof(m));
					snprintf(w, sizeof(w), "%s", m);
					r = -EINVAL;
				}
			}
			free(ere);
			if (r < 0) {
				if (why && whylen)
					snprintf(why, whylen, "regular expression \"%.*s\": %s",
						 (int)(len > 100 ? 100 : len), p, w);
				return r == -ENOSPC ? -EINVAL : r;
			}
		}
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}
