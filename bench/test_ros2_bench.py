#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/ros2_bench.py's arithmetic: ratios from paired repetitions, their spread, the
verdicts. No ROS 2 run (`make bench-ros2` runs these first)."""
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ros2_bench as b  # noqa: E402

ROWS = [(b.NONE, None, None), (b.WAIT, "agent", None), (b.ROS2, None, ["ros2:*"]),
        (b.REC, "agent", ["ros*"])]


def run(ns, cpu=None, anon=6400):
    """One run's tuple as ros2_bench's run() returns it."""
    return (ns, 25000, 12, cpu if cpu is not None else ns, anon, 0, 676, 0, 5000000)


def table(results, reps=5):
    a = types.SimpleNamespace(reps=reps, n=20000, caret=False)
    rows = [r for r in ROWS if r[0] in results]
    return b.format_ping(a, "humble", "rmw_fastrtps_cpp", "", rows, results)


def target(text, what):
    return [x for x in text.splitlines() if x.startswith("- " + what)][0]


class Paired(unittest.TestCase):
    def test_drift_between_repetitions_cancels(self):
        # The machine slows down by 20 % between the two runs of repetition 2: the medians of
        # the rows are 20 % apart, each repetition's agent run is as fast as its reference.
        none = [100, 100, 100, 120, 120]
        wait = [100, 100, 120, 120, 120]
        t = table({b.NONE: [run(x) for x in none], b.WAIT: [run(x) for x in wait]})
        line = target(t, "agent WAIT")
        self.assertIn("agent WAIT / no tracing 1.000x (min-max 1.000-1.200", line)
        self.assertIn(": met (<= 1.05x)", line)

    def test_a_real_cost_is_not_met(self):
        none = [100, 104, 98, 101, 103]
        t = table({b.NONE: [run(x) for x in none], b.WAIT: [run(x * 1.08) for x in none]})
        line = target(t, "agent WAIT")
        self.assertIn("1.080x (min-max 1.080-1.080", line)
        self.assertIn("NOT met (<= 1.05x)", line)
        self.assertNotIn("straddles", line)

    def test_record_against_plain_ros2_tracing(self):
        ros2 = [200, 210, 190, 205, 195]
        rec = [x * 0.9 for x in ros2]
        rec[4] = ros2[4] * 1.2  # one repetition over the target
        res = {b.NONE: [run(100)] * 5, b.WAIT: [run(100)] * 5,
               b.ROS2: [run(x) for x in ros2], b.REC: [run(x) for x in rec]}
        line = target(table(res), "agent RECORD")
        self.assertIn("agent RECORD / plain ros2_tracing 0.900x (min-max 0.900-1.200", line)
        self.assertIn("met (<= 1.10x), but the spread straddles 1.10x", line)
        self.assertIn("the interquartile range does not straddle it", line)

    def test_straddle_of_the_interquartile_range(self):
        none = [100] * 5
        wait = [96, 98, 104, 106, 110]
        line = target(table({b.NONE: [run(x) for x in none], b.WAIT: [run(x) for x in wait]}),
                      "agent WAIT")
        self.assertIn("1.040x", line)
        self.assertIn("the interquartile range straddles it too", line)

    def test_cpu_ratio_is_paired_too(self):
        none = [run(100, 100), run(100, 100), run(100, 130)]
        wait = [run(100, 100), run(100, 130), run(100, 130)]
        line = target(table({b.NONE: none, b.WAIT: wait}, reps=3), "agent WAIT")
        self.assertIn("CPU 1.000x (min-max 1.000-1.300)", line)

    def test_memory_is_paired(self):
        none = [run(100, anon=6000), run(100, anon=7000), run(100, anon=6000)]
        wait = [run(100, anon=6700), run(100, anon=7700), run(100, anon=6600)]
        line = target(table({b.NONE: none, b.WAIT: wait}, reps=3), "the agent's own memory")
        self.assertIn("+700 KiB over no tracing (min-max +600-+700): met", line)


class Table(unittest.TestCase):
    def test_cells_show_the_spread(self):
        t = table({b.NONE: [run(x) for x in (7000, 6800, 7300)],
                   b.WAIT: [run(x) for x in (7000, 7140, 7300)]}, reps=3)
        self.assertIn("| no tracing | 7000 (6800-7300) | 1.000x |", t)
        self.assertIn("| caretd agent, WAIT | 7140 (7000-7300) | 1.000x (1.000-1.050) |", t)

    def test_a_b_b_a(self):
        rows = ["none", "wait", "ros2", "record"]
        self.assertEqual(b.rep_order(rows, 0), rows)
        self.assertEqual(b.rep_order(rows, 1), rows[::-1])
        self.assertEqual(b.rep_order(rows, 2), rows)


if __name__ == "__main__":
    unittest.main()
