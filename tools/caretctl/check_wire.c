/* SPDX-License-Identifier: Apache-2.0 */
/* The check child's report on the pipe, and the metadata preflight. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_wire.h"

static const uint8_t MAGIC[4] = { 'C', 'K', 'R', '1' };
enum { KIND_REPORT = 0, KIND_ERROR = 1 };

static void put(struct check_buf *b, const void *v, size_t n)
{
	if (b->err)
		return;
	if (b->cap - b->n < n) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap - b->n < n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

void check_wire_append(struct check_buf *b, const void *v, size_t n)
{
	put(b, v, n);
}

static void put_u64(struct check_buf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 8);
}

static void put_u32(struct check_buf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 4);
}

static void put_u8(struct check_buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_strn(struct check_buf *b, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	put_u32(b, (uint32_t)n);
	put(b, s, n);
}

static void put_str(struct check_buf *b, const char *s)
{
	put_strn(b, s, CHECK_WIRE_STR_MAX);
}

static void put_proc(struct check_buf *b, const struct check_proc *p)
{
	put_u64(b, (uint64_t)p->vpid);
	put_strn(b, p->procname, sizeof(p->procname) - 1);
	put_u8(b, p->caret_init);
	for (size_t k = 0; k < CHECK_MAX_KINDS; k++)
		put_u64(b, p->init[k]);
	put_u64(b, p->init_total);
	for (size_t k = 0; k < CHECK_MAX_KINDS; k++)
		put_u64(b, p->dup[k]);
	for (size_t k = 0; k < CHECK_MAX_LINKS; k++)
		put_u64(b, p->missing[k]);
	put_u64(b, p->missing_total);
	const uint64_t rest[] = { p->dup_total,	 p->both_variants,     p->runtime,
				  p->events,	 p->publishes,	       p->unbound_publishes,
				  p->bindings,	 p->unmatched_bindings, p->filtered_registers,
				  p->passes,	 p->passes_whole,	p->cut_pass,
				  p->cut_arrived, p->cut_records,	p->cut_ended };
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		put_u64(b, rest[i]);
}

static void put_counts(struct check_buf *b, const struct check_evcount *e, size_t n)
{
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put_str(b, e[i].name);
		put_u64(b, e[i].count);
	}
}

void check_wire_report(struct check_buf *b, const struct check_report *r)
{
	put(b, MAGIC, 4);
	put_u8(b, KIND_REPORT);
	const uint64_t head[] = { r->events,	     r->discarded_events, r->discarded_unknown,
				  r->discarded_msgs, r->lost_packets,	  r->lost_unknown,
				  (uint64_t)r->first_ns, (uint64_t)r->last_ns };
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		put_u64(b, head[i]);
	put_u8(b, r->any_caret_init);
	for (size_t i = 0; i < CHECK_NCTX; i++)
		put_u64(b, r->no_context[i]);
	put_u32(b, (uint32_t)r->nprocs);
	for (size_t i = 0; i < r->nprocs; i++)
		put_proc(b, &r->procs[i]);
	put_u32(b, (uint32_t)r->nnodes);
	for (size_t i = 0; i < r->nnodes; i++) {
		put_u64(b, (uint64_t)r->nodes[i].vpid);
		put_str(b, r->nodes[i].name);
	}
	put_u32(b, (uint32_t)r->ntopics);
	for (size_t i = 0; i < r->ntopics; i++) {
		put_str(b, r->topics[i].name);
		put_u64(b, r->topics[i].publishers);
		put_u64(b, r->topics[i].subscriptions);
	}
	put_counts(b, r->evcounts, r->nevcounts);
	put_counts(b, r->tracepoints, r->ntracepoints);
	put_counts(b, r->node_events, r->nnode_events);
	put_counts(b, r->topic_events, r->ntopic_events);
}

void check_wire_error(struct check_buf *b, int rc, const char *msg)
{
	put(b, MAGIC, 4);
	put_u8(b, KIND_ERROR);
	put_u32(b, (uint32_t)(int32_t)rc);
	put_strn(b, msg, 1023);
}

/* ---- decoding: every length and count is checked against what is left */

