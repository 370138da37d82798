# SPDX-License-Identifier: Apache-2.0
"""caretctl pause and resume (ros2 trace's verbs; issue 33 L13): a recording
caretd made stops tracing and traces again, its session and trace kept.
A stand-in process started during the pause is complete in the trace after
the resume, `caretctl check` finds the trace complete, and no event of the
trace is timestamped inside the pause."""
import json
import os
import re
import subprocess
import time
import unittest

from harness import CARETCTL, Ctx, mono_ns, read_trace, wait_line


def check(path):
    r = subprocess.run([CARETCTL, "check", "--json", path], capture_output=True, text=True,
                       timeout=300)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


class PauseTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.traces = os.path.join(self.c.tmp, "traces")

    def tearDown(self):
        self.c.cleanup()

    def recordings(self):
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        return {r["session"]: r for r in st.get("recordings", [])}, st

    def test_pause_resume_complete(self):
        """record; pause (status: paused, not active; the foreground record
        goes on); a process started during the pause; resume; every process
        records; stop. The trace is complete, holds the new process's init
        records, and nothing timestamped between the pause's return and the
        resume's request."""
        caretd = self.c.caretd()
        old = self.c.workload("--name", "before", "--pubs", "1", "--rate", "50")
        wait_line(old, r"^ready pid=%d" % old.pid)
        rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "pz",
                              "--timeout", "30", background=True)
        self.c.wait_states([old.pid], "RECORD", timeout=30)
        time.sleep(0.5)
        r = self.c.caretctl("pause", "-s", "pz", "--json")
        t_paused = mono_ns()
        out = json.loads(r.stdout)
        self.assertEqual((out["cmd"], out["session"], out["paused"]), ("pause", "pz", True))
        recs, st = self.recordings()
        self.assertTrue(recs["pz"].get("paused"), recs)
        self.assertNotIn("pz", st["lttng"]["active_sessions"])
        self.assertIn("paused", self.c.caretctl("status").stdout)
        # a second pause is refused, the recording is kept
        again = self.c.caretctl("pause", "-s", "pz", check=False)
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        self.assertIn("paused already", again.stderr)
        # a process born in the pause: no session, so it waits with its cache
        new = self.c.workload("--name", "during", "--pubs", "1", "--rate", "50")
        wait_line(new, r"^ready pid=%d" % new.pid)
        self.c.wait_states([old.pid, new.pid], "WAIT", timeout=30)
        time.sleep(1.0)
        self.assertIsNone(rec.poll(), "record ended during the pause: " + rec.err_text())
        t_resume = mono_ns()
        r = self.c.caretctl("resume", "--json")  # the caller's latest recording
        out = json.loads(r.stdout)
        self.assertEqual((out["cmd"], out["session"], out["paused"]), ("resume", "pz", False))
        self.assertFalse(self.recordings()[0]["pz"].get("paused"))
        self.c.wait_states([old.pid, new.pid], "RECORD", timeout=30)
        time.sleep(1.0)
        stop = json.loads(self.c.caretctl("stop", "-s", "pz", "--json").stdout)
        rc = rec.finish(60)
        self.assertIn(rc, (0,), rec.out_text() + rec.err_text())
        path = os.path.join(self.traces, "pz")
        rc, rep, err = check(path)
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        per = {p["pid"]: p for p in rep["processes"]}
        self.assertIn(new.pid, per)
        self.assertTrue(per[new.pid]["caret_init"])
        self.assertEqual(per[new.pid]["missing_total"], 0)
        self.assertGreater(per[new.pid]["init_records"].get("rcl_node_init", 0), 0)
        self.assertGreater(per[new.pid]["runtime_events"], 0)
        self.assertGreater(per[old.pid]["runtime_events"], 0)
        # the resume's replay put the old process's records in again: copies,
        # counted alike by check, stop (which reads a small trace itself) and
        # caretd (whose count makes stop read a large one)
        self.assertGreater(per[old.pid]["duplicates_total"], 0)
        self.assertEqual(per[new.pid]["duplicates_total"], 0)
        self.assertEqual(stop["duplicates"], sum(p["duplicates_total"] for p in per.values()))
        m, deadline = None, time.time() + 10  # its log is read by a thread of ours
        while not m and time.time() < deadline:
            m = re.search(r"session pz stopped and destroyed; trace in \S+; (\d+) "
                          r"replayed initialization records in it twice", caretd.err_text())
            time.sleep(0.05)
        self.assertTrue(m, "caretd counted no copies")
        self.assertEqual(int(m.group(1)), per[old.pid]["duplicates_total"])
        events = read_trace(path)
        inside = [e for e in events if t_paused < e.ts < t_resume]
        self.assertEqual(inside, [], "events inside the pause")
        # the old process recorded on both sides of the pause
        old_ts = [e.ts for e in events if e.vpid == old.pid and e.name == "ros2:callback_start"]
        self.assertTrue(any(t < t_paused for t in old_ts) and any(t > t_resume for t in old_ts))

    def test_refusals(self):
        """resume of a recording not paused, pause of no recording, of a
        session caretd did not make: refused with the reason, exit 1."""
        self.c.caretd()
        r = self.c.caretctl("pause", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no recording", r.stderr)
        self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "pr",
                        "--duration", "30", "--timeout", "30", background=True)
        deadline = time.time() + 30
        while "pr" not in self.recordings()[0] and time.time() < deadline:
            time.sleep(0.1)
        r = self.c.caretctl("resume", "-s", "pr", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not paused", r.stderr)
        r = self.c.caretctl("pause", "-s", "nosuch", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a recording of caretd", r.stderr)
        self.c.caretctl("stop", "-s", "pr")


    def test_help_and_completion(self):
        """caretctl --help names pause and resume; bash completes them and
        their options."""
        r = subprocess.run([CARETCTL, "--help"], capture_output=True, text=True, timeout=30)
        self.assertRegex(r.stdout, r"(?m)^  pause +\S")
        self.assertRegex(r.stdout, r"(?m)^  resume +\S")
        comp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                            "caretctl", "caretctl.bash")
        script = ('source %s; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _caretctl; '
                  'echo "${COMPREPLY[*]}"; }; t caretctl pa; t caretctl resume --se' % comp)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["pause", "--session-name"])

if __name__ == "__main__":
    unittest.main()
