#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/replay_split.py: P6's split read from caretd's log lines, in the
format with A and B to 0.01 ms and in the older whole-ms one (run by make
bench-smoke)."""
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay_split  # noqa: E402

# Enter at 12:00:00.000 local time today
ENTER = time.mktime(time.localtime()[:3] + (12, 0, 0, 0, 0, -1))
NEW = ("12:00:00.010 caretd info: pid 5 (standin) recording: 100 records replayed in "
       "8.25 ms, tracepoints on after 3.10 ms\n")
OLD = ("12:00:00.020 caretd info: pid 6 (standin) recording: 100 records replayed in "
       "12 ms, tracepoints on after 4 ms\n")
NOISE = "12:00:00.015 caretd info: pid 7 (standin): Start, replaying 100 cached records\n"


class Parse(unittest.TestCase):
    def test_new_format_to_the_hundredth_ms(self):
        (on, done), = replay_split.parse([NEW], ENTER).values()
        # T cut to the ms: read at its middle, 10.5 ms; began 10.5 - 8.25
        self.assertAlmostEqual(done, 0.0105, places=6)
        self.assertAlmostEqual(on, 0.0105 - 0.00825 + 0.00310, places=6)

    def test_old_format_still_read(self):
        (on, done), = replay_split.parse([OLD], ENTER).values()
        self.assertAlmostEqual(done, 0.0205, places=6)
        self.assertAlmostEqual(on, 0.0205 - 0.012 + 0.004, places=6)

    def test_other_lines_ignored(self):
        self.assertEqual(sorted(replay_split.parse([NEW, NOISE, OLD], ENTER)), [5, 6])


class Split(unittest.TestCase):
    def split(self, lines, total_s, offset=0):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write("".join(lines))
            f.flush()
            return replay_split.split(f.name, offset, ENTER, total_s)

    def test_last_tracepoints_on_and_the_end_seen(self):
        sp = self.split([NEW, NOISE, OLD], 0.025)
        self.assertEqual(sp["agents"], 2)
        self.assertAlmostEqual(sp["tp_on_s"], 0.0125, places=6)     # pid 6's
        self.assertAlmostEqual(sp["tp_first_s"], 0.00535, places=6)  # pid 5's
        self.assertAlmostEqual(sp["replay_proper_s"], 0.025 - 0.0125, places=6)
        # the bench's end 4.5 ms after caretd saw the last pass done
        self.assertAlmostEqual(sp["seen_after_s"], 0.0045, places=6)

    def test_never_past_the_bench_s_own_end(self):
        sp = self.split([NEW], 0.010)  # the log's half ms past it
        self.assertAlmostEqual(sp["seen_after_s"], 0.0, places=6)
        self.assertGreaterEqual(sp["replay_proper_s"], 0.0)

    def test_only_past_the_offset(self):
        self.assertIsNone(self.split([NEW], 0.02, offset=len(NEW)))


class EnablingReason(unittest.TestCase):
    """P6's and P6b's measured reason: LTTng's enabling grows past the
    target by itself (seen: N=1,000 / N=100 0.085 -> 1.271 s, 15.0x,
    against 14.0x)."""
    LO = {"tp_on_s": 0.085}
    HI = {"tp_on_s": 1.271}

    def test_out_of_reach_when_the_enabling_alone_grows_past_the_target(self):
        why = replay_split.enabling_reason(self.LO, self.HI, 0.100, 1.510, 14.0)
        self.assertIn("out of reach here: Enter -> every agent's tracepoints on", why)
        self.assertIn("0.085 -> 1.271 s (14.95x) of Enter -> RECORD 0.100 -> 1.510 s", why)

    def test_numbers_without_the_excuse_when_the_enabling_is_within(self):
        why = replay_split.enabling_reason(self.LO, {"tp_on_s": 0.5}, 0.100, 1.510, 14.0)
        self.assertTrue(why.startswith("; Enter -> every agent's"), why)
        self.assertNotIn("out of reach", why)

    def test_nothing_when_met_or_unknown(self):
        self.assertEqual(replay_split.enabling_reason(self.LO, self.HI, 0.100, 1.300, 14.0), "")
        self.assertEqual(replay_split.enabling_reason(None, self.HI, 0.100, 1.510, 14.0), "")


if __name__ == "__main__":
    unittest.main()
