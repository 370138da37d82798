#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""No function of daemon/ or tools/caretctl/ runs over 80 lines unless the
comment just above it says why: a line of that comment holds "over 80
lines" (for example "Over 80 lines: one case per option.").

A function is what the kernel style lays out: its opening brace alone on a
line at the first column, its closing brace alone at the first column; its
length counts both braces. `python3 tests/unit/check_func_len.py [ROOT]`."""
import os
import re
import sys

LIMIT = 80
FOLDERS = ("daemon", "tools/caretctl")
WHY = re.compile(r"over %d lines" % LIMIT, re.I)
NAME = re.compile(r"(\w+)\s*\(")


def comment_above(lines, first):
    """The block comment that ends on the line just above line `first`
    (the signature's first line), as one string ('' when there is none)."""
    k = first - 1
    if k < 0 or not lines[k].rstrip().endswith("*/"):
        return ""
    block = []
    while k >= 0:
        block.append(lines[k])
        if "/*" in lines[k]:
            break
        k -= 1
    return " ".join(block)


def functions(lines):
    """(name, first line of the signature, length) of each function."""
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            j = i + 1
            while j < len(lines) and lines[j] != "}":
                j += 1
            # the signature: the lines above the brace up to a blank one,
            # a preprocessor line or the end of a comment
            first = i - 1
            while first > 0 and lines[first - 1].strip() and \
                    not lines[first - 1].startswith(("#", "}")) and \
                    not lines[first - 1].rstrip().endswith("*/"):
                first -= 1
            m = NAME.search(" ".join(lines[first:i]))
            yield (m.group(1) if m else "?"), first, j - i + 1
            i = j
        i += 1


def check(root):
    bad = []
    for top in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, errors="replace") as fh:
                    lines = fh.read().split("\n")
                for name, first, n in functions(lines):
                    if n > LIMIT and not WHY.search(comment_above(lines, first)):
                        bad.append("%s:%d: %s is %d lines, and no comment above it says why "
                                   "(\"over %d lines: ...\")"
                                   % (os.path.relpath(path, root), first + 1, name, n, LIMIT))
    return bad


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    bad = check(root)
    for b in bad:
        print(b)
    print("function length: %s" % ("FAILED" if bad else "ok"))
    sys.exit(1 if bad else 0)
