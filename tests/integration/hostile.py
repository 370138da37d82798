# SPDX-License-Identifier: Apache-2.0
"""What the hostile-user modules share (test_hostile.py,
test_hostile_users.py): throwaway users, running as them, a caretd's CPU
use, and a base test case with a Ctx of its own."""
import contextlib
import json
import os
import pwd
import struct
import subprocess
import time
import unittest
import uuid

from harness import Ctx
from seg_layout import rec_header
from caret_kinds import REC_ALIGN, REC_HEADER_SIZE


@contextlib.contextmanager
def temp_user():
    """A throwaway unprivileged user (removed afterwards), for attacks any
    local user can mount."""
    name = "caret-h%s" % uuid.uuid4().hex[:8]
    subprocess.run(["useradd", "-M", "-U", "-s", "/usr/sbin/nologin", name], check=True,
                   capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], capture_output=True)
        subprocess.run(["groupdel", name], capture_output=True)


def as_user(pw, argv, **kw):
    """Runs argv as `pw` (no groups): the attacker."""
    return subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                           "--clear-groups"] + list(argv), capture_output=True, text=True,
                          timeout=60, **kw)


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)


def node_record(name, ns, ts=1):
    """An rcl_node_init record ("ppss", proto/caret_segment.h)."""
    body = struct.pack("<QQ", 0x1000, 0x2000)
    for sv in (name, ns):
        b = sv if isinstance(sv, bytes) else sv.encode()
        body += struct.pack("<I", len(b)) + b + b"\0"
    size = (REC_HEADER_SIZE + len(body) + REC_ALIGN - 1) & ~(REC_ALIGN - 1)
    return (rec_header("rcl_node_init", size, ts) + body).ljust(size, b"\0")


class HostileBase(unittest.TestCase):
    """A Ctx per test (its tmp readable by the attacker), and the attacks'
    common moves. No tests of its own."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        os.chmod(self.c.tmp, 0o755)

    def tearDown(self):
        self.c.cleanup()

    def status(self):
        return json.loads(self.c.caretctl("status", "--json", timeout=10).stdout)


    def plant(self, pw, name, data, size=None):
        """`pw` creates /dev/shm/<name> holding data (then truncated to size)."""
        src = os.path.join(self.c.tmp, "plant-" + uuid.uuid4().hex[:6])
        with open(src, "wb") as f:
            f.write(data)
        os.chmod(src, 0o644)
        dst = "/dev/shm/" + name
        cmd = "cat %s > %s" % (src, dst)
        if size:
            cmd += " && truncate -s %d %s" % (size, dst)
        as_user(pw, ["sh", "-c", cmd], check=True)
        return dst

    def assert_idle_cpu(self, d, secs=1.5, max_share=0.2):
        t0, c0 = time.time(), cpu_ticks(d.pid)
        time.sleep(secs)
        used = (cpu_ticks(d.pid) - c0) / os.sysconf("SC_CLK_TCK")
        self.assertLess(used / (time.time() - t0), max_share,
                        "caretd used %.2fs of CPU in %.1fs" % (used, secs))

    def group_caretd(self, pw):
        """A caretd whose socket members of pw's group may use."""
        return self.c.caretd("--group", pw.pw_name)
