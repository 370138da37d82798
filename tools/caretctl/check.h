/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check`: what a recorded trace holds and whether CARET's analyzer
 * can use all of it. check_bt.c feeds babeltrace2 messages (decoding CTF is
 * babeltrace2's job), check_model.c accumulates them into a report,
 * check_links.c says which init records the ones present lack, and
 * cmd_check.c judges the report with complete.h (the model `stop` uses
 * too) and prints it.
 */
#ifndef CARETCTL_CHECK_H
#define CARETCTL_CHECK_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct check_model;

/*
 * Runs one babeltrace2 graph (src.ctf.fs per trace found under dir, one
 * muxer, our sink) and hands every message to the model in time order.
 * 0, or with err saying why on one line: -ENOENT/-ENOTDIR (no such
 * directory), -EACCES (dir or a directory under it cannot be read),
 * -ENODATA (no CTF trace under dir), -EBADMSG (a metadata file that is
 * not CTF's), -EIO (babeltrace2 failed reading the streams), -ENOMEM.
 */
int check_bt_run(const char *dir, struct check_model *m, char *err, size_t errlen);
/* Appends to err the reason the ctf plugin's metadata parser logged in
 * log (its stderr, at level ERROR), if any. */
void check_bt_log_reason(const char *log, char *err, size_t errlen);
/* Appends to err why a stream file could not be indexed, when the ctf
 * plugin logged it in log (a packet longer than what is left of the file:
 * a truncated stream file), in check_stream.c. */
void check_bt_stream_reason(const char *log, char *err, size_t errlen);

struct check_model *check_model_new(void);
void check_model_free(struct check_model *m);
/* One babeltrace2 message; -ENOMEM is the only failure. */
int check_model_msg(struct check_model *m, const bt_message *msg);
/* After the last message: resolves what needs the whole trace. 0, or
 * -ENOMEM (the summaries could not be made). */
int check_model_finish(struct check_model *m);

/* The report, read by cmd_check.c. */
enum { CHECK_MAX_KINDS = 40, CHECK_MAX_LINKS = 24 };

/* The context fields CARET's analyzer reads on every event (caretd and
 * `ros2 caret record` always add them; a session made by hand may not). */
enum { CHECK_CTX_VPID, CHECK_CTX_VTID, CHECK_CTX_PROCNAME, CHECK_NCTX };
/* "vpid", "vtid", "procname"; NULL past the end. */
const char *check_ctx_name(size_t i);

struct check_proc {
	int64_t vpid;
	char procname[32];
	bool caret_init;
	uint64_t init[CHECK_MAX_KINDS];	/* init records per kind (either provider) */
	uint64_t init_total;
	/* Copies of a record already in the trace (same provider, fields and
	 * init_timestamp, or event time for ros2:): what a second replay adds.
	 * The analyzer drops them (lttng_info.py: drop_duplicate). */
	uint64_t dup[CHECK_MAX_KINDS];
	uint64_t dup_total;
	/* Records lacking another they are joined to (check_links.c). */
	uint64_t missing[CHECK_MAX_LINKS];
	uint64_t missing_total;
	uint64_t both_variants;		/* same record as ros2: and ros2_caret: */
	/* rclcpp_callback_register without the *_callback_added of its
	 * callback: what a node filter leaves of a timer or service whose
	 * other records it drops (caret_trace keeps callbacks without a
	 * topic); a cut replay never leaves one (the register follows). */
	uint64_t filtered_registers;
	uint64_t runtime;		/* runtime events */
	/* Replay passes (ros2_caret:caret_replay_begin/end, ours): begun,
	 * whole (ended, every record it emitted in the trace), and of the
	 * last one that was not: its pass number, its records in the trace
	 * (on its thread, between its marks), of how many (its end's count,
	 * or when it never ended, its begin's), and whether it ended. */
	uint64_t passes, passes_whole;
	uint64_t cut_pass, cut_arrived, cut_records, cut_ended;
	/* check_pass.c's pass in flight (not in the report's wire form). */
	bool open;
	uint64_t open_vtid, open_pass, open_records, open_arrived;
	uint64_t events;
	uint64_t publishes, unbound_publishes;
	uint64_t bindings, unmatched_bindings;
};

struct check_topic {
	char *name;
	uint64_t publishers, subscriptions;
};

struct check_node {
	int64_t vpid;
	char *name; /* namespace + "/" + node name, as ROS 2 prints it */
};

struct check_evcount {
	char *name;
	uint64_t count;
};

struct check_report {
	struct check_proc *procs; /* sorted by vpid */
	size_t nprocs;
	struct check_node *nodes;
	size_t nnodes;
	struct check_topic *topics; /* sorted by name */
	size_t ntopics;
	struct check_evcount *evcounts; /* sorted by name */
	size_t nevcounts;
	uint64_t events;
	uint64_t discarded_events;
	uint64_t discarded_unknown; /* discarded-events messages without a count */
	uint64_t discarded_msgs;
	uint64_t lost_packets;
	uint64_t lost_unknown;
	bool any_caret_init;
	int64_t first_ns, last_ns;
	/* Events (but sim_time's, read from any process) lacking each context
	 * field: the analyzer cannot place them in a process or thread. */
	uint64_t no_context[CHECK_NCTX];
	/* ros2caret's summaries (check_summary.h), most events first: every
	 * trace point caret_analyze knows (0 too), and the nodes and topics
	 * with events. */
	struct check_evcount *tracepoints, *node_events, *topic_events;
	size_t ntracepoints, nnode_events, ntopic_events;
};

/* A process whose replay never put all its records in the trace: it had
 * passes and none whole (a whole pass before or after a cut one leaves
 * every record in). */
static inline bool check_pass_cut(const struct check_proc *p)
{
	return p->passes && !p->passes_whole;
}

const struct check_report *check_model_report(const struct check_model *m);
/* Name of init kind i (without provider), NULL past the end. */
const char *check_kind_name(size_t i);
/* Link i of check_links.c, NULL past the end: its JSON key, what was
 * found (the records or objects counted) and what they lack. */
const char *check_link_name(size_t i);
const char *check_link_found(size_t i);
bool check_link_expected(size_t i);
const char *check_link_lacks(size_t i);

#endif
