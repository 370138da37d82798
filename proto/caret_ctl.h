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
 * Framing: one JSON object per line ('\n'-terminated, UTF-8), at most
 * CARET_CTL_MAX_LINE bytes. A client sends one request and reads reply
 * lines until it gets one with "type" "result" or "error"; "progress"
 * lines may come before it. A request line that is not valid JSON, is too
 * long, or lacks "v"/"cmd" gets an "error" reply.
 *
 * Every request: {"v": 1, "cmd": "<command>", ...}
 * Every reply:   {"v": 1, "type": "<type>", ...}
 *
 * Commands (fields marked ? are optional):
 *
 *  "status"  → result {"host", "caretd": {"pid", "version", "pacing",
 *              "recording_frequency"}, "lttng": {"reachable": bool,
 *              "active_sessions": [names]}, "agents": [AGENT...]}
 *  "list"    → result {"agents": [AGENT...]}
 *     AGENT = {"pid", "procname", "state": "WAIT"|"PREPARE"|"RECORD"|
 *              "UNINITIALIZED", "records" (cached), "replayed" (all
 *              passes), "replay_done" / "replay_total" (current pass),
 *              "dropped", "nodes": [node names], "segment"}
 *
 *  "record"  {"session"?, "path"?, "light"? bool, "pacing"? "adaptive"|
 *             "frequency", "recording_frequency"? int (records/s/process),
 *             "subbuf_size"? bytes, "subbuf_count"? int}
 *            Creates, configures and starts an LTTng session (UST channel,
 *            event list, vpid/vtid/procname contexts, output path) and
 *            returns at once; the replay follows from session detection.
 *            → result {"session", "path"}
 *
 *  "wait"    {"timeout_ms"? int}
 *            Streams progress until every agent is in RECORD or the timeout
 *            passes (default CARET_CTL_DEFAULT_TIMEOUT_MS):
 *            progress {"recording", "total", "records_done",
 *                      "records_total", "percent"}  (about every 100 ms)
 *            → result {"ok": bool, "recording", "total",
 *                      "not_recording": [{"pid", "procname", "state",
 *                                         "reason"}],
 *                      "exited": [{"pid", "procname", "state"}]}
 *            "exited" lists processes that died before reaching RECORD
 *            while this wait ran. With no active session: error.
 *
 *  "stop"    {"session"?}  Stops the session (default: the one caretd
 *            created, else the only active one), reads the discarded-event
 *            and lost-packet counts of every channel, destroys it, then
 *            sends End (agents back to WAIT) if no session is active.
 *            → result {"session", "path", "channels": [{"name",
 *                      "discarded": int|null, "lost_packets": int|null}],
 *                      "discarded_total": int|null}
 *            null means "unknown" (LTTng reported a value >= 2^63).
 *
 *  "start"   Start message (as from another host): agents in WAIT go to
 *            PREPARE, only if an LTTng session is active on this host.
 *            → result {"accepted": bool, "reason"?}
 *  "end"     End message: agents go back to WAIT, only if no LTTng
 *            session is active on this host.
 *            → result {"accepted": bool, "reason"?}
 *
 * Errors: {"v": 1, "type": "error", "error": "<one line for a human>",
 *          "errno": <positive errno or 0>}
 */
#ifndef CARET_PROTO_CTL_H
#define CARET_PROTO_CTL_H

#define CARET_CTL_VERSION 1
#define CARET_CTL_DEFAULT_SOCKET "/run/caretd/caretd.sock"
#define CARET_CTL_MAX_LINE 65536
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

#endif
