/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge's message decoders, as a sample from another host reaches
 * them: CycloneDDS's own CDR path for a received sample (normalize: bounds
 * and byte order checked, then read into the C type) over arbitrary bytes,
 * then caretd's checks of the decoded Start_, End_, Status_ or
 * RelayRecord_ (daemon/bridge/bridge_msg.c); and the parsers of a writer's user
 * data, a relay URL's host and --relay-allow over the raw bytes.
 * Input: one byte (bits 0-1: the type, bit 2: byte-swapped, bit 3: XCDR2,
 * bit 4: bit 0 picks SnapshotRequest_ or SnapshotReply_ instead, bit 5:
 * bit 0 picks TopAsk_ or TopSummary_),
 * then the serialized sample (seeds: tests/fuzz/corpus/bridge/).
 */
#include <dds/dds.h>
#include <dds/ddsi/ddsi_cdrstream.h>
#include <stdlib.h>
#include <string.h>

#include "caret_msgs.h"
#include "daemon/bridge/bridge_msg.h"
#include "tests/fuzz/fuzz.h"

static const dds_topic_descriptor_t *const types[8] = {
	&caret_msgs_msg_dds__Start__desc, &caret_msgs_msg_dds__End__desc,
	&caret_msgs_msg_dds__Status__desc, &caretd_msgs_msg_dds__RelayRecord__desc,
	&caretd_msgs_msg_dds__SnapshotRequest__desc, &caretd_msgs_msg_dds__SnapshotReply__desc,
	&caretd_msgs_msg_dds__TopAsk__desc, &caretd_msgs_msg_dds__TopSummary__desc
};

static void check_sample(int type, void *sample)
{
	struct caret_filter_lists f;
	char text[1024];
	switch (type) {
	case 0:
		if (!bridge_msg_start(sample, &f))
			bridge_msg_filter_text(&f, text, sizeof(text));
		break;
	case 2:
		bridge_msg_status(sample);
		break;
	case 3: {
		const caretd_msgs_msg_dds__RelayRecord_ *m = sample;
		if (!bridge_msg_relay(sample, &f)) {
			char host[BRIDGE_RELAY_HOST_MAX + 1];
			bridge_msg_filter_text(&f, text, sizeof(text));
			bridge_msg_relay_allowed("10.0.0.1,relay.example,::1", m->url, host,
						 sizeof(host));
		}
		break;
	}
	case 4:
		bridge_msg_snap_request(sample);
		break;
	case 5:
		bridge_msg_snap_reply(sample);
		break;
	case 6:
		bridge_msg_top_ask(sample);
		break;
	case 7:
		bridge_msg_top_summary(sample);
		break;
	default:
		break;
	}
}

static void decode(int type, bool bswap, uint32_t xcdr, const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return;
	/* CycloneDDS decodes in place, from an aligned receive buffer whose
	 * size it rounds up (serdata chunks of 128 bytes). Its 0.10.2 check of
	 * an XCDR2 sample with an 8-byte member (Status_'s pid, TopSummary_'s
	 * counts) reads and swaps up to 7 bytes past the sample's end, inside
	 * that slack: given here too (zeroed), or the fuzzer only finds
	 * CycloneDDS's overrun of a buffer it never has (valgrind shows it). */
	size_t cap = (size + 7) / 8 * 8 + 8;
	char *buf = calloc(1, cap);
	if (!buf)
		return;
	memcpy(buf, data, size);
	const uint32_t *ops = types[type]->m_ops;
	uint32_t off = 0;
	if (dds_stream_normalize_data(buf, &off, (uint32_t)size, bswap, xcdr, ops)) {
		dds_istream_t is = { .m_buffer = (const unsigned char *)buf,
				     .m_size = (uint32_t)size,
				     .m_index = 0,
				     .m_xcdr_version = xcdr };
		void *sample = calloc(1, types[type]->m_size);
		if (sample) {
			dds_stream_read(&is, sample, ops);
			check_sample(type, sample);
			dds_stream_free_sample(sample, ops);
			free(sample);
		}
	}
	free(buf);
}

static void raw_strings(const uint8_t *data, size_t size)
{
	char out[64];
	uint32_t version;
	bridge_msg_userdata_host(data, size, out, sizeof(out), &version);
	char *s = malloc(size + 1);
	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	char host[BRIDGE_RELAY_HOST_MAX + 1];
	bridge_msg_url_host(s, host, sizeof(host));
	bridge_msg_relay_allowed(s, "net://relay.example:5342", host, sizeof(host));
	bridge_msg_relay_allowed("relay.example", s, host, sizeof(host));
	bridge_msg_allow_check(s);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int type = (data[0] & 32)   ? 6 + (data[0] & 1)
		   : (data[0] & 16) ? 4 + (data[0] & 1)
				    : data[0] & 3;
	bool bswap = data[0] & 4;
	uint32_t xcdr = (data[0] & 8) ? 2 : 1;
	decode(type, bswap, xcdr, data + 1, size - 1);
	raw_strings(data + 1, size - 1);
	return 0;
}
