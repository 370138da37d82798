#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""caretd's idle cost (issue 24): N light stand-in agents in WAIT and no
session; caretd's utime+stime (/proc/PID/stat) over --seconds, then the
time from `lttng start` of a session enabling ros2_caret events (started
with the lttng CLI, as anyone would) to every agent in PREPARE or RECORD.
Runs under tools/isolated.sh (re-executes itself there), as the tests do.

    python3 bench/idle.py [--procs 100] [--seconds 60]"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "integration"))
import harness as H  # noqa: E402  (re-executes under tools/isolated.sh)


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def thread_ticks(pid):
    """utime+stime per thread name (a DDS bridge adds CycloneDDS's)."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        fields = st.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0) + int(fields[11]) + int(fields[12])
    return out


def sched_ns(pid):
    """CPU ns of the live threads (schedstat: not rounded to clock ticks)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--caretd-arg", action="append", default=[],
                    help="an extra caretd option (e.g. --no-bridge)")
    a = ap.parse_args()
    c = H.Ctx("idle")
    try:
        d = c.caretd("--log-level", "info", *a.caretd_arg)
        procs = [c.spawn([H.STANDIN, "--name", "idle%d" % i, "--pubs", "0", "--subs", "0",
                          "--timers", "1", "--period-ms", "1000",
                          "--domain", str(10 + i % 80)], extra_env={"CARET_AGENT_QUIET": "1"})
                 for i in range(a.procs)]
        pids = [p.pid for p in procs]
        c.wait_states(pids, "WAIT", timeout=60 + a.procs)
        time.sleep(2)
        hz = os.sysconf("SC_CLK_TCK")
        c0, t0, th0, n0 = cpu_ticks(d.pid), time.monotonic(), thread_ticks(d.pid), \
            sched_ns(d.pid)
        time.sleep(a.seconds)
        dt = time.monotonic() - t0
        cpu = 100.0 * (cpu_ticks(d.pid) - c0) / hz / dt
        cpu_ns = 100.0 * (sched_ns(d.pid) - n0) / 1e9 / dt
        th1 = thread_ticks(d.pid)
        print("per thread (clock ticks of 1/%d s): %s" % (hz, ", ".join(
            "%s %d" % (k, th1[k] - th0.get(k, 0)) for k in sorted(th1))), flush=True)
        print("idle: caretd %.3f %% CPU over %.0f s with %d agents, no session (clock "
              "ticks: %.3f %%)" % (cpu_ns, a.seconds, a.procs, cpu), flush=True)
        lat = []
        for k in range(a.starts):
            s = c.session()
            time.sleep(1.0)
            t = H.mono_ns()
            s.start()
            ret = (H.mono_ns() - t) / 1e6
            done = None
            while H.mono_ns() - t < 10e9:
                st = {x["pid"]: x["state"] for x in c.agents().values()}
                if all(st.get(p) in ("PREPARE", "RECORD") for p in pids):
                    done = (H.mono_ns() - t) / 1e6
                    break
                time.sleep(0.005)
            lat.append(done)
            print("start %d: all %d agents left WAIT %.1f ms after `lttng start` began, "
                  "%.1f ms after it returned (it took %.1f ms)"
                  % (k, a.procs, done if done is not None else -1,
                     done - ret if done is not None else -1, ret), flush=True)
            s.destroy()
            c.wait_states(pids, "WAIT", timeout=30)
    finally:
        c.cleanup()


if __name__ == "__main__":
    main()
