# SPDX-License-Identifier: Apache-2.0
"""The agent in a Python node on a real ROS 2 core: rclpy built as an overlay
on the fixture (tools/ros2/rclpy.sh) or an installed ROS 2 with rclpy, and
tests/ros2/apps/caret_rclpy_app.py (a talker and a listener node in one
process: timers, a publisher, a subscription, a service and its client).

Environment (tests/ros2/run.sh sets it): CARET_ROS2_DISTRO (humble|jazzy),
CARET_ROS2_PREFIX (the install holding setup.bash: the overlay's sources the
core too), CARET_ROS2_RMWS (the RMWs to run, space separated).

What rclpy is: the node code is Python; rcl, tracetools and the RMW are
reached through rclpy's extension module, which Python dlopen()s with
RTLD_LOCAL long after the agent was preloaded. Upstream rclpy calls no
tracetools itself (ros2/rclpy, humble and jazzy: no tracepoint in its
sources), so a Python node's trace has rcl's events (rcl_init,
rcl_node_init, rcl_publisher_init, rcl_subscription_init, rcl_service_init,
rcl_client_init, rcl_timer_init, rcl_publish), the RMW's (rmw_take; Jazzy:
rmw_publish) and the agent's DDS hooks (dds_write, dds_bind_addr_to_stamp),
and none of rclcpp's (callback_start/end, rclcpp_publish,
rclcpp_callback_register...), in CARET's trace as in ours.

Recorded from launch (the session started before the process) and late
(`caretctl record` after it runs, so only the agent's cache has the init
records); every trace is read back with babeltrace2. The late run leaves
ROS_DISTRO unset: the distribution caret_init says then is what the agent
makes of what rclpy loaded (Humble: tracetools without the ros_trace_enabled_
symbols; Jazzy: tracetools since Iron and no rclcpp, so the documented
default)."""
import collections
import os
import re
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import (Ctx, INIT_KINDS, dds_domain, read_trace, real_ros_asan,  # noqa: E402
                     ros_env, wait_line)
from trace_model import discarded  # noqa: E402

DISTRO = os.environ.get("CARET_ROS2_DISTRO", "")
PREFIX = os.environ.get("CARET_ROS2_PREFIX", "")
RMWS = os.environ.get("CARET_ROS2_RMWS", "rmw_cyclonedds_cpp").split()
APP = os.path.join(HERE, "apps", "caret_rclpy_app.py")
RUN_S = 3.0
# The ROS 2 entities of the app: its two nodes and its own topic and service.
NODES = {"py_talker", "py_listener"}
TOPIC = "/py/chatter"
SERVICE = "/py/add_two_ints"
# rclcpp's events: upstream rclpy emits none of them.
RCLCPP_ONLY = ("callback_start", "callback_end", "rclcpp_publish", "rclcpp_callback_register",
               "rclcpp_subscription_init", "rclcpp_subscription_callback_added",
               "rclcpp_timer_callback_added", "rclcpp_timer_link_node",
               "rclcpp_service_callback_added")


def counts(p):
    out = p.out_text()
    m = re.search(r"published=(\d+) taken=(\d+) failed=(\d+)", out)
    traffic = tuple(int(x) for x in m.groups()) if m else None
    m = re.search(r"requests=(\d+) served=(\d+) responses=(\d+) answered=(\d+) failed=(\d+)", out)
    services = tuple(int(x) for x in m.groups()) if m else None
    return traffic, services


class RclpyTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.daemon = self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def spawn(self, rmw, with_distro, extra=()):
        env = dict(ros_env(PREFIX))
        domain = dds_domain(int(self.c.domain) + RMWS.index(rmw) * 7)
        env.update({"RMW_IMPLEMENTATION": rmw, "ROS_DOMAIN_ID": str(domain)})
        argv = ["/usr/bin/python3", "-u", APP, "--topic-prefix", "py"] + list(extra)
        if with_distro:
            env["ROS_DISTRO"] = DISTRO
        else:
            # Ctx.env() adds a ROS_DISTRO when there is none: env(1) takes it away.
            argv = ["env", "-u", "ROS_DISTRO"] + argv
        p = self.c.spawn(argv, extra_env=real_ros_asan(env, self.c))
        wait_line(p, r"^ready pid=%d" % p.pid, timeout=90)
        return p

    def dump(self, pid):
        lines = self.c.agentctl("dump", str(pid)).stdout.splitlines()
        return collections.Counter(re.match(r"(\w+) ts=(-?\d+)", l).groups() for l in lines)

    def run_app(self, rmw, late):
        if not late:
            s = self.c.session()
            s.start()
        p = self.spawn(rmw, with_distro=not late)
        if late:
            # Well after start-up: only the agent's cache holds the init records now.
            time.sleep(1.0)
            before = self.dump(p.pid)
            traces = os.path.join(self.c.tmp, "traces")
            name = "late-py-" + rmw.split("_")[1]
            r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", name,
                                "--duration", str(RUN_S), "--timeout", "60", timeout=180)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            path = os.path.join(traces, name)
        else:
            self.c.wait_states([p.pid], "RECORD", timeout=60)
            time.sleep(RUN_S)
            before = None
        dump = self.dump(p.pid)
        p.terminate()
        self.assertEqual(p.finish(30), 0, p.err_text()[-3000:])
        if not late:
            s.stop()
            path = s.path
        if before is not None:
            # Nothing new at run time: the cache is what start-up wrote.
            self.assertEqual(before, dump)
        return p, path, dump

    def check(self, p, path, dump, rmw, late):
        keep = os.environ.get("CARET_TEST_KEEP")
        if keep:
            import shutil
            shutil.copytree(path, os.path.join(keep, "%s-%s" % (self._testMethodName,
                                                                 os.getpid())))
        tag = "%s %s rclpy pid %d" % (DISTRO, rmw, p.pid)
        evs = read_trace(path)
        mine = [e for e in evs if e.vpid == p.pid]
        by = collections.defaultdict(list)
        for e in mine:
            by[e.name].append(e.f)
        traffic, services = counts(p)
        with self.subTest(tag=tag, check="discarded"):
            self.assertEqual(discarded(path), 0, tag)
        with self.subTest(tag=tag, check="init records"):
            got = collections.Counter(
                (e.name.split(":")[1], str(e.f["init_timestamp"])) for e in mine
                if e.name.startswith("ros2_caret:") and e.name.split(":")[1] in INIT_KINDS)
            self.assertGreater(sum(dump.values()), 10, tag)
            # Every cached record is in the trace, once.
            self.assertEqual(dump - got, collections.Counter(), tag)
            self.assertEqual(got - dump, collections.Counter(), tag)
            names = collections.Counter(k for k, _ in got.elements())
            for k in ("rcl_init", "rcl_node_init", "rcl_publisher_init", "rcl_subscription_init",
                      "rcl_timer_init", "rcl_service_init", "rcl_client_init"):
                self.assertGreater(names[k], 0, "%s: no %s" % (tag, k))
            for k in RCLCPP_ONLY:
                self.assertEqual(names[k], 0, "%s: %s from a Python node" % (tag, k))
        with self.subTest(tag=tag, check="no ros2 twin"):
            twins = [e.name for e in mine if e.name.startswith("ros2:") and
                     e.name.split(":")[1] in INIT_KINDS]
            self.assertEqual(twins, [], tag)
        with self.subTest(tag=tag, check="entities"):
            # The Python nodes and what they created, linked by address as
            # caret_analyze joins them.
            nodes = {f["node_handle"]: f["node_name"] for f in by["ros2_caret:rcl_node_init"]}
            self.assertEqual(NODES - set(nodes.values()), set(), "%s: %s" % (tag, nodes))
            talker = [h for h, n in nodes.items() if n == "py_talker"]
            listener = [h for h, n in nodes.items() if n == "py_listener"]
            pubs = {f["publisher_handle"]: f for f in by["ros2_caret:rcl_publisher_init"]}
            chatter = [h for h, f in pubs.items() if f["topic_name"] == TOPIC]
            self.assertEqual(len(chatter), 1, "%s: %s" % (tag, pubs))
            self.assertIn(pubs[chatter[0]]["node_handle"], talker, tag)
            subs = {f["rmw_subscription_handle"]: f
                    for f in by["ros2_caret:rcl_subscription_init"]}
            sub = [h for h, f in subs.items() if f["topic_name"] == TOPIC]
            self.assertEqual(len(sub), 1, "%s: %s" % (tag, subs))
            self.assertIn(subs[sub[0]]["node_handle"], listener, tag)
            srv = [f for f in by["ros2_caret:rcl_service_init"] if f["service_name"] == SERVICE]
            self.assertEqual([f["node_handle"] for f in srv], talker, tag)
            cli = [f for f in by["ros2_caret:rcl_client_init"] if f["service_name"] == SERVICE]
            self.assertEqual([f["node_handle"] for f in cli], listener, tag)
            periods = sorted(f["period"] for f in by["ros2_caret:rcl_timer_init"])
            self.assertEqual(periods, [20_000_000, 100_000_000], tag)
        with self.subTest(tag=tag, check="caret_init"):
            inits = by["ros2_caret:caret_init"]
            self.assertTrue(inits, tag)
            self.assertEqual({f["distribution"] for f in inits}, {DISTRO}, tag)
            # Symbols decide Humble; Jazzy's rclpy loads tracetools (Iron or
            # later) and no rclcpp, so without ROS_DISTRO it is the default,
            # said once on stderr.
            warned = "caret-agent: distribution jazzy (not detected: the default; set ROS_DISTRO)"
            self.assertEqual(p.err_text().count(warned),
                             1 if DISTRO == "jazzy" and late else 0, p.err_text()[-2000:])
        with self.subTest(tag=tag, check="traffic"):
            self.assertIsNotNone(traffic, p.out_text() + p.err_text())
            published, taken, failed = traffic
            self.assertEqual(failed, 0, tag + ": " + p.err_text()[-2000:])
            self.assertGreater(published, 0, tag)
            self.assertGreater(taken, 0, tag)
            self.assertIsNotNone(services, tag)
            requests, served, responses, answered, failed = services
            self.assertEqual(failed, 0, tag)
            self.assertGreater(served, 0, tag)
            self.assertGreater(answered, 0, tag)
        with self.subTest(tag=tag, check="runtime"):
            names = collections.Counter(e.name for e in mine)
            for n in ("ros2:rcl_publish", "ros2:rmw_take", "ros2_caret:dds_write"):
                self.assertGreater(names[n], 0, "%s: no %s (%s)" % (tag, n, dict(names)))
            for k in RCLCPP_ONLY:
                self.assertEqual(names["ros2:" + k], 0, "%s: %s from a Python node" % (tag, k))
            # rcl_publish of our topic, by the handle its rcl_publisher_init gave.
            self.assertTrue([f for f in by["ros2:rcl_publish"]
                             if f["publisher_handle"] == chatter[0]], tag)
        with self.subTest(tag=tag, check="publish bound to take"):
            # The take of a message of our topic carries the source stamp the
            # DDS hooks bound to its write (Humble), or the stamp rmw_publish
            # traced (Jazzy): the join caret_analyze makes.
            binds = {f["source_stamp"] for f in by["ros2_caret:dds_bind_addr_to_stamp"]}
            # Jazzy with ROS_DISTRO unset: the family stays open (tracetools since Iron, no
            # rclcpp), so dds_write carries no field read from rmw_publish's arguments:
            # timestamp 0, which binds nothing (and would open the window below at 0).
            binds |= {f["timestamp"] for f in by["ros2_caret:dds_write"] if f.get("timestamp")}
            self.assertTrue(binds, tag)
            takes = [f["source_timestamp"] for f in by["ros2:rmw_take"]
                     if f["taken"] and f["rmw_subscription_handle"] == sub[0]]
            self.assertGreater(len(takes), 5, tag)
            # Late, the first takes may be of messages written before the
            # process reached RECORD, and the last after it went back to WAIT.
            lo, hi = min(binds), max(binds)
            inside = [t for t in takes if lo <= t <= hi]
            self.assertGreater(len(inside), 5, tag)
            self.assertEqual([t for t in inside if t not in binds], [], tag)


    def test_late_with_wait_timeouts(self):
        """Issue 19: spin_once(timeout_sec=...) makes an rcl timer, one more
        rcl_timer_init, for every wait, also while a late recording replays
        the cache (PREPARE) and after: each is in the trace once, none twice
        (emitted live and replayed), none lost."""
        rmw = RMWS[0]
        p = self.spawn(rmw, with_distro=True, extra=("--wait-timeout", "0.005"))
        time.sleep(1.0)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "late-py-waits",
                            "--duration", str(RUN_S), "--timeout", "60", timeout=180)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        dump = self.dump(p.pid)
        p.terminate()
        self.assertEqual(p.finish(30), 0, p.err_text()[-3000:])
        tag = "%s %s rclpy pid %d, waits with a timeout" % (DISTRO, rmw, p.pid)
        mine = [e for e in read_trace(os.path.join(traces, "late-py-waits")) if e.vpid == p.pid]
        got = collections.Counter(
            (e.name.split(":")[1], str(e.f["init_timestamp"])) for e in mine
            if e.name.startswith("ros2_caret:") and e.name.split(":")[1] in INIT_KINDS)
        twice = sorted(k for k, n in got.items() if n > 1)
        self.assertEqual(twice, [], "%s: %d init records twice" % (tag, len(twice)))
        self.assertEqual(got - dump, collections.Counter(), tag)
        # the replay began (caret_init) with timers made before, during and
        # after it; every record made before the recording's last event
        # (less a margin for the stop) is in it
        start = min(e.ts for e in mine if e.name == "ros2_caret:caret_init")
        end = max(e.ts for e in mine)
        timers = sorted(int(ts) for k, ts in dump.elements() if k == "rcl_timer_init")
        self.assertGreater(len([t for t in timers if start < t < end]), 20, tag)
        self.assertGreater(len([t for t in timers if t < start]), 20, tag)
        lost = sorted(k for k in dump if int(k[1]) < end - 300 * 1000000 and k not in got)
        self.assertEqual(lost, [], "%s: %d init records lost" % (tag, len(lost)))


def _make(rmw, late):
    def test(self):
        p, path, dump = self.run_app(rmw, late)
        self.check(p, path, dump, rmw, late)
    test.__doc__ = "rclpy, %s, recorded %s" % (rmw, "late with caretctl record, ROS_DISTRO unset"
                                               if late else "from launch")
    return test


for _rmw in RMWS:
    for _late in (False, True):
        setattr(RclpyTest, "test_%s_%s" % (_rmw.split("_")[1], "late" if _late else "launch"),
                _make(_rmw, _late))


if __name__ == "__main__":
    if not (DISTRO and PREFIX):
        sys.exit("test_rclpy: set CARET_ROS2_DISTRO and CARET_ROS2_PREFIX (tests/ros2/run.sh "
                 "does)")
    unittest.main(verbosity=2)
