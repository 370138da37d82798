# SPDX-License-Identifier: Apache-2.0
"""CARET's filters in the agent (caret-agent(7) FILTERS), against a real
lttng-sessiond and CycloneDDS."""
import collections
import json
import os
import signal
import socket
import time
import unittest

from harness import Ctx, read_trace, wait_line


class FilterTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def stop(self, *procs):
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())

    def test_ignore_processes_and_select_nodes(self):
        s = self.c.session()
        s.start()
        # caret_trace matches program_invocation_short_name (argv[0]).
        ignored = self.c.workload("--name", "ign", "--pubs", "1", "--subs", "1", "--rate", "50",
                                  extra_env={"CARET_IGNORE_PROCESSES": "^caret-stand"})
        kept = self.c.workload("--name", "flt", "--nodes", "2", "--pubs", "1", "--subs", "1",
                               "--rate", "50", extra_env={"CARET_SELECT_NODES": "/flt_0$"})
        wait_line(ignored, r"^ready")
        wait_line(kept, r"^ready")
        time.sleep(1.5)
        self.stop(ignored, kept)
        s.stop()
        events = read_trace(s.path)
        self.assertEqual([e.name for e in events if e.vpid == ignored.pid], [],
                         "an ignored process emits nothing")
        mine = [e for e in events if e.vpid == kept.pid]
        ev = collections.defaultdict(list)
        for e in mine:
            ev[e.name].append(e.f)
        nodes = ev["ros2_caret:rcl_node_init"]
        self.assertEqual([n["node_name"] for n in nodes], ["flt_0"])
        node = nodes[0]["node_handle"]
        pubs = ev["ros2_caret:rcl_publisher_init"]
        self.assertTrue(pubs)
        self.assertTrue(all(p["node_handle"] == node for p in pubs))
        subs = ev["ros2_caret:rcl_subscription_init"]
        self.assertTrue(subs)
        self.assertTrue(all(p["node_handle"] == node for p in subs))
        kept_pubs = {p["publisher_handle"] for p in pubs}
        published = {e["publisher_handle"] for e in ev["ros2:rcl_publish"]}
        self.assertTrue(published)
        self.assertLessEqual(published, kept_pubs)
        kept_rmw_subs = {p["rmw_subscription_handle"] for p in subs}
        taken = {e["rmw_subscription_handle"] for e in ev["ros2:rmw_take"]}
        self.assertTrue(taken)
        self.assertLessEqual(taken, kept_rmw_subs)
        # Only kept publishes are bound (rcl_publish decides for the thread).
        self.assertEqual(len(ev["ros2_caret:dds_write"]), len(ev["ros2:rcl_publish"]))


class RecordFilterTest(unittest.TestCase):
    """issue 22 D7: a recording's lists in CARET's dialect (ECMAScript, as
    caret_trace's std::regex), refused with a reason when they are not."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def test_ecmascript_digit_class_selects_the_talkers(self):
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50")
                 for n in ("talker1", "talker2", "listener")]
        for p in procs:
            wait_line(p, r"^ready")
        # known to caretd first: one it finds after the Start records
        # without the recording's filter
        self.c.wait_states([p.pid for p in procs], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "sel", "-p",
                            traces, "--select-nodes", r"/talker\d")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = read_trace(os.path.join(traces, "sel"))
        nodes = sorted(e.f["node_name"] for e in events
                       if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["talker1", "talker2"])

    def test_bad_pattern_is_refused_by_caretctl_and_caretd(self):
        traces = os.path.join(self.c.tmp, "traces")
        for opt in ("--select-nodes", "--ignore-topics"):
            r = self.c.caretctl("record", "--immediate", "--duration", "1", "-p", traces, opt,
                                "/ok:(", check=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("invalid %s '/ok:('" % opt, r.stderr)
            self.assertIn('regular expression "(": unmatched \'(\'', r.stderr)
        # caretd on its own (another client, or an older caretctl)
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.c.sock)
        s.sendall((json.dumps({"v": 1, "cmd": "record", "path": traces,
                               "select_nodes": "a**:[z-a]"}) + "\n").encode())
        reply = json.loads(s.makefile().readline())
        s.close()
        self.assertEqual(reply["type"], "error", reply)
        self.assertIn('select_nodes: regular expression "[z-a]": range out of order',
                      reply["error"])
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertEqual(st["lttng"]["active_sessions"], [])
        self.assertFalse(os.path.exists(traces))


if __name__ == "__main__":
    unittest.main(verbosity=2)
