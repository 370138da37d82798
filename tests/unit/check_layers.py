#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""caretd's files call only down: each module may include its own header
and those of lower layers, never one of its own layer or above. A new
daemon/ module must be given a layer here, or this check fails."""
import os
import re
import sys

LAYERS = [
    {"log", "loop", "version"},  # used everywhere
    {"lttng", "registry", "creds"},  # the doors to LTTng and to the agents' segments
    {"scheduler", "lttng_view", "registry_loop"},
    {"pacer", "notify", "wait", "config"},
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
for b in bad:
    print(b)
print("layers: %s" % ("FAILED" if bad else "ok"))
sys.exit(1 if bad else 0)
