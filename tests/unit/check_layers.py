#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""caretd's files call only down, over the whole tree.

Between folders (FOLDERS): util/ includes nothing of the tree, proto/ only
util/; shm/ builds on proto/ and util/; agent/, daemon/ and tools/ each build on
shm/, proto/ and util/ and never on each other (the exceptions are listed
in EXCEPTIONS, each with its reason); tests/ and bench/ may include any
product folder, and no product file includes tests/ or bench/.

Inside a folder (LAYERS): each module may include its own header and those
of lower layers, never one of its own layer or above. A new module of
daemon/ or agent/ must be given a layer here, or this check fails.

When the objects are built ($B/obj, B=build by default), the same is
checked on what the modules really call: no circle through the symbols
one module defines and another uses, in any product folder (a header that
declares another module's function cannot hide one).

And only shm/ touches a segment's header."""
import collections
import os
import re
import subprocess
import sys

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
bad = []

# ---- between folders ----------------------------------------------------
# Which folders each product folder may include (its own always).
FOLDERS = {
    "util": set(),  # below everything: every program links it
    "proto": {"util"},
    "shm": {"proto", "util"},
    "agent": {"shm", "proto", "util", "gen:agent"},
    # the LTTng door and acting with a requester's rights: caretd and
    # caretctl both link it
    "lib/lttng": {"proto", "util"},
    "tools/caretctl": {"proto", "util", "lib/lttng"},  # not shm/: caretctl links util/ only
    "tools/agentctl": {"shm", "proto", "util"},
    "tools/standin": {"proto", "gen:proto"},  # the stand-in shares only rclcpp's ABI facts (and /clock's IDL)
    "tools/simclock": {"proto", "gen:proto"},  # record -c's /clock reader: the IDL's type, nothing of caretd
}
# Headers the build generates into $B/gen, by what they are generated from:
# the agent's from proto/caret_segment.h's tables (for the agent only), the
# bridge's DDS types from proto/caret_msgs.idl.
GENERATED = {
    "caret_capture.h": "gen:agent", "caret_init_hooks.h": "gen:agent",
    "caret_tp_events.h": "gen:agent", "caret_tp_emit.h": "gen:agent",
    "caret_msgs.h": "gen:proto",
    "ros_clock.h": "gen:proto",
}
# daemon/'s folders, bottom first: each builds on those before it (and on
# shm/, proto/, util/, lib/lttng/), never on one after it. main.c and
# config.c, at daemon/'s top, build on all of them.
DAEMON = ["daemon/base", "daemon/lttng", "daemon/agents", "daemon/recording",
          "daemon/bridge", "daemon/server", "daemon"]
for i, d in enumerate(DAEMON):
    FOLDERS[d] = {"shm", "proto", "util", "lib/lttng", "gen:proto"} | set(DAEMON[:i])
# (file, included header): allowed across the folder rules, and why.
EXCEPTIONS = {}
TEST_FOLDERS = ("tests", "bench")
TOPS = ("agent", "shm", "proto", "daemon", "lib", "tools", "util", "tests", "bench")
SOURCE = (".c", ".h", ".cpp", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    """The folder a tree path belongs to (tools/ has one per program)."""
    parts = rel.split("/")
    if parts[0] in ("tools", "lib", "daemon") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def resolve(rel, inc):
    """The folder an include names: a tree path, a file beside the
    includer, or a generated header (None: a header of a system library)."""
    if inc.split("/")[0] in TOPS:
        return folder_of(inc), inc
    beside = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if os.path.exists(os.path.join(root, beside)):
        return folder_of(beside), beside
    if os.path.basename(inc) in GENERATED:
        return GENERATED[os.path.basename(inc)], inc
    return None, inc


def sources():
    for top in TOPS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SOURCE):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


includes = {}
for rel in sources():
    with open(os.path.join(root, rel), errors="replace") as fh:
        includes[rel] = INCLUDE.findall(fh.read())

for rel, incs in sorted(includes.items()):
    src = folder_of(rel)
    for inc in incs:
        dst, path = resolve(rel, inc)
        if dst is None or dst == src or (rel, path) in EXCEPTIONS:
            continue
        if src in TEST_FOLDERS:
            continue
        if dst in TEST_FOLDERS:
            bad.append("%s includes %s: product code never includes %s/" % (rel, inc, dst))
        elif src not in FOLDERS:
            bad.append("%s: folder %s has no rule in %s" % (rel, src, __file__))
        elif dst not in FOLDERS[src]:
            bad.append("%s includes %s: %s/ may include only %s" %
                       (rel, inc, src, ", ".join(sorted(FOLDERS[src])) or "itself"))

# ---- inside a folder ----------------------------------------------------
# daemon/'s and lib/lttng/'s modules in one order, bottom first: inside
# each folder, a module builds on those of lower layers only.
ORDER = [
    {"log", "loop", "version", "rejects", "sigbus"},  # used everywhere
    {"creds"},  # acting with a requester's rights (the LTTng door uses it)
    {"lttng_ctl"},  # lttng-ctl's shared calls: codes, messages, handles, names, the session list
    {"session", "lttng_sel", "lttng_drain", "lttng_limit", "registry", "chunks", "snapshot_mem",
     "top_join", "lttng_start_msg"},  # top_join: `top`'s counters joined with a segment's init records; lttng_sel: a recording's -u/--context/kernel selection; the doors to LTTng and to the agents' segments; a rotating recording's archived chunks
    {"lttng_layout", "lttng_channel"},  # the session a configuration makes, described (record -l prints it); one described channel made
    {"sched_pass"},  # the scheduler's state of each agent and its passes, under the tick
    {"scheduler", "lttng_view", "registry_loop", "lttng_record", "lttng_snapshot",
     "rotation_types", "lttng_helper"},  # lttng_record: caret_lttng_record() of lttng.h; lttng_snapshot: caret_lttng_snapshot(); rotation_types: a rotating recording's state
    {"dups", "recording", "lttng_start", "pacer_cpus"},  # pacer_cpus: the pacer's per-CPU accounting; lttng_start: a session's making in caretd's start helper (lttng_helper: that process's loop; lttng_start_msg: what they say), its end learnt through a socket; the copies each session got, from the agents' replay positions; recording: the one description of a recording and its features' ops
    {"recordings_table", "pacer_hist"},  # pacer_hist: what the agents emitted, sampled per tick; the recordings table and its changes (admission, put, forget, the armed marker), under its persistence
    {"recordings_state", "pacer_fb"},  # pacer_fb: the feedback pacing's reads of the packet index; the recordings across a restart: saved once per change's driver, read at start-up
    {"pacer", "notify", "wait", "cmd_events", "startend", "config",
     "recordings", "top"},  # recordings: the table in the loop (the view's hooks, reaping, armed ones held); top: watched processes, their leases and rows
    {"rotation_state"},  # what the rotations look at
    {"simclock"},  # record -c: the caret-simclock helpers of the recordings
    # rotation's parts on that table: lttng-ctl (triggers, channel,
    # schedules), the chunks' verdicts, the disk guard
    {"rotation_lttng", "rotation_verdict", "rotation_space"},
    {"rotation_store", "rotation_report"},  # the state file and adoption; replies
    {"rotation_prune"},  # the chunks' removal, in a helper off caretd's loop
    {"rotation", "snapshot"},  # a rotating recording's timer, requests, notifications; a flight recorder's pass before its snapshots
    {"snapshot_trigger"},  # a flight recorder's LTTng trigger: its notifications take snapshots
    {"features"},  # the features of a recording, listed once, and what runs them
    {"recordings_make"},  # record's making: admission, session, table, features' begin, one unwind
    {"bridge_msg", "bridge_wake", "bridge_ddsc"},  # the checks of what a DDS peer sends, pure (fuzzed alone); the passive SPDP listener of a bridge asleep; libddsc's loader and the entities
    {"bridge"},  # DDS to other hosts: the state and the log limiter its parts share
    {"bridge_peers", "bridge_relay", "bridge_snap", "bridge_pending", "bridge_ddslog"},  # bridge_ddslog: CycloneDDS's own log lines through the bridge's limiter; other hosts' Start/End/Status; the relay session they ask for; the snapshots they ask for; this host's broadcasts held while it wakes
    {"bridge_send", "bridge_top"},  # what this host publishes: Status, snapshot replies, broadcasts (held while waking); top --all-hosts: the asks, this host's summaries, the other hosts' kept
    {"bridge_dds"},  # CycloneDDS itself: entities, take, publish, the bridge's jobs
    {"cmd", "top_hosts"},  # the commands' shape: typed request in, code and result out; top_hosts: top --all-hosts, the other hosts' rows and this host's summary
    {"cmd_top"},  # `top`: the requester's processes watched, their rows
    {"cmd_record_start"},  # `record`'s reply deferred while LTTng starts its session off the loop
    {"cmd_record", "cmd_stop", "cmd_snapshot", "cmd_hosts", "cmd_pause",
     "cmd_queue"},  # the commands that drive LTTng (through the view's ops); hosts: this host and the bridge's others; cmd_queue: those sent while LTTng starts a session, waiting for its end
    {"cmd_record_plan", "cmd_record_go"},  # record -l: cmd_record's plan and the layout, nothing made; record's {"go"}: an armed recording started as cmd_record starts one
    {"cmd_hold"},  # `hold`: a recording held by its requester's connection, stopped through cmd_stop when it closes unreleased
    {"commands"},  # the dispatch: decodes requests, encodes replies
    {"server"},
    {"main"},
]

LAYERS = {
    "agent": [
        {"tp/caret_tp_api"},  # the provider's interface (the provider is a library of its own)
        # the process-wide state every file reads (state word, provider,
        # distribution facts, caret_warn); leaves that know nothing of the agent
        {"state", "tp/caret_tp", "distro", "resolve"},
        # CARET's filter lists; the filters' lock-free verdict table
        {"filter_list", "filter_verdicts"},
        {"filter_rel"},  # the relations the filters decide over, and their verdicts
        # CARET's trace filters; `caretctl top`'s counting; the provider, loaded on first need
        {"filter", "count", "provider"},
        {"replay"},  # the replay thread (emits through filter)
        {"agent"},  # initialisation, fork handling, the capture path
        # the hooks, entered from the application
        {"hooks_init", "hooks_runtime", "hooks_dds", "hooks_fastdds", "hooks_rclcpp",
         "tpwatch"},
    ],
}

M = {}
for i, ms in enumerate(ORDER):
    for m in ms:
        M[m] = i
for top in DAEMON + ["lib/lttng"]:
    mods = {os.path.splitext(f)[0] for f in os.listdir(os.path.join(root, top))
            if f.endswith((".c", ".h"))}
    LAYERS[top] = [{m for m in ms if m in mods} for ms in ORDER]
    for m in sorted(mods - set(M)):
        bad.append("%s/%s: module has no layer in %s" % (top, m, __file__))

for top, layers in LAYERS.items():
    layer = {m: i for i, ms in enumerate(layers) for m in ms}
    for rel, incs in sorted(includes.items()):
        if folder_of(rel) != top:
            continue
        mod = os.path.splitext(os.path.relpath(rel, top))[0]
        if mod not in layer:
            bad.append("%s: module %s has no layer in %s" % (rel, mod, __file__))
            continue
        for inc in incs:
            dst, path = resolve(rel, inc)
            if dst != top:
                continue
            other = os.path.splitext(os.path.relpath(path, top))[0]
            if other == mod:
                continue
            if other not in layer or layer[other] >= layer[mod]:
                bad.append("%s includes %s (layer %s, its own is %d)"
                           % (rel, inc, layer.get(other, "?"), layer[mod]))

# ---- what the objects call ----------------------------------------------
obj = os.path.join(root, os.environ.get("B", "build"), "obj")


def symbols(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRVWGS":
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            uses.add(p[1])
    return defs, uses


def circles(graph):
    """The strongly connected components with more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


checked = []
if os.path.isdir(obj):
    for top in FOLDERS:
        d = os.path.join(obj, top)
        if not os.path.isdir(d):
            continue
        defs, uses = {}, {}
        for dirpath, _, files in os.walk(d):
            for f in files:
                mod = os.path.splitext(os.path.relpath(os.path.join(dirpath, f), d))[0]
                # (an object whose source is gone or newer, or built from
                # another file's source under another name, is not this
                # tree's: only what the objects of today's sources call)
                src = os.path.join(root, top, mod + ".c")
                if f.endswith(".o") and os.path.exists(src) and \
                        os.path.getmtime(os.path.join(dirpath, f)) >= os.path.getmtime(src):
                    ds, uses[mod] = symbols(os.path.join(dirpath, f))
                    for s in ds:
                        defs.setdefault(s, mod)
        graph = collections.defaultdict(set)
        for mod, us in uses.items():
            graph[mod]
            for s in us:
                if s in defs and defs[s] != mod:
                    graph[mod].add(defs[s])
        checked.append(top)
        for c in circles(graph):
            bad.append("%s/: a circle through what the objects call: %s" % (top, " ".join(c)))
print("calls: %s" % ("checked in " + " ".join(checked) if checked
                     else "not checked (no objects in %s)" % obj))

# ---- the segment's header -----------------------------------------------
# shm/ owns the whole segment protocol: nothing else touches the mapped
# header (shm's own unit test excepted, which plays a hostile owner).
SHM_PRIVATE = re.compile(r'shared_hdr|struct caret_shm_header\b|#include "shm/futex\.h"')
for rel in sorted(includes):
    if folder_of(rel) == "shm":
        continue
    # (the reader bench, like check_reader, forges processes'
    # identities in headers it made itself; the generator reads the
    # layout's offsets for the Python tests, at build time)
    if rel in ("tests/unit/check_shm.c", "tests/unit/check_shm_handshake.c",
               "tests/unit/check_shm_hostile.c", "tests/unit/check_shm_counters.c",
               "tests/unit/check_reader.c", "tests/unit/check_reader_hostile.c",
               "tests/unit/reader_fixture.c",
               "tests/fuzz/fuzz_segment.c", "proto/caret_segment.h",
               "bench/reader_bench.c", "proto/gen/gen_kinds.c"):
        continue
    with open(os.path.join(root, rel), errors="replace") as fh:
        if SHM_PRIVATE.search(fh.read()):
            bad.append("%s touches the mapped segment header (shm/ only)" % rel)
for b in bad:
    print(b)
print("layers: %s" % ("FAILED" if bad else "ok"))
sys.exit(1 if bad else 0)
