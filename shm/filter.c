/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass filter block (struct caret_shm_filter in proto/caret_segment.h):
 * the controller stages it before a pass, the agent reads and checks a
 * private copy at the start of the pass. The bytes are the controller's,
 * but whoever can write the segment can write them: they are checked like
 * any other segment bytes.
 */
#include <errno.h>
#include <string.h>

#include "shm/caret_shm.h"

static struct caret_shm_filter *block(const struct caret_seg *s)
{
	return (struct caret_shm_filter *)((uint8_t *)s->shared_hdr + CARET_SHM_FILTER_OFFSET);
}

/* RFC 3629 UTF-8 (no overlongs, no surrogates, at most U+10FFFF), no NUL:
 * what a ROS 2 string field or an environment variable can carry. */
static bool utf8_ok(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k;
		unsigned min;
		if (c == 0)
			return false;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			k = 1, min = 0x80, c &= 0x1f;
		else if ((c & 0xf0) == 0xe0)
			k = 2, min = 0x800, c &= 0x0f;
		else if ((c & 0xf8) == 0xf0)
			k = 3, min = 0x10000, c &= 0x07;
		else
			return false;
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			c = (c << 6) | (s[i + j] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

int caret_filter_check(const struct caret_filter_lists *f)
{
	size_t total = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		const char *l = f->list[i] ? f->list[i] : "";
		size_t n = strnlen(l, CARET_SHM_FILTER_TEXT_MAX + 1);
		if (n > CARET_SHM_FILTER_TEXT_MAX)
			return -E2BIG;
		if (!utf8_ok(l, n))
			return -EILSEQ;
		total += n;
	}
	return total > CARET_SHM_FILTER_TEXT_MAX ? -E2BIG : 0;
}

bool caret_filter_empty(const struct caret_filter_lists *f)
{
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (f->list[i] && *f->list[i])
			return false;
	return true;
}

int caret_filter_encode(const struct caret_filter_lists *f, struct caret_shm_filter *out)
{
	int r = caret_filter_check(f);
	if (r < 0)
		return r;
	memset(out, 0, sizeof(*out));
	size_t at = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		const char *l = f->list[i] ? f->list[i] : "";
		size_t n = strlen(l);
		memcpy(out->text + at, l, n);
		out->len[i] = (uint16_t)n;
		at += n;
	}
	return 0;
}

int caret_filter_decode(const struct caret_shm_filter *in, struct caret_filter_text *out)
{
	size_t at = 0, w = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		size_t n = in->len[i];
		if (n > CARET_SHM_FILTER_TEXT_MAX - at)
			return -EBADMSG;
		if (!utf8_ok(in->text + at, n))
			return -EBADMSG;
		memcpy(out->buf + w, in->text + at, n);
		out->buf[w + n] = '\0';
		out->f.list[i] = out->buf + w;
		w += n + 1;
		at += n;
	}
	return 0;
}

int64_t caret_drive_stage_filter(struct caret_seg *s, const struct caret_filter_lists *f)
{
	struct caret_shm_filter enc;
	int r = caret_filter_encode(f, &enc);
	if (r < 0)
		return r;
	uint32_t epoch = CARET_EPOCH_OF(__atomic_load_n(&s->shared_hdr->grant, __ATOMIC_ACQUIRE)) + 1;
	if (!epoch)
		epoch = 1; /* as caret_drive_begin_replay skips 0 */
	struct caret_shm_filter *b = block(s);
	__atomic_store_n(&b->epoch, 0, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(b->len, enc.len, sizeof(enc.len));
	memcpy(b->text, enc.text, sizeof(enc.text));
	b->reserved = 0;
	__atomic_store_n(&b->epoch, epoch, __ATOMIC_RELEASE);
	return epoch;
}

void caret_drive_clear_filter(struct caret_seg *s)
{
	__atomic_store_n(&block(s)->epoch, 0, __ATOMIC_RELEASE);
}

int caret_own_read_filter(const struct caret_seg *s, uint32_t epoch, struct caret_filter_text *out)
{
	const struct caret_shm_filter *b = block(s);
	if (!epoch || __atomic_load_n(&b->epoch, __ATOMIC_ACQUIRE) != epoch)
		return 0;
	struct caret_shm_filter copy;
	memcpy(copy.len, b->len, sizeof(copy.len));
	memcpy(copy.text, b->text, sizeof(copy.text));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&b->epoch, __ATOMIC_RELAXED) != epoch)
		return 0; /* rewritten meanwhile: a newer pass is coming */
	int r = caret_filter_decode(&copy, out);
	return r < 0 ? r : 1;
}

const uint32_t *caret_own_filter_word(const struct caret_seg *s)
{
	return &block(s)->epoch;
}
