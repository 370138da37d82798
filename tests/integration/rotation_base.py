# SPDX-License-Identifier: Apache-2.0
"""What the rotation modules share (test_rotation.py,
test_rotation_limits.py, test_rotation_long.py, test_rotation_restart.py):
the archived chunks of a trace, caretctl check's verdict on one, a
throwaway user, and a base test case with a caretd of its own."""
import json
import os
import subprocess
import time

from harness import B, CARETCTL, SystemTest, read_trace

FLOOD = os.path.join(B, "bench", "caret-flood")


def chunks(trace):
    arch = os.path.join(trace, "archives")
    if not os.path.isdir(arch):
        return []
    return sorted((os.path.join(arch, d) for d in os.listdir(arch)),
                  key=lambda p: int(p.rsplit("-", 1)[1]))


def check(path):
    r = subprocess.run([CARETCTL, "check", "--json", path], capture_output=True, text=True,
                       timeout=300)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


def setpriv(pw):
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups"]


class RotationBase(SystemTest):
    """Rotating recordings' common moves. No tests of its own."""
    def record(self, name, *args, **kw):
        return self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", name,
                               *args, background=True, **kw)

    def wait_chunks(self, trace, n, timeout=60):
        deadline = time.time() + timeout
        while len(chunks(trace)) < n:
            if time.time() > deadline:
                raise AssertionError("only %d chunks of %d in %s" %
                                     (len(chunks(trace)), n, trace))
            time.sleep(0.1)

    def stop(self, name):
        r = self.c.caretctl("stop", "-s", name, "--json")
        return json.loads(r.stdout.strip().splitlines()[-1])

    def init_pids(self, path):
        """vpid -> set of init kinds (caret_init included) of one chunk."""
        kinds = {}
        for e in read_trace(path):
            if e.name.startswith("ros2_caret:") and e.name != "ros2_caret:dds_write" and \
                    not e.name.startswith("ros2_caret:dds_bind"):
                kinds.setdefault(e.vpid, set()).add(e.name.split(":", 1)[1])
        return kinds

    def assert_complete(self, path, pids):
        rc, rep, err = check(path)
        self.assertEqual(rc, 0, "%s: caretctl check says %s %s" % (path, rep, err))
        kinds = self.init_pids(path)
        for p in pids:
            self.assertIn(p, kinds, "%s lacks pid %d" % (path, p))
            for k in ("caret_init", "rcl_init", "rcl_node_init", "rcl_publisher_init"):
                if p != pids[0] or k != "rcl_publisher_init":  # sub0 has no publisher
                    self.assertIn(k, kinds[p], "%s: pid %d lacks %s" % (path, p, k))

    def warnings(self):
        return [l for p in self.c.procs if p.args[0].endswith("caretd") for l in p.errs
                if "warning" in l or "archived" in l or "Start" in l]

    def assert_named_few(self, out, all_chunks):
        """Every chunk caretd does not name is complete (the callers check
        it); a chunk is named when its replay was cut (a stop right after a
        rotation, a rotation late or early on a loaded machine) or when it
        may hold records twice: a few at most."""
        named = out["rotation"]["incomplete"]
        self.assertLessEqual(len(named), max(1, len(all_chunks) // 5),
                             ([c for c in out["rotation"]["chunks"] if not c["complete"]],
                              self.warnings()))

    def system(self, n=3, extra=()):
        if not hasattr(self.c, "sock"):
            self.c.caretd()
        return super().system(n, extra)
