#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file (C, Python, shell) says its license, and it is the one in LICENSE
(Apache-2.0): a file without the tag, or with another, fails unit-check."""
import os
import re
import subprocess
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(root, "LICENSE")) as f:
    if "Apache License" not in f.read(2000):
        sys.exit("LICENSE is not the Apache License 2.0")
files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                        "--exclude-standard"], capture_output=True, text=True,
                       check=True).stdout.split()
bad = []
for f in files:
    if not re.search(r"\.(c|h|py|sh|bash)$", f) or \
            not os.path.exists(os.path.join(root, f)):
        continue
    with open(os.path.join(root, f), errors="replace") as fh:
        head = fh.read(400)
    m = re.search(r"SPDX-License-Identifier: (\S+)", head)
    if not m or m.group(1) != "Apache-2.0":
        bad.append("%s: %s" % (f, m.group(1) if m else "no SPDX-License-Identifier"))
for b in bad:
    print(b)
print("spdx: %s" % ("FAILED" if bad else "ok"))
sys.exit(1 if bad else 0)
