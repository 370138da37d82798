#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""caretd's files call only down, and only shm/ touches a segment's header: each module may include its own header
and those of lower layers, never one of its own layer or above. A new
daemon/ module must be given a layer here, or this check fails."""
import os
import re
import sys

LAYERS = [
    {"log", "loop", "version", "rejects", "sigbus"},  # used everywhere
    {"creds"},  # acting with a requester's rights (the LTTng door uses it)
    {"lttng", "lttng_drain", "lttng_limit", "registry", "chunks"},  # the doors to LTTng and to the agents' segments
    {"scheduler", "lttng_view", "registry_loop"},
    {"pacer", "notify", "wait", "events", "startend", "config", "rotation"},
    {"bridge_msg"},  # the checks of what a DDS peer sends, pure (fuzzed alone)
    {"bridge"},  # DDS to other hosts: applies their Start/End through startend
    {"commands"},
    {"server"},
    {"main"},
]
LAYER = {m: i for i, ms in enumerate(LAYERS) for m in ms}

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
daemon = os.path.join(root, "daemon")
bad = []
for f in sorted(os.listdir(daemon)):
    mod, ext = os.path.splitext(f)
    if ext not in (".c", ".h"):
        continue
    if mod not in LAYER:
        bad.append("daemon/%s: module %s has no layer in %s" % (f, mod, __file__))
        continue
    with open(os.path.join(daemon, f)) as fh:
        for inc in re.findall(r'#include "daemon/(\w+)\.h"', fh.read()):
            if inc == mod:
                continue
            if inc not in LAYER or LAYER[inc] >= LAYER[mod]:
                bad.append("daemon/%s includes daemon/%s.h (layer %s, its own is %d)"
                           % (f, inc, LAYER.get(inc, "?"), LAYER[mod]))

# shm/ owns the whole segment protocol: nothing else touches the mapped
# header (shm's own unit test excepted, which plays a hostile owner), and
# caretctl links the small util library, not the cache library.
SHM_PRIVATE = re.compile(r'shared_hdr|struct caret_shm_header\b|#include "shm/futex\.h"')
for top in ("agent", "daemon", "tools", "bench", "tests", "proto", "util"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            # (the reader bench, like check_reader, forges processes'
            # identities in headers it made itself)
            if rel in ("tests/unit/check_shm.c", "tests/unit/check_reader.c",
                       "tests/fuzz/fuzz_segment.c", "proto/caret_shm.h",
                       "bench/reader_bench.c"):
                continue
            with open(path) as fh:
                text = fh.read()
            if SHM_PRIVATE.search(text):
                bad.append("%s touches the mapped segment header (shm/ only)" % rel)
            if rel.startswith("tools/caretctl/") and '#include "shm/' in text:
                bad.append("%s includes shm/: caretctl links util/ only" % rel)
for b in bad:
    print(b)
print("layers: %s" % ("FAILED" if bad else "ok"))
sys.exit(1 if bad else 0)
