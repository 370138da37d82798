# SPDX-License-Identifier: Apache-2.0
"""An armed rotating recording across a caretd restart (issue 23): its
rotation options are kept until Enter, so a recording armed before the
restart and started after it still rotates; one armed and abandoned leaves
no rotation behind (daemon/recording/rotation_store.c's "a" lines, rotation.c's
drop_if_unarmed)."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import CARETCTL, SystemTest
from rotation_base import chunks


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
