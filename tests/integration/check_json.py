# SPDX-License-Identifier: Apache-2.0
"""caretctl check --json on a trace, and the numbers that check's and
stop's lines carry, for test_check.py and test_check_model.py."""
import json
import re
import subprocess

from harness import CARETCTL


def check(path, *args):
    r = subprocess.run([CARETCTL, "check", "--json"] + list(args) + [path],
                       capture_output=True, text=True, timeout=300)
    rep = json.loads(r.stdout) if r.stdout.strip() else None
    return r.returncode, rep, r.stderr


def kinds_sum(line):
    """The sum of the kind=N list at the end of a line (proves it whole)."""
    m = re.search(r"\(((?:[a-z_]+=\d+ ?)+)\)$", line)
    assert m, line
    return sum(int(x.split("=")[1]) for x in m.group(1).split())


def stop_copies(text):
    """The number of copies `stop` (the end of `record`) reported, or 0."""
    m = re.search(r"(\d+) replayed initialization records? appears? twice", text)
    return int(m.group(1)) if m else 0
