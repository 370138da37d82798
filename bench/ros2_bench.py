#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 19's row on a real ROS 2 core: the cost per message of publish ->
callback (tests/ros2/apps caret_real_app --ping: each message published from
the callback of the last, through the RMW, no intra-process) and the memory
of the process, with no tracing, with caretd's agent in WAIT and in RECORD,
and with CARET's own tracer (libcaret.so) loaded without a session and while
recording. One table, every ratio against "no tracing" of the same run.

    bench/ros2_bench.py --distro jazzy [--n 20000] [--rmw rmw_cyclonedds_cpp]
        [--libcaret PATH] [--out bench/RESULTS-ros2.md]

The fixture comes from tools/ros2/fixture.sh; the app is built as
tests/ros2/run.sh builds it (tests/ros2/build-app.sh). `make bench-ros2`
runs it on its own host (tools/isolated.sh) with caret_trace beside."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ros2"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--distro", default="jazzy")
    ap.add_argument("--rmw", default="rmw_cyclonedds_cpp")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--libcaret", default=os.environ.get("CARET_LIBCARET", ""),
                    help="caret_trace's libcaret.so (tools/ros2/caret.sh DISTRO prints W; "
                    "W/install/lib/libcaret.so)")
    ap.add_argument("--b", default=os.environ.get("B", "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ros2.md"))
    a = ap.parse_args()
    os.environ["B"] = a.b
    prefix = subprocess.run([os.path.join(ROOT, "tools", "ros2", "fixture.sh"), a.distro],
                            capture_output=True, text=True, check=True).stdout.strip()
    os.environ.update(CARET_ROS2_DISTRO=a.distro, CARET_ROS2_PREFIX=prefix)
    bdir = os.path.join(ROOT, a.b, "ros2", a.distro)
    subprocess.run([os.path.join(ROOT, "tests", "ros2", "build-app.sh"), prefix, bdir], check=True)
    app = os.path.join(bdir, "caret_real_app")
    import harness
    c = harness.Ctx("ros2bench")
    c.caretd()
    base = dict(harness.ros_env(prefix))
    base.update(RMW_IMPLEMENTATION=a.rmw, ROS_DISTRO=a.distro, ROS_DOMAIN_ID=c.domain)

    def run(preload, session):
        s = None
        if session:
            s = c.session()
            s.start()
        env = dict(base)
        if preload:
            env["LD_PRELOAD"] = preload
        if preload == a.libcaret:
            # caret_trace links caret_msgs beside it, and is built with --coverage
            # as shipped: its .gcda files go to the test's own folder.
            env["LD_LIBRARY_PATH"] = os.path.dirname(preload) + ":" + env.get("LD_LIBRARY_PATH", "")
            env["GCOV_PREFIX"] = c.tmp
        p = c.spawn([app, "--ping", str(a.n), "--topic-prefix", "b%d" % len(c.procs)],
                    agent=False, extra_env=env)
        p.finish(600)
        m = re.search(r"ns_per_msg=(\d+) rss_kb=(\d+) threads=(\d+)", p.out_text())
        if s:
            s.stop()
            s.destroy()
        if not m:
            raise SystemExit("ros2_bench: no result: %s %s" % (p.out_text(), p.err_text()[-2000:]))
        return tuple(int(x) for x in m.groups())

    rows = [("no tracing", None, False), ("caretd agent, WAIT", harness.AGENT, False),
            ("caretd agent, RECORD", harness.AGENT, True)]
    if a.libcaret:
        rows += [("caret_trace, no session", a.libcaret, False),
                 ("caret_trace, recording", a.libcaret, True)]
    results = {}
    # Interleaved repetitions, so drift of a shared machine spreads over every row.
    for _ in range(a.reps):
        for name, pre, sess in rows:
            results.setdefault(name, []).append(run(pre, sess))
    c.cleanup()
    ref = statistics.median(r[0] for r in results["no tracing"])
    lines = ["| configuration | ns per message (median of %d) | ratio | RSS KiB | threads |" % a.reps,
             "|---|---|---|---|---|"]
    for name, _, _ in rows:
        ns = statistics.median(r[0] for r in results[name])
        rss = max(r[1] for r in results[name])
        thr = max(r[2] for r in results[name])
        lines.append("| %s | %.0f | %.2fx | %d | %d |" % (name, ns, ns / ref, rss, thr))
    head = ("# Real ROS 2 %s (%s): publish -> callback, %d messages per run, %s\n\n" %
            (a.distro, a.rmw, a.n, time.strftime("%Y-%m-%d %H:%M")))
    text = head + "\n".join(lines) + "\n"
    if not a.libcaret:
        text += "\ncaret_trace rows missing: no --libcaret given.\n"
    print(text)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
