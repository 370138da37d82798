# SPDX-License-Identifier: Apache-2.0
"""CARET's filters in the agent (caret-agent(7) FILTERS), against a real
lttng-sessiond and CycloneDDS."""
import collections
import signal
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
