/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stand-in's sertype_rmw / serdata_rmw (see cdds_serdata.h). The ops
 * do what upstream's do for a keyless ROS type: a serdata is the CDR
 * bytes, padded to a multiple of 4 (serdata_rmw::resize); to_sample
 * deserializes into the ROS message; keys are trivial. The sample type is
 * struct standin_sample and the CDR is standin_cdr.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/q_radmin.h>

#include "tools/standin/rmw/cdds_serdata.h"
#include "tools/standin/rmw/standin_cdr.h"

struct st {
	struct ddsi_sertype c;
	bool request_header;
};

static bool is_request(const struct ddsi_sertype *t)
{
	return ((const struct st *)t)->request_header;
}

struct sd {
	struct ddsi_serdata c;
	size_t size;
	unsigned char *data;
};

static struct sd *sd_new(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, size_t size)
{
	struct sd *d = calloc(1, sizeof(*d));
	/* CDR padding: upstream rounds up so DDSI never reads past the end. */
	size_t padded = (size + 3) & ~(size_t)3;

	if (!d)
		return NULL;
	ddsi_serdata_init(&d->c, type, kind);
	if (padded) {
		d->data = calloc(1, padded);
		if (!d->data) {
			free(d);
			return NULL;
		}
	}
	d->size = padded;
	return d;
}

static uint32_t sd_size(const struct ddsi_serdata *dc)
{
	return (uint32_t)((const struct sd *)dc)->size;
}

static void sd_free(struct ddsi_serdata *dc)
{
	struct sd *d = (struct sd *)dc;

	free(d->data);
	free(d);
}

static struct ddsi_serdata *sd_from_ser(const struct ddsi_sertype *type,
	enum ddsi_serdata_kind kind, const struct nn_rdata *frag, size_t size)
{
	struct sd *d = sd_new(type, kind, size);
	uint32_t off = 0;

	if (!d)
		return NULL;
	for (; frag; frag = frag->nextfrag) {
		if (frag->min <= off && frag->maxp1 > off && frag->maxp1 <= size) {
			const unsigned char *payload = NN_RMSG_PAYLOADOFF(frag->rmsg,
				NN_RDATA_PAYLOAD_OFF(frag));

			memcpy(d->data + off, payload + off - frag->min, frag->maxp1 - off);
			off = frag->maxp1;
		}
	}
	return &d->c;
}

static struct ddsi_serdata *sd_from_ser_iov(const struct ddsi_sertype *type,
	enum ddsi_serdata_kind kind, ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov,
	size_t size)
{
	struct sd *d = sd_new(type, kind, size);
	size_t off = 0;

	if (!d)
		return NULL;
	for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
		size_t n = iov[i].iov_len < size - off ? iov[i].iov_len : size - off;

		memcpy(d->data + off, iov[i].iov_base, n);
		off += n;
	}
	return &d->c;
}

static struct ddsi_serdata *sd_from_keyhash(const struct ddsi_sertype *type,
	const struct ddsi_keyhash *keyhash)
{
	struct sd *d = sd_new(type, SDK_KEY, 0);

	(void)keyhash;
	return d ? &d->c : NULL;
}

static size_t sample_size(const struct ddsi_sertype *type)
{
	return is_request(type) ? STANDIN_CDR_REQ_SIZE : STANDIN_CDR_SIZE;
}

static void write_sample(const struct ddsi_sertype *type, const void *sample, uint8_t *p)
{
	const struct standin_request_wrapper *w = sample;

	if (!is_request(type)) {
		standin_cdr_write(sample, p);
		return;
	}
	standin_cdr_header(p);
	memcpy(p + 4, &w->header.guid, 8);
	memcpy(p + 12, &w->header.seq, 8);
	standin_cdr_write_body(w->data, p + 20);
}

static struct ddsi_serdata *sd_from_sample(const struct ddsi_sertype *type,
	enum ddsi_serdata_kind kind, const void *sample)
{
	struct sd *d = sd_new(type, kind, kind == SDK_DATA ? sample_size(type) : 0);

	if (d && kind == SDK_DATA)
		write_sample(type, sample, d->data);
	return d ? &d->c : NULL;
}

static void sd_to_ser(const struct ddsi_serdata *dc, size_t off, size_t sz, void *buf)
{
	memcpy(buf, ((const struct sd *)dc)->data + off, sz);
}

static struct ddsi_serdata *sd_to_ser_ref(const struct ddsi_serdata *dc, size_t off,
	size_t sz, ddsrt_iovec_t *ref)
{
	ref->iov_base = ((const struct sd *)dc)->data + off;
	ref->iov_len = (ddsrt_iov_len_t)sz;
	return ddsi_serdata_ref(dc);
}

static void sd_to_ser_unref(struct ddsi_serdata *dc, const ddsrt_iovec_t *ref)
{
	(void)ref;
	ddsi_serdata_unref(dc);
}

static bool sd_to_sample(const struct ddsi_serdata *dc, void *sample, void **bufptr,
	void *buflim)
{
	const struct sd *d = (const struct sd *)dc;

	(void)bufptr;
	(void)buflim;
	if (d->c.kind != SDK_DATA)
		return true;	/* ROS 2 has no keys */
	if (is_request(d->c.type)) {
		struct standin_request_wrapper *w = sample;

		if (d->size < STANDIN_CDR_REQ_SIZE || d->data[0] != 0 || d->data[1] != 1)
			return false;
		memcpy(&w->header.guid, d->data + 4, 8);
		memcpy(&w->header.seq, d->data + 12, 8);
		standin_cdr_read_body(d->data + 20, w->data);
		return true;
	}
	return standin_cdr_read(d->data, d->size, sample);
}

