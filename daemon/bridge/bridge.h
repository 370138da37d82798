/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The DDS bridge to other hosts (CycloneDDS, one participant per daemon).
 *
 * CARET's topics and types (proto/caret_msgs.idl): Start and End received
 * from another host go through startend (seed 000's rules per local
 * agent); every local agent's state is published on rt/caret/status as one
 * Status per process (on change, after each Start/End, and every second),
 * and the Status of other hosts is kept for `caretctl status --all-hosts`.
 * caretd's own rt/caretd/relay_record asks daemons started with
 * --accept-relay to create a streaming session to a named lttng-relayd.
 *
 * Trust: anyone who can publish on the DDS domain can make this host
 * replay into sessions that are already active (Start) or put idle agents
 * back to WAIT (End, only with no active session). A remote message never
 * creates a session with a local output, never chooses a path, never
 * touches a file; a streaming session to a relay is created only when this
 * daemon was started with --accept-relay.
 *
 * Versions: every caretd writer names its bridge version in its user data
 * (bridge_msg.h); samples of a caretd of another version are not read, and
 * its host is listed as such.
 *
 * Asleep until a DDS participant appears in the domain or a command needs
 * the other hosts (bridge_wake.h; --eager-bridge: at start), after the
 * rest of the daemon is up; any DDS failure is
 * logged, shown in `caretctl status --all-hosts`, retried now and then,
 * and never stops local recording.
 *
 * Snapshots (`caretctl snapshot --all-hosts`, bridge version 3): caretd's
 * rt/caretd/snapshot_request names a flight recorder; every caretd with an
 * active one of that name takes a snapshot of it as `caretctl snapshot`
 * does (the pass, then LTTng), into the recording's own directory, and
 * answers on rt/caretd/snapshot_reply, as does one without it (the
 * error). A remote request never names a path; this host serves at most
 * BRIDGE_SNAP_SERVE at once and begins at most one snapshot a second
 * (CARET_CTL_SNAPSHOT_HOLDOFF_MS) for other hosts, answering the rest
 * "busy"; at most BRIDGE_SNAP_RATE requests a second are answered at all.
 *
 * Files: bridge.c (what the parts share, waking), bridge_wake.c (the
 * passive SPDP listener of a bridge asleep), bridge_peers.c (other hosts'
 * Start, End, Status), bridge_relay.c (the relay session), bridge_snap.c
 * (snapshots asked by and of other hosts), bridge_pending.c (broadcasts
 * held while waking), bridge_ddsc.c (libddsc's loader), bridge_send.c
 * (what this host publishes), bridge_dds.c (CycloneDDS: entities, take,
 * the jobs in the tick).
 */
#ifndef CARETD_BRIDGE_H
#define CARETD_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon/bridge/bridge_wake.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"

struct sched;
struct recordings;

#define BRIDGE_MAX_HOSTS 64
#define BRIDGE_MAX_PROCS 1024
/* one host's share, so that one host (one participant) cannot take every
 * process slot */
#define BRIDGE_MAX_PROCS_PER_HOST 256
#define BRIDGE_HOST_MAX 64

/* Bounds of a relay session another host asked for (--relay-max-*). */
#define BRIDGE_RELAY_MAX_SECONDS 3600
#define BRIDGE_RELAY_MAX_BYTES (1ULL << 30)
/* A host silent this long is forgotten (its slot and its processes). */
#define BRIDGE_HOST_TTL_S 60
/* With every slot taken, the entry silent longest gives its slot to a new
 * host once it has been silent this long (live daemons beat every second). */
#define BRIDGE_HOST_EVICT_S 3
/* Fewer free file descriptors than this: CycloneDDS is not started (it
 * crashes in its own cleanup when it runs out of them while starting). */
#define BRIDGE_MIN_FREE_FDS 32

struct bridge_cfg {
	bool enabled;      /* false: --no-bridge */
	bool eager;        /* --eager-bridge: DDS at start, never asleep */
	bool accept_relay; /* --accept-relay */
	int domain;        /* -1: $ROS_DOMAIN_ID, else 0 */
	/* --relay-allow: comma-separated relay hosts; NULL: no relay at all */
	const char *relay_allow;
	uint32_t relay_max_s;     /* --relay-max-duration; 0: the default */
	uint64_t relay_max_bytes; /* --relay-max-size; 0: the default */
};

struct bridge_proc {
	char host[BRIDGE_HOST_MAX];
	char name[128];
	int8_t status;
	int64_t pid;
	char nodes[512]; /* comma-separated, cut */
	int64_t seen_ns;
};

struct bridge_host {
	char host[BRIDGE_HOST_MAX];
	int64_t seen_ns;
	/* the GUID prefix of the DDS participant that last spoke for it: one
	 * participant speaks for at most one host */
	unsigned char pp[12];
	/* the bridge version it speaks (0: a ROS 2 peer, not a caretd); one
	 * other than BRIDGE_VERSION: its samples are ignored */
	uint32_t version;
	int64_t warned_ns; /* when that was last logged */
};

struct bridge_counts {
	uint64_t start, end, status, relay, rejected, sent;
	uint64_t snap_req, snap_reply; /* snapshot requests and replies taken */
	uint64_t foreign; /* samples of caretd of another bridge version, ignored */
};

struct bridge_dds; /* CycloneDDS entities, private to bridge_dds.c */

/*
 * After a lazy start, this host's broadcasts wait until DDS has been up
 * this long: the hosts whose caretd sleeps load DDS when this one's
 * participant announces itself, and must be matched before a volatile
 * sample can reach them (the wake-up of a sleeping caretd and CycloneDDS's
 * discovery take ~0.3 s here; the rest is margin for loaded machines).
 */
#define BRIDGE_SETTLE_NS (2000LL * 1000000)
/* broadcasts held while waking, and how long one waits at most */
#define BRIDGE_PENDING 8
#define BRIDGE_PENDING_TTL_NS (30LL * 1000000000)

enum bridge_pending_kind { BRIDGE_P_NONE, BRIDGE_P_START, BRIDGE_P_END, BRIDGE_P_RELAY };

/* One broadcast held until the bridge has settled (owns its strings). */
struct bridge_pending {
	enum bridge_pending_kind kind;
	int64_t at_ns;
	uint32_t frequency;
	bool stop;
	char *session, *url;
	char *filter[CARET_FILTER_LISTS];
};
struct wait_req;

#define BRIDGE_SNAP_SERVE 4 /* snapshots of this host other hosts asked for, at once */
#define BRIDGE_SNAP_OUT 4   /* this host's --all-hosts requests in flight */
#define BRIDGE_SNAP_RATE 16 /* requests answered per second, errors included */
#define BRIDGE_SNAP_WHY 1024

/* One snapshot another host asked of this one: being taken (job), then
 * its reply due. */
struct bridge_snap_serve {
	bool used, reply_due;
	struct wait_req *job;
	uint64_t id;
	char requester[BRIDGE_HOST_MAX];
	char session[256];
	int32_t error; /* positive errno */
	bool complete;
	char path[4096];
	char why[BRIDGE_SNAP_WHY];
};

/* One host's answer to an --all-hosts request. */
struct bridge_snap_res {
	char host[BRIDGE_HOST_MAX];
	uint32_t version; /* another than ours: it cannot answer (error says so) */
	bool answered;
	int32_t error;
	bool complete;
	char path[4096];
	char why[BRIDGE_SNAP_WHY];
};

/* An --all-hosts request of this host: the hosts known when it was sent,
 * and those that answered (also unknown ones). */
struct bridge_snap_out {
	uint64_t id;
	char session[256];
	int64_t sent_ns;
	int n;
	struct bridge_snap_res res[BRIDGE_MAX_HOSTS];
};

/* `top --all-hosts` (bridge_top.h): one other host's latest summary. */
#define BRIDGE_TOP_ROWS 64    /* BRIDGE_MSG_TOP_ROWS */
#define BRIDGE_TOP_STR 256    /* BRIDGE_MSG_TOP_STR + 1 */
/* a summary older than this is not shown (a host publishes each second) */
#define BRIDGE_TOP_FRESH_NS (3000LL * 1000000)
/* asks this host sends at most, and heeds at most, per second */
#define BRIDGE_TOP_ASK_GAP_NS (500LL * 1000000)
struct bridge_top_row {
	int32_t pid;
	uint8_t kind; /* enum caret_ctl_top_kind */
	uint64_t calls, mean_ns, p99_ns, max_ns;
	double rate_hz, cpu;
	char procname[BRIDGE_TOP_STR], node[BRIDGE_TOP_STR], symbol[BRIDGE_TOP_STR],
		topic[BRIDGE_TOP_STR];
};
struct bridge_top_host {
	char host[BRIDGE_HOST_MAX];
	int64_t seen_ns;
	uint32_t interval_ms;
	uint64_t processes, lost, cut;
	int n;
	struct bridge_top_row rows[BRIDGE_TOP_ROWS];
};
struct caret_ctl_top;
/* The top module's rows of every process a peer may see; 0 or a negative
 * errno; the result freed with free_rows. */
struct bridge_top_source {
	int (*rows)(void *arg, int64_t now_ns, int64_t lease_ms, struct caret_ctl_top *out);
	void (*free_rows)(struct caret_ctl_top *out);
	void *arg;
};

/* The size bound of a relay session (lib/lttng/lttng_limit.h); tests give
 * fakes. */
struct bridge_limit_ops {
	int (*size)(const char *session, uint64_t bytes, char *err, size_t errlen);
	int (*remove)(const char *session);
	int (*remove_all)(void);
};

struct bridge {
	struct bridge_cfg cfg;
	struct registry *reg;
	struct sched *sched; /* a peer's Start and End are its tick's inputs */
	struct lttng_view *lttng;
	/* the recordings whose snapshots other hosts may ask (NULL: none) */
	struct recordings *recs;
	struct loop_job take, publish; /* observe and report stages of the tick */
	struct bridge_dds *dds;
	char state[256]; /* "off", "asleep...", "starting", "up (domain N)", or why not */
	bool up;
	/* lazy: started asleep (bridge_wake.h); asleep: DDS not loaded yet */
	bool lazy, asleep;
	struct bridge_wake wake;
	int64_t up_ns; /* when DDS came up */
	bool dds_failed; /* the last try to start DDS failed (retried) */
	struct bridge_pending pending[BRIDGE_PENDING];
	int64_t next_try_ns, last_beat_ns;
	bool status_due;
	char host[BRIDGE_HOST_MAX];
	struct bridge_host hosts[BRIDGE_MAX_HOSTS];
	int n_hosts;
	struct bridge_proc procs[BRIDGE_MAX_PROCS];
	int n_procs;
	struct bridge_counts counts;
	char relay_session[256]; /* the session a relay_record made here; "" none */
	int64_t relay_since_ns;  /* when it was created */
	int64_t relay_try_ns;    /* when the last one was tried */
	struct bridge_relay_job *relay_job; /* being started (bridge_relay.c); NULL none */
	/* the one limiter of every log line another host can cause */
	int64_t rl_begin_ns;
	unsigned rl_n;
	unsigned rl_dds_n; /* of rl_n, CycloneDDS's own lines */
	uint64_t rl_suppressed;
	/* last published state per pid, to publish changes at once */
	struct { int pid; uint32_t state; } last[BRIDGE_MAX_PROCS];
	int n_last;
	const struct bridge_limit_ops *limit; /* NULL: lttng_limit.h's */
	struct bridge_snap_serve serve[BRIDGE_SNAP_SERVE];
	int64_t snap_last_ns;               /* when a served snapshot last began */
	int64_t snap_win_ns;                /* the second BRIDGE_SNAP_RATE counts in */
	unsigned snap_win_n;
	struct bridge_snap_out *out[BRIDGE_SNAP_OUT];
	/* top --all-hosts: whom this host serves, until when a peer's ask
	 * holds, when its last summary and its own last ask went out, and the
	 * other hosts' summaries (allocated as they come) */
	struct bridge_top_source top_src;
	int64_t top_lease_until, top_sent_ns, top_asked_ns, top_heard_ns, top_sent_ask_ns;
	struct bridge_top_host *top[BRIDGE_MAX_HOSTS];
};

/* The bridge version this caretd speaks (proto/caret_msgs.idl). */
uint32_t bridge_version(void);

/* Its collaborators, handed to bridge_start (b->cfg is set before). */
struct bridge_ops {
	struct registry *reg;
	struct sched *sched;
	struct lttng_view *lttng;
};
int bridge_start(struct bridge *b, struct loop *loop, const struct bridge_ops *ops);
void bridge_stop(struct bridge *b);
/* What is active in LTTng changed: the bridge's jobs run in this tick
 * (they sleep longer while idle). */
void bridge_kick(struct bridge *b);

/* Starts a lazy bridge asleep (bridge_wake.h), unless CYCLONEDDS_URI or
 * the host's interfaces keep the socket from hearing the domain (logged;
 * then DDS starts as an eager bridge's). */
void bridge_sleep(struct bridge *b, sd_event *ev, int domain);
/*
 * A command of this host needs the other hosts (--all-hosts): a sleeping
 * bridge loads DDS now (why: for the log).
 */
void bridge_wake_now(struct bridge *b, const char *why);
/* Whether this host's broadcasts go out at once (up, and settled after a
 * lazy start); while it wakes they are held (bridge_send_*). */
bool bridge_settled(const struct bridge *b);
/* Woken (or waking) and not settled yet: --all-hosts answers may lack
 * hosts that are still loading DDS. */
bool bridge_waking(const struct bridge *b);

/* Broadcasts; 0, or -ENOTCONN (bridge off or down: b->state says why).
 * While a lazy bridge wakes, they are held and sent once it settled
 * (BRIDGE_HELD; -EBUSY with BRIDGE_PENDING held already, -ENOMEM). An End
 * (or a relay's stop) of a bridge still asleep has nobody to reach: 0. */
#define BRIDGE_HELD 1
/* filter: NULL or the recording's lists (checked by caret_filter_check). */
int bridge_send_start(struct bridge *b, uint32_t frequency, const struct caret_filter_lists *filter);
int bridge_send_end(struct bridge *b);
int bridge_send_relay(struct bridge *b, const char *session, const char *url,
		      uint32_t frequency, bool stop, const struct caret_filter_lists *filter);
/* A recording's broadcast: its relay request first when url (a host must
 * have its session before the Start can find it active), then its Start;
 * held together, in that order, while the bridge wakes. rec_frequency is
 * the recording's own option (0: each relay host's default), frequency the
 * Start's. */
int bridge_send_record_start(struct bridge *b, const char *session, const char *url,
			     uint32_t rec_frequency, uint32_t frequency,
			     const struct caret_filter_lists *filter);

/*
 * `snapshot --all-hosts` of session: asks every other host to take its
 * own, within timeout_ms (1..CARET_CTL_TIMEOUT_MAX_MS) (0, -ENOTCONN
 * with b->state saying why, -EBUSY with too many in flight, -ENOMEM;
 * -EAGAIN while a lazy bridge wakes: ask again once bridge_settled).
 * *out lists the hosts known now (those of another bridge version with
 * their error already); replies fill it as they come; free it with
 * bridge_snapshot_done.
 */
int bridge_snapshot_ask(struct bridge *b, const char *session, int64_t timeout_ms,
			struct bridge_snap_out **out);
/* Whether every host of out that can answer did. */
bool bridge_snapshot_all_in(const struct bridge_snap_out *o);
void bridge_snapshot_done(struct bridge *b, struct bridge_snap_out *o);

/*
 * `top --all-hosts`: this host's summaries come from src (set once, before
 * bridge_start). bridge_top_ask asks every other host for theirs for
 * lease_ms (sent at most every BRIDGE_TOP_ASK_GAP_NS; a bridge asleep is
 * woken: -EAGAIN until it settled; -ENOTCONN when off or down).
 * bridge_top_host: the i-th other host's summary heard within
 * BRIDGE_TOP_FRESH_NS of now, NULL past the last.
 */
void bridge_top_serve(struct bridge *b, const struct bridge_top_source *src);
int bridge_top_ask(struct bridge *b, int64_t lease_ms, int64_t now);
const struct bridge_top_host *bridge_top_host(const struct bridge *b, int i, int64_t now);

/* --- shared by the bridge's files (bridge_dds.c, bridge_peers.c,
 * bridge_relay.c), not by the rest of caretd ------------------------- */

/* Who sent a sample: the host a caretd writer names in its user data, or
 * "(ros2 peer ...)", and the GUID prefix of its participant. */
struct bridge_sender {
	char host[BRIDGE_HOST_MAX];
	unsigned char pp[12];
	bool known;       /* the writer is (still) matched */
	uint32_t version; /* its bridge version; 0: not a caretd (CARET's nodes) */
};

/* The one limiter of every log line another host can cause (B16c): a peer
 * cannot pick a kind of line that escapes it. */
bool bridge_rlog_ok(struct bridge *b);
/* The same for one of CycloneDDS's own lines, which may take only a part of
 * the window's lines: caretd's own (a rejected sample, another version)
 * stay visible under a flood of CycloneDDS's. */
bool bridge_rlog_dds_ok(struct bridge *b);
/* Says how many lines it suppressed, once its interval is over. */
void bridge_rlog_flush(struct bridge *b, int64_t now);
#define bridge_rlog(b, level, ...)                   \
	do {                                         \
		if (bridge_rlog_ok(b))               \
			log_msg(level, __VA_ARGS__); \
	} while (0)
#define bridge_rlog_info(b, ...) bridge_rlog(b, LOG_INFO, __VA_ARGS__)
#define bridge_rlog_warn(b, ...) bridge_rlog(b, LOG_WARNING, __VA_ARGS__)
/* A sample refused (counted, logged through the limiter). */
void bridge_reject(struct bridge *b, const char *what, const char *why);

#endif
