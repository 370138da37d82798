#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""README says how many Debian packages `make deps` installs (issue 33
L14): the counts must be the Makefile's lists', so a package added there
without a word in README fails unit-check."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def make_list(text, name):
    """A `NAME = a b \\` list of the Makefile, continuation lines included."""
    m = re.search(r"^%s\s*=\s*((?:.*\\\n)*.*)$" % name, text, re.M)
    if not m:
        sys.exit("Makefile: no %s" % name)
    return m.group(1).replace("\\\n", " ").split()


with open(os.path.join(root, "Makefile")) as f:
    mk = f.read()
build = make_list(mk, "DEB_PACKAGES")
pack = make_list(mk, "DEB_PACKAGING_PACKAGES")
with open(os.path.join(root, "README.md")) as f:
    readme = " ".join(f.read().split())
want = ["the %d Debian packages the Makefile lists: %d to build and test" %
        (len(set(build + pack)), len(build)),
        "the %d that `make deb` and its test add" % len(pack)]
bad = [w for w in want if w not in readme]
for w in bad:
    print("README.md does not say: %s" % w)
if bad:
    sys.exit(1)
print("readme deps: ok")