static struct ddsi_serdata *sd_to_untyped(const struct ddsi_serdata *dc)
{
	struct sd *d = sd_new(dc->type, SDK_KEY, 0);

	if (!d)
		return NULL;
	d->c.type = NULL;
	return &d->c;
}

static bool sd_untyped_to_sample(const struct ddsi_sertype *type,
	const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim)
{
	(void)type; (void)d; (void)sample; (void)bufptr; (void)buflim;
	return true;
}

static bool sd_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
	(void)a; (void)b;
	return true;
}

static size_t sd_print(const struct ddsi_sertype *type, const struct ddsi_serdata *dc,
	char *buf, size_t size)
{
	struct standin_sample m;
	const struct sd *d = (const struct sd *)dc;
	int n;

	if (d->c.kind != SDK_DATA || is_request(type) ||
	    !standin_cdr_read(d->data, d->size, &m))
		n = snprintf(buf, size, ":k:{}");
	else
		n = snprintf(buf, size, "{seq=%llu}", (unsigned long long)m.seq);
	return n > 0 ? (size_t)n : 0;
}

static void sd_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *buf,
	bool force_md5)
{
	(void)d;
	(void)force_md5;
	memset(buf, 0, sizeof(*buf));
}

#ifdef DDS_HAS_SHM
static struct ddsi_serdata *sd_from_iox(const struct ddsi_sertype *type,
	enum ddsi_serdata_kind kind, void *sub, void *buffer)
{
	struct sd *d = sd_new(type, kind, 0);

	if (!d)
		return NULL;
	d->c.iox_chunk = buffer;
	d->c.iox_subscriber = sub;
	return &d->c;
}
#endif

static const struct ddsi_serdata_ops serdata_ops = {
	.eqkey = sd_eqkey,
	.get_size = sd_size,
	.from_ser = sd_from_ser,
	.from_ser_iov = sd_from_ser_iov,
	.from_keyhash = sd_from_keyhash,
	.from_sample = sd_from_sample,
	.to_ser = sd_to_ser,
	.to_ser_ref = sd_to_ser_ref,
	.to_ser_unref = sd_to_ser_unref,
	.to_sample = sd_to_sample,
	.to_untyped = sd_to_untyped,
	.untyped_to_sample = sd_untyped_to_sample,
	.free = sd_free,
	.print = sd_print,
	.get_keyhash = sd_get_keyhash,
#ifdef DDS_HAS_SHM
	.get_sample_size = ddsi_serdata_iox_size,
	.from_iox_buffer = sd_from_iox,
#endif
};

static void st_free(struct ddsi_sertype *tp)
{
	ddsi_sertype_fini(tp);
	free((struct st *)tp);
}

/* Upstream: not using code paths that need these (loans, dispose,
 * content filters). */
static void st_zero_samples(const struct ddsi_sertype *d, void *samples, size_t count)
{
	(void)d; (void)samples; (void)count;
}

static void st_realloc_samples(void **ptrs, const struct ddsi_sertype *d, void *old,
	size_t oldcount, size_t count)
{
	(void)ptrs; (void)d; (void)old; (void)oldcount; (void)count;
	abort();
}

static void st_free_samples(const struct ddsi_sertype *d, void **ptrs, size_t count,
	dds_free_op_t op)
{
	(void)d; (void)ptrs; (void)count; (void)op;
}

/* Upstream's guess: same name (compared by DDSI) and same request-header
 * flag and type support (one here) means the same type. */
static bool st_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
	return is_request(a) == is_request(b);
}

static uint32_t st_hash(const struct ddsi_sertype *tp)
{
	return 0x5a4d1e ^ (uint32_t)is_request(tp);
}

static size_t st_serialized_size(const struct ddsi_sertype *d, const void *sample)
{
	(void)sample;
	return sample_size(d);
}

static bool st_serialize_into(const struct ddsi_sertype *d, const void *sample,
	void *dst, size_t dst_size)
{
	if (dst_size < sample_size(d))
		return false;
	write_sample(d, sample, dst);
	return true;
}

static const struct ddsi_sertype_ops sertype_ops = {
	.version = ddsi_sertype_v0,
	.arg = NULL,
	.free = st_free,
	.zero_samples = st_zero_samples,
	.realloc_samples = st_realloc_samples,
	.free_samples = st_free_samples,
	.equal = st_equal,
	.hash = st_hash,
	/* no type discovery, as upstream */
	.get_serialized_size = st_serialized_size,
	.serialize_into = st_serialize_into,
};

struct ddsi_sertype *standin_sertype_new(const char *type_name, bool request_header)
{
	struct st *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	ddsi_sertype_init_flags(&st->c, type_name, &sertype_ops, &serdata_ops,
		DDSI_SERTYPE_FLAG_TOPICKIND_NO_KEY | DDSI_SERTYPE_FLAG_FIXED_SIZE);
	st->c.allowed_data_representation = DDS_DATA_REPRESENTATION_FLAG_XCDR1;
	st->request_header = request_header;
	return &st->c;
}

struct ddsi_serdata *standin_serdata_from_serialized(
	const struct ddsi_sertype *type, const void *raw, size_t size)
{
	ddsrt_iovec_t iov;

	iov.iov_len = (ddsrt_iov_len_t)size;
	if (iov.iov_len != size)
		return NULL;
	iov.iov_base = (void *)raw;
	return ddsi_serdata_from_ser_iov(type, SDK_DATA, 1, &iov, size);
}
