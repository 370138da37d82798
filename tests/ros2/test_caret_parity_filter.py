# SPDX-License-Identifier: Apache-2.0
"""CARET's filter variables side by side (issue 33 F1): CARET_SELECT_TOPICS
under caret_trace, the same variable under the agent from launch, and
caretctl record --select-topics late, on the system of test_caret_parity.py
(whose docstring lists what the comparisons leave out, and why).

Environment: test_caret_parity.py's (tests/ros2/run.sh sets it)."""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import test_real_ros as trr  # noqa: E402  (the module: its test class is not collected here)
from harness import INIT_KINDS, Ctx, dds_domain  # noqa: E402
from caret_parity import MODES, AppCtx, Run, caret_run, kind, main  # noqa: E402


class FilterCtx(AppCtx):
    """An AppCtx whose processes get `env` too (CARET's filter variables)."""

    def __init__(self, ctx, env, caret=False):
        super().__init__(ctx, caret)
        self.filter_env = env

    def spawn(self, args, agent=True, extra_env=None, **kw):
        env = dict(extra_env or {})
        env.update(self.filter_env)
        return super().spawn(args, agent, env, **kw)


class FilterParityTest(unittest.TestCase):
    """issue 33 F1: CARET_SELECT_TOPICS under caret_trace, the same variable
    under the agent from launch, and caretctl record --select-topics late,
    on the same system: caret_analyze's Architecture is the same in the
    three, timers included (caret_trace keeps every timer under a topic
    filter: it judges a timer's records before rclcpp links it to its
    node), and each process has the same runtime event kinds (Run.steady).
    Before, the late recording lost every timer (rcl_timer_init,
    rclcpp_timer_callback_added, callback_group_add_timer).

    Init kinds are not compared: caret_trace decides each record when
    rclcpp makes it, and keeps from launch what it cannot place yet, which
    a replay (its own, or the agent's) judges knowing more: seen on Humble,
    CARET's trace from launch and ours from launch hold rcl_publisher_init
    in processes with no selected topic (/rosout's publisher, made inside
    rcl_node_init before the node is named) and one
    rclcpp_subscription_callback_added in intra, which the late recording
    leaves out, as caret_trace's own replay would; the Architecture does
    not change."""

    maxDiff = None
    TOPICS = "^/cross$"

    def runs(self, rmw):
        out = {}
        env = {"CARET_SELECT_TOPICS": self.TOPICS}
        for mode in MODES:
            c = Ctx("parity-sel-%s-%s" % (mode, rmw))
            try:
                domain = dds_domain(int(c.domain) + trr.RMWS.index(rmw) * 7)
                if mode == "late":
                    c.caretd()
                    ac = AppCtx(c)
                    sysm = trr.System(ac, rmw, domain)
                    sysm.wait_ready()
                    time.sleep(1.0)  # the caches alone hold the init records
                    traces = os.path.join(c.tmp, "traces")
                    r = c.caretctl("record", "--immediate", "-p", traces, "-s", "sel",
                                   "--duration", str(trr.RUN_S), "--timeout", "60",
                                   "--select-topics", self.TOPICS, timeout=180, check=False)
                    sysm.stop()
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertNotIn("matches none", r.stderr)
                    path = os.path.join(traces, "sel")
                elif mode == "launch":
                    c.caretd()
                    runner = trr.RealRosTest("run_system")
                    ac = runner.c = FilterCtx(c, env)
                    sysm, path, _ = runner.run_system(rmw, False)
                else:
                    ac = FilterCtx(c, env, caret=True)
                    sysm, path = caret_run(c, ac, rmw, domain)
                out[mode] = Run(mode, sysm, path, ac.stop_ns)
            finally:
                c.cleanup()
        return out

    def test_select_topics_architecture(self):
        rmw = trr.RMWS[0]
        rs = self.runs(rmw)
        for mode in MODES:
            self.assertNotIn("error", rs[mode].oracle, rs[mode].oracle.get("error"))

        def arch(r):
            return {k: v for k, v in r.oracle.get("arch", {}).items() if k != "caret_nodes"}

        want = arch(rs["caret"])
        timers = [cb for n in want.get("nodes", []) for cb in n.get("callbacks", [])
                  if cb.get("callback_type") == "timer_callback"]
        self.assertTrue(timers, "CARET's trace has no timer: %s" % want)

        def kinds(r):
            return {role: sorted({e.name for e in r.steady(role)
                                  if kind(e.name) not in INIT_KINDS}) for role in r.per}
        for mode in ("launch", "late"):
            with self.subTest(mode=mode, check="architecture"):
                self.assertEqual(arch(rs[mode]), want)
            with self.subTest(mode=mode, check="event kinds"):
                self.assertEqual(kinds(rs[mode]), kinds(rs["caret"]))


if __name__ == "__main__":
    main("test_caret_parity_filter")
