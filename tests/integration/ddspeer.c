/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plain CycloneDDS peer that knows CARET's interface only by its ROS 2
 * names (rt/caret/..., caret_msgs::msg::dds_::*_), as a ROS 2 tool or
 * CARET's own `ros2 caret record` would: publishes Start or End, prints
 * the Status samples it receives, or sends garbage under those names.
 *   caret-ddspeer [--peers N] [--start FREQ] [--end] [--garbage] [--listen SECONDS]
 *                 [--select-nodes L] [--ignore-nodes L] [--select-topics L]
 *                 [--ignore-topics L] [--bad-utf8]
 *                 [--relay URL --session NAME] [--flood SECONDS]
 *                 [--snap-flood SECONDS --session NAME]
 *                 [--fake-hosts N [--participants P] [--procs K] [--hold SECONDS]]
 *                 [--version V [--host NAME]]
 * (the Start's filter fields; --bad-utf8 puts invalid UTF-8 in
 * select_topics). Hostile peers: --relay sends caretd's RelayRecord to
 * URL and never its stop; --flood sends Start and End as fast as it can
 * for SECONDS (60 KB strings, invalid UTF-8, control characters, and
 * valid ones), printing "flood sent N"; --snap-flood asks every caretd
 * for a snapshot of flight recorder NAME as fast as it can for SECONDS
 * (each request a new id), printing "snapshot requests sent N"; --fake-hosts publishes a Status
 * every 200 ms for SECONDS from N writers whose user data claim
 * "caretd v=V host=fakeNNN" (this tree's bridge version unless --version),
 * spread over P participants (default 1), each for K processes (default 1).
 * --version V: every writer's user data says it is the caretd of host NAME
 * (default "peer") speaking bridge version V ("caretd host=NAME" for 1, as
 * a caretd before versions wrote it): a fake host of another version.
 * Domain: $ROS_DOMAIN_ID. Output: one "status name=... status=N pid=N
 * nodes=N" line per Status, "matched N" once writers see N readers.
 */
#include <dds/dds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "caret_msgs.h"
#include "ddspeer_garbage.h"

static dds_entity_t pp;

static dds_qos_t *qos(void)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	return q;
}

static int keep_all; /* garbage mode: every bad sample must arrive */
static unsigned ud_version; /* --version: 0, a plain peer */
static const char *ud_host = "peer";

/* The user data a caretd of version v writes for host. */
static size_t caretd_ud(char *ud, size_t len, unsigned v, const char *host)
{
	int l = v == 1 ? snprintf(ud, len, "caretd host=%s", host)
		       : snprintf(ud, len, "caretd v=%u host=%s", v, host);
	return l < 0 ? 0 : (size_t)l < len ? (size_t)l : len;
}

static dds_entity_t writer(const dds_topic_descriptor_t *d, const char *topic)
{
	dds_qos_t *q = qos();
	/* history is not matched against the readers: KEEP_ALL is still
	 * compatible, and a writer never folds two samples into one */
	if (keep_all)
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	if (ud_version) {
		char ud[200];
		dds_qset_userdata(q, ud, caretd_ud(ud, sizeof(ud), ud_version, ud_host));
	}
	dds_entity_t t = dds_create_topic(pp, d, topic, NULL, NULL);
	dds_entity_t w = t < 0 ? t : dds_create_writer(pp, t, q, NULL);
	dds_delete_qos(q);
	if (w < 0) {
		fprintf(stderr, "ddspeer: writer %s: %s\n", topic, dds_strretcode(w));
		exit(1);
	}
	return w;
}

/* Volatile topics: a sample written before the readers are matched is lost. */
static void await_match(dds_entity_t w, int peers)
{
	for (int i = 0; i < 200; i++) {
		dds_publication_matched_status_t st;
		dds_get_publication_matched_status(w, &st);
		if ((int)st.current_count >= peers) {
			printf("matched %u\n", st.current_count);
			fflush(stdout);
			return;
		}
		dds_sleepfor(DDS_MSECS(50));
	}
	fprintf(stderr, "ddspeer: fewer than %d readers matched in 10 s\n", peers);
	exit(3);
}

/* Each sample acknowledged by every reader before the next. */
static void put(dds_entity_t w, const void *m)
{
	dds_write(w, m);
	dds_wait_for_acks(w, DDS_SECS(10));
}

