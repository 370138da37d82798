#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Two caretd binaries against each other on one replay (bench/NOTES.md,
"P7 (b): the tick while the window holds the replay"): one fleet of stand-ins
(bench/run.py's Fleet, agents from --a's build), caretd's binary swapped
A B B A A B ... between replays, so that the machine's load falls on both
alike and only caretd differs. Each replay is run.py's replay_run into a
channel of --subbuf bytes per sub-buffer (64 KiB: P7 (b)); prints each and the
sorted replay proper (Enter's split, bench/replay_split.py) of each side.

    tools/isolated.sh bench/ab_replay.py --a DIR --b DIR [--reps 3] [--procs 100]
        [--records 2000] [--subbuf 65536]

DIR is a build directory (bin/caretd, bin/caret-standin, lib/, bench/): copy a
build's bin/caretd aside with symlinks to the rest to keep a binary."""
import argparse
import os
import sys
import tempfile
import time
import types

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as R  # noqa: E402


def order(reps):
    out = []
    for i in range(reps):
        out += ["A", "B"] if i % 2 == 0 else ["B", "A"]
    return out


def back_in_wait(d, procs, timeout=30):
    deadline = time.time() + timeout
    while True:
        ag = d.call({"cmd": "list"})["agents"]
        if len(ag) == procs and all(a["state"] == "WAIT" for a in ag):
            return
        if time.time() > deadline:
            raise RuntimeError("%d agents listed, not all %d in WAIT" % (len(ag), procs))
        time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--procs", type=int, default=100)
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--subbuf", type=int, default=65536,
                    help="bytes per sub-buffer (0: caretd's default channel)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ab-replay-")
    f = R.Fleet(types.SimpleNamespace(b=a.a, flood=2.0), tmp, a.procs, a.records)
    proper = {"A": [], "B": []}
    try:
        for k, side in enumerate(order(a.reps)):
            f.d.close()
            f.d = R.Caretd(a.a if side == "A" else a.b, tmp, f.prefix,
                           os.environ.get("BENCH_CARETD_ARGS", "").split())
            back_in_wait(f.d, a.procs)
            r = R.replay_run(f.d, tmp, "ab%d" % k, a.procs, subbuf=a.subbuf or None)
            p = r["split"]["replay_proper_s"] if r["split"] else float("nan")
            proper[side].append(p)
            print("%s: Enter -> all in RECORD %.3f s (start %.3f, replay %.3f, proper %.3f), "
                  "discarded %s, %.1f MB" % (side, r["total"], r["start"], r["replay"], p,
                                            r["discarded"], r["bytes"] / 1e6), flush=True)
    finally:
        f.close()
    for side in "AB":
        print("%s replay proper: %s s" % (side, " / ".join("%.3f" % x for x in
                                                          sorted(proper[side]))))


if __name__ == "__main__":
    main()
