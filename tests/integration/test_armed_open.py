# SPDX-License-Identifier: Apache-2.0
"""Issue 24 (P6): an armed recording with no session active starts with its
channel enabled, so that Enter sends no command to any application; what
keeps it empty until Enter is the agents' gate (every process with the agent
in WAIT). Proved on a real session: no event of a process with the agent is
older than Enter, also when someone's plain LTTng session starts while the
recording waits for Enter (caretd then disables the armed channel before
any process leaves WAIT, and Enter enables it as before)."""
import re
import time
import unittest

from harness import SystemTest, read_trace, wait_err, wait_line


class ArmedOpenTest(SystemTest):

    def arm(self, name):
        return self.c.arm("-p", self.traces, "-s", name)

    def enter_then_stop(self, rec):
        return self.c.enter_then_stop(rec, hold=0.5)

    def assert_nothing_before_enter(self, path, t_enter, pids):
        evs = [e for e in read_trace(path) if e.vpid in pids]
        self.assertTrue(evs, "no event of the workloads at all")
        early = [(e.name, e.vpid, t_enter - e.ts) for e in evs if e.ts < t_enter]
        self.assertEqual(early, [], "events older than Enter (name, vpid, ns before)")
        # and they recorded: init records replayed, runtime events after
        for pid in pids:
            names = {e.name for e in evs if e.vpid == pid}
            self.assertIn("ros2_caret:rcl_node_init", names, pid)
            self.assertIn("ros2:callback_start", names, pid)

    def workloads(self, n=2):
        ps = [self.c.workload("--name", "open%d" % i, "--pubs", "1", "--subs", "1",
                              "--timers", "2", "--period-ms", "5") for i in range(n)]
        for p in ps:
            wait_line(p, r"^ready pid=%d" % p.pid)
        return ps

    def test_open_when_idle(self):
        d = self.c.caretd()
        ps = self.workloads()
        rec = self.arm("idle")
        wait_err(d, r"session idle armed open")
        time.sleep(1.0)  # 2 timers at 5 ms in each process: ~800 callbacks gated
        # a process started now sees its tracepoints enabled (the armed
        # channel is): it must still start in WAIT, not record at once as it
        # does under someone's plain session
        late = self.c.workload("--name", "late", "--pubs", "1", "--subs", "1", "--timers", "2",
                               "--period-ms", "5")
        wait_line(late, r"^ready pid=%d" % late.pid)
        ps.append(late)
        time.sleep(0.5)
        ag = self.c.caretctl("list").stdout
        self.assertNotRegex(ag, r" (PREPARE|RECORD) ", ag)
        t_enter, out = self.enter_then_stop(rec)
        self.assertEqual(set(re.findall(r"channel \S+: (\S+) events discarded", out)), {"0"}, out)
        self.assertFalse(any("held (channel disabled)" in l for l in d.errs), d.errs[-5:])
        path = re.search(r"recording to (\S+)", out).group(1)
        self.assert_nothing_before_enter(path, t_enter, {p.pid for p in ps})

    def test_held_when_a_session_starts_meanwhile(self):
        d = self.c.caretd()
        ps = self.workloads()
        rec = self.arm("held")
        wait_err(d, r"session held armed open")
        s = self.c.session()
        s.start()
        deadline = time.time() + 20
        while time.time() < deadline:
            ag = self.c.caretctl("list").stdout
            if len(re.findall(r" RECORD ", ag)) >= len(ps):
                break
            time.sleep(0.1)
        self.assertGreaterEqual(len(re.findall(r" RECORD ", ag)), len(ps), ag)
        wait_err(d, r"armed recording held held \(channel disabled\)")
        time.sleep(0.5)  # the workloads record into the other session
        t_enter, out = self.enter_then_stop(rec)
        s.stop()
        s.destroy()
        path = re.search(r"recording to (\S+)", out).group(1)
        self.assert_nothing_before_enter(path, t_enter, {p.pid for p in ps})


if __name__ == "__main__":
    unittest.main()
