# SPDX-License-Identifier: Apache-2.0
"""The disk bound over 50 rotations (issue 23, item 5): a rotating recording
with --keep and --max-size never holds more than its bound on disk at any
moment we look (one chunk more may appear between a rotation and its
pruning), the newest chunks are the ones kept, every kept chunk is complete,
and status counts every removal. About a minute: LTTng rotates at most once
a second."""
import json
import os
import time
import unittest

from harness import SystemTest, read_trace, wait_line
from rotation_base import check, chunks

ROTATIONS = int(os.environ.get("CARET_TEST_ROTATIONS", "50"))
KEEP = 10
# Below KEEP chunks' worth (RATE makes a chunk of this workload a few
# hundred KB): the size bound is the one that prunes, and --keep stays an
# upper bound. 1 MiB is the smallest --max-size.
MAX_SIZE = 1 << 20
RATE = os.environ.get("CARET_TEST_RATE", "400")


def du(paths):
    total = 0
    for p in paths:
        for d, _, files in os.walk(p):
            for f in files:
                try:
                    total += os.lstat(os.path.join(d, f)).st_size
                except FileNotFoundError:
                    pass  # pruned while we looked
    return total


class DiskBoundTest(SystemTest):
    def test_bound_holds_over_50_rotations(self):
        self.c.caretd()
        self.system(2, ("--rate", RATE))
        rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "long",
                              "--rotate-every", "1s", "--keep", str(KEEP), "--max-size",
                              str(MAX_SIZE), background=True)
        trace = os.path.join(self.traces, "long")
        wait_line(rec, r"processes recording", timeout=30)
        deadline = time.time() + ROTATIONS * 4 + 60
        most_listed = most_disk = 0
        seen = []
        while True:
            st = json.loads(self.c.caretctl("status", "--json").stdout)
            r = [x for x in st["rotations"] if x["session"] == "long"][0]
            most_listed = max(most_listed, len(r["chunks"]))
            on_disk = chunks(trace)
            most_disk = max(most_disk, len(on_disk))
            # the bytes of what is archived, less the newest chunk (not yet pruned for)
            self.assertLessEqual(du(on_disk[:-1]), MAX_SIZE, on_disk)
            seen += [c for c in on_disk if c not in seen]
            if r["rotations"] >= ROTATIONS:
                break
            self.assertLess(time.time(), deadline, r)
            time.sleep(0.2)
        self.assertLessEqual(most_listed, KEEP)
        self.assertLessEqual(most_disk, KEEP + 1)
        self.assertLess(most_listed, KEEP, "the size bound never pruned")
        self.assertGreaterEqual(r["removed"], ROTATIONS - KEEP - 1)
        out = self.c.caretctl("stop", "-s", "long", "--json").stdout
        rec.finish(60)
        # its schedules went before the stop (rotation's quiesce): no rotation
        # could start between the stop's wait and LTTng's stop
        d = [q for q in self.c.procs if q.args[0].endswith("caretd")][0]
        self.assertTrue([l for l in d.errs if "session long: rotation schedules removed before "
                         "the stop" in l], d.errs[-20:])
        left = chunks(trace)
        self.assertLessEqual(du(left[:-1]), MAX_SIZE, left)
        # the newest are the ones kept
        ix = sorted({int(p.rsplit("-", 1)[1]) for p in seen + left})
        self.assertEqual([int(p.rsplit("-", 1)[1]) for p in left], ix[-len(left):])
        self.assertGreaterEqual(ix[-1], ROTATIONS - 1)
        if os.environ.get("CARET_TEST_SIZES"):
            print(r["chunks"], [du([c]) for c in left])
        for c in left:  # the last too: the stop waits for its replay
            if c == left[-1] and not read_trace(c):
                continue  # a periodic rotation raced the stop: a chunk with no event
            code, res, _ = check(c)
            # on failure: what check found and caretd's word on each chunk
            self.assertEqual(code, 0, "%s: %s\n%s\n%s" % (
                c, json.dumps(res)[-3000:] if res else "", out[-3000:] if out else "",
                "".join(l for l in d.errs if "chunk" in l or "rotation" in l)[-6000:]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
