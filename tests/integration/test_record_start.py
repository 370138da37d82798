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

from harness import CARETCTL, SystemTest, lttng, wait_err

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


if __name__ == "__main__":
    unittest.main()
