# SPDX-License-Identifier: Apache-2.0
"""`record` while LTTng starts the session (issue 34, item 5): with many
processes lttng_start_tracing() blocks for tens of seconds. caretd makes the
session off its loop: it answers `status` meanwhile, caretctl shows what
caretd waits for and waits as long as caretd answers, and a requester that
leaves (caretctl killed) or a caretd that exits during the start leaves no
session running.

The start is made slow by stopping one traced process (SIGSTOP) before it:
lttng-sessiond sets every application up in turn and waits for each one's
answer (up to its application socket timeout, 5 s by default), and, while
it does, answers no other client, as behind the start of many processes."""
import os
import re
import signal
import subprocess
import time
import unittest

from harness import CARETCTL, SystemTest, lttng, start_helpers, wait_err

# below lttng-sessiond's application socket timeout: the stopped process
# is still set up once it runs again
HOLD_S = 3.0


def sessions():
    """The sessions this test's session daemon has."""
    return re.findall(r"^\s*\d+\) (\S+)", lttng("list"), re.M)


def sessions_after(timeout=20):
    """The sessions left once none remains or timeout seconds passed."""
    deadline = time.time() + timeout
    while sessions() and time.time() < deadline:
        time.sleep(0.2)
    return sessions()


class RecordStartTest(SystemTest):
    def setUp(self):
        super().setUp()
        self.stopped = None

    def tearDown(self):
        self.resume()
        super().tearDown()

    def resume(self):
        if self.stopped:
            os.kill(self.stopped.pid, signal.SIGCONT)
            self.stopped = None

    def record_held(self, d, procs, name):
        """A `caretctl record` whose session start caretd has begun, LTTng
        held inside it by a stopped process."""
        self.stopped = procs[0]
        os.kill(self.stopped.pid, signal.SIGSTOP)
        mark = len(d.errs)
        rec = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p",
                            self.traces, "-s", name, "--duration", "1", "--timeout", "60"],
                           agent=False, stdin=subprocess.DEVNULL)
        # its log line when caretd starts sessions off its loop; a caretd
        # that starts them in line says nothing until LTTng returns
        deadline = time.time() + 2
        while time.time() < deadline and not any("LTTng is starting a session" in l
                                                 for l in d.errs[mark:]):
            time.sleep(0.05)
        time.sleep(0.5)
        self.assertFalse(any("LTTng started it in" in l for l in d.errs[mark:]),
                         "the start did not wait for the stopped process")
        return rec, mark

    def test_status_answered_progress_shown_record_succeeds(self):
        d = self.c.caretd()
        procs = self.system(3)
        rec, mark = self.record_held(d, procs, "slowstart")
        t0 = time.time()
        st = self.c.caretctl("status", timeout=10)
        self.assertLess(time.time() - t0, 1.5, "status waited for LTTng's start")
        for p in procs:
            self.assertIn(str(p.pid), st.stdout)
        # a second record waits for the first start (one at a time in caretd)
        second = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                               "-p", self.traces, "-s", "second", "--duration", "1",
                               "--timeout", "60"], agent=False, stdin=subprocess.DEVNULL)
        time.sleep(HOLD_S)
        self.assertIsNone(rec.poll(), "record ended while caretd waited for LTTng: " +
                          rec.err_text())
        self.assertIsNone(second.poll(), second.err_text())
        self.resume()
        self.assertEqual(rec.finish(120), 0, rec.out_text() + rec.err_text())
        self.assertEqual(second.finish(120), 0, second.out_text() + second.err_text())
        self.assertIn("LTTng is starting another session; waiting", second.err_text())
        err = rec.err_text()
        m = re.findall(r"LTTng is starting the session for (\d+) process(?:es)? \((\d+) s\)",
                       err)
        self.assertTrue(m, err)
        self.assertEqual(int(m[-1][0]), len(procs), err)
        wait_err(d, r"session slowstart: LTTng started it in (\d+) ms", start=mark)
        self.assertIn("recording to", rec.out_text())
        self.assertEqual(sessions(), [])

    def test_stop_of_another_recording_waits_loop_answers(self):
        """A `stop` of another recording sent while LTTng starts a session
        waits for that start's end without stalling caretd's loop (LTTng
        answers one client at a time): `status` meanwhile answers at once,
        the stop then ends its recording and the start completes."""
        d = self.c.caretd()
        procs = self.system(3)
        first = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                              "-p", self.traces, "-s", "first", "--duration", "120",
                              "--timeout", "60"], agent=False, stdin=subprocess.DEVNULL)
        # its own start ended: the one held below is another's
        wait_err(d, r"session first: LTTng started it in", timeout=30)
        rec, mark = self.record_held(d, procs, "slowstart")
        stop = self.c.spawn([CARETCTL, "--socket", self.c.sock, "stop", "-s", "first"],
                            agent=False, stdin=subprocess.DEVNULL)
        time.sleep(0.5)
        for _ in range(3):
            t0 = time.time()
            st = self.c.caretctl("status", timeout=10)
            self.assertLess(time.time() - t0, 1.5, "status waited for LTTng's start")
            self.assertIn("first", st.stdout)
            time.sleep(0.3)
        self.assertIsNone(stop.poll(), "stop did not wait for LTTng's start: " +
                          stop.out_text() + stop.err_text())
        self.assertFalse(any("LTTng started it in" in l for l in d.errs[mark:]))
        self.resume()
        self.assertEqual(stop.finish(60), 0, stop.out_text() + stop.err_text())
        self.assertEqual(rec.finish(120), 0, rec.out_text() + rec.err_text())
        wait_err(d, r"session slowstart: LTTng started it in (\d+) ms", start=mark)
        wait_err(d, r"a request that waited (\d+) ms for LTTng's session start runs now",
                 start=mark)
        self.assertNotIn("first", self.c.caretctl("status").stdout)
        if first.poll() is None:
            first.kill()
        first.wait()
        self.assertEqual(sessions_after(), [])

    def test_snapshot_during_start_waits_then_is_taken(self):
        """A flight recorder's `snapshot` sent while LTTng starts another
        session waits for the start's end (caretctl says so), then its
        replay pass and snapshot run as they would have."""
        d = self.c.caretd()
        procs = self.system(3)
        fr = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p",
                           self.traces, "-s", "fr", "--snapshot", "--timeout", "60"],
                          agent=False, stdin=subprocess.DEVNULL)
        wait_err(d, r"session fr: LTTng started it in", timeout=30)
        rec, mark = self.record_held(d, procs, "slowstart")
        snap = self.c.spawn([CARETCTL, "--socket", self.c.sock, "snapshot", "fr"],
                            agent=False, stdin=subprocess.DEVNULL)
        time.sleep(1.0)
        t0 = time.time()
        self.c.caretctl("status", timeout=10)
        self.assertLess(time.time() - t0, 1.5, "status waited for LTTng's start")
        self.assertIsNone(snap.poll(), "snapshot did not wait for LTTng's start: " +
                          snap.out_text() + snap.err_text())
        self.resume()
        self.assertEqual(snap.finish(120), 0, snap.out_text() + snap.err_text())
        self.assertIn("LTTng is starting another session; the snapshot waits", snap.err_text())
        self.assertEqual(rec.finish(120), 0, rec.out_text() + rec.err_text())
        wait_err(d, r"session fr: snapshot \S+ written", start=mark)
        self.c.caretctl("stop", "-s", "fr")
        if fr.poll() is None:
            fr.kill()
        fr.wait()
        self.assertEqual(sessions_after(), [])

    def helpers(self, d):
        return start_helpers(d.pid)

    def test_helper_killed_is_restarted_and_exits_with_caretd(self):
        """caretd's start helper, killed, is started again (logged) and the
        next record works through it; caretd's exit ends it."""
        d = self.c.caretd()
        self.system(1)
        deadline = time.time() + 10
        while not self.helpers(d) and time.time() < deadline:
            time.sleep(0.1)
        first = self.helpers(d)
        self.assertEqual(len(first), 1, first)
        time.sleep(1.2)  # older than the restart's gap: started again at once
        os.kill(first[0], signal.SIGKILL)
        wait_err(d, r"LTTng start helper \(pid %d\) died \(killed by signal 9\); "
                 r"starting it again" % first[0])
        wait_err(d, r"LTTng start helper started again: pid (\d+)")
        again = self.helpers(d)
        self.assertEqual(len(again), 1, again)
        self.assertNotEqual(again, first)
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "after",
                            "--duration", "1", "--timeout", "30", timeout=60)
        self.assertIn("recording to", r.stdout)
        wait_err(d, r"session after: LTTng started it in (\d+) ms")
        d.send_signal(signal.SIGTERM)
        self.assertEqual(d.wait(30), 0, d.err_text())
        deadline = time.time() + 5
        while os.path.exists("/proc/%d" % again[0]) and time.time() < deadline:
            time.sleep(0.1)
        self.assertFalse(os.path.exists("/proc/%d" % again[0]), "the helper outlived caretd")
        self.assertEqual(sessions_after(), [])

    def test_requester_killed_during_start_leaves_no_session(self):
        d = self.c.caretd()
        procs = self.system(2)
        rec, mark = self.record_held(d, procs, "orphan")
        rec.kill()
        rec.wait()
        time.sleep(0.5)
        self.resume()
        wait_err(d, r"session orphan: its requester left while LTTng started it \(\d+ ms\): "
                 r"stopped by the process that made it", start=mark,
                 timeout=60)
        self.assertEqual(sessions_after(), [])
        self.assertNotIn("orphan", self.c.caretctl("status").stdout)

    def test_caretd_exit_during_start_leaves_no_session(self):
        d = self.c.caretd()
        procs = self.system(2)
        rec, mark = self.record_held(d, procs, "leftover")
        d.send_signal(signal.SIGTERM)
        self.assertEqual(d.wait(30), 0, d.err_text())
        self.resume()
        rec.finish(60)
        self.assertEqual(sessions_after(), [])

    def status_quick(self, times=3):
        """`status` answered at once, times over (caretd's loop not stalled
        by LTTng's start)."""
        for _ in range(times):
            t0 = time.time()
            st = self.c.caretctl("status", timeout=10)
            self.assertLess(time.time() - t0, 1.5, "status waited for LTTng's start")
            time.sleep(0.3)
        return st

    def test_unheld_stop_waits_for_start_loop_answers(self):
        """A held recording whose caretctl is killed during another
        session's start is stopped once that start ended, not on the loop
        while it runs: `status` answers at once meanwhile. `stop` and
        `pause` queued behind the start say so in one line."""
        d = self.c.caretd()
        procs = self.system(3)
        first = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                              "-p", self.traces, "-s", "first", "--duration", "120",
                              "--timeout", "60"], agent=False, stdin=subprocess.DEVNULL)
        wait_err(d, r"session first: held by its requester", timeout=30)
        rec, mark = self.record_held(d, procs, "slowstart")
        waiting = [self.c.spawn([CARETCTL, "--socket", self.c.sock, cmd, "-s", "nosuch"],
                                agent=False, stdin=subprocess.DEVNULL)
                   for cmd in ("stop", "pause")]
        first.kill()
        first.wait()
        wait_err(d, r"session first: its requester \(pid \d+\) left without releasing it .*"
                 r"once LTTng's start of another session ended", start=mark)
        st = self.status_quick()
        self.assertIn("first", st.stdout, "stopped on the loop during the start")
        self.assertFalse(any("LTTng started it in" in l for l in d.errs[mark:]))
        for w, cmd in zip(waiting, ("stop", "pause")):
            said = "caretctl: LTTng is starting another session; the %s waits for it" % cmd
            deadline = time.time() + 10
            while said not in w.err_text() and w.poll() is None and time.time() < deadline:
                time.sleep(0.1)
            self.assertIsNone(w.poll(), w.err_text())
            self.assertIn(said, w.err_text())
        self.resume()
        self.assertEqual(rec.finish(120), 0, rec.out_text() + rec.err_text())
        wait_err(d, r"session first stopped and destroyed", start=mark)
        for w in waiting:
            self.assertNotEqual(w.finish(60), 0)  # no recording nosuch
            self.assertEqual(w.err_text().count("LTTng is starting another session"), 1,
                             w.err_text())
        self.assertNotIn("first", self.c.caretctl("status").stdout)
        self.assertEqual(sessions_after(), [])

    def test_helper_killed_mid_start_session_destroyed_requester_told(self):
        """The start helper killed (-9) during a start: the session it left
        half-made is stopped and destroyed by the next helper, off the
        loop, and the requester's error says so; the next record works."""
        d = self.c.caretd()
        procs = self.system(2)
        rec, mark = self.record_held(d, procs, "halfmade")
        helper = self.helpers(d)
        self.assertEqual(len(helper), 1, helper)
        os.kill(helper[0], signal.SIGKILL)
        wait_err(d, r"LTTng start helper \(pid %d\) died \(killed by signal 9\) during a "
                 r"session start" % helper[0], start=mark)
        self.status_quick(2)
        self.resume()
        self.assertNotEqual(rec.finish(120), 0, rec.out_text())
        self.assertIn("died during the start of session halfmade (killed by signal 9): the "
                      "session it left half-made was stopped and destroyed; record again",
                      rec.err_text())
        self.assertEqual(sessions_after(5), [])
        self.assertNotIn("halfmade", self.c.caretctl("status").stdout)
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "after",
                            "--duration", "1", "--timeout", "30", timeout=60)
        self.assertIn("recording to", r.stdout)
        self.assertEqual(sessions_after(), [])

    def test_caretd_stopped_as_systemd_does_leaves_no_session(self):
        """`systemctl stop caretd` during a start: SIGTERM to caretd, then,
        once it exited, SIGKILL to what is left of its group (KillMode=mixed,
        systemd.kill(5)), its start helper included. caretd's exit waits for
        the helper to end the start and stop the session first."""
        d = self.c.caretd()
        procs = self.system(2)
        rec, mark = self.record_held(d, procs, "killed")
        helper = self.helpers(d)
        self.assertEqual(len(helper), 1, helper)
        d.send_signal(signal.SIGTERM)
        # the start ends on its own, the stopped process given up once
        # LTTng's application timeout passed
        self.assertEqual(d.wait(70), 0, d.err_text())
        for pid in helper:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.resume()
        rec.finish(60)
        self.assertEqual(sessions_after(5), [])

    def crash_mid_start(self, name):
        """caretd and its start helper killed with SIGKILL while LTTng starts
        session `name` (held by a stopped traced process), then the process
        resumed and the requester gone: what a crash leaves."""
        d = self.c.caretd()
        procs = self.system(2)
        rec, mark = self.record_held(d, procs, name)
        helper = self.helpers(d)
        self.assertEqual(len(helper), 1, helper)
        d.kill()
        d.wait()
        for pid in helper:
            os.kill(pid, signal.SIGKILL)
        self.resume()
        rec.finish(60)

    def test_caretd_killed_mid_start_next_caretd_destroys_session(self):
        """caretd and its helper both killed with SIGKILL during a start (a
        crash, or systemd's stop timeout): the session is left half-made,
        owned by no recording; the next caretd finds its name in the start
        marker beside its socket and stops and destroys it."""
        self.crash_mid_start("crashed")
        deadline = time.time() + 20
        while "crashed" not in sessions() and time.time() < deadline:
            time.sleep(0.2)
        self.assertIn("crashed", sessions(), "no session left to clean up: the test "
                      "proves nothing")
        os.unlink(self.c.sock)
        d = self.c.caretd()
        wait_err(d, r"start of session crashed \(\S+ names it\): the session it left "
                 r"half-made was stopped and destroyed", timeout=30)
        self.assertEqual(sessions_after(5), [])
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "after",
                            "--duration", "1", "--timeout", "30", timeout=60)
        self.assertIn("recording to", r.stdout)
        self.assertEqual(sessions_after(), [])

    def test_caretd_killed_mid_start_foreign_session_of_its_name_survives(self):
        """As above, but the half-made session is destroyed and another of
        the same name made elsewhere before caretd starts again: the start
        marker names it, but its output is not the trace caretd chose, so
        the next caretd leaves it (our rule: never touch a session caretd
        did not start) and removes the marker."""
        self.crash_mid_start("crashed")
        marker = self.c.sock + ".starting"
        self.assertTrue(os.path.exists(marker), "no start marker: the test proves nothing")
        deadline = time.time() + 20
        while "crashed" not in sessions() and time.time() < deadline:
            time.sleep(0.2)
        if "crashed" in sessions():
            lttng("destroy", "crashed")
        other = os.path.join(self.c.tmp, "someone-else")
        lttng("create", "crashed", "--output", other)
        try:
            os.unlink(self.c.sock)
            d = self.c.caretd()
            wait_err(d, r"start of session crashed \(\S+ names it\): the session of that name "
                     r"now is not the one it started \(its output %s, not under %s\): left as "
                     r"it is" % (re.escape(other), re.escape(self.traces)), timeout=30)
            self.assertIn("crashed", sessions())
            self.assertFalse(os.path.exists(marker), "the marker was kept")
            r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "after",
                                "--duration", "1", "--timeout", "30", timeout=60)
            self.assertIn("recording to", r.stdout)
            self.assertIn("crashed", sessions())
        finally:
            lttng("destroy", "crashed")
        self.assertEqual(sessions_after(), [])


if __name__ == "__main__":
    unittest.main()
