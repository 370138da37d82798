#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/ros2_scale_gate.py: the scale row passes with the numbers of a
loaded machine and fails on each regression it is there for (run by make
ros2-check before the real-ROS suite)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ros2_scale_gate  # noqa: E402

# test_scale's 6 x 4 here: load 300-460 beside, and beside a saturating 50-process system
GOOD = [dict(procs=6, to_record_s=0.29, after_answer_s=0.05, discarded=0),
        dict(procs=6, to_record_s=30.4, after_answer_s=0.05, discarded=0)]


class GateTest(unittest.TestCase):
    def test_loaded_machine_passes(self):
        for n in GOOD:
            ok, text = ros2_scale_gate.gate(n)
            self.assertTrue(ok, text)

    def test_regressions_fail(self):
        bad = [dict(after_answer_s=1.02),  # a 1 s sleep in the replay thread's acknowledgement
               dict(discarded=1),
               dict(to_record_s=ros2_scale_gate.TOTAL_S + 1)]
        for change in bad:
            with self.subTest(change=change):
                ok, text = ros2_scale_gate.gate(dict(GOOD[0], **change))
                self.assertFalse(ok, text)


if __name__ == "__main__":
    unittest.main()
