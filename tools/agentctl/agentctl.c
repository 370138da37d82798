/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-agentctl: plays caretd's part for one agent, for tests and for
 * debugging without the daemon: list segments, set a state, drive a replay
 * pass, dump or validate a cache.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/caret_version.h"
#include "shm/caret_shm.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caret-agentctl COMMAND [ARGS]\n"
		"Drive caret agents through their shared-memory segments (what caretd does).\n\n"
		"Commands:\n"
		"  list                       list agent segments: pid, name, state, counters\n"
		"  state TARGET wait|prepare|record\n"
		"                             set an agent's state word\n"
		"  replay TARGET [--rate N] [--timeout SEC]\n"
		"                             PREPARE, replay every cached record (N records/s,\n"
		"                             0 = unpaced, default 0), then RECORD\n"
		"  dump TARGET                print every cached record\n"
		"  check NAME                 validate a segment (header and every record)\n"
		"  stats TARGET               records, cache bytes and payload bytes (the\n"
		"                             fields plus init_timestamp, strings with their NUL)\n\n"
		"TARGET is a pid or a segment name (as in /dev/shm). Segment names start with\n"
		"$CARET_SHM_PREFIX (default \"" CARET_SHM_DEFAULT_PREFIX "\").\n"
		"--version prints the version and the segment layout; --help this text.\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

struct by_pid {
	pid_t pid;
	char *name;
	size_t len;
};

static int match_pid(const char *name, pid_t pid, uint64_t start, void *p)
{
	struct by_pid *q = p;
	(void)start;
	if (pid != q->pid || strlen(name) >= q->len)
		return 0;
	memcpy(q->name, name, strlen(name) + 1);
	return 1;
}

static int find_by_pid(pid_t pid, char *name, size_t len)
{
	struct by_pid q = { pid, name, len };
	int r = caret_seg_scan(match_pid, &q);
	return r < 0 ? r : r == 1 ? 0 : -ENOENT;
}

static int open_target(const char *target, struct caret_seg *s)
{
	char name[CARET_SHM_NAME_MAX];
	char *end;
	long pid = strtol(target, &end, 10);
	if (*end == '\0' && pid > 0) {
		int r = find_by_pid((pid_t)pid, name, sizeof(name));
		if (r < 0) {
			fprintf(stderr, "caret-agentctl: no agent segment for pid %ld\n", pid);
			return r;
		}
	} else if (strlen(target) < sizeof(name)) {
		memcpy(name, target, strlen(target) + 1);
	} else {
		fprintf(stderr, "caret-agentctl: %s: name too long\n", target);
		return -ENAMETOOLONG;
	}
	int r = caret_seg_attach(s, name);
	if (r < 0)
		fprintf(stderr, "caret-agentctl: %s: %s\n", name, strerror(-r));
	return r;
}

static int list_one(const char *name, pid_t p, uint64_t start, void *ctx)
{
	(void)start;
	(void)ctx;
	struct caret_seg s;
	int r = caret_seg_attach(&s, name);
	if (r < 0) {
		printf("%-8d %-16s %-8s %8s %8s %8s %s (%s)\n", (int)p, "?", "INVALID", "-", "-",
		       "-", name, strerror(-r));
		return 0;
	}
	struct caret_seg_status ss;
	caret_seg_read_status(&s, &ss);
	printf("%-8d %-16s %-8s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %s\n", s.id.pid,
	       s.id.procname, ss.state <= CARET_STATE_MAX ? caret_state_name(ss.state) : "?",
	       ss.records, ss.dropped, ss.replayed, name);
	caret_seg_close(&s);
	return 0;
}

static int cmd_list(void)
{
	printf("%-8s %-16s %-8s %8s %8s %8s %s\n", "PID", "PROCNAME", "STATE", "RECORDS",
	       "DROPPED", "REPLAYED", "SEGMENT");
	int r = caret_seg_scan(list_one, NULL);
	if (r < 0) {
		fprintf(stderr, "caret-agentctl: %s: %s\n", CARET_SHM_DIR, strerror(-r));
		return 1;
	}
	return 0;
}

/* wait, prepare or record: UNINITIALIZED is the agent's alone. */
static int parse_state(const char *v)
{
	int st = caret_state_by_name(v);
	return st > CARET_STATE_UNINITIALIZED ? st : -1;
}

