/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `top` (issue 35): the request that watches the requester's processes
 * (root: all) for a lease, and its reply, rows per callback and per topic
 * computed by caretd from two reads of the processes' counter areas
 * (proto/caret_segment.h) joined with their init records.
 *
 *   request  {"v", "cmd": "top", "lease_ms"?: 1000..60000 (default 5000),
 *             "all_hosts"?: true}
 *   result   {"v", "type": "result", "top": {"interval_ms", "processes",
 *             "lost", "truncated", "callbacks": [{"pid", "procname",
 *             "node", "kind", "symbol", "topic", "calls", "rate_hz",
 *             "mean_ns", "p99_ns", "max_ns", "cpu"}], "topics": [{"pid",
 *             "procname", "node", "topic", "dir", "count", "rate_hz",
 *             "latency" ("sub" rows only: below)}]}}
 *
 * With all_hosts, every row has a "host" and the result a "hosts" list,
 * this host first: [{"host", "interval_ms", "processes", "lost",
 * "truncated"}] (each host's own counts; another host sends its busiest
 * callbacks only, its "truncated" counting the rest, and no topic rows).
 *
 * interval_ms is 0 in the first reply after the processes' watch began:
 * no rate yet (counts since nothing). "cpu" is the callback's share of
 * one core over the interval; "p99_ns" comes from the log2 histogram
 * (within its bucket, never above max_ns); "max_ns" is the longest call
 * that ended in the interval. "node", "symbol", "topic" are null when the
 * cache does not say (a full cache, an entity made before the agent).
 *
 * One encoder and one decoder each; the decoders treat what they read as
 * hostile (types, ranges, lengths, row counts checked, the error names
 * the field). A decoded reply's strings point into its cJSON tree.
 */
#ifndef CARET_PROTO_CTL_TOP_H
#define CARET_PROTO_CTL_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_reply.h"

#define CARET_CTL_CMD_TOP "top"
#define CARET_CTL_K_LEASE_MS "lease_ms"
#define CARET_CTL_K_TOP "top"
#define CARET_CTL_TOP_LEASE_MS_DEFAULT 5000
#define CARET_CTL_TOP_LEASE_MS_MIN 1000
#define CARET_CTL_TOP_LEASE_MS_MAX 60000
/* rows of each list in one reply (caretd keeps the busiest: "truncated"
 * says how many it left out); 4096 rows of at most ~3 KiB stay far below
 * CARET_CTL_MAX_REPLY */
#define CARET_CTL_TOP_MAX_ROWS 4096
/* a node, symbol, topic or process name's bytes */
#define CARET_CTL_TOP_STR_MAX 1024

struct caret_ctl_top_req {
	int64_t lease_ms; /* the decoder fills the default when absent */
	bool all_hosts;
};
#define CARET_CTL_TOP_MAX_HOSTS 64

enum caret_ctl_top_kind {
	CARET_CTL_TOP_UNKNOWN,
	CARET_CTL_TOP_TIMER,
	CARET_CTL_TOP_SUBSCRIPTION,
	CARET_CTL_TOP_SERVICE,
	CARET_CTL_TOP_KINDS
};
/* "unknown", "timer", "subscription", "service" */
const char *caret_ctl_top_kind_name(enum caret_ctl_top_kind k);

struct caret_ctl_top_cb {
	const char *host; /* NULL: not said (a request without all_hosts) */
	int32_t pid;
	const char *procname;
	const char *node, *symbol, *topic; /* NULL: not known */
	enum caret_ctl_top_kind kind;
	uint64_t calls; /* in the interval */
	double rate_hz, cpu;
	uint64_t mean_ns, p99_ns, max_ns;
};

/* A subscription's publish -> take latency over the interval: the take's
 * CLOCK_REALTIME minus the sample's DDS source timestamp (the writer's),
 * "latency" in a "sub" row, null when the writers' clock is not known to
 * be this host's (caretd's rule: the subscribing process's DDS discovers
 * this host only, proto/caret_segment.h's CARET_AGENT_HOST_DISCOVERY).
 * {"n", "apart", "mean_ns", "p99_ns", "max_ns"}: n takes measured,
 * n + apart <= count; apart: takes whose latency was negative or above
 * CARET_CTL_TOP_LAT_MAX_NS (a stepped clock), in no other field;
 * mean_ns, p99_ns <= max_ns <= CARET_CTL_TOP_LAT_MAX_NS, all 0 when n is. */
#define CARET_CTL_TOP_LAT_MAX_NS (10ULL * 1000000000ULL)
struct caret_ctl_top_lat {
	bool known;
	uint64_t n, apart, mean_ns, p99_ns, max_ns;
};

struct caret_ctl_top_topic {
	int32_t pid;
	const char *procname;
	const char *node, *topic; /* NULL: not known */
	bool publisher;           /* "dir": "pub", else "sub" (taken) */
	uint64_t count;           /* in the interval */
	double rate_hz;
	struct caret_ctl_top_lat lat; /* "sub" rows only */
};

struct caret_ctl_top_host {
	const char *host;
	int64_t interval_ms;
	uint64_t processes, lost, truncated;
};

struct caret_ctl_top {
	int64_t interval_ms;
	uint64_t processes; /* watched for this requester */
	uint64_t lost;      /* events their full counter tables could not count */
	uint64_t truncated; /* rows left out (CARET_CTL_TOP_MAX_ROWS) */
	size_t n_cb, n_topics, n_hosts; /* n_hosts: 0 without all_hosts */
	struct caret_ctl_top_cb *cb;
	struct caret_ctl_top_topic *topics;
	struct caret_ctl_top_host *hosts;
};

/* caretctl: the request line's object; NULL when out of memory. */
cJSON *caret_ctl_enc_top_request(const struct caret_ctl_top_req *q);
/* caretd: 0 or -EINVAL (why names the field). */
int caret_ctl_dec_top_request(const cJSON *o, struct caret_ctl_top_req *q, struct ctl_why *why);

/* caretd: the result reply; NULL when out of memory. */
cJSON *caret_ctl_enc_top(const struct caret_ctl_top *t);
/* caretctl: 0, -EPROTO (why names the field) or -ENOMEM; the rows are
 * allocated: caret_ctl_top_free. */
int caret_ctl_dec_top(const cJSON *reply, struct caret_ctl_top *t, struct ctl_why *why);
void caret_ctl_top_free(struct caret_ctl_top *t);

#endif
