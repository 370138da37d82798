/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd control protocol, version 1 (caretctl <-> caretd).
 *
 * Transport: a unix stream socket, CARET_CTL_DEFAULT_SOCKET unless caretd
 * runs with --socket PATH (caretctl: --socket or $CARETD_SOCKET). Peer
 * credentials are checked: root, caretd's own uid, or members of the group
 * caretd was given (--group) may talk; others get an error reply and the
 * connection is closed.
 *
 * Framing: one JSON object per line ('\n'-terminated, UTF-8): a request
 * at most CARET_CTL_MAX_LINE bytes, a reply at most CARET_CTL_MAX_REPLY. A client sends one request and reads reply
 * lines until it gets one with "type" "result" or "error"; "progress"
 * lines may come before it. A request line that is not valid JSON, is too
 * long, or lacks "v"/"cmd" gets an "error" reply.
 *
 * Every request: {"v": 1, "cmd": "<command>", ...}
 * Every reply:   {"v": 1, "type": "<type>", ...}
 *
 * Commands (fields marked ? are optional):
 *
 *  "status"  → result {"host", "caretd": {"pid", "version", "pacing":
 *              "adaptive"|"frequency", "recording_frequency",
 *              "replay_bandwidth" (bytes/s)}, "lttng": {"reachable": bool,
 *              "error"? (when not reachable), "active_sessions": [names],
 *              "caretd_session"?, "caretd_session_path"? (the session
 *              `record` created, while it exists)}, "agents": [AGENT...]}
 *  "list"    → result {"agents": [AGENT...]}
 *     AGENT = {"pid", "procname", "state": "WAIT"|"PREPARE"|"RECORD"|
 *              "UNINITIALIZED"|"INVALID", "records" (cached), "replayed"
 *              (all passes), "replay_done" / "replay_total" (current pass),
 *              "dropped", "nodes": [node names], "segment"}
 *
 *  "record"  {"session"?, "path" (absolute), "light"? bool, "pacing"?
 *             "adaptive"|"frequency", "recording_frequency"? int
 *             (records/s/process), "subbuf_size"? bytes (power of two),
 *             "subbuf_count"? int, "append"? bool (path/session may exist
             and hold traces: this one goes into path/session/append-N)}
 *            Creates, configures and starts an LTTng session (UST channel,
 *            event list, vpid/vtid/procname contexts, output path) and
 *            returns at once; the replay follows from session detection.
 *            "arm"? bool: the session is started with its channel
 *            disabled (it records nothing; caretd treats it as not active):
 *            the session start's cost is paid now, e.g. while caretctl
 *            waits for Enter. {"go": session} (nothing else) then enables
 *            the channel of an armed recording of the requester's.
 *            "rotate_size"?, "rotate_every_ms"?, "keep"?, "max_size"?: a
 *            rotating recording and the bound on its archived chunks
 *            (proto/caret_ctl_rotation.h; its status and stop results too).
 *            "record_clock"? true, "clock_domain"? 0..232: sim time, /clock
 *            of that ROS domain as ros2_caret:sim_time
 *            (proto/caret_ctl_simclock.h).
 *            → result {"session", "path"}
 *            While LTTng starts the session (caretd makes it off its
 *            loop; with many processes, tens of seconds), progress lines
 *            about every second from its second second on (a start that
 *            ends sooner gets its result alone): {"recording": 0, "total" (processes
 *            with the agent), "records_done": 0, "records_total": 0,
 *            "percent": 0, "lttng_start_ms" (how long LTTng has been
 *            starting it)}. A requester that closes its connection before
 *            the result gets none: the session made for it is stopped.
 *            One start at a time: a record meanwhile is refused with
 *            EAGAIN (caretctl asks again).
 *            "hold"? true (a recording made now: not with "arm" or
 *            "plan", EINVAL): this connection becomes the recording's
 *            hold (see "hold") from the moment it is made, so that no
 *            moment passes between the result and the requester's hold:
 *            → result {"session", "path", "held": true}, then the
 *            connection stays a request in progress as a hold's does
 *            (its last line {"session", "held": false}). A caretd before
 *            it ignores the field and leaves "held" out: the requester
 *            then holds with "hold" on another connection.
 *
 *  "wait"    {"timeout_ms"? int}
 *            Streams progress until every agent is in RECORD or the timeout
 *            passes (default CARET_CTL_DEFAULT_TIMEOUT_MS):
 *            progress {"recording", "total", "records_done",
 *                      "records_total", "percent"}  (about every 100 ms)
 *            → result {"ok": bool, "recording", "total",
 *                      "not_recording": [{"pid", "procname", "state",
 *                                         "reason"}],
 *                      "exited": [{"pid", "procname", "state"}],
 *                      "dropped"}
 *            "exited" lists processes that died before reaching RECORD
 *            while this wait ran. With no active session: error. Further
 *            request lines sent while a wait runs are ignored.
 *
 *  "stop"    {"session"?}  Stops the session (default: the one caretd
 *            created, else the only active one), reads the discarded-event
 *            and lost-packet counts of every channel (at most 16), destroys
 *            it; agents go back to WAIT once no session is active.
 *            → result {"session", "path", "channels": [{"name",
 *                      "discarded": int|null, "lost_packets": int|null}],
 *                      "discarded_total": int|null, "dropped"}
 *            null means "unknown" (LTTng reported a value >= 2^63);
 *            discarded_total is null when any channel's count is.
 *            "dropped" (wait and stop): init records the agents of this
 *            host could not cache (cache full), so no replay can bring.
 *            "drops"? (wait and stop): [{"pid", "procname", "dropped"}],
 *            each live agent whose cache dropped records (at most
 *            CARET_CTL_MAX_DROPS entries; "dropped" counts them all).
 *
 *  "hold"    {"session", "release"? bool}  The recording's requester
 *            holds it while it runs: caretctl record keeps this
 *            connection open, and when it closes without a release
 *            (caretctl killed, a second signal, a lost terminal) caretd
 *            stops the recording as "stop" does (its trace kept; End to
 *            every host when it was made with "all_hosts").
 *            → result {"session", "held": true} at once; the connection
 *            then stays a request in progress (further lines ignored) and
 *            gets a last result {"session", "held": false} once the
 *            recording ends otherwise or is released.
 *            With "release": true (on any connection): every hold of the
 *            recording ends, the recording runs on unheld (caretctl record
 *            exiting 4 without --duration leaves it running so).
 *            → result {"session", "held": false}
 *            Only the recording's owner (its requester's uid), root or
 *            caretd's user: else EPERM; ENOENT when caretd has no such
 *            recording. Holds live in the connections: a caretd restarted
 *            has none, and a caretctl still recording holds again.
 *            Each of status's and list's "recordings" held now says
 *            "held": true (proto/caret_ctl_recordings.h).
 *
 *  "pause"   {"session"?}  Stops tracing in a recording `record` made
 *            (lttng_stop_tracing_no_wait: the session and its trace stay,
 *            and caretd keeps the recording): the requester's own (default:
 *            their latest one) or, for root, anyone's. Not an armed,
 *            rotating or flight recorder recording. Agents go back to WAIT
 *            once no session is active.
 *            → result {"session", "path", "paused": true}
 *  "resume"  {"session"?}  Starts a paused recording's tracing again
 *            (lttng_start_tracing): caretd takes it as a session newly
 *            active (a new serial), so every process replays its init
 *            records into it, those started during the pause too.
 *            → result {"session", "path", "paused": false}
 *            Both: EALREADY when it is paused already (not paused), ENOENT
 *            when no such recording, EPERM when it is another user's,
 *            EOPNOTSUPP for an armed, rotating or flight recorder one.
 *
 *  "start"   Start message (as from another host): agents in WAIT go to
 *            PREPARE, only if an LTTng session is active on this host.
 *            → result {"accepted": bool, "reason"? (when not accepted)}
 *  "end"     End message: agents go back to WAIT, only if no LTTng
 *            session is active on this host.
 *            → result {"accepted": bool, "reason"? (when not accepted)}
 *
 *  "events"  {"since"? int, "until"? int, "count"? int, "after"? token,
 *             "pids"? [int], "kinds"? [string]}
 *            One page of the host's caches (every agent's init records),
 *            read by shm/reader.h: merged in (init_timestamp, pid, start
 *            time, record index) order, from "after" (a "next" token of an
 *            earlier page) or else from "since" (CLOCK_MONOTONIC ns) or
 *            else the beginning; records with init_timestamp < "until"
 *            only; at most "count" events (1..CARET_CTL_EVENTS_MAX_COUNT,
 *            default CARET_CTL_EVENTS_DEFAULT_COUNT) plus those sharing the
 *            last one's timestamp, fewer when the reply line would grow
 *            past CARET_CTL_EVENTS_PAGE_BYTES (then "more" is true). Only
 *            the given pids and kinds (kind names as in seed 003).
 *            → result {"events": [{"ts", "pid", "procname", "index", "kind",
 *                       "fields": {name: value}}],
 *                      "next": token, "more": bool, "segments": int,
 *                      "corrupt_segments": int, "late": int}
 *            Field values: pointers as "0x..." strings, integers as
 *            numbers, strings (cut at CARET_CTL_EVENTS_STR_MAX bytes) as
 *            strings. "next" names the position after the last event
 *            (also after events the filters passed over); "more" says
 *            whether events follow it now. "late" counts the records caretd
 *            found, since it started, behind a position it had already served
 *            (their writer stalled longer than the reorder window): they are
 *            only seen by reading again from before them. Timestamps are
 *            JSON numbers: exact below 2^53 ns (104 days of uptime);
 *            positions are exact in any case (tokens carry them).
 *            Errors: EINVAL for a malformed token or an event it names
 *            that no longer matches, ESRCH when its process vanished,
 *            EBADMSG when its segment is corrupted.
 * Several hosts (the DDS bridge, caretd(8)):
 *  "record" and "stop" take "all_hosts"? bool: after the local action,
 *            broadcast CARET's Start (record) or End (stop) to every host,
 *            and with "url" also caretd's relay_record. "record" takes
 *            "url"? (net://, net6://, tcp://, tcp6://) instead of "path":
 *            the session streams to that lttng-relayd. "start" and "end"
 *            take "all_hosts"? too. Their results then carry
 *            "broadcast": bool and "broadcast_error"? string.
 *            "record" and "start" take CARET's filters "select_nodes"?,
 *            "ignore_nodes"?, "select_topics"?, "ignore_topics"? (strings
 *            as the CARET_SELECT_NODES ... variables: ':'-separated
 *            regular expressions; UTF-8, together at most
 *            CARET_SHM_FILTER_TEXT_MAX bytes, else EINVAL): the processes
 *            the recording's Start moves (those in WAIT) replay and record
 *            only what they select; they go into the broadcast Start (and
 *            relay_record) too.
 *  "snapshot" {"session"?, "output"?, "timeout_ms"?}: a flight recorder's
 *            snapshot, after a replay of every live process's init records
 *            into its ring (proto/caret_ctl_snapshot.h: the request, its
 *            progress and result, `record`'s "snapshot_size", and the
 *            "recordings" of status and list results: every recording's
 *            mode).
 *  "hosts"   → result {"host", "bridge": "<state>", "counts": {"start",
 *              "end", "status", "relay", "rejected", "sent"},
 *              "hosts": [{"host", "self": bool, "age_ms" (since its last
 *              Status), "processes": [{"name", "state", "pid",
 *              "nodes": "a,b"}]}]}
 *            Other hosts' processes as their Status messages told (a host
 *            stays listed once seen, its processes for 5 s).
 *
 * Errors: {"v": 1, "type": "error", "error": "<one line for a human>",
 *          "errno": <positive errno>}
 * Sent for a bad request (EPROTO: not a JSON object, no "cmd", another
 * "v"; EINVAL: unknown command or bad field; EMSGSIZE: line too long,
 * then the connection is closed), a failed command (its errno), and to a
 * refused peer (EACCES; EBUSY when caretd has too many clients) before
 * closing.
 *
 * Every name below is the one spelling of a message or field: caretctl
 * builds its requests and caretd reads them with caret_ctl_req.h (one
 * struct per command, one encoder, one decoder); caretd builds its
 * replies with caret_ctl_enc.h and caretctl reads them with
 * caret_ctl_dec.h, all from this directory. A request whose "v" is not
 * CARET_CTL_VERSION is refused (EPROTO) with both versions named.
 *
 * The version is raised only by a change a peer of the release before
 * would misread, since raising it cuts every mixed pair off: a reply's
 * version is checked as strictly by a caretctl already installed. An
 * addition is no such change, and the requests added since version 1
 * (pause, resume, top, hold) and fields (record's "plan" and "hold") are
 * version 1's: an older caretd answers a request it lacks "unknown
 * command" (EINVAL) and ignores a field it lacks, which the caretctl that
 * sent it allows for (a reply without "held": it holds with "hold"; one
 * without "plan": the recording an older caretd made instead is stopped,
 * tools/caretctl/plan_cli.c).
 * What a user mixing releases then sees is which side to upgrade
 * (caret_ctl_version.h): caretctl turns caretd's "unknown command" for
 * its own request, and either side's version refusal, into "caretd speaks
 * protocol N, this caretctl M: upgrade caretd" (or caretctl).
 */
#ifndef CARET_PROTO_CTL_H
#define CARET_PROTO_CTL_H

#define CARET_CTL_VERSION 1
#define CARET_CTL_DEFAULT_SOCKET "/run/caretd/caretd.sock"
#define CARET_CTL_MAX_LINE 65536
/* A reply line: status/list of the most agents caretd attaches (4096, each
 * with at most 4 KiB of node names) stays below it; caretd answers a reply
 * that would not with EMSGSIZE. */
#define CARET_CTL_MAX_REPLY (32u << 20)
/* Every count in a reply is at most this: 10^15 - 1, the largest integers
 * cJSON prints exactly (15 significant digits) and caretctl reads as
 * integers. caretd reports a larger value, which only a lying segment or
 * LTTng can produce, as this one. */
#define CARET_CTL_COUNT_MAX 999999999999999ULL
#define CARET_CTL_DEFAULT_TIMEOUT_MS 60000

/* Defaults of `record`. The channel is LTTng's own default for per-UID
 * UST buffers (512 KiB x 4 per CPU): starting a session costs LTTng time
 * per registered application and per buffer byte (measured with 100
 * processes: 0.3-0.6 s at 512 KiB x 4, 1.8-2.4 s at 8 MiB x 8), and replay
 * pacing keeps it from discarding. */
#define CARET_CTL_DEFAULT_FREQUENCY 100
#define CARET_CTL_DEFAULT_SUBBUF_SIZE (512u << 10)
#define CARET_CTL_DEFAULT_SUBBUF_COUNT 4u
#define CARET_CTL_DEFAULT_CHANNEL "caret"

/* Envelope */
#define CARET_CTL_K_V "v"
#define CARET_CTL_K_CMD "cmd"
#define CARET_CTL_K_TYPE "type"
#define CARET_CTL_K_ERROR "error"
#define CARET_CTL_K_ERRNO "errno"

/* Reply types */
#define CARET_CTL_T_PROGRESS "progress"
#define CARET_CTL_T_RESULT "result"
#define CARET_CTL_T_ERROR "error"

/* Commands */
#define CARET_CTL_CMD_STATUS "status"
#define CARET_CTL_CMD_LIST "list"
#define CARET_CTL_CMD_RECORD "record"
#define CARET_CTL_CMD_WAIT "wait"
#define CARET_CTL_CMD_STOP "stop"
#define CARET_CTL_CMD_START "start"
#define CARET_CTL_CMD_END "end"
#define CARET_CTL_CMD_EVENTS "events"
#define CARET_CTL_CMD_HOSTS "hosts"
#define CARET_CTL_CMD_PAUSE "pause"
#define CARET_CTL_CMD_RESUME "resume"
#define CARET_CTL_CMD_HOLD "hold"

/* Pacing values */
#define CARET_CTL_PACING_ADAPTIVE "adaptive"
#define CARET_CTL_PACING_FREQUENCY "frequency"

/* Fields, in the order of the commands above */
#define CARET_CTL_K_HOST "host"
#define CARET_CTL_K_CARETD "caretd"
#define CARET_CTL_K_PID "pid"
#define CARET_CTL_K_VERSION "version"
#define CARET_CTL_K_PACING "pacing"
#define CARET_CTL_K_RECORDING_FREQUENCY "recording_frequency"
#define CARET_CTL_K_SELECT_NODES "select_nodes"
#define CARET_CTL_K_IGNORE_NODES "ignore_nodes"
#define CARET_CTL_K_SELECT_TOPICS "select_topics"
#define CARET_CTL_K_IGNORE_TOPICS "ignore_topics"
#define CARET_CTL_K_REPLAY_BANDWIDTH "replay_bandwidth"
#define CARET_CTL_K_LTTNG "lttng"
#define CARET_CTL_K_REACHABLE "reachable"
#define CARET_CTL_K_ACTIVE_SESSIONS "active_sessions"
#define CARET_CTL_K_CARETD_SESSION "caretd_session"
#define CARET_CTL_K_CARETD_SESSION_PATH "caretd_session_path"
#define CARET_CTL_K_AGENTS "agents"
#define CARET_CTL_K_PROCNAME "procname"
#define CARET_CTL_K_STATE "state"
#define CARET_CTL_K_RECORDS "records"
#define CARET_CTL_K_REPLAYED "replayed"
#define CARET_CTL_K_REPLAY_DONE "replay_done"
#define CARET_CTL_K_REPLAY_TOTAL "replay_total"
#define CARET_CTL_K_DROPPED "dropped"
#define CARET_CTL_K_DROPS "drops"
#define CARET_CTL_MAX_DROPS 64
#define CARET_CTL_K_NODES "nodes"
#define CARET_CTL_K_SEGMENT "segment"
#define CARET_CTL_K_SESSION "session"
#define CARET_CTL_K_PATH "path"
#define CARET_CTL_K_LIGHT "light"
#define CARET_CTL_K_APPEND "append"
#define CARET_CTL_K_ARM "arm"
#define CARET_CTL_K_GO "go"
#define CARET_CTL_K_SUBBUF_SIZE "subbuf_size"
#define CARET_CTL_K_SUBBUF_COUNT "subbuf_count"
#define CARET_CTL_K_TIMEOUT_MS "timeout_ms"
#define CARET_CTL_K_RECORDING "recording"
#define CARET_CTL_K_TOTAL "total"
#define CARET_CTL_K_RECORDS_DONE "records_done"
#define CARET_CTL_K_RECORDS_TOTAL "records_total"
#define CARET_CTL_K_PERCENT "percent"
#define CARET_CTL_K_LTTNG_START_MS "lttng_start_ms"
#define CARET_CTL_K_OK "ok"
#define CARET_CTL_K_NOT_RECORDING "not_recording"
#define CARET_CTL_K_REASON "reason"
#define CARET_CTL_K_EXITED "exited"
#define CARET_CTL_K_CHANNELS "channels"
#define CARET_CTL_K_NAME "name"
#define CARET_CTL_K_DISCARDED "discarded"
#define CARET_CTL_K_LOST_PACKETS "lost_packets"
#define CARET_CTL_K_DISCARDED_TOTAL "discarded_total"
#define CARET_CTL_K_DUPLICATES "duplicates"
#define CARET_CTL_K_ACCEPTED "accepted"
#define CARET_CTL_K_SINCE "since"
#define CARET_CTL_K_UNTIL "until"
#define CARET_CTL_K_COUNT "count"
#define CARET_CTL_K_AFTER "after"
#define CARET_CTL_K_PIDS "pids"
#define CARET_CTL_K_KINDS "kinds"
#define CARET_CTL_K_EVENTS "events"
#define CARET_CTL_K_TS "ts"
#define CARET_CTL_K_INDEX "index"
#define CARET_CTL_K_KIND "kind"
#define CARET_CTL_K_FIELDS "fields"
#define CARET_CTL_K_NEXT "next"
#define CARET_CTL_K_MORE "more"
#define CARET_CTL_K_SEGMENTS "segments"
#define CARET_CTL_K_CORRUPT_SEGMENTS "corrupt_segments"
#define CARET_CTL_K_LATE "late"
/* pause, resume, and each of status's "recordings" */
#define CARET_CTL_K_PAUSED "paused"
#define CARET_CTL_K_RELEASE "release"
#define CARET_CTL_K_HELD "held"
/* record's: its connection becomes the recording's hold */
#define CARET_CTL_K_HOLD "hold"

/* Paging of "events". */
#define CARET_CTL_EVENTS_DEFAULT_COUNT 100
#define CARET_CTL_EVENTS_MAX_COUNT 10000
#define CARET_CTL_EVENTS_PAGE_BYTES 40000
#define CARET_CTL_EVENTS_STR_MAX 1024
#define CARET_CTL_EVENTS_MAX_FILTER 256
#define CARET_CTL_K_ALL_HOSTS "all_hosts"
#define CARET_CTL_K_URL "url"
#define CARET_CTL_K_BROADCAST "broadcast"
#define CARET_CTL_K_BROADCAST_ERROR "broadcast_error"
#define CARET_CTL_K_BRIDGE "bridge"
/* hosts: true while a lazy bridge wakes (other hosts may still be loading
 * DDS): an --all-hosts wait goes on */
#define CARET_CTL_K_BRIDGE_WAKING "bridge_waking"
#define CARET_CTL_K_COUNTS "counts"
#define CARET_CTL_K_HOSTS "hosts"
#define CARET_CTL_K_SELF "self"
#define CARET_CTL_K_AGE_MS "age_ms"
#define CARET_CTL_K_PROCESSES "processes"
/* the DDS bridge version a host speaks (0: not a caretd), and whether this
 * caretd ignores it for speaking another one than its own */
#define CARET_CTL_K_BRIDGE_VERSION "bridge_version"
#define CARET_CTL_K_IGNORED "ignored"
/* record's flag (its plan, nothing created: `record -l`) and the plan's
 * key in the result (proto/caret_ctl_plan.h) */
#define CARET_CTL_K_PLAN "plan"

#endif