/* By hand, from whatever the state is now; never from UNINITIALIZED (the
 * agent is still writing its identity), and refused when the state
 * changes between the read and the move. */
static int set_state(struct caret_seg *s, enum caret_state to)
{
	uint32_t from = caret_seg_state(s);
	int r = from == CARET_STATE_UNINITIALIZED ? -EBUSY
						  : caret_drive_set_state(s, from, to);
	if (r < 0)
		fprintf(stderr, "caret-agentctl: pid %d (%s): %s -> %s refused: %s\n", s->id.pid,
			s->id.procname, caret_state_name(from), caret_state_name(to),
			strerror(-r));
	return r < 0;
}

static double now_s(void)
{
	return (double)caret_now_ns() / 1e9;
}

static int cmd_replay(struct caret_seg *s, double rate, double timeout)
{
	const struct caret_seg_identity *h = &s->id;
	double t0 = now_s(), deadline = t0 + timeout;
	uint32_t from = caret_seg_state(s);
	int64_t e = caret_drive_begin_replay(s, from);
	if (e < 0) {
		fprintf(stderr, "caret-agentctl: pid %d (%s): %s: no replay from %s (wait or "
			"prepare only)\n", h->pid, h->procname, strerror((int)-e),
			caret_state_name(from));
		return 1;
	}
	uint32_t epoch = (uint32_t)e;
	struct caret_seg_status st;
	for (;;) {
		caret_seg_read_status(s, &st);
		if (st.tp_enabled_epoch == epoch)
			break;
		if (now_s() > deadline) {
			fprintf(stderr, "caret-agentctl: pid %d (%s): tracepoints not enabled "
				"after %.1f s%s\n", h->pid, h->procname, timeout,
				(st.agent_flags & CARET_AGENT_REPLAY_THREAD) ? "" :
				" (no replay thread)");
			return 1;
		}
		caret_drive_wait_progress(s, st.progress, 50);
	}
	double t_enabled = now_s();
	for (;;) {
		caret_seg_read_status(s, &st);
		uint32_t total = (uint32_t)st.records;
		uint32_t allowed = total;
		if (rate > 0) {
			double a = (now_s() - t_enabled) * rate;
			allowed = a < total ? (uint32_t)a + 1 : total;
		}
		if (CARET_COUNT_OF(st.grant) != allowed || CARET_EPOCH_OF(st.grant) != epoch)
			caret_drive_grant(s, epoch, allowed);
		if (CARET_EPOCH_OF(st.cursor) == epoch && CARET_COUNT_OF(st.cursor) >= total)
			break;
		if (now_s() > deadline) {
			fprintf(stderr, "caret-agentctl: pid %d (%s): replay incomplete after "
				"%.1f s: %u of %u records\n", h->pid, h->procname, timeout,
				CARET_COUNT_OF(st.cursor), total);
			return 1;
		}
		caret_drive_wait_progress(s, st.progress, rate > 0 ? 10 : 50);
	}
	int r = caret_drive_set_state(s, CARET_STATE_PREPARE, CARET_STATE_RECORD);
	if (r < 0) {
		fprintf(stderr, "caret-agentctl: pid %d (%s): replayed, but its state is no longer "
			"prepare (%s): left as it is\n", h->pid, h->procname,
			caret_state_name(caret_seg_state(s)));
		return 1;
	}
	printf("replayed %u records of pid %d (%s) in %.3f s\n", CARET_COUNT_OF(st.cursor),
	       h->pid, h->procname, now_s() - t0);
	return 0;
}

static void print_record(const struct caret_rec_view *v)
{
	printf("%s ts=%" PRId64, caret_kind_name(v->kind), v->init_timestamp);
	const char *sig = caret_kind_sig(v->kind);
	const char *names = caret_kind_fields(v->kind);
	for (unsigned i = 0; i < v->nfields; i++) {
		size_t n = strcspn(names, ",");
		printf(" %.*s=", (int)n, names);
		names += n + (names[n] == ',');
		if (sig[i] == 's')
			printf("\"%s\"", v->args[i].s);
		else if (sig[i] == 'p')
			printf("0x%" PRIx64, v->args[i].u);
		else if (sig[i] == 'i')
			printf("%" PRId64, (int64_t)v->args[i].u);
		else
			printf("%" PRIu64, v->args[i].u);
	}
	putchar('\n');
}