/* RelayRecord with no stop: the host streams until its own bounds. */
static void relay(int peers, const char *url, const char *session)
{
	dds_entity_t w = writer(&caretd_msgs_msg_dds__RelayRecord__desc, "rt/caretd/relay_record");
	await_match(w, peers);
	caretd_msgs_msg_dds__RelayRecord_ m = { .session_name = (char *)session,
						.url = (char *)url,
						.recording_frequency = 100,
						.stop = false,
						.ignore_nodes = "",
						.ignore_topics = "",
						.select_nodes = "",
						.select_topics = "" };
	put(w, &m);
	printf("relay sent\n");
}

static void flood(int peers, int seconds)
{
	keep_all = 1;
	dds_entity_t ws = writer(&caret_msgs_msg_dds__Start__desc, "rt/caret/start_record");
	dds_entity_t we = writer(&caret_msgs_msg_dds__End__desc, "rt/caret/end_record");
	await_match(ws, peers);
	await_match(we, peers);
	static char big[60000], bad[64], ctl[64];
	memset(big, 'x', sizeof(big) - 1);
	for (size_t i = 0; i < sizeof(bad) - 1; i++)
		bad[i] = (char)(0x80 + i); /* continuation bytes: never UTF-8 */
	for (size_t i = 0; i < sizeof(ctl) - 1; i++)
		ctl[i] = (char)(i % 31 + 1); /* newlines, escapes, ... */
	char *const fields[] = { big, bad, ctl, "" };
	dds_time_t until = dds_time() + DDS_SECS(seconds);
	unsigned long n = 0;
	caret_msgs_msg_dds__End_ e = { 0 };
	while (dds_time() < until) {
		char *f = fields[n % 4];
		/* one long field (below CycloneDDS's 64 KiB cap, above caretd's
		 * 4 KiB); the ones with empty fields are valid: each was a log
		 * line of its own before */
		caret_msgs_msg_dds__Start_ m = { 100, f, f[0] ? ctl : "", "", "" };
		dds_write(ws, &m);
		dds_write(we, &e);
		n += 2;
		if (n % 64 == 0)
			dds_wait_for_acks(ws, DDS_SECS(1));
	}
	dds_wait_for_acks(ws, DDS_SECS(5));
	dds_wait_for_acks(we, DDS_SECS(5));
	printf("flood sent %lu\n", n);
}

static void snap_flood(int peers, int seconds, const char *session)
{
	keep_all = 1;
	dds_entity_t w = writer(&caretd_msgs_msg_dds__SnapshotRequest__desc,
				"rt/caretd/snapshot_request");
	await_match(w, peers);
	dds_time_t until = dds_time() + DDS_SECS(seconds);
	unsigned long n = 0;
	while (dds_time() < until) {
		caretd_msgs_msg_dds__SnapshotRequest_ m = { n + 1, (char *)session, 30000 };
		dds_write(w, &m);
		n++;
		if (n % 64 == 0)
			dds_wait_for_acks(w, DDS_SECS(1));
	}
	dds_wait_for_acks(w, DDS_SECS(5));
	printf("snapshot requests sent %lu\n", n);
}

