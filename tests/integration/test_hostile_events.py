# SPDX-License-Identifier: Apache-2.0
"""Issue 30 H7: whose ROS events a recording holds. The root session
daemon gives every session the per-UID buffers of every user's
registered application, so a member's recording held another user's
process's events (133 of them under ust/uid/<B>). Now a member's session
tracks only their own uid's processes (LTTng's virtual uid tracker);
root's recordings still see everyone's."""
import json
import os
import subprocess
import time
import unittest

from harness import CARETCTL, STANDIN, read_trace, wait_line
from hostile import HostileBase, temp_user


def setpriv(pw):
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups"]


class Events(HostileBase):
    def app_as(self, pw, name):
        """A stand-in ROS process (with the agent) running as pw."""
        return self.c.spawn(setpriv(pw) + [STANDIN, "--domain", self.c.domain, "--name", name,
                                           "--pubs", "1", "--rate", "50"])

    def start(self, who, parent, name, *args):
        """`caretctl record` as who (None: root) into parent/name; back
        once it says every process it waits for records."""
        pre = setpriv(who) if who else []
        rec = self.c.spawn(pre + [CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                                  "-p", parent, "-s", name] + list(args), agent=False)
        wait_line(rec, r"processes recording", timeout=20)
        return rec

    def record(self, who, parent, name, rec=None):
        """A recording as who (None: root) into parent/name, for a second
        (or rec, running), then stopped; its trace's events by process id
        and its per-UID buffer directories."""
        ctl = [CARETCTL, "--socket", self.c.sock]
        pre = setpriv(who) if who else []
        rec = rec or self.start(who, parent, name)
        time.sleep(1.5)
        stop = self.c.spawn(pre + ctl + ["stop", "-s", name], agent=False)
        self.assertEqual(stop.wait(60), 0, stop.out_text() + stop.err_text())
        self.assertEqual(rec.wait(60), 0, rec.out_text() + rec.err_text())
        trace = os.path.join(parent, name)
        pids = {}
        for e in read_trace(trace):
            pids.setdefault(e.vpid, set()).add(e.name)
        uids = sorted(os.listdir(os.path.join(trace, "ust", "uid")))
        return pids, uids

    def users(self, a, b):
        """caretd for a's group, a's directory, and a stand-in of a's and
        of b's, both waiting."""
        self.group_caretd(a)
        home = os.path.join(self.c.tmp, "a")
        os.mkdir(home, 0o755)
        os.chown(home, a.pw_uid, a.pw_gid)
        app_a = self.app_as(a, "app_a")
        app_b = self.app_as(b, "app_b")
        self.c.wait_states([app_a.pid, app_b.pid], "WAIT")
        return home, app_a, app_b

    def test_h7_a_members_recording_holds_only_their_processes(self):
        """The member records alone: their trace holds their process's
        events and buffers only; b's process stays in WAIT (caretctl
        waits for it no more). Root's recording then holds both."""
        with temp_user() as a, temp_user() as b:
            home, app_a, app_b = self.users(a, b)
            pids, uids = self.record(a, home, "mine")
            self.assertIn(app_a.pid, pids, "the member's own process is missing")
            self.assertIn("ros2:rcl_publish", pids[app_a.pid])
            self.assertNotIn(app_b.pid, pids,
                             "uid %d's process's events are in the member's trace: %s" %
                             (b.pw_uid, sorted(pids.get(app_b.pid, ()))[:5]))
            self.assertEqual(uids, [str(a.pw_uid)])
            # root's recording: everyone's
            pids, uids = self.record(None, self.c.tmp, "roots")
            for p in (app_a, app_b):
                self.assertIn(p.pid, pids)
                self.assertIn("ros2:rcl_publish", pids[p.pid])
            self.assertEqual(uids, sorted([str(a.pw_uid), str(b.pw_uid)]))
            app_a.kill()
            app_b.kill()

    def test_h7_beside_roots_recording_and_as_a_flight_recorder(self):
        """Root records everyone meanwhile (b's process records for it):
        the member's recording and their flight recorder's snapshot
        still hold only their process and wait for no one else's pass;
        root's recording has both."""
        with temp_user() as a, temp_user() as b:
            home, app_a, app_b = self.users(a, b)
            roots = self.start(None, self.c.tmp, "roots")
            self.c.wait_states([app_a.pid, app_b.pid], "RECORD")
            pids, uids = self.record(a, home, "mine")
            self.assertIn(app_a.pid, pids)
            self.assertNotIn(app_b.pid, pids)
            self.assertEqual(uids, [str(a.pw_uid)])
            fr = self.start(a, home, "fr", "--snapshot", "--snapshot-size", "256K")
            r = subprocess.run(setpriv(a) + [CARETCTL, "--socket", self.c.sock, "snapshot",
                                             "--json", "fr"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            res = json.loads(r.stdout.strip().splitlines()[-1])
            self.assertTrue(res["complete"], res)
            snap = {e.vpid for e in read_trace(res["path"])}
            self.assertIn(app_a.pid, snap)
            self.assertNotIn(app_b.pid, snap)
            subprocess.run(setpriv(a) + [CARETCTL, "--socket", self.c.sock, "stop", "-s", "fr"],
                           capture_output=True, timeout=60)
            fr.wait(60)
            pids, uids = self.record(None, self.c.tmp, "roots", rec=roots)
            for p in (app_a, app_b):
                self.assertIn(p.pid, pids)
            app_a.kill()
            app_b.kill()


if __name__ == "__main__":
    unittest.main(verbosity=2)
