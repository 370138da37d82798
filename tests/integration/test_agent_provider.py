# SPDX-License-Identifier: Apache-2.0
"""The agent's ros2_caret provider is registered when a recording first needs it
(agent/provider.h, issue 34): a process no session has recorded yet shows LTTng only its own
tracetools events, so a session start sets up none of the provider's events in it (the session
daemon does that for every registered process, one after the other); a late recording still
gets every init record, once, and a process started under a recording records from its start,
as before."""
import collections
import re
import signal
import time
import unittest

from harness import INIT_KINDS, Ctx, lttng, parse_counts, read_trace, wait_line


def listed(pid):
    """Tracepoints per provider that `lttng list -u` shows for process `pid`."""
    got, cur = collections.Counter(), None
    for line in lttng("list", "-u").splitlines():
        m = re.match(r"\s*PID: (\d+) - ", line)
        if m:
            cur = int(m.group(1))
            continue
        m = re.match(r"\s*(\w+):\S+ ", line)
        if m and cur == pid:
            got[m.group(1)] += 1
    return got


class ProviderTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def pair(self):
        procs, counts = [], {}
        for name, args in (("sub", ("--pubs", "0", "--subs", "2", "--timers", "1")),
                           ("pub", ("--pubs", "2", "--subs", "0", "--timers", "1",
                                    "--services", "1"))):
            p = self.c.workload("--name", name, "--print-counts", *args)
            counts[p.pid] = parse_counts(wait_line(p, r"^counts .*").group(0))
            wait_line(p, r"^ready pid=%d" % p.pid)
            procs.append(p)
        return procs, counts

    def stop(self, procs):
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())

    def check_once(self, s, procs, counts):
        events = [e for e in read_trace(s.path) if e.vpid in counts]
        for p in procs:
            got = collections.Counter(e.name for e in events if e.vpid == p.pid)
            self.assertGreaterEqual(got["ros2_caret:caret_init"], 1, "pid %d" % p.pid)
            for kind in ("rcl_node_init", "rcl_publisher_init", "rcl_subscription_init",
                         "rcl_timer_init"):
                self.assertEqual(got["ros2_caret:" + kind], counts[p.pid].get(kind, 0),
                                 "pid %d: %s not once per record" % (p.pid, kind))
            for k in INIT_KINDS:
                self.assertEqual(got["ros2:" + k], 0, "pid %d: ros2:%s emitted" % (p.pid, k))

    def test_no_provider_until_a_recording_needs_it(self):
        procs, counts = self.pair()
        time.sleep(0.5)
        for p in procs:
            ev = listed(p.pid)
            self.assertGreater(ev["ros2"], 0, "pid %d: tracetools not registered" % p.pid)
            self.assertEqual(ev["ros2_caret"], 0,
                             "pid %d: the provider registered with no recording" % p.pid)
        s = self.c.session()
        s.start()
        self.c.wait_states([p.pid for p in procs], "RECORD", timeout=30)
        for p in procs:
            self.assertGreater(listed(p.pid)["ros2_caret"], 0, "pid %d" % p.pid)
        time.sleep(0.5)
        self.stop(procs)
        s.stop()
        self.check_once(s, procs, counts)

    def test_process_under_a_recording_records_from_its_start(self):
        s = self.c.session()
        s.start()
        procs, counts = self.pair()
        ag = self.c.agents()
        for p in procs:
            self.assertEqual(ag[p.pid]["state"], "RECORD", ag)
            self.assertGreater(listed(p.pid)["ros2_caret"], 0, "pid %d" % p.pid)
        time.sleep(0.5)
        self.stop(procs)
        s.stop()
        self.check_once(s, procs, counts)

    def test_ros2_only_session_leaves_init_events_to_tracetools(self):
        # plain ros2_tracing beside the agent: the provider is loaded to find out that
        # ros2_caret is not recorded; tracetools' own init events go to the trace
        s = self.c.session(events=("ros2:*",))
        s.start()
        procs, counts = self.pair()
        time.sleep(0.5)
        self.stop(procs)
        s.stop()
        events = [e for e in read_trace(s.path) if e.vpid in counts]
        for p in procs:
            got = collections.Counter(e.name for e in events if e.vpid == p.pid)
            self.assertEqual(got["ros2:rcl_node_init"], counts[p.pid]["rcl_node_init"])
            self.assertEqual(sum(n for k, n in got.items() if k.startswith("ros2_caret:")), 0)


if __name__ == "__main__":
    unittest.main()