/* N writers claiming N hosts, over P participants, beating for seconds. */
static void fake_hosts(int n, int parts, int procs, int seconds)
{
	enum { MAXW = 1000, MAXP = 200 };
	if (n > MAXW || parts < 1 || parts > MAXP)
		exit(2);
	static dds_entity_t pps[MAXP], ws[MAXW];
	const char *d = getenv("ROS_DOMAIN_ID");
	for (int p = 0; p < parts; p++) {
		pps[p] = p == 0 ? pp : dds_create_participant(d ? (dds_domainid_t)atoi(d) : 0, NULL,
								  NULL);
		if (pps[p] < 0) {
			fprintf(stderr, "ddspeer: participant %d: %s\n", p, dds_strretcode(pps[p]));
			exit(1);
		}
	}
	for (int i = 0; i < n; i++) {
		dds_entity_t part = pps[i % parts];
		dds_entity_t t = dds_create_topic(part, &caret_msgs_msg_dds__Status__desc,
						  "rt/caret/status", NULL, NULL);
		dds_qos_t *q = qos();
		/* many processes per writer: every one of them must arrive */
		if (procs > 1)
			dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
		char ud[64], host[16];
		snprintf(host, sizeof(host), "fake%03d", i);
		dds_qset_userdata(q, ud,
				  caretd_ud(ud, sizeof(ud),
					    ud_version ? ud_version : caretd_msgs_BRIDGE_VERSION,
					    host));
		ws[i] = t < 0 ? t : dds_create_writer(part, t, q, NULL);
		dds_delete_qos(q);
		if (ws[i] < 0) {
			fprintf(stderr, "ddspeer: writer %d: %s\n", i, dds_strretcode(ws[i]));
			exit(1);
		}
	}
	printf("fake hosts %d over %d participants\n", n, parts);
	fflush(stdout);
	dds_time_t until = dds_time() + DDS_SECS(seconds);
	while (dds_time() < until) {
		for (int i = 0; i < n; i++)
			for (int k = 0; k < procs; k++) {
				char name[64];
				int pid = 1000 + i * procs + k;
				snprintf(name, sizeof(name), "caretd_fake%03d_%d", i, pid);
				caret_msgs_msg_dds__Status_ m = { name, 1, { 0, 0, NULL, false },
								  pid };
				dds_write(ws[i], &m);
			}
		dds_sleepfor(DDS_MSECS(200));
	}
	for (int p = 1; p < parts; p++)
		dds_delete(pps[p]);
	printf("fake hosts done\n");
}

static void garbage(int peers)
{
	keep_all = 1;
	/* Bytes under Start_'s name, without type information, so that only
	 * the name is matched and the reader must judge the bytes. */
	const dds_topic_descriptor_t *j = &garbage_Junk_desc;
	dds_topic_descriptor_t fake = {
		.m_size = j->m_size, .m_align = j->m_align,
		.m_flagset = j->m_flagset & ~(uint32_t)DDS_TOPIC_XTYPES_METADATA,
		.m_nkeys = 0, .m_typename = "caret_msgs::msg::dds_::Start_", .m_keys = NULL,
		.m_nops = j->m_nops, .m_ops = j->m_ops, .m_meta = j->m_meta,
	};
	dds_entity_t wj = writer(&fake, "rt/caret/start_record");
	dds_entity_t ws = writer(&caret_msgs_msg_dds__Start__desc, "rt/caret/start_record");
	dds_entity_t wst = writer(&caret_msgs_msg_dds__Status__desc, "rt/caret/status");
	await_match(ws, peers);
	await_match(wst, peers);
	unsigned char bytes[600];
	srand(42);
	for (int k = 0; k < 20; k++) {
		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = (unsigned char)rand();
		garbage_Junk m = { .bytes = { ._length = (uint32_t)(k * 29 % sizeof(bytes)),
					     ._maximum = sizeof(bytes), ._buffer = bytes } };
		put(wj, &m);
	}
	/* well-formed but out of bounds */
	caret_msgs_msg_dds__Start_ zero = { 0, "", "", "", "" };
	put(ws, &zero);
	static char big[200000];
	memset(big, 'x', sizeof(big) - 1);
	caret_msgs_msg_dds__Start_ huge = { 100, big, "", "", "" }; /* > 64 KiB */
	put(ws, &huge);
	char *names[3000];
	for (int i = 0; i < 3000; i++)
		names[i] = "n";
	caret_msgs_msg_dds__Status_ many = { "peer_status", 3, { 3000, 3000, names, false }, 1 };
	put(wst, &many);
	caret_msgs_msg_dds__Status_ noname = { "", 3, { 0, 0, NULL, false }, 1 };
	put(wst, &noname);
	printf("garbage sent\n");
}

