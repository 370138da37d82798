/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Build-time generator: expands CARET_KINDS and CARET_STATES of
 * proto/caret_segment.h into the files that must list every init-record kind
 * (written to build/gen by the Makefile, never committed):
 *
 *   tp-events   caret_tp_events.h   the ros2_caret LTTng event of each kind
 *   tp-emit     caret_tp_emit.h     the provider's emit switch
 *   capture     caret_capture.h     typed capture functions (the packing of
 *                                   hook arguments into a record)
 *   init-hooks  caret_init_hooks.h  the tracetools hooks of the kinds marked
 *                                   TRACETOOLS
 *   python      caret_kinds.py      kinds, states and the segment's layout
 *                                   (header and record header fields: offset
 *                                   and struct format) for the Python tests
 *
 * The signature letter of a field gives everything else: its C type in
 * the hook, its record encoding and its LTTng field type ('p' const void *
 * as integer_hex, 'i' int64_t, 'u' uint64_t, 's' string). A kind is added
 * by one line in CARET_KINDS; its hook is generated when the line ends
 * with TRACETOOLS, else the agent's own code calls caret_capture_<name>.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_segment.h"

struct kind {
	unsigned id;
	const char *name, *sig, *fields;
	int tracetools;
};

static const struct kind kinds[] = {
#define KIND_(id, name, sig, fields, ...) { id, #name, sig, fields, sizeof(#__VA_ARGS__) > 1 },
	CARET_KINDS(KIND_)
#undef KIND_
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct {
	unsigned v;
	const char *name;
} states[] = {
#define STATE_(v, name) { v, #name },
	CARET_STATES(STATE_)
#undef STATE_
};

/* Field i of a kind's comma-separated names into buf. */
static const char *field(const struct kind *k, unsigned i, char *buf, size_t len)
{
	const char *p = k->fields;
	for (unsigned j = 0; j < i; j++)
		p = strchr(p, ',') + 1;
	size_t n = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

static const char *ctype(char c)
{
	return c == 'p' ? "const void *" : c == 's' ? "const char *" : c == 'i' ? "int64_t" : "uint64_t";
}

/* The same, ready to be followed by a name. */
static const char *cdecl(char c)
{
	return c == 'p' ? "const void *" : c == 's' ? "const char *" : c == 'i' ? "int64_t " : "uint64_t ";
}

/* Fails the build on a table the rest of the code could not handle. */
static int check(void)
{
	int bad = 0;
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		size_t nf = strlen(k->sig), commas = 0;
		for (const char *p = k->fields; *p; p++)
			commas += *p == ',';
		if (nf == 0 || nf > CARET_MAX_FIELDS || commas + 1 != nf ||
		    strspn(k->sig, "pius") != nf) {
			fprintf(stderr, "gen_kinds: kind %u (%s): bad signature or fields\n",
				k->id, k->name);
			bad = 1;
		}
		if (k->id != i + 1) {
			fprintf(stderr, "gen_kinds: kind %s has id %u, expected %zu (ids are dense)\n",
				k->name, k->id, i + 1);
			bad = 1;
		}
	}
	return bad;
}

static void tp_events(void)
{
	char f[64];
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		printf("LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, %s,\n\tLTTNG_UST_TP_ARGS(", k->name);
		for (unsigned j = 0; k->sig[j]; j++)
			printf("%s, %s_arg, ", ctype(k->sig[j]), field(k, j, f, sizeof(f)));
		printf("int64_t, init_timestamp_arg),\n\tLTTNG_UST_TP_FIELDS(\n");
		for (unsigned j = 0; k->sig[j]; j++) {
			field(k, j, f, sizeof(f));
			char c = k->sig[j];
			if (c == 'p')
				printf("\t\tlttng_ust_field_integer_hex(const void *, %s, %s_arg)\n", f, f);
			else if (c == 's')
				printf("\t\tlttng_ust_field_string(%s, %s_arg)\n", f, f);
			else
				printf("\t\tlttng_ust_field_integer(%s, %s, %s_arg)\n", ctype(c), f, f);
		}
		printf("\t\tlttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))\n\n");
	}
}

static void tp_emit(void)
{
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		printf("case CARET_KIND_%s:\n\tlttng_ust_tracepoint(ros2_caret, %s", k->name, k->name);
		for (unsigned j = 0; k->sig[j]; j++) {
			char c = k->sig[j];
			if (c == 'p')
				printf(", (const void *)(uintptr_t)v[%u].u", j);
			else if (c == 's')
				printf(", v[%u].s", j);
			else if (c == 'i')
				printf(", (int64_t)v[%u].u", j);
			else
				printf(", v[%u].u", j);
		}
		printf(", ts);\n\tbreak;\n");
	}
}

/* Parameter names get a trailing '_': field names such as `namespace`
 * are fine in C but not as C++ identifiers, and this header may meet a
 * C++ compiler one day. */
static void params(const struct kind *k, int types)
{
	char f[64];
	for (unsigned j = 0; k->sig[j]; j++)
		printf("%s%s%s_", j ? ", " : "", types ? cdecl(k->sig[j]) : "",
		       field(k, j, f, sizeof(f)));
}

