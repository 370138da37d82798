# SPDX-License-Identifier: Apache-2.0
"""`caretctl record -c` with a real ROS 2 /clock publisher: rclpy
(tests/ros2/clock_pub_rclpy.py, on the rclpy overlay of the fixture) over
each real RMW (rmw_cyclonedds_cpp, rmw_fastrtps_cpp: Fast DDS 2.14), and the
real caret_analyze reading the trace: its sim-time converter
(Lttng.get_sim_time_converter) gives the publisher's speed.

Environment (tests/ros2/run.sh sets it): CARET_ROS2_DISTRO, CARET_ROS2_PREFIX
(the rclpy overlay's install), CARET_ROS2_RMWS, CARET_ROS2_CARET (tools/ros2/
caret.sh's folder: caret_analyze in its python/)."""
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import CARETCTL, Ctx, dds_domain, read_trace, real_ros_asan, ros_env, wait_line  # noqa: E402

PREFIX = os.environ.get("CARET_ROS2_PREFIX", "")
RMWS = os.environ.get("CARET_ROS2_RMWS", "rmw_cyclonedds_cpp").split()
CARET = os.environ.get("CARET_ROS2_CARET", "")
PUB = os.path.join(HERE, "clock_pub_rclpy.py")
SHIM = os.path.join(HERE, "shim")
SPEED = 3.0

# caret_analyze's view of the trace: its sim_time records and the slope of
# its converter (system time -> sim time), as JSON on the last line
ANALYZE = r"""
import contextlib, io, json, sys
from caret_analyze import Lttng
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    lttng = Lttng(sys.argv[1], force_conversion=True)
recs = lttng._source.system_and_sim_times
sys_t = [int(x) for x in recs.get_column_series('system_time')]
sim_t = [int(x) for x in recs.get_column_series('sim_time')]
conv = lttng.get_sim_time_converter(min(sys_t), max(sys_t))
a = (conv.convert(sys_t[-1]) - conv.convert(sys_t[0])) / (sys_t[-1] - sys_t[0])
print(json.dumps({"sim": sim_t, "slope": a}))
"""


class RecordClockReal(unittest.TestCase):
    def setUp(self):
        if not (PREFIX and CARET):
            raise AssertionError("CARET_ROS2_PREFIX and CARET_ROS2_CARET must be set "
                                 "(tests/ros2/run.sh)")
        self.c = Ctx(self._testMethodName)
        self.daemon = self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def run_rmw(self, rmw):
        env = dict(ros_env(PREFIX))
        domain = dds_domain(int(self.c.domain) + RMWS.index(rmw) * 7)
        env.update({"RMW_IMPLEMENTATION": rmw, "ROS_DOMAIN_ID": str(domain)})
        pub = self.c.spawn(["/usr/bin/python3", "-u", PUB, "--speed", str(SPEED)],
                           extra_env=real_ros_asan(env, self.c))
        wait_line(pub, r"^ready pid=%d" % pub.pid, timeout=90)
        wait_line(pub, r"^stamp ", timeout=30)
        traces = os.path.join(self.c.tmp, "traces")
        name = "clk-" + rmw.split("_")[1]
        # caretctl reads /clock where the publisher is: its ROS_DOMAIN_ID
        cenv = self.c.env(agent=False)
        cenv["ROS_DOMAIN_ID"] = str(domain)
        r = subprocess.run([CARETCTL, "--socket", self.c.sock, "record", "-c", "--immediate",
                            "--duration", "4", "--timeout", "60", "-s", name, "-p", traces],
                           env=cenv, capture_output=True, text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        path = os.path.join(traces, name)
        sent = {int(m.group(1)) for m in
                (re.match(r"^stamp (\d+)$", l.strip()) for l in list(pub.lines)) if m}
        sim = [e for e in read_trace(path) if e.name == "ros2_caret:sim_time"]
        self.assertGreaterEqual(len(sim), 3, (rmw, len(sent)))
        self.assertTrue(all(e.f["stamp"] in sent for e in sim), rmw)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.join(CARET, "python") + ":" + SHIM
        a = subprocess.run(["/usr/bin/python3", "-c", ANALYZE, path], env=env,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(a.returncode, 0, a.stderr[-3000:])
        got = json.loads(a.stdout.strip().splitlines()[-1])
        self.assertEqual(got["sim"], [e.f["stamp"] for e in sim])
        self.assertAlmostEqual(got["slope"], SPEED, delta=0.05)

    def test_rmws(self):
        for rmw in RMWS:
            with self.subTest(rmw=rmw):
                self.run_rmw(rmw)


if __name__ == "__main__":
    unittest.main()