int main(int argc, char **argv)
{
	int peers = 1, listen_s = 0;
	long start = -1;
	int snap_flood_s = 0;
	int end = 0, junk = 0, flood_s = 0, fakes = 0, parts = 1, hold = 3, procs = 1;
	const char *relay_url = NULL, *session = "peer";
	char *sel_nodes = "", *ign_nodes = "", *sel_topics = "", *ign_topics = "";
	static char bad_utf8[] = { (char)0xff, (char)0xfe, 0 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--peers") && i + 1 < argc)
			peers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--start") && i + 1 < argc)
			start = atol(argv[++i]);
		else if (!strcmp(argv[i], "--end"))
			end = 1;
		else if (!strcmp(argv[i], "--garbage"))
			junk = 1;
		else if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--select-nodes") && i + 1 < argc)
			sel_nodes = argv[++i];
		else if (!strcmp(argv[i], "--ignore-nodes") && i + 1 < argc)
			ign_nodes = argv[++i];
		else if (!strcmp(argv[i], "--select-topics") && i + 1 < argc)
			sel_topics = argv[++i];
		else if (!strcmp(argv[i], "--ignore-topics") && i + 1 < argc)
			ign_topics = argv[++i];
		else if (!strcmp(argv[i], "--bad-utf8"))
			sel_topics = bad_utf8;
		else if (!strcmp(argv[i], "--relay") && i + 1 < argc)
			relay_url = argv[++i];
		else if (!strcmp(argv[i], "--session") && i + 1 < argc)
			session = argv[++i];
		else if (!strcmp(argv[i], "--flood") && i + 1 < argc)
			flood_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--snap-flood") && i + 1 < argc)
			snap_flood_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--fake-hosts") && i + 1 < argc)
			fakes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--participants") && i + 1 < argc)
			parts = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--procs") && i + 1 < argc)
			procs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			hold = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--version") && i + 1 < argc)
			ud_version = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host") && i + 1 < argc)
			ud_host = argv[++i];
		else {
			fprintf(stderr, "usage: caret-ddspeer [--peers N] [--start FREQ] [--end] "
					"[--garbage] [--listen SECONDS] [--select-nodes L] "
					"[--ignore-nodes L] [--select-topics L] [--ignore-topics L] "
					"[--bad-utf8] [--relay URL --session NAME] [--flood S] "
					"[--snap-flood S --session NAME] "
					"[--fake-hosts N [--participants P] [--procs K] "
					"[--hold S]] [--version V [--host NAME]]\n");
			return 2;
		}
	}
	const char *d = getenv("ROS_DOMAIN_ID");
	pp = dds_create_participant(d ? (dds_domainid_t)atoi(d) : 0, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "ddspeer: participant: %s\n", dds_strretcode(pp));
		return 1;
	}
	dds_entity_t rd = 0;
	if (listen_s) {
		dds_qos_t *q = qos();
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 256);
		dds_entity_t t = dds_create_topic(pp, &caret_msgs_msg_dds__Status__desc,
						  "rt/caret/status", NULL, NULL);
		rd = dds_create_reader(pp, t, q, NULL);
		dds_delete_qos(q);
	}
	if (junk)
		garbage(peers);
	if (relay_url)
		relay(peers, relay_url, session);
	if (flood_s)
		flood(peers, flood_s);
	if (snap_flood_s && session)
		snap_flood(peers, snap_flood_s, session);
	if (fakes)
		fake_hosts(fakes, parts, procs, hold);
	if (start >= 0) {
		dds_entity_t w = writer(&caret_msgs_msg_dds__Start__desc, "rt/caret/start_record");
		await_match(w, peers);
		caret_msgs_msg_dds__Start_ m = { (uint32_t)start, ign_nodes, ign_topics, sel_nodes,
						 sel_topics };
		put(w, &m); /* delivered before this peer may leave */
		printf("start sent\n");
	}
	if (end) {
		dds_entity_t w = writer(&caret_msgs_msg_dds__End__desc, "rt/caret/end_record");
		await_match(w, peers);
		caret_msgs_msg_dds__End_ m = { 0 };
		dds_write(w, &m);
		printf("end sent\n");
	}
	fflush(stdout);
	dds_time_t until = dds_time() + DDS_SECS(listen_s);
	while (listen_s && dds_time() < until) {
		void *buf[32] = { 0 };
		dds_sample_info_t si[32];
		int n = dds_take(rd, buf, si, 32, 32);
		for (int i = 0; i < n; i++) {
			if (!si[i].valid_data)
				continue;
			const caret_msgs_msg_dds__Status_ *s = buf[i];
			printf("status name=%s status=%d pid=%lld nodes=%u%s%s\n", s->caret_node_name,
			       s->status, (long long)s->pid, s->node_names._length,
			       s->node_names._length ? " first=" : "",
			       s->node_names._length ? s->node_names._buffer[0] : "");
		}
		if (n > 0)
			dds_return_loan(rd, buf, n);
		fflush(stdout);
		dds_sleepfor(DDS_MSECS(50));
	}
	dds_delete(pp);
	return 0;
}