static void capture(void)
{
	char f[64];
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		printf("static inline bool caret_capture_%s(", k->name);
		params(k, 1);
		printf(")\n{\n\tunion caret_arg a[] = { ");
		for (unsigned j = 0; k->sig[j]; j++) {
			char c = k->sig[j];
			printf("%s%s(%s_)", j ? ", " : "", c == 'p' ? "CARET_P" : c == 's' ? "CARET_S" : "CARET_I",
			       field(k, j, f, sizeof(f)));
		}
		printf(" };\n\treturn caret_capture(CARET_KIND_%s, a);\n}\n\n", k->name);
	}
}

static void init_hooks(void)
{
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		if (!k->tracetools)
			continue;
		printf("CARET_INIT_HOOK(%s, (", k->name);
		params(k, 1);
		printf("), (");
		params(k, 0);
		printf("))\n");
	}
}

/* A field of a layout struct as Python's struct module packs it: its
 * offset and format, taken from the compiler's view of proto/caret_segment.h
 * (arrays as bytes), so no test holds a copy of the layout. */
#define PY_FMT_(x)                                                                  \
	_Generic((x), uint64_t: "Q", int64_t: "q", uint32_t: "I", int32_t: "i", \
		 default: "s")
#define PY_FIELD_(type, f)                                                         \
	printf("    \"%s\": (%zu, \"%s%s\"),\n", #f, offsetof(struct type, f),      \
	       PY_FMT_(((struct type *)0)->f)[0] == 's' ? size_str(sizeof(((struct type *)0)->f)) \
							 : "",                            \
	       PY_FMT_(((struct type *)0)->f))

static const char *size_str(size_t n)
{
	static char buf[24];
	snprintf(buf, sizeof(buf), "%zu", n);
	return buf;
}

static void python_layout(void)
{
	printf("SHM_MAGIC = 0x%llx\n", (unsigned long long)CARET_SHM_MAGIC);
	printf("SHM_LAYOUT_VERSION = %u\n", CARET_SHM_LAYOUT_VERSION);
	printf("SHM_HEADER_SIZE = %u\n", CARET_SHM_HEADER_SIZE);
	printf("SHM_FILTER_OFFSET = %u\n", CARET_SHM_FILTER_OFFSET);
	printf("REC_ALIGN = %u\n", CARET_REC_ALIGN);
	printf("# struct caret_shm_header: {field: (offset, struct format)}, little-endian\n");
	printf("SHM_HEADER = {\n");
#define H_(f) PY_FIELD_(caret_shm_header, f);
	H_(magic) H_(layout_version) H_(header_size) H_(capacity) H_(pid) H_(uid)
	H_(start_time) H_(procname) H_(distribution) H_(created_ns) H_(state) H_(doorbell)
	H_(grant) H_(cursor) H_(tp_enabled_epoch) H_(progress) H_(tail) H_(records)
	H_(dropped) H_(dropped_bytes) H_(replayed) H_(agent_flags) H_(ctrl_flags)
	H_(watched) H_(ctr_slots) H_(ctr_offset) H_(ctr_lost)
#undef H_
	printf("}\n# struct caret_rec_hdr, the same way\nREC_HEADER = {\n");
	PY_FIELD_(caret_rec_hdr, kind);
	PY_FIELD_(caret_rec_hdr, size);
	PY_FIELD_(caret_rec_hdr, init_timestamp);
	PY_FIELD_(caret_rec_hdr, claim);
	printf("}\nREC_HEADER_SIZE = %zu\n", sizeof(struct caret_rec_hdr));
}

static void python(void)
{
	char f[64];
	printf("# Generated from proto/caret_segment.h by proto/gen/gen_kinds.c: do not edit.\n");
	printf("# (id, name, signature, field names, hooked in tracetools)\n");
	printf("KINDS = [\n");
	for (size_t i = 0; i < NKINDS; i++) {
		const struct kind *k = &kinds[i];
		printf("    (%u, \"%s\", \"%s\", (", k->id, k->name, k->sig);
		for (unsigned j = 0; k->sig[j]; j++)
			printf("\"%s\", ", field(k, j, f, sizeof(f)));
		printf("), %s),\n", k->tracetools ? "True" : "False");
	}
	printf("]\nINIT_KINDS = [k[1] for k in KINDS]\n");
	printf("STATES = {");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		printf("%s%u: \"%s\"", i ? ", " : "", states[i].v, states[i].name);
	printf("}\n");
	python_layout();
}

int main(int argc, char **argv)
{
	if (argc != 2 || check())
		return 1;
	const char *m = argv[1];
	if (strcmp(m, "python") != 0)
		printf("/* Generated from proto/caret_segment.h by proto/gen/gen_kinds.c: do not edit. */\n");
	if (!strcmp(m, "tp-events"))
		tp_events();
	else if (!strcmp(m, "tp-emit"))
		tp_emit();
	else if (!strcmp(m, "capture"))
		capture();
	else if (!strcmp(m, "init-hooks"))
		init_hooks();
	else if (!strcmp(m, "python"))
		python();
	else
		return 1;
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