struct rd {
	const uint8_t *p;
	size_t n, off;
	const char *bad; /* the first thing found wrong */
};

static bool take(struct rd *r, void *v, size_t n, const char *what)
{
	if (r->bad)
		return false;
	if (r->n - r->off < n) {
		r->bad = what;
		return false;
	}
	if (v)
		memcpy(v, r->p + r->off, n);
	r->off += n;
	return true;
}

static uint64_t get_u64(struct rd *r, const char *what)
{
	uint8_t x[8] = { 0 };
	take(r, x, 8, what);
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | x[i];
	return v;
}

static uint32_t get_u32(struct rd *r, const char *what)
{
	uint8_t x[4] = { 0 };
	take(r, x, 4, what);
	return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

static bool get_bool(struct rd *r, const char *what)
{
	uint8_t v = 0;
	if (take(r, &v, 1, what) && v > 1)
		r->bad = what;
	return v == 1;
}

/* A string of at most max bytes (no NUL) into a new allocation or buf. */
static char *get_str(struct rd *r, char *buf, size_t max, const char *what)
{
	uint32_t n = get_u32(r, what);
	if (r->bad)
		return NULL;
	if (n > max || n > r->n - r->off || memchr(r->p + r->off, 0, n)) {
		r->bad = what;
		return NULL;
	}
	char *s = buf ? buf : malloc((size_t)n + 1);
	if (!s)
		return NULL;
	memcpy(s, r->p + r->off, n);
	s[n] = '\0';
	r->off += n;
	return s;
}

/* A count of elements, each at least min_size bytes: bounded by the input. */
static size_t get_count(struct rd *r, size_t min_size, const char *what)
{
	uint32_t n = get_u32(r, what);
	if (!r->bad && n > (r->n - r->off) / min_size)
		r->bad = what;
	return r->bad ? 0 : n;
}

void check_wire_free(struct check_report *r)
{
	for (size_t i = 0; r->nodes && i < r->nnodes; i++)
		free(r->nodes[i].name);
	for (size_t i = 0; r->topics && i < r->ntopics; i++)
		free(r->topics[i].name);
	struct check_evcount *lists[] = { r->evcounts, r->tracepoints, r->node_events,
					  r->topic_events };
	size_t nlists[] = { r->nevcounts, r->ntracepoints, r->nnode_events, r->ntopic_events };
	for (size_t l = 0; l < 4; l++) {
		for (size_t i = 0; lists[l] && i < nlists[l]; i++)
			free(lists[l][i].name);
		free(lists[l]);
	}
	free(r->procs);
	free(r->nodes);
	free(r->topics);
	memset(r, 0, sizeof(*r));
}

/* A list of names and counts: what says what is wrong is `what`. */
static int get_counts(struct rd *rd, struct check_evcount **out, size_t *nout, const char *what)
{
	size_t n = get_count(rd, 4 + 8, what);
	if (n && !(*out = calloc(n, sizeof(**out))))
		return -ENOMEM;
	for (; *nout < n && !rd->bad; (*nout)++) {
		struct check_evcount *e = &(*out)[*nout];
		if (!(e->name = get_str(rd, NULL, CHECK_WIRE_STR_MAX, what)))
			return rd->bad ? -EBADMSG : -ENOMEM;
		e->count = get_u64(rd, what);
	}
	return rd->bad ? -EBADMSG : 0;
}

#define PROC_MIN (8 + 4 + 1 + 8 * (2 * CHECK_MAX_KINDS + CHECK_MAX_LINKS + 17))

static int decode_report(struct rd *rd, struct check_report *r)
{
	uint64_t head[8];
	for (size_t i = 0; i < 8; i++)
		head[i] = get_u64(rd, "header");
	r->events = head[0];
	r->discarded_events = head[1];
	r->discarded_unknown = head[2];
	r->discarded_msgs = head[3];
	r->lost_packets = head[4];
	r->lost_unknown = head[5];
	r->first_ns = (int64_t)head[6];
	r->last_ns = (int64_t)head[7];
	r->any_caret_init = get_bool(rd, "header");
	for (size_t i = 0; i < CHECK_NCTX; i++)
		r->no_context[i] = get_u64(rd, "header");

	size_t n = get_count(rd, PROC_MIN, "process count");
	if (n && !(r->procs = calloc(n, sizeof(*r->procs))))
		return -ENOMEM;
	for (; r->nprocs < n && !rd->bad; r->nprocs++) {
		struct check_proc *p = &r->procs[r->nprocs];
		p->vpid = (int64_t)get_u64(rd, "process");
		get_str(rd, p->procname, sizeof(p->procname) - 1, "process name");
		p->caret_init = get_bool(rd, "process");
		for (size_t k = 0; k < CHECK_MAX_KINDS; k++)
			p->init[k] = get_u64(rd, "process");
		p->init_total = get_u64(rd, "process");
		for (size_t k = 0; k < CHECK_MAX_KINDS; k++)
			p->dup[k] = get_u64(rd, "process");
		for (size_t k = 0; k < CHECK_MAX_LINKS; k++)
			p->missing[k] = get_u64(rd, "process");
		p->missing_total = get_u64(rd, "process");
		uint64_t *rest[] = { &p->dup_total, &p->both_variants,	   &p->runtime,
				     &p->events,    &p->publishes,	   &p->unbound_publishes,
				     &p->bindings,  &p->unmatched_bindings, &p->filtered_registers,
				     &p->passes,    &p->passes_whole,	   &p->cut_pass,
				     &p->cut_arrived, &p->cut_records,	   &p->cut_ended };
		for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
			*rest[i] = get_u64(rd, "process");
	}
	n = get_count(rd, 8 + 4, "node count");
	if (n && !(r->nodes = calloc(n, sizeof(*r->nodes))))
		return -ENOMEM;
	for (; r->nnodes < n && !rd->bad; r->nnodes++) {
		r->nodes[r->nnodes].vpid = (int64_t)get_u64(rd, "node");
		if (!(r->nodes[r->nnodes].name = get_str(rd, NULL, CHECK_WIRE_STR_MAX, "node name")))
			return rd->bad ? -EBADMSG : -ENOMEM;
	}
	n = get_count(rd, 4 + 16, "topic count");
	if (n && !(r->topics = calloc(n, sizeof(*r->topics))))
		return -ENOMEM;
	for (; r->ntopics < n && !rd->bad; r->ntopics++) {
		struct check_topic *t = &r->topics[r->ntopics];
		if (!(t->name = get_str(rd, NULL, CHECK_WIRE_STR_MAX, "topic name")))
			return rd->bad ? -EBADMSG : -ENOMEM;
		t->publishers = get_u64(rd, "topic");
		t->subscriptions = get_u64(rd, "topic");
	}
	int rc;
	if ((rc = get_counts(rd, &r->evcounts, &r->nevcounts, "event kind")) < 0 ||
	    (rc = get_counts(rd, &r->tracepoints, &r->ntracepoints, "trace point")) < 0 ||
	    (rc = get_counts(rd, &r->node_events, &r->nnode_events, "node summary")) < 0 ||
	    (rc = get_counts(rd, &r->topic_events, &r->ntopic_events, "topic summary")) < 0)
		return rc;
	if (!rd->bad && rd->off != rd->n)
		rd->bad = "trailing bytes";
	return rd->bad ? -EBADMSG : 0;
}

int check_wire_decode(const uint8_t *p, size_t n, struct check_report *out, char *err,
		      size_t errlen)
{
	struct rd rd = { p, n, 0, NULL };
	uint8_t magic[4], kind = 0xff;
	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (!take(&rd, magic, 4, "magic") || memcmp(magic, MAGIC, 4) != 0 ||
	    !take(&rd, &kind, 1, "kind") || kind > KIND_ERROR) {
		snprintf(err, errlen, "the trace reader's answer is malformed (%zu bytes, %s)", n,
			 n == 0 ? "empty" : "bad header");
		return -EBADMSG;
	}
	if (kind == KIND_ERROR) {
		int32_t rc = (int32_t)get_u32(&rd, "error");
		char msg[1024];
		if (!get_str(&rd, msg, sizeof(msg) - 1, "error message") || rd.off != rd.n ||
		    rc >= 0 || rc < -4095) {
			snprintf(err, errlen, "the trace reader's error is malformed");
			return -EBADMSG;
		}
		snprintf(err, errlen, "%s", msg);
		return rc;
	}
	int rc = decode_report(&rd, out);
	if (rc < 0) {
		check_wire_free(out);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen, "the trace reader's answer is malformed (%s at byte %zu)",
				 rd.bad, rd.off);
	}
	return rc;
}

