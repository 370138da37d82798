# SPDX-License-Identifier: Apache-2.0
"""An armed rotating recording across a caretd restart (issue 23): its
rotation options are kept until Enter, so a recording armed before the
restart and started after it still rotates; one armed and abandoned leaves
no rotation behind (daemon/recording/rotation_store.c's part of the
recording's line, rotation.c's end of a recording gone before Enter). And
(issue 32) a recording is saved whole: armed with a node filter and
rotation, it comes back after a kill -9 with both."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import CARETCTL, SystemTest, read_trace, wait_err, wait_line
from rotation_base import check, chunks


class ArmedAcrossRestart(SystemTest):
    def arm(self, name, *extra):
        return subprocess.Popen([CARETCTL, "--socket", self.c.sock, "record", "-p", self.traces,
                                 "-s", name, "--rotate-every", "1s", *extra],
                                env=self.c.env(agent=False), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_armed(self, p):
        """Until caretctl says the recording is armed: caretd answered, so it
        remembers the recording (a kill before the answer may lose it)."""
        seen = []
        for line in p.stdout:
            seen.append(line)
            if line.startswith("press Enter to start recording"):
                return
        self.fail("caretctl ended before arming: %s %s" % ("".join(seen), p.stderr.read()))

    def restart(self):
        daemon = [p for p in self.c.procs if p.args[0].endswith("caretd")][-1]
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(10)
        os.unlink(self.c.sock)
        return self.c.caretd()

    def test_armed_options_survive_a_restart(self):
        self.system(2)
        self.c.caretd()
        p = self.arm("armed9")
        try:
            trace = os.path.join(self.traces, "armed9")
            self.wait_armed(p)
            d = self.restart()
            deadline = time.time() + 20
            while not any("armed recording armed9 keeps its rotation options" in l
                          for l in d.errs):
                self.assertLess(time.time(), deadline, "".join(d.errs))
                time.sleep(0.1)
            p.stdin.write("\n")
            p.stdin.flush()
            deadline = time.time() + 60
            while len(chunks(trace)) < 2:
                self.assertLess(time.time(), deadline, "no rotation after Enter: %s" %
                                "".join(d.errs))
                time.sleep(0.1)
            st = json.loads(self.c.caretctl("status", "--json").stdout)
            self.assertEqual([r["session"] for r in st["rotations"]], ["armed9"])
            p.stdin.write("\n")
            p.stdin.flush()
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, out + err)
        # judged chunk by chunk: each chunk's own replay is no copy of the one before
        self.assertIn("rotating: armed9", out)
        self.assertNotIn("twice", out + err)

    def test_filtered_rotating_armed_recording_survives_kill_9(self):
        """issue 32, done when: a recording armed with a node filter and a
        rotation period survives kill -9 of caretd. After the restart,
        Enter starts it, it rotates, and the chunk after its first
        rotation (a replay pass of its own) is filtered, the selected
        node's records only, and complete as caretctl check sees it."""
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50")
                 for n in ("talker1", "listener")]
        for w in procs:
            wait_line(w, r"^ready")
        self.c.caretd()
        self.c.wait_states([w.pid for w in procs], "WAIT")
        p = self.arm("armf", "--select-nodes", r"/talker\d")
        trace = os.path.join(self.traces, "armf")
        try:
            self.wait_armed(p)
            d = self.restart()
            wait_err(d, r"recording armf of uid 0 taken over from before a restart \(armed\)")
            wait_err(d, r"armed recording armf keeps its rotation options")
            p.stdin.write("\n")
            p.stdin.flush()
            deadline = time.time() + 60
            while len(chunks(trace)) < 2:
                self.assertLess(time.time(), deadline, "no second chunk after Enter: %s" %
                                "".join(d.errs))
                time.sleep(0.1)
            p.stdin.write("\n")
            p.stdin.flush()
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, out + err)
        second = chunks(trace)[1]
        rc, rep, cerr = check(second)
        self.assertEqual(rc, 0, "%s: caretctl check says %s %s" % (second, rep, cerr))
        events = read_trace(second)
        nodes = sorted(e.f["node_name"] for e in events if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["talker1"], "".join(d.errs[-60:]))
        # both processes replayed into it (what CARET never filters)
        self.assertEqual({e.vpid for e in events if e.name == "ros2_caret:rcl_init"},
                         {w.pid for w in procs})

    def test_abandoned_armed_recording_leaves_no_rotation(self):
        self.c.caretd("--arm-timeout", "2")
        p = self.arm("gone9")
        try:
            self.wait_armed(p)
            d = [q for q in self.c.procs if q.args[0].endswith("caretd")][-1]
            deadline = time.time() + 30
            while not any("armed recording gone9 is gone before Enter: its rotation options go"
                          in l for l in d.errs):
                self.assertLess(time.time(), deadline, "".join(d.errs))
                time.sleep(0.1)
        finally:
            p.kill()
            p.communicate()
        # and a restart does not bring it back
        d = self.restart()
        time.sleep(1)
        self.assertFalse(any("gone9" in l for l in d.errs), "".join(d.errs))


if __name__ == "__main__":
    unittest.main(verbosity=2)
