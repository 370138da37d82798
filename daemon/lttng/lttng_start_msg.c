/* SPDX-License-Identifier: Apache-2.0 */
/* The start helper's messages (daemon/lttng/lttng_start_msg.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "daemon/lttng/lttng_start_msg.h"

#define MAGIC 0x31534c43u /* "CLS1": a change of layout is another magic */
#define NO_STRING UINT32_MAX

enum {
	F_LIGHT = 1 << 0,
	F_PRE_IRON = 1 << 1,
	F_APPEND = 1 << 2,
	F_ARMED = 1 << 3,
	F_ARMED_OPEN = 1 << 4,
	F_SNAPSHOT = 1 << 5,
	F_AS = 1 << 6,
	F_SEL = 1 << 7,
};

/* Both ends are the same build of caretd: the layout needs no byte order. */
struct wire {
	uint32_t magic;
	uint32_t flags;
	uint32_t ust_given;
	uint32_t subbuf_count;
	uint64_t subbuf_size, subbuf_size_kernel;
	uint32_t uid, gid;
	int32_t n_groups;
	int32_t n[4]; /* the selection's ust, context, kernel, syscall */
	uint32_t groups[LTTNG_START_MAX_GROUPS];
};

struct out {
	char *p;
	size_t len, cap;
	bool full;
};

static void put(struct out *o, const void *v, size_t n)
{
	if (o->full || o->cap - o->len < n) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, v, n);
	o->len += n;
}

static void put_str(struct out *o, const char *s)
{
	uint32_t n = s ? (uint32_t)strnlen(s, LTTNG_START_MSG_MAX) : NO_STRING;
	put(o, &n, sizeof(n));
	if (s)
		put(o, s, (size_t)n + 1);
}

static const char *const *sel_list(const struct caret_ctl_sel *s, int k)
{
	return k == 0 ? s->ust : k == 1 ? s->context : k == 2 ? s->kernel : s->syscall;
}

static int sel_count(const struct caret_ctl_sel *s, int k)
{
	return k == 0 ? s->n_ust : k == 1 ? s->n_context : k == 2 ? s->n_kernel : s->n_syscall;
}

/* the helper tells a drop from a request by its first byte, the magic's
 * in either byte order */
_Static_assert((MAGIC & 0xff) != LTTNG_START_DROP && (MAGIC >> 24) != LTTNG_START_DROP,
	       "a request's first byte is never a drop's");

ssize_t lttng_start_msg_pack(const struct caret_lttng_cfg *cfg, void *buf, size_t cap)
{
	struct wire w = { .magic = MAGIC, .subbuf_size = cfg->subbuf_size,
			  .subbuf_count = cfg->subbuf_count };
	w.flags = (cfg->light ? F_LIGHT : 0) | (cfg->light_pre_iron ? F_PRE_IRON : 0) |
		  (cfg->append ? F_APPEND : 0) | (cfg->armed ? F_ARMED : 0) |
		  (cfg->armed_open ? F_ARMED_OPEN : 0) | (cfg->snapshot ? F_SNAPSHOT : 0) |
		  (cfg->as ? F_AS : 0) | (cfg->sel ? F_SEL : 0);
	if (cfg->as) {
		if (cfg->as->n_groups > LTTNG_START_MAX_GROUPS)
			return -E2BIG;
		w.uid = cfg->as->uid;
		w.gid = cfg->as->gid;
		w.n_groups = cfg->as->groups ? cfg->as->n_groups : -1;
		for (int i = 0; i < w.n_groups; i++)
			w.groups[i] = cfg->as->groups[i];
	}
	const struct caret_ctl_sel *s = cfg->sel;
	if (s) {
		w.ust_given = s->ust_given;
		w.subbuf_size_kernel = s->subbuf_size_kernel;
		for (int k = 0; k < 4; k++) {
			w.n[k] = sel_count(s, k);
			if (w.n[k] < 0 || w.n[k] > CARET_CTL_SEL_MAX)
				return -E2BIG;
		}
	}
	struct out o = { .p = buf, .cap = cap };
	put(&o, &w, sizeof(w));
	put_str(&o, cfg->session);
	put_str(&o, cfg->path);
	put_str(&o, cfg->url);
	for (int k = 0; s && k < 4; k++)
		for (int i = 0; i < w.n[k]; i++)
			put_str(&o, sel_list(s, k)[i]);
	return o.full ? -E2BIG : (ssize_t)o.len;
}

struct in {
	const char *p;
	size_t len, at;
	char *strings;
	size_t used;
	bool bad;
};

