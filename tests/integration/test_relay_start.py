# SPDX-License-Identifier: Apache-2.0
"""A peer's relay session (caretctl record --all-hosts --set-url on another
host) made while LTTng is slow to start it (issue 34, item 5): the peer's
caretd makes it off its loop, as a local `record`, so it answers `status`
meanwhile; a stop of the relay session that comes during the start, and a
caretd that exits during it, leave no session running.

As in test_record_start.py, the start is made slow by stopping one traced
process (SIGSTOP) of the peer: its lttng-sessiond sets every application up
in turn, waits for the stopped one, and answers no other client meanwhile."""
import glob
import os
import re
import signal
import subprocess
import time
import unittest

from harness import CARETCTL, Proc, start_helpers, wait_err, wait_line
from multihost import NetTest

# below lttng-sessiond's application socket timeout (5 s by default): the
# stopped process is still set up once it runs again
HOLD_S = 3.0


class RelayStartTest(NetTest):
    label = "relay start"

    @classmethod
    def set_up_hosts(cls):
        a, b = cls.a, cls.b
        cls.da = a.caretd()
        cls.db = b.caretd("--accept-relay", "--relay-allow", a.addr)
        # each host with a process: a caretd with none publishes no Status
        cls.pa = [a.standin("a0", "--pubs", "1", "--rate", "20")]
        cls.pb = [b.standin("b0", "--pubs", "1", "--rate", "20"),
                  b.standin("b1", "--pubs", "0", "--subs", "1")]
        a.wait_sees(b.name)
        b.wait_sees(a.name)

    def setUp(self):
        self.stopped = None

    def tearDown(self):
        self.resume()

    def resume(self):
        if self.stopped:
            os.kill(self.stopped.pid, signal.SIGCONT)
            self.stopped = None

    def sessions_b(self):
        """The sessions host B's session daemon has."""
        return re.findall(r"^\s*\d+\) (\S+)", self.b.run(["lttng", "list"]).stdout, re.M)

    def sessions_b_after(self, timeout=20):
        deadline = time.time() + timeout
        while self.sessions_b() and time.time() < deadline:
            time.sleep(0.2)
        return self.sessions_b()

    def relay_record_held(self, name, duration, wait_s=60):
        """Host A's `record --all-hosts --set-url` whose relay session host
        B's LTTng is inside the start of, held by a stopped process: (A's
        caretctl, B's log mark). The relay request comes at most 2 s after
        the one before (caretd's gap between relay sessions). wait_s: A's
        --timeout, how long its caretctl waits for B's processes to
        record (a test where they never do ends no sooner)."""
        a = self.a
        time.sleep(2.1)
        self.stopped = self.pb[0]
        os.kill(self.stopped.pid, signal.SIGSTOP)
        mark = len(self.db.errs)
        rec = a.spawn([CARETCTL, "--socket", a.sock, "record", "--immediate", "--all-hosts",
                       "--set-url", "net://" + a.addr, "-s", name, "--duration",
                       str(duration), "--timeout", str(wait_s)])
        # its log line when caretd starts it off its loop; in line, it
        # says nothing until LTTng returns
        deadline = time.time() + 3
        while time.time() < deadline and not any("LTTng is starting its session" in l
                                                 for l in self.db.errs[mark:]):
            time.sleep(0.05)
        time.sleep(0.5)
        self.assertFalse(any(re.search(r"session %s streaming to" % name, l)
                             for l in self.db.errs[mark:]),
                         "the relay session's start did not wait for the stopped process")
        return rec, mark

    def status_quick_b(self, times=3):
        """Host B's `status` answered at once, times over."""
        for _ in range(times):
            t0 = time.time()
            st = self.b.ctl("status", timeout=10)
            self.assertLess(time.time() - t0, 1.5, "status waited for the relay session's start")
            time.sleep(0.3)
        return st

    def test_1_status_answered_during_relay_start(self):
        """B answers `status` while its relay session starts; the session
        then streams, B's processes record into it, and stops at A's End."""
        a, b = self.a, self.b
        rec, mark = self.relay_record_held("rsa", 8)
        st = self.status_quick_b()
        for p in self.pb:
            self.assertIn(str(p.pid), st.stdout)
        self.resume()
        wait_err(self.db, r"relay session rsa: LTTng started it in \d+ ms", mark, timeout=30)
        wait_err(self.db, r"relay_record from %s: session rsa streaming to net://" % a.name,
                 mark, timeout=30)
        self.assertEqual(rec.finish(90), 0, rec.out_text() + rec.err_text())
        out = rec.out_text() + rec.err_text()
        self.assertIn("host %s: 2/2 processes recording" % b.name, out)
        wait_err(self.db, r"relay session rsa stopped and destroyed", mark, timeout=30)
        self.assertEqual(self.sessions_b_after(), [])
        time.sleep(0.5)  # the relay closes its files after the session is destroyed
        self.assertEqual(len(glob.glob(os.path.join(self.relay_dir, b.name, "rsa-*"))), 1,
                         os.listdir(self.relay_dir))

    def test_2_stop_during_relay_start(self):
        """A's End (and relay stop) that comes while B's relay session
        starts: B answers meanwhile, and the session is stopped once made,
        none left running."""
        rec, mark = self.relay_record_held("rsb", 30, wait_s=15)
        self.a.ctl("stop", "--all-hosts", "-s", "rsb", timeout=30)
        wait_err(self.db, r"relay session rsb: its stop came during its start", mark,
                 timeout=30)
        self.status_quick_b(2)
        self.resume()
        wait_err(self.db, r"relay session rsb: its stop came during its start \(\d+ ms\): "
                 r"stopped and destroyed", mark, timeout=30)
        rec.finish(90)
        self.assertEqual(self.sessions_b_after(), [])

    def test_3_relay_waits_for_local_start(self):
        """A relay request that comes while B's LTTng starts a local
        recording's session: B answers meanwhile, and makes the relay
        session once that start ended; both then record."""
        a, b = self.a, self.b
        time.sleep(2.1)
        self.stopped = self.pb[0]
        os.kill(self.stopped.pid, signal.SIGSTOP)
        mark = len(self.db.errs)
        local = b.spawn([CARETCTL, "--socket", b.sock, "record", "--immediate", "-p",
                         os.path.join(b.dir, "traces"), "-s", "loc", "--duration", "6",
                         "--timeout", "60"])
        wait_err(self.db, r"LTTng is starting a session", mark, timeout=10)
        rec = a.spawn([CARETCTL, "--socket", a.sock, "record", "--immediate", "--all-hosts",
                       "--set-url", "net://" + a.addr, "-s", "rsd", "--duration", "6",
                       "--timeout", "60"])
        wait_err(self.db, r"relay_record rsd from %s: its session is started once LTTng's "
                 r"start of another one ended" % a.name, mark, timeout=15)
        self.status_quick_b(2)
        self.resume()
        wait_err(self.db, r"session loc: LTTng started it in \d+ ms", mark, timeout=30)
        wait_err(self.db, r"relay session rsd: LTTng started it in \d+ ms", mark, timeout=30)
        self.assertEqual(local.finish(90), 0, local.out_text() + local.err_text())
        self.assertEqual(rec.finish(90), 0, rec.out_text() + rec.err_text())
        wait_err(self.db, r"relay session rsd stopped and destroyed", mark, timeout=30)
        self.assertEqual(self.sessions_b_after(), [])
        time.sleep(0.5)  # the relay closes its files after the session is destroyed
        self.assertEqual(len(glob.glob(os.path.join(self.relay_dir, b.name, "rsd-*"))), 1,
                         os.listdir(self.relay_dir))

    def test_3s_relay_stop_waits_for_local_start(self):
        """The stop of B's relay session that comes while B's LTTng starts
        a local recording's session waits for that start's end, off the
        loop: B answers meanwhile, then stops the relay session."""
        a, b = self.a, self.b
        time.sleep(2.1)
        mark = len(self.db.errs)
        rec = a.spawn([CARETCTL, "--socket", a.sock, "record", "--immediate", "--all-hosts",
                       "--set-url", "net://" + a.addr, "-s", "rsf", "--duration", "60",
                       "--timeout", "60"])
        wait_err(self.db, r"session rsf streaming to net://", mark, timeout=30)
        self.stopped = self.pb[0]
        os.kill(self.stopped.pid, signal.SIGSTOP)
        local = b.spawn([CARETCTL, "--socket", b.sock, "record", "--immediate", "-p",
                         os.path.join(b.dir, "traces"), "-s", "loc2", "--duration", "1",
                         "--timeout", "60"])
        wait_err(self.db, r"LTTng is starting a session", mark, timeout=10)
        a.ctl("stop", "--all-hosts", "-s", "rsf", timeout=30)
        wait_err(self.db, r"relay session rsf is stopped once LTTng's start of another "
                 r"session ended", mark, timeout=15)
        self.status_quick_b(2)
        self.resume()
        wait_err(self.db, r"relay session rsf stopped and destroyed", mark, timeout=30)
        self.assertEqual(local.finish(90), 0, local.out_text() + local.err_text())
        rec.finish(90)
        self.assertEqual(self.sessions_b_after(), [])

    def test_3e_relay_record_at_enter(self):
        """`record --all-hosts --set-url` without --immediate nor
        --duration: nothing is armed (caretctl(1), caretd refuses "arm"
        with "all_hosts" and "url"); Enter makes the recording and the other
        hosts' relay sessions as an immediate one does, every host's trace
        at the relay, the second Enter stops them all."""
        a, b = self.a, self.b
        time.sleep(2.1)
        mark = len(self.db.errs)
        rec = Proc(a.argv([CARETCTL, "--socket", a.sock, "record", "--all-hosts", "--set-url",
                           "net://" + a.addr, "-s", "rsg", "--timeout", "60"]), a.env(),
                   stdin=subprocess.PIPE)
        a.procs.append(rec)
        wait_line(rec, r"press Enter to start recording")
        self.assertEqual(self.sessions_b(), [])
        rec.stdin.write("\n")
        rec.stdin.flush()
        wait_line(rec, r"press Enter or Ctrl-C to stop recording", timeout=60)
        wait_err(self.db, r"session rsg streaming to net://", mark, timeout=30)
        rec.stdin.write("\n")
        rec.stdin.flush()
        self.assertEqual(rec.finish(60), 0, rec.out_text() + rec.err_text())
        out = rec.out_text() + rec.err_text()
        self.assertIn("Start sent to every host", out)
        self.assertIn("host %s: 2/2 processes recording" % b.name, out)
        wait_err(self.db, r"relay session rsg stopped and destroyed", mark, timeout=30)
        time.sleep(0.5)  # the relay closes its files after the session is destroyed
        for h in (a, b):
            self.assertEqual(len(glob.glob(os.path.join(self.relay_dir, h.name, "rsg-*"))), 1,
                             os.listdir(self.relay_dir))

    def helpers_b(self):
        return start_helpers(self.db.pid)

    def test_4_helper_killed_during_relay_start(self):
        """B's start helper killed (SIGKILL) inside its relay session's
        start: the next helper stops and destroys what it left, B logs the
        relay request's failure, no session is left streaming."""
        rec, mark = self.relay_record_held("rse", 30, wait_s=15)
        helpers = self.helpers_b()
        self.assertEqual(len(helpers), 1, helpers)
        os.kill(helpers[0], signal.SIGKILL)
        wait_err(self.db, r"LTTng start helper \(pid %d\) died \(killed by signal 9\) during "
                 r"a session start" % helpers[0], mark, timeout=15)
        self.status_quick_b(2)
        self.resume()
        wait_err(self.db, r"relay_record rse from %s: caretd's LTTng start helper \(pid %d\) "
                 r"died during the start of session rse" % (self.a.name, helpers[0]), mark,
                 timeout=30)
        rec.send_signal(signal.SIGINT)
        rec.finish(90)
        self.assertEqual(self.sessions_b_after(), [])

    def test_5_caretd_exit_during_relay_start(self):
        """B's caretd stopped (SIGTERM) during its relay session's start:
        it exits once its start helper ended the start, and no session is
        left streaming. B's caretd is started again for what follows."""
        b = self.b
        rec, mark = self.relay_record_held("rsc", 8)
        self.db.send_signal(signal.SIGTERM)
        time.sleep(1.0)
        self.resume()
        self.assertEqual(self.db.wait(60), 0, self.db.err_text()[-3000:])
        rec.send_signal(signal.SIGINT)  # A's recording stopped as Ctrl-C does
        rec.finish(90)
        self.assertEqual(self.sessions_b_after(), [])
        type(self).db = b.caretd("--accept-relay", "--relay-allow", self.a.addr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
