#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The agent's share of LTTng's session start (issue 34 item 5): the plain
session of bench/ros2_scale.py (lttng create, enable-event ros2:* and
ros2_caret:*, add-context, start) on the generated system of PROCS x NODES,
with no preload (A) and with caretd's agent preloaded and no caretd (B),
interleaved A B A B ... so that the load of the shared machine falls on both
alike. Each run a system of its own, started, settled, its session timed,
then stopped.

    bench/ros2_scale_ab.py [--sizes 30x8,50x8] [--pairs 3] [--rmw rmw_cyclonedds_cpp]
        [--out bench/RESULTS-ros2-scale-ab.md]

Run on its own host (tools/isolated.sh; `make bench-ros2-scale` runs it after
the rows). Prints one JSON line per run and writes a table: each run's
`lttng start` seconds and the 1-minute load before it, then per size the
median of each side, the median of the pairs' ratios B / A and (B - A) / PROCS
seconds per process."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ros2"))
sys.path.insert(0, HERE)
from ros2_scale import end_session, plain_session  # noqa: E402

SIDES = (("A", None, "no preload"), ("B", "agent", "caretd's agent (WAIT, no caretd)"))


def one(a, prefix, app, procs, nodes, side, tracer):
    """One system, one plain session: a run (dict)."""
    import scale_system
    from harness import Ctx, dds_domain
    c = Ctx("ab-%s-%d" % (side, procs))
    run = {"size": "%dx%d" % (procs, nodes), "side": side, "load": os.getloadavg()[0]}
    try:
        sysm = scale_system.ScaleSystem(c, app, prefix, "jazzy", a.rmw,
                                        dds_domain(int(c.domain) + 11), procs, nodes, a.rate,
                                        tracer)
        try:
            sysm.wait_ready(timeout=600)
            time.sleep(a.settle)
            run["load_at_start"] = os.getloadavg()[0]
            run["session"] = plain_session(c.tag, os.path.join(c.tmp, "trace"))
            run["start_s"] = run["session"]["start"]
            time.sleep(1.0)
            run["session"]["stop"] = end_session(c.tag)
        finally:
            sysm.stop()
    except Exception as e:  # a run that failed says why; the others still run
        run["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    finally:
        c.cleanup()
    print(json.dumps(run), flush=True)
    return run


def summary(runs, procs_of):
    """Per size: (median A, median B, median of the pairs' B / A, (B - A) / PROCS s)."""
    out = {}
    for size in dict.fromkeys(r["size"] for r in runs):
        a = [r.get("start_s") for r in runs if r["size"] == size and r["side"] == "A"]
        b = [r.get("start_s") for r in runs if r["size"] == size and r["side"] == "B"]
        pairs = [(x, y) for x, y in zip(a, b) if x and y]
        if not pairs:
            continue
        ma, mb = statistics.median(x for x, _ in pairs), statistics.median(y for _, y in pairs)
        out[size] = (ma, mb, statistics.median(y / x for x, y in pairs),
                     statistics.median((y - x) for x, y in pairs) / procs_of(size))
    return out


def write(a, commit, runs, final):
    procs_of = lambda s: int(s.split("x")[0])  # noqa: E731
    lines = ["# The agent's share of LTTng's session start%s" % ("" if final else
                                                              " (run in progress)"), "",
             "Commit %s, %s UTC, Jazzy, %s, %g Hz; `nproc` %d. `bench/ros2_scale_ab.py`: "
             "a plain session (lttng create, enable-event ros2:* and ros2_caret:*, add-context, "
             "start) on the generated system, A = no preload, B = caretd's agent preloaded "
             "(WAIT, no caretd), interleaved A B A B; each run a system of its own." %
             (commit, time.strftime("%Y-%m-%d %H:%M", time.gmtime()), a.rmw, a.rate,
              os.cpu_count()), "",
             "| size | run | side | 1-min load before / at start | create | enable ros2:* "
             "| enable ros2_caret:* | add-context | start | stop |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for i, r in enumerate(runs):
        s = r.get("session", {})
        cells = " | ".join("%.2f" % s[k] if k in s else "-" for k in
                           ("create", "enable ros2:*", "enable ros2_caret:*", "add-context",
                            "start", "stop"))
        lines.append("| %s | %d | %s | %.1f / %s | %s |" % (
            r["size"], i + 1, r["side"], r["load"],
            "%.1f" % r["load_at_start"] if "load_at_start" in r else "-",
            r["error"] if "error" in r else cells))
    lines += ["", "| size | median start A s | median start B s | median B / A "
              "| (B - A) per process s |", "|---|---|---|---|---|"]
    for size, (ma, mb, ratio, per) in summary(runs, procs_of).items():
        lines.append("| %s | %.2f | %.2f | %.2fx | %+.3f |" % (size, ma, mb, ratio, per))
    text = "\n".join(lines) + "\n"
    with open(a.out, "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="30x8,50x8")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--rmw", default="rmw_cyclonedds_cpp")
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after ready")
    ap.add_argument("--b", default=os.environ.get("B", "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ros2-scale-ab.md"))
    a = ap.parse_args()
    os.environ["B"] = a.b
    prefix = subprocess.run([os.path.join(ROOT, "tools", "ros2", "fixture.sh"), "jazzy"],
                            capture_output=True, text=True, check=True).stdout.strip()
    bdir = os.path.join(ROOT, a.b, "ros2", "jazzy")
    subprocess.run([os.path.join(ROOT, "tests", "ros2", "build-app.sh"), prefix, bdir], check=True)
    app = os.path.join(bdir, "caret_scale_app")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    runs = []
    for size in a.sizes.split(","):
        procs, nodes = (int(x) for x in size.split("x"))
        for _ in range(a.pairs):
            for side, tracer, _name in SIDES:
                runs.append(one(a, prefix, app, procs, nodes, side, tracer))
                write(a, commit, runs, final=False)
    print(write(a, commit, runs, final=True))


if __name__ == "__main__":
    main()
