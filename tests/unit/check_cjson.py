#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Only the codecs and the reply layers speak cJSON (issue 32 item 3): every
reply and result has a struct and an encoder/decoder pair in proto/; caretd's
commands fill structs and its reply layer encodes them; caretctl decodes every
reply through proto/. A product file (not tests/ or bench/) that includes
<cjson/cJSON.h> or names anything of cJSON (its type or its functions) fails,
with its name, unless it is listed below."""
import os
import re
import subprocess
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# proto/: the codecs themselves (every file of the folder).
CODECS = ("proto/",)

# caretd's reply layer: a request line in, a reply line out.
DAEMON_REPLY_LAYER = {
    # dispatch: request decoded, command called, its result struct encoded
    "daemon/server/commands.c", "daemon/server/commands.h",
    # the only writer of reply lines (framing, clients)
    "daemon/server/server.c",
    # the long-running requests: their progress lines and last line, and
    # wait_line, the opaque line other modules hand on or decode through proto/
    "daemon/agents/wait.c", "daemon/agents/wait.h",
}

# caretctl's reply layer: the request line out, the reply line in, checked
# (rpc), and --json's printing of a reply already checked (json_out).
CARETCTL_REPLY_LAYER = {
    "tools/caretctl/rpc.c", "tools/caretctl/rpc.h",
    "tools/caretctl/json_out.c", "tools/caretctl/json_out.h",
}

ALLOWED = DAEMON_REPLY_LAYER | CARETCTL_REPLY_LAYER

NAMES_CJSON = re.compile(r"\bcJSON\w*|<cjson/cJSON\.h>")


def product_sources():
    files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, text=True,
                           check=True).stdout.split()
    for f in files:
        if not re.search(r"\.(c|h|cc|cpp)$", f) or f.startswith(("tests/", "bench/")):
            continue
        if os.path.exists(os.path.join(root, f)):
            yield f


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


bad = []
for f in product_sources():
    if f.startswith(CODECS) or f in ALLOWED:
        continue
    with open(os.path.join(root, f), errors="replace") as fh:
        m = NAMES_CJSON.search(strip_comments(fh.read()))
    if m:
        bad.append("%s: %s outside proto/ and the reply layers" % (f, m.group(0)))
stale = sorted(f for f in ALLOWED if not os.path.exists(os.path.join(root, f)))
for f in stale:
    bad.append("%s: listed in check_cjson.py but gone" % f)
for b in bad:
    print(b)
print("cjson: %s" % ("FAILED" if bad else "ok"))
sys.exit(1 if bad else 0)
