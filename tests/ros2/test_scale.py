# SPDX-License-Identifier: Apache-2.0
"""A real ROS 2 system of some size recorded late (issue 34 item 5): the
generated system of apps/caret_scale_app.cpp (scale_system.py), by default
6 processes x 4 nodes at 10 Hz on CycloneDDS, NODES pipelines that each
cross every process. `caretctl record --immediate` after start-up: every
process reaches RECORD while it records, it exits 0, the trace has nothing
discarded and passes `caretctl check`, and the real caret_analyze loads it
with every node and each pipeline's path, whose latency table has complete
rows (messages that crossed every process while recorded), and one timer
callback in each node (caret_analyze ties a timer to its node only through
rclcpp_timer_link_node). Once per RMW of CARET_ROS2_RMWS, each a system of
its own.

The scale row's gate (bench/ros2_scale_gate.py, as bench-smoke's gates):
request -> every process in RECORD and the discarded events, against their
noise band.

Environment: test_real_ros.py's (CARET_ROS2_DISTRO, CARET_ROS2_PREFIX,
CARET_ROS2_RMWS: each is run), CARET_ROS2_SCALE_APP (the app),
CARET_ROS2_CARET (tools/ros2/caret.sh's folder, for caret_analyze);
CARET_SCALE=PROCSxNODES changes the size."""
import os
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from harness import CARETCTL, Ctx, dds_domain  # noqa: E402
from trace_model import discarded  # noqa: E402
import scale_system  # noqa: E402
import ros2_scale_gate  # noqa: E402

DISTRO = os.environ.get("CARET_ROS2_DISTRO", "")
PREFIX = os.environ.get("CARET_ROS2_PREFIX", "")
APP = os.environ.get("CARET_ROS2_SCALE_APP", "")
RMWS = os.environ.get("CARET_ROS2_RMWS", "rmw_cyclonedds_cpp").split()
CARET = os.environ.get("CARET_ROS2_CARET", "")
PROCS, NODES = (int(x) for x in os.environ.get("CARET_SCALE", "6x4").split("x"))
RATE = 10.0
RECORD_S = 3


class ScaleTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx("scale")
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def late_record_of_a_system(self, rmw):
        sysm = scale_system.ScaleSystem(self.c, APP, PREFIX, DISTRO, rmw,
                                        dds_domain(int(self.c.domain) + 11), PROCS, NODES, RATE)
        try:
            sysm.wait_ready(timeout=60 + 2 * PROCS)
            time.sleep(1.0)  # well after start-up: the caches alone hold the init records
            traces = os.path.join(self.c.tmp, "traces")
            seen = {}

            def watch():
                # Every process in RECORD while the recording runs (caretd's view).
                try:
                    self.c.wait_states(sysm.pids(), "RECORD", timeout=60)
                    seen["record"] = time.monotonic()
                except AssertionError as e:
                    seen["error"] = str(e)
            w = threading.Thread(target=watch)
            w.start()
            t0 = time.monotonic()
            rc, out, answered = scale_system.record_timed(
                self.c, ["--immediate", "-p", traces, "-s", "scale", "--duration", str(RECORD_S),
                         "--timeout", "120"])
            w.join()
        finally:
            traffic = sysm.stop()
        self.assertEqual(rc, 0, out)
        self.assertEqual(list(seen), ["record"], seen)
        self.assertIsNotNone(answered, out)
        # The pipelines carried messages: every process published, each but the first (the
        # sources) took some.
        got = [traffic[pid] for pid in sysm.pids()]
        self.assertTrue(all(t and t[0] > 0 for t in got) and all(t[1] > 0 for t in got[1:]), got)
        path = os.path.join(traces, "scale")
        self.assertEqual(discarded(path), 0)
        n = {"procs": PROCS, "to_record_s": seen["record"] - t0,
             "after_answer_s": max(0.0, seen["record"] - answered), "discarded": discarded(path),
             "load": os.getloadavg()[0]}
        ok, text = ros2_scale_gate.gate(n)
        print("\nscale gate %s %dx%d: %s (1-min load %.1f)" % (rmw, PROCS, NODES, text,
                                                               n["load"]), flush=True)
        self.assertTrue(ok, text)
        ck = subprocess.run([CARETCTL, "check", "--json", path], capture_output=True, text=True,
                            timeout=300)
        self.assertEqual(ck.returncode, 0, ck.stdout[:2000] + ck.stderr)
        o = scale_system.oracle(CARET, path, PROCS, NODES)
        self.assertNotIn("error", o, o.get("error"))
        self.assertEqual(o["nodes"], scale_system.want_nodes(PROCS, NODES))
        self.assertEqual(o["timers"], {name: 1 for name in o["nodes"]})
        for j in range(NODES):
            key = "/p0_n%d -> /p%d_n%d" % (j, PROCS - 1, j)
            with self.subTest(path=key):
                ps = o["paths"].get(key, [])
                self.assertEqual([p["nodes"] for p in ps],
                                 [["/p%d_n%d" % (i, j) for i in range(PROCS)]])
                self.assertGreater(ps[0]["complete"], 0, ps)


def _per_rmw(rmw):
    return lambda self: self.late_record_of_a_system(rmw)


for _rmw in RMWS:
    setattr(ScaleTest, "test_late_record_" + _rmw.replace("rmw_", "").replace("_cpp", ""),
            _per_rmw(_rmw))


if __name__ == "__main__":
    if not (DISTRO and PREFIX and APP and CARET):
        sys.exit("test_scale: set CARET_ROS2_DISTRO, CARET_ROS2_PREFIX, CARET_ROS2_SCALE_APP "
                 "and CARET_ROS2_CARET (tests/ros2/run.sh does)")
    unittest.main(verbosity=2)
