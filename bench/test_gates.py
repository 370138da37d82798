#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/gates.py: the smoke run passes with the numbers of a loaded
machine and fails on a regression of each row (run by make bench-smoke)."""
import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gates  # noqa: E402

# numbers of smoke runs on the 2-core machine under other sessions' builds
GOOD = {
    "P1": dict(instr_hook=17.3, instr_direct=19.0, ratio=1.28),
    "P2": dict(instr_record=78.0, ratio=1.4, discarded=0, counted=True),
    "P3": dict(instructions=199.0),
    "P4": dict(total=0.12, discarded=0, all=True),
    "P4b": dict(faster=16.0, discarded=0),
    "P4c": dict(ratio=1.9, all=True),
    "P5": dict(density=1.22, rss_mib=10.5, cpu_pct=1.0, seen_ms=20.0),
    "P6": dict(ratio=12.0, nratio=8.0, worst=1.7, discarded=0, all=True,
               proper_s=[0.004, 0.012], drain_each_s=[0.001, 0.008]),
    "P6b": dict(ratio=12.0, nratio=8.0, vs_limit=1.7, enter_s=0.3, drain_s=0.063,
                discarded=0, all=True),
    "P7": dict(ratios=[1.24, 1.79, 1.13], over_s=[0.01, 0.03, 0.005], discarded=0, all=True),
    "P8": dict(rate=8e6),
    "P9": dict(p99_us=0.9),
    "P10": dict(ratio=1.3),
    "P11": dict(ratio=20.0, took_s=0.008, slowest_s=0.008, pass_s=0.008, drain_s=0.0004,
                share=0.26, discarded=0, incomplete=0, chunks=6, checked=6, rotations=3,
                all=True, blind=0),
    "P12": dict(ratio=13.5, took_s=0.014, pass_s=0.010, drain_s=0.001, discarded=0,
                complete=True, snapshots=2),
    "P13": dict(instr_watched=231.0, ratio=1.2),
}

# one regression per row, each a change of kind, not noise
BAD = {
    "P1": dict(instr_hook=25.0),            # a call or an atomic RMW in WAIT
    "P2": dict(instr_record=260.0),         # the RECORD path over budget
    "P3": dict(instructions=270.0),         # the cache write as it was
    "P4": dict(discarded=5),
    "P4b": dict(faster=3.0),                # a per-record sleep
    "P4c": dict(ratio=6.0),
    "P5": dict(rss_mib=20.0),
    "P6": dict(ratio=20.0),
    "P6b": dict(enter_s=2.07, ratio=148.0),  # measured: the stalled pacing at N = 48
    "P7": dict(ratios=[1.2, 9.0, 1.1]),
    "P8": dict(rate=1e6),
    "P9": dict(p99_us=60.0),
    "P10": dict(ratio=3.5),
    "P11": dict(pass_s=0.6),                # a pass waiting for a timeout
    "P12": dict(pass_s=0.5, took_s=0.5),    # a pass waiting for a timeout
    "P13": dict(instr_watched=600.0),       # a walk of the slot table per event
}


def row(id_, num):
    return {"id": id_, "measured": True, "num": num}


class Gates(unittest.TestCase):
    def test_every_row_has_a_gate(self):
        self.assertEqual(set(gates.GATES), set(GOOD))
        self.assertEqual(set(GOOD), set(BAD))

    def test_loaded_machine_passes(self):
        for id_, num in GOOD.items():
            ok, text = gates.gate(row(id_, num))
            self.assertTrue(ok, "%s: %s" % (id_, text))

    def test_regression_fails(self):
        for id_, change in BAD.items():
            num = copy.deepcopy(GOOD[id_])
            num.update(change)
            ok, text = gates.gate(row(id_, num))
            self.assertFalse(ok, "%s passed a regression: %s" % (id_, text))

    def test_each_p6b_condition_alone_fails(self):
        for change in (dict(enter_s=0.7), dict(ratio=17.0), dict(vs_limit=3.5),
                       dict(discarded=1), dict(all=False)):
            num = dict(GOOD["P6b"], **change)
            self.assertFalse(gates.gate(row("P6b", num))[0], change)

    def test_each_p6_condition_alone_fails(self):
        # 0.2 s: a replay proper of 3.6 MB stalled on a timeout; None: no
        # split read from caretd's log
        for change in (dict(ratio=17.0), dict(worst=3.5), dict(discarded=1), dict(all=False),
                       dict(proper_s=[0.004, 0.2]), dict(proper_s=[None, 0.012]),
                       dict(proper_s=[])):
            num = dict(GOOD["P6"], **change)
            self.assertFalse(gates.gate(row("P6", num))[0], change)

    def test_each_p7_condition_alone_fails(self):
        # 3.5x: one condition (64 KiB sub-buffers) twice slower than the
        # 1.5x target allows, which the 4x gate of the 2x target passed
        for change in (dict(ratios=[3.5, 1.2, 1.1]), dict(ratios=[1.2, 3.5, 1.1]),
                       dict(ratios=[1.2, 1.1, 3.5], over_s=[0.01, 0.03, 0.4]),
                       dict(ratios=[1.2, 1.1, 3.5], over_s=[]),
                       dict(ratios=[3.5, 1.1, 1.2], over_s=[0.1, 0.03, 0.005]),
                       dict(ratios=[1.2, 1.1]), dict(discarded=1), dict(all=False)):
            num = dict(GOOD["P7"], **change)
            self.assertFalse(gates.gate(row("P7", num))[0], change)

    def test_p7_slow_consumer_start_across_a_quota_period_passes(self):
        # measured in smoke runs: (c) 5.32x / 5.93x its limit with 0-11 ms of
        # replay, its session start crossing one more 100 ms quota period
        num = dict(GOOD["P7"], ratios=[1.2, 1.1, 5.93], over_s=[0.01, 0.03, 0.17])
        self.assertTrue(gates.gate(row("P7", num))[0])

    def test_each_p5_condition_alone_fails(self):
        # seen_ms 1000: the session found by the idle read of the list
        # alone (the agents' hint lost); -1: never seen
        for change in (dict(seen_ms=1000.0), dict(seen_ms=-1.0), dict(cpu_pct=5.0),
                       dict(density=1.6), dict(rss_mib=13.0)):
            num = dict(GOOD["P5"], **change)
            self.assertFalse(gates.gate(row("P5", num))[0], change)

    def test_each_p11_condition_alone_fails(self):
        # slowest_s 0.5: a pass that waits for LTTng's archive (issue 34)
        for change in (dict(pass_s=0.3), dict(slowest_s=0.5), dict(discarded=1),
                       dict(incomplete=1), dict(checked=5), dict(all=False),
                       dict(rotations=2), dict(chunks=3), dict(blind=1)):
            num = dict(GOOD["P11"], **change)
            self.assertFalse(gates.gate(row("P11", num))[0], change)

    def test_each_p12_condition_alone_fails(self):
        for change in (dict(pass_s=0.3), dict(took_s=1.1), dict(discarded=1),
                       dict(complete=False), dict(snapshots=1)):
            num = dict(GOOD["P12"], **change)
            self.assertFalse(gates.gate(row("P12", num))[0], change)

    def test_missing_numbers_fail(self):
        for id_ in GOOD:
            self.assertFalse(gates.gate(row(id_, {}))[0], id_)
            self.assertFalse(gates.gate({"id": id_, "measured": False,
                                         "num": GOOD[id_]})[0], id_)


if __name__ == "__main__":
    unittest.main()