/* The next string, copied into the request (NULL: none was sent). */
static const char *get_str(struct in *in)
{
	uint32_t n;
	if (in->bad || in->len - in->at < sizeof(n)) {
		in->bad = true;
		return NULL;
	}
	memcpy(&n, in->p + in->at, sizeof(n));
	in->at += sizeof(n);
	if (n == NO_STRING)
		return NULL;
	if (n >= LTTNG_START_MSG_MAX || in->len - in->at < (size_t)n + 1 ||
	    in->p[in->at + n] != '\0' || memchr(in->p + in->at, '\0', n) ||
	    LTTNG_START_MSG_MAX - in->used < (size_t)n + 1) {
		in->bad = true;
		return NULL;
	}
	char *s = in->strings + in->used;
	memcpy(s, in->p + in->at, (size_t)n + 1);
	in->at += (size_t)n + 1;
	in->used += (size_t)n + 1;
	return s;
}

static void unpack_sel(struct in *in, const struct wire *w, struct caret_ctl_sel *s)
{
	*s = (struct caret_ctl_sel){ .ust_given = w->ust_given != 0,
				     .subbuf_size_kernel = w->subbuf_size_kernel,
				     .n_ust = w->n[0], .n_context = w->n[1],
				     .n_kernel = w->n[2], .n_syscall = w->n[3] };
	const char **lists[4] = { s->ust, s->context, s->kernel, s->syscall };
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < w->n[k]; i++)
			if (!(lists[k][i] = get_str(in)))
				in->bad = true;
}

int lttng_start_msg_unpack(const void *buf, size_t len, struct lttng_start_req *req)
{
	struct wire w;
	if (len < sizeof(w) || len > LTTNG_START_MSG_MAX)
		return -EPROTO;
	memcpy(&w, buf, sizeof(w));
	if (w.magic != MAGIC || w.n_groups > LTTNG_START_MAX_GROUPS || w.n_groups < -1)
		return -EPROTO;
	for (int k = 0; k < 4; k++)
		if (w.n[k] < 0 || w.n[k] > CARET_CTL_SEL_MAX)
			return -EPROTO;
	memset(&req->cfg, 0, sizeof(req->cfg));
	struct in in = { .p = buf, .len = len, .at = sizeof(w), .strings = req->strings };
	struct caret_lttng_cfg *c = &req->cfg;
	c->session = get_str(&in);
	c->path = get_str(&in);
	c->url = get_str(&in);
	c->light = w.flags & F_LIGHT;
	c->light_pre_iron = w.flags & F_PRE_IRON;
	c->append = w.flags & F_APPEND;
	c->armed = w.flags & F_ARMED;
	c->armed_open = w.flags & F_ARMED_OPEN;
	c->snapshot = w.flags & F_SNAPSHOT;
	c->subbuf_size = w.subbuf_size;
	c->subbuf_count = w.subbuf_count;
	if (w.flags & F_AS) {
		for (int i = 0; i < w.n_groups; i++)
			req->groups[i] = w.groups[i];
		req->as = (struct creds_id){ .uid = w.uid, .gid = w.gid, .n_groups = w.n_groups,
					     .groups = w.n_groups >= 0 ? req->groups : NULL };
		c->as = &req->as;
	}
	if (w.flags & F_SEL) {
		unpack_sel(&in, &w, &req->sel);
		c->sel = &req->sel;
	}
	req->dir = (struct caret_lttng_dir_id){ 0 };
	c->dir_out = &req->dir;
	return in.bad || in.at != len ? -EPROTO : 0;
}

int lttng_start_url_host(const char *ident, char *buf, size_t len)
{
	const char *h = ident ? strstr(ident, "://") : NULL;
	if (!h || ident[0] == '/')
		return -EINVAL;
	h += 3;
	size_t n;
	if (*h == '[') { /* net6://[::1]:port */
		h++;
		n = strcspn(h, "]");
		if (h[n] != ']')
			return -EINVAL;
	} else {
		n = strcspn(h, ":/");
	}
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(buf, h, n);
	buf[n] = '\0';
	return 0;
}

bool lttng_start_drop_ours(const char *name, const char *ident, const char *out,
			   const char *host)
{
	if (!name || !name[0] || !ident || !ident[0] || !out || !out[0])
		return false;
	if (ident[0] != '/') {
		char h[256];
		if (out[0] == '/' || lttng_start_url_host(ident, h, sizeof(h)) < 0)
			return false;
		return strstr(out, host ? host : h) != NULL;
	}
	size_t plen = strlen(ident);
	while (plen > 1 && ident[plen - 1] == '/')
		plen--;
	if (plen == 1)
		plen = 0; /* "/": the trace is /name */
	size_t nlen = strlen(name);
	if (strncmp(out, ident, plen) || out[plen] != '/' || strncmp(out + plen + 1, name, nlen))
		return false;
	const char *rest = out + plen + 1 + nlen;
	return !rest[0] || !strcmp(rest, "/") || !strncmp(rest, "/append-", 8);
}