static uint64_t payload_bytes(const struct caret_rec_view *v)
{
	const char *sig = caret_kind_sig(v->kind);
	uint64_t n = 8; /* init_timestamp */
	for (unsigned i = 0; i < v->nfields; i++)
		n += sig[i] == 's' ? strlen(v->args[i].s) + 1 : 8;
	return n;
}

/* The records replayed, and those of each CPU that had some (the slots
 * of proto/caret_segment.h; an older agent has none), and those the pass
 * filter kept out of the trace (on no CPU). */
static void print_cpus(const struct caret_seg *s)
{
	struct caret_seg_status st;
	uint64_t c[CARET_SHM_CPUS];
	caret_seg_read_status(s, &st);
	caret_seg_read_cpus(s, c, CARET_SHM_CPUS);
	printf("replayed=%" PRIu64, st.replayed);
	for (unsigned i = 0; i < CARET_SHM_CPUS; i++)
		if (c[i])
			printf(" cpu%u=%" PRIu64, i, c[i]);
	uint64_t skipped = caret_seg_read_skipped(s);
	if (skipped)
		printf(" skipped=%" PRIu64, skipped);
	putchar('\n');
}

/* Walks a private copy of the cache; returns the record count or -EBADMSG.
 * print: 1 every record, 2 the totals only. */
static int64_t walk(struct caret_seg *s, int print)
{
	uint8_t *buf;
	int64_t n = caret_seg_snapshot(s, &buf);
	if (n < 0)
		return n;
	uint64_t off = 0;
	int64_t count = 0;
	uint64_t payload = 0;
	struct caret_rec_view v;
	int r;
	while ((r = caret_rec_next(buf, (uint64_t)n, &off, &v)) == 1) {
		if (print == 1)
			print_record(&v);
		payload += payload_bytes(&v);
		count++;
	}
	free(buf);
	if (print == 2 && r == 0) {
		printf("records=%" PRId64 " bytes=%" PRIu64 " payload=%" PRIu64 "\n", count, off,
		       payload);
		print_cpus(s);
	}
	if (r < 0) {
		fprintf(stderr, "caret-agentctl: corrupt record at offset %" PRIu64 "\n", off);
		return r;
	}
	return count;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("caret-agentctl %s (segment layout %u)\n", CARETD_VERSION, CARET_SHM_LAYOUT_VERSION);
		return 0;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	struct caret_seg s;
	int rc = 1;
	if (!strcmp(cmd, "state")) {
		int st = argc > 3 ? parse_state(argv[3]) : -1;
		if (st < 0) {
			usage(stderr);
			return 2;
		}
		if (open_target(argv[2], &s) < 0)
			return 1;
		rc = set_state(&s, (enum caret_state)st);
	} else if (!strcmp(cmd, "replay")) {
		double rate = 0, timeout = 30;
		static const struct option opts[] = { { "rate", 1, 0, 'r' },
						       { "timeout", 1, 0, 't' },
						       { 0, 0, 0, 0 } };
		int c;
		optind = 3;
		while ((c = getopt_long(argc, argv, "r:t:", opts, NULL)) != -1) {
			if (c == 'r')
				rate = atof(optarg);
			else if (c == 't')
				timeout = atof(optarg);
			else
				return 2;
		}
		if (open_target(argv[2], &s) < 0)
			return 1;
		rc = cmd_replay(&s, rate, timeout);
	} else if (!strcmp(cmd, "dump") || !strcmp(cmd, "check") || !strcmp(cmd, "stats")) {
		if (open_target(argv[2], &s) < 0)
			return 1;
		int64_t n = walk(&s, !strcmp(cmd, "dump") ? 1 : !strcmp(cmd, "stats") ? 2 : 0);
		if (n >= 0 && !strcmp(cmd, "check"))
			printf("ok: %" PRId64 " records\n", n);
		rc = n < 0;
	} else {
		usage(stderr);
		return 2;
	}
	caret_seg_close(&s);
	return rc;
}