/* ---- metadata preflight ---- */

/* CTF 1.8 packetized metadata header (LTTng's): magic, uuid[16], checksum,
 * content_size and packet_size in bits, compression, encryption and
 * checksum schemes, major, minor. */
#define META_MAGIC 0x75D11D57u
#define META_HDR 37u

static uint32_t rd32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

int check_meta_buf(const uint8_t *p, size_t n, char *err, size_t errlen)
{
	if (n < 4) {
		snprintf(err, errlen, "metadata file truncated: %zu bytes", n);
		return -EBADMSG;
	}
	bool be;
	if (rd32(p, false) == META_MAGIC)
		be = false;
	else if (rd32(p, true) == META_MAGIC)
		be = true;
	else if (n >= 9 && memcmp(p, "/* CTF 1.", 9) == 0)
		return 0; /* plain text: only the timeout guards it */
	else {
		snprintf(err, errlen, "not CTF metadata (neither a packet header nor "
				      "\"/* CTF 1.\" at its start)");
		return -EBADMSG;
	}
	size_t off = 0, npk = 0;
	while (off < n) {
		if (n - off < META_HDR) {
			snprintf(err, errlen, "metadata truncated: packet %zu at byte %zu has only "
				 "%zu of its %u header bytes", npk, off, n - off, META_HDR);
			return -EBADMSG;
		}
		const uint8_t *h = p + off;
		uint32_t magic = rd32(h, be), content = rd32(h + 24, be), size = rd32(h + 28, be);
		if (magic != META_MAGIC) {
			snprintf(err, errlen, "metadata corrupt: packet %zu at byte %zu has no "
				 "packet magic", npk, off);
			return -EBADMSG;
		}
		if (content % 8 || size % 8 || content < META_HDR * 8 || content > size) {
			snprintf(err, errlen, "metadata corrupt: packet %zu at byte %zu claims "
				 "content %u bits in a packet of %u bits", npk, off, content, size);
			return -EBADMSG;
		}
		if (h[32] || h[33] || h[34]) {
			snprintf(err, errlen, "metadata packet %zu at byte %zu: compressed, "
				 "encrypted or checksummed metadata is not supported", npk, off);
			return -EBADMSG;
		}
		/* The content must be whole; the last packet's padding may be
		 * missing (babeltrace2 reads such a file). */
		if (n - off < content / 8) {
			snprintf(err, errlen, "metadata truncated: packet %zu at byte %zu holds "
				 "%u bytes of text and metadata but the file ends %zu bytes into "
				 "it (the recording was cut off, or the file was copied while "
				 "being written)", npk, off, content / 8, n - off);
			return -EBADMSG;
		}
		off += n - off < size / 8 ? n - off : size / 8;
		npk++;
	}
	return 0;
}

int check_meta_preflight(const char *path, char *err, size_t errlen)
{
	/* the metadata of one trace, not anything a link points to */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	/* LTTng's metadata is kilobytes; a huge one is read by babeltrace2
	 * alone (bounded by the timeout). */
	size_t n = st.st_size > (off_t)(64 << 20) ? (size_t)(64 << 20) : (size_t)st.st_size;
	uint8_t *p = malloc(n ? n : 1);
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	int rc = 0;
	if (st.st_size <= (off_t)(64 << 20)) {
		char why[400];
		rc = check_meta_buf(p, got, why, sizeof(why));
		if (rc < 0)
			snprintf(err, errlen, "%s: %s", path, why);
	}
	free(p);
	return rc;
}
