#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issues 19 and 34's rows on a real ROS 2 core: the cost per message of publish ->
callback (tests/ros2/apps caret_real_app --ping: each message published from the callback of
the last, through the RMW, no intra-process) and the memory of the process, with no tracing,
with caretd's agent in WAIT and in RECORD, with plain ros2_tracing (tracetools' own ros2:*
events, no agent: the floor a user compares with), and with CARET's own tracer (libcaret.so)
loaded without a session and while recording. One table per distribution and RMW, every ratio
from the same run.

    bench/ros2_bench.py --distro jazzy,humble --rmw rmw_cyclonedds_cpp,rmw_fastrtps_cpp
        [--n 20000] [--reps 5] [--rows none,wait,ros2,record,caret] [--caret]
        [--start-procs 10,20 [--start-reps 3] [--settle 3]
        [--agent-before OLD/libcaret-agent.so --agent-before-name NAME]] [--no-ping]
        [--out bench/RESULTS-ros2.md]

Every recording row records into the session layout of caretd's own recording (its channel's
sub-buffers, per-UID buffers, discard mode, contexts: `caretctl record -l --json` of the
caretd this bench starts), only the events differ: ros2:* for plain ros2_tracing, caretd's
list (ros*, agnocast*) for the agent and caret_trace.

--start-procs N,...: the agent's share of LTTng's session start (issue 34): N real rclcpp
processes (caret_real_app, a talker and a listener at 10 Hz each) registered, a session in
caretd's layout enabling ros2:* and ros2_caret:* made, then `lttng start`: the events each
process has registered (what the session daemon sets up in each, one process after the
other), the start's wall time, and the CPU of LTTng's daemons and of the processes until
--settle seconds later, with caretd stopped (nothing replayed), without the agent, with it and
with --agent-before (an earlier build); then, caretd running, `lttng start` -> every process
in RECORD for each agent.

The fixture comes from tools/ros2/fixture.sh; the app is built as tests/ros2/run.sh builds it
(tests/ros2/build-app.sh); --caret takes caret_trace from tools/ros2/caret.sh. `make
bench-ros2` runs it on its own host (tools/isolated.sh)."""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ros2"))
import harness  # noqa: E402

# Issue 34's targets: agent WAIT against no tracing, agent RECORD against plain ros2_tracing,
# the agent's memory per process against no tracing.
WAIT_MAX, RECORD_MAX, RSS_MAX_KIB = 1.05, 1.10, 1024

NONE, WAIT = "no tracing", "caretd agent, WAIT"
ROS2, REC = "plain ros2_tracing (ros2:*, no agent)", "caretd agent, RECORD"
ROW_KEYS = {"none": NONE, "wait": WAIT, "ros2": ROS2, "record": REC, "caret": "caret"}

RESULT = re.compile(r"ns_per_msg=(\d+) rss_kb=(\d+) threads=(\d+) cpu_ns_per_msg=(\d+) "
                    r"rss_anon_kb=(-?\d+) rss_file_kb=(-?\d+) rss_shmem_kb=(-?\d+)")


NOTES = """
## How to read these tables

Each message is published from the callback of the previous one through the RMW (no
intra-process), so a row is the whole publish -> take -> callback path of one process; the
repetitions of the rows are interleaved (every other one in reverse order), so a shared
machine's drift spreads over all of them. Each value is the median over the repetitions, with
their min-max beside it; each ratio is the median of paired ratios (a repetition's run against
the reference's run of the same repetition, seconds apart, so drift between repetitions
cancels), with their min-max. A target's verdict comes from the paired median; when the
paired min-max straddles the target, the run alone cannot tell (a single run's wall clock
can lose 10 % or more to another process on these 2 cores, its CPU time much less).
ns/msg is the wall clock over the measured messages, CPU ns/msg the process's CPU time (every
thread, the tracer's own included) over the same messages: on 2 cores shared with other builds
and tests the wall clock swings by tens of percent from one run to the next, the CPU time much
less, so both are shown. RECORD and "recording" include LTTng writing every event of the
session. Plain ros2_tracing records every tracetools event; the agent records the ones CARET's
analysis reads (the executor's internal events and the init events' ros2: variants are not
forwarded: caret-agent(7)), hence fewer bytes per message and a RECORD row that can be cheaper
than the floor. RssAnon is the memory the process itself allocated (VmRSS less the mapped
files and the session's ring buffers, RssShmem, which any tracer's recording maps).

The session start table: the session daemon sets up, process after process, every enabled
event of every registered process (one round trip with the process each); "ros2 + ros2_caret
events per process" is what `lttng list -u` shows registered in each before the start. The
agent now registers its provider when a recording first needs it (agent/provider.h): at the
start the processes have only tracetools' events, and each registers the provider's at its
first replay pass, in parallel, after the session daemon's start.
"""


def lttng(*args, timeout=600):
    r = subprocess.run(["lttng"] + list(args), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("lttng %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
    return r.stdout


def caretd_layout(c):
    """The channel and contexts of caretd's own recording, from its plan."""
    r = c.caretctl("record", "-l", "--json")
    ch = [x for x in json.loads(r.stdout)["plan"]["channels"] if x["domain"] == "ust"][0]
    assert (ch["buffers"], ch["mode"], ch["output"]) == ("per-uid", "discard", "mmap"), ch
    return ch, ch["contexts"], [e["name"] for e in ch["events"]]


class Session:
    """A session in caretd's layout (one per-UID channel, discard mode, mmap) with `events`."""
    count = 0

    def __init__(self, tmp, layout, events):
        chan, ctx, _ = layout
        Session.count += 1
        self.name = "ros2bench-%d" % Session.count
        self.path = os.path.join(tmp, self.name)
        lttng("create", self.name, "--output=" + self.path)
        lttng("enable-channel", "--userspace", "--session=" + self.name, "--buffers-uid",
              "--discard", "--output=mmap", "--subbuf-size=%d" % chan["subbuf_size"],
              "--num-subbuf=%d" % chan["subbuf_count"], chan["name"])
        for ev in events:
            lttng("enable-event", "--userspace", "--session=" + self.name,
                  "--channel=" + chan["name"], ev)
        lttng("add-context", "--userspace", "--session=" + self.name,
              "--channel=" + chan["name"], *sum((["-t", x] for x in ctx), []))

    def start(self):
        t0 = time.monotonic()
        lttng("start", self.name)
        return time.monotonic() - t0

    def end(self):
        """Stops and destroys it: (the discarded events of its channel, the trace's bytes)."""
        lttng("stop", self.name)
        out = lttng("list", self.name)
        m = re.search(r"Discarded events: (\d+)", out)
        subprocess.run(["lttng", "destroy", self.name], capture_output=True, timeout=600)
        size = 0
        for d, _, files in os.walk(self.path):
            size += sum(os.path.getsize(os.path.join(d, f)) for f in files)
        shutil.rmtree(self.path, ignore_errors=True)
        return int(m.group(1)) if m else -1, size


def git_describe():
    r = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty", "--abbrev=12"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def prepare(distro):
    prefix = subprocess.run([os.path.join(ROOT, "tools", "ros2", "fixture.sh"), distro],
                            capture_output=True, text=True, check=True).stdout.strip()
    bdir = os.path.join(ROOT, "build", "ros2", distro)
    subprocess.run([os.path.join(ROOT, "tests", "ros2", "build-app.sh"), prefix, bdir],
                   check=True)
    return prefix, os.path.join(bdir, "caret_real_app")


def libcaret(distro):
    w = subprocess.run([os.path.join(ROOT, "tools", "ros2", "caret.sh"), distro],
                       capture_output=True, text=True)
    if w.returncode != 0:
        print("ros2_bench: no caret_trace for %s: %s" % (distro, w.stderr[-500:]))
        return ""
    return os.path.join(w.stdout.strip(), "install", "lib", "libcaret.so")


def ping_table(c, a, distro, rmw, layout, caret):
    prefix, app = prepare(distro)
    base = dict(harness.ros_env(prefix))
    base.update(RMW_IMPLEMENTATION=rmw, ROS_DISTRO=distro, ROS_DOMAIN_ID=c.domain)
    ros2_only = ["ros2:*"]
    _, _, caret_events = layout
    # (the app's 200 warm-up messages are in the trace too: bytes/msg divides by n + 200)

    def run(preload, events):
        s = Session(c.tmp, layout, events) if events else None
        if s:
            s.start()
        env = dict(base)
        if preload:
            env["LD_PRELOAD"] = preload
        if preload and preload == caret:
            # caret_trace links caret_msgs beside it, and is built with --coverage
            # as shipped: its .gcda files go to the test's own folder.
            env["LD_LIBRARY_PATH"] = os.path.dirname(preload) + ":" + env.get("LD_LIBRARY_PATH", "")
            env["GCOV_PREFIX"] = c.tmp
        p = c.spawn([app, "--ping", str(a.n), "--topic-prefix", "b%d" % len(c.procs)],
                    agent=False, extra_env=env)
        p.finish(600)
        discarded, size = s.end() if s else (0, 0)
        m = RESULT.search(p.out_text())
        if not m:
            raise SystemExit("ros2_bench: no result: %s %s" % (p.out_text(), p.err_text()[-2000:]))
        return tuple(int(x) for x in m.groups()) + (discarded, size)

    rows = [(NONE, None, None), (WAIT, harness.AGENT, None), (ROS2, None, ros2_only),
            (REC, harness.AGENT, caret_events)]
    if caret:
        rows += [("caret_trace, no session", caret, None),
                 ("caret_trace, recording", caret, caret_events)]
    keep = [ROW_KEYS[k] for k in a.rows.split(",")]
    rows = [r for r in rows if r[0] in keep or (r[1] == caret and "caret" in keep)]
    results = {}
    # Interleaved repetitions, so drift of a shared machine spreads over every row; every other
    # repetition in reverse order (A B B A), so a row's place in the sequence (what ran just
    # before it) and a linear drift cancel in its paired ratios.
    for rep in range(a.reps):
        for name, pre, evs in rep_order(rows, rep):
            t0 = time.monotonic()
            results.setdefault(name, []).append(run(pre, evs))
            r = results[name][-1]
            print("ros2_bench: %s %s rep %d %s: %d ns/msg, CPU %d ns/msg, RssAnon %d KiB "
                  "(%.1f s)" % (distro, rmw, rep, name, r[0], r[3], r[4],
                                time.monotonic() - t0), flush=True)
    return format_ping(a, distro, rmw, caret, rows, results)


def rep_order(rows, rep):
    """The order of the rows in repetition `rep`: A B B A."""
    return rows if rep % 2 == 0 else rows[::-1]


def spread(xs):
    """(median, min, max, first quartile, third quartile) of xs."""
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return statistics.median(xs), min(xs), max(xs), q[0], q[2]


def paired(results, name, ref, i):
    """Each repetition's value of column i in row `name` over the same repetition's in row
    `ref`: the runs of one repetition are seconds apart, so the machine's drift between
    repetitions cancels."""
    return [x[i] / y[i] for x, y in zip(results[name], results[ref])]


def target_line(what, wall, cpu, limit):
    """A target's verdict from the median of the paired wall-clock ratios, with their spread;
    says when the spread over the repetitions straddles the limit (this run cannot tell)."""
    w, c = spread(wall), spread(cpu)
    straddle = ""
    if w[1] <= limit < w[2]:
        straddle = ", but the spread straddles %.2fx: not settled by this run (%s)" % (
            limit, "the interquartile range straddles it too" if w[3] <= limit < w[4] else
            "the interquartile range does not straddle it")
    return ("%s %.3fx (min-max %.3f-%.3f, IQR %.3f-%.3f), CPU %.3fx (min-max %.3f-%.3f): "
            "%s (<= %.2fx)%s" % (what, w[0], w[1], w[2], w[3], w[4], c[0], c[1], c[2],
                                "met" if w[0] <= limit else "NOT met", limit, straddle))


def format_ping(a, distro, rmw, caret, rows, results):
    """The table of one distribution and RMW: each row's medians with their min-max over the
    repetitions, and its ratios as medians of paired ratios (with their min-max)."""
    def med(name, i):
        return statistics.median(r[i] for r in results[name])

    def cell(xs, fmt, unit=""):
        m, lo, hi, _, _ = spread(xs)
        return (fmt + unit + " (" + fmt + "-" + fmt + ")") % (m, lo, hi)

    def ratio(name, ref, i):
        if ref not in results:
            return ""
        return "1.000x" if name == ref else cell(paired(results, name, ref, i), "%.3f", "x")

    ref_anon = med(NONE, 4) if NONE in results else 0
    lines = ["| configuration | ns/msg (min-max) | vs none | vs ros2_tracing "
             "| CPU ns/msg (min-max) | vs none | vs ros2_tracing | RSS KiB "
             "| RssAnon KiB (vs none) | RssShmem KiB | threads | discarded | trace bytes/msg |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, _, evs in rows:
        res = results[name]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %d | %d (%+d) | %d | %d | %d | %s |" % (
            name, cell([r[0] for r in res], "%.0f"), ratio(name, NONE, 0),
            ratio(name, ROS2, 0) if evs else "", cell([r[3] for r in res], "%.0f"),
            ratio(name, NONE, 3), ratio(name, ROS2, 3) if evs else "", med(name, 1),
            med(name, 4), med(name, 4) - ref_anon, med(name, 6), max(r[2] for r in res),
            sum(r[7] for r in res), "%.0f" % (med(name, 8) / (a.n + 200)) if evs else ""))
    targets = []
    if NONE in results and WAIT in results:
        targets.append(target_line("agent WAIT / no tracing", paired(results, WAIT, NONE, 0),
                                   paired(results, WAIT, NONE, 3), WAIT_MAX))
    if ROS2 in results and REC in results:
        targets.append(target_line("agent RECORD / plain ros2_tracing",
                                   paired(results, REC, ROS2, 0), paired(results, REC, ROS2, 3),
                                   RECORD_MAX))
    agent = [n for n in (WAIT, REC) if n in results]
    if NONE in results and agent:
        # the larger of WAIT and RECORD in each repetition, over that repetition's no tracing
        d = spread([max(results[n][i][4] for n in agent) - results[NONE][i][4]
                    for i in range(len(results[NONE]))])
        targets.append("the agent's own memory (RssAnon, the larger of WAIT and RECORD) %+d KiB "
                       "over no tracing (min-max %+d-%+d): %s (<= +%d KiB)" % (
                           d[0], d[1], d[2], "met" if d[0] <= RSS_MAX_KIB else "NOT met",
                           RSS_MAX_KIB))
    lines += ["", "Targets (issue 34), medians of the paired ratios over %d repetitions:" % a.reps,
              ""] + ["- %s." % t for t in targets]
    head = "## %s, %s: publish -> callback, %d messages per run, median of %d" % (
        distro, rmw, a.n, a.reps)
    if not caret:
        lines.append("\ncaret_trace rows missing: no caret_trace for %s (--caret)." % distro)
    return head + "\n\n" + "\n".join(lines) + "\n"


def cpu_ms(pids):
    """utime + stime of these processes (every thread), ms."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total * 1000.0 / tick


def lttng_daemons():
    """The session daemon of this host and its consumer daemons."""
    sd = harness.own_sessiond()
    pids = [sd]
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
            except OSError:
                continue
            if "(lttng-consumerd)" in st and int(st.rsplit(")", 1)[1].split()[1]) == sd:
                pids.append(int(d))
    return pids


def registered_events(pids):
    """(ros2, ros2_caret) tracepoints per process that `lttng list -u` shows for these processes:
    what a session enabling both has the session daemon set up in each, at its start."""
    out, per, cur = lttng("list", "-u"), {}, None
    for line in out.splitlines():
        m = re.match(r"\s*PID: (\d+) - ", line)
        if m:
            cur = int(m.group(1))
            continue
        m = re.match(r"\s*(ros2|ros2_caret):\S+ ", line)
        if m and cur in pids:
            k = per.setdefault(cur, [0, 0])
            k[m.group(1) == "ros2_caret"] += 1
    got = list(per.values()) or [[0, 0]]
    return (statistics.mean(x[0] for x in got), statistics.mean(x[1] for x in got))


def until_record(c, pids, t0, timeout=300):
    """Seconds from t0 (monotonic) until caretd lists every one of pids in RECORD."""
    while True:
        ag = c.agents()
        if all(p in ag and ag[p]["state"] == "RECORD" for p in pids):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise RuntimeError("not all in RECORD after %d s: %r" % (timeout, ag))
        time.sleep(0.02)


def start_cost(c, app, env, n, layout, settle, record=False):
    """N processes registered, a session in caretd's layout enabling ros2:* and ros2_caret:*
    made, then started: (lttng start s, LTTng's daemons' CPU ms, the processes' CPU ms above
    their idle rate), from `lttng start` until `settle` s after it returned (lttng-ust enables
    the events in each process after start returns)."""
    procs = [c.spawn([app, "--rate", "10", "--topic-prefix", "s%d" % i], agent=False,
                     extra_env=env) for i in range(n)]
    try:
        for p in procs:
            harness.wait_line(p, r"ready pid=", timeout=120)
        time.sleep(2)  # lttng-ust's registration with the session daemon
        listed = registered_events(apps := [p.pid for p in procs])
        s = Session(c.tmp, layout, ["ros2:*", "ros2_caret:*"])
        daemons = lttng_daemons()
        t0, a0 = time.monotonic(), cpu_ms(apps)
        time.sleep(settle)
        idle = (cpu_ms(apps) - a0) / (time.monotonic() - t0)
        d0, a0, t0 = cpu_ms(daemons), cpu_ms(apps), time.monotonic()
        t_start = time.monotonic()
        wall = s.start()
        if record:  # caretd runs: until its passes moved every process to RECORD
            result = until_record(c, apps, t_start)
        else:
            time.sleep(settle)
            d1, a1, t1 = cpu_ms(daemons), cpu_ms(apps), time.monotonic()
            result = wall, d1 - d0, max(0.0, a1 - a0 - idle * (t1 - t0)), listed
        s.end()
    finally:
        for p in procs:
            harness.stop_proc(p, 10)
        c.procs = [p for p in c.procs if p not in procs]
    return result


def start_table(c, a, layout, caretd):
    """The agent's share of LTTng's session start with N real rclcpp processes registered.
    caretd is stopped (SIGSTOP) meanwhile: no replay pass starts, only LTTng's own work is
    measured (the agent's provider's events are enabled in every process)."""
    distro, rmw = a.distro.split(",")[0], a.rmw.split(",")[0]
    prefix, app = prepare(distro)
    base = dict(harness.ros_env(prefix))
    base.update(RMW_IMPLEMENTATION=rmw, ROS_DISTRO=distro, ROS_DOMAIN_ID=c.domain,
                # CycloneDDS gives a host 10 participants of a domain by default
                CYCLONEDDS_URI="<CycloneDDS><Domain><Discovery><MaxAutoParticipantIndex>%d"
                "</MaxAutoParticipantIndex></Discovery></Domain></CycloneDDS>" %
                (max(int(x) for x in a.start_procs.split(",")) + 10))
    lines = ["| processes | configuration | ros2 + ros2_caret events per process | lttng start s "
             "| LTTng daemons CPU ms | processes' CPU ms | CPU per process ms | agent's share per "
             "process ms |", "|---|---|---|---|---|---|---|---|"]
    configs = [("no agent", None), ("caretd agent", harness.AGENT)]
    if a.agent_before:
        configs.append(("caretd agent before (%s)" % a.agent_before_name, a.agent_before))
    caretd.send_signal(signal.SIGSTOP)
    try:
        for n in [int(x) for x in a.start_procs.split(",")]:
            got = {}
            # interleaved repetitions: the machine's drift spreads over both
            for _ in range(a.start_reps):
                for name, pre in configs:
                    env = dict(base)
                    if pre:
                        env["LD_PRELOAD"] = pre
                    got.setdefault(name, []).append(start_cost(c, app, env, n, layout, a.settle))
            ref = None
            for name, _ in configs:
                wall, dcpu, acpu = (statistics.median(r[i] for r in got[name]) for i in range(3))
                ros2, caret = got[name][-1][3]
                per = statistics.median((r[1] + r[2]) / n for r in got[name])
                share = "" if ref is None else "%+.1f" % (per - ref)
                ref = per if ref is None else ref
                lines.append("| %d | %s | %.0f + %.0f | %.3f | %.0f | %.0f | %.1f | %s |" % (
                    n, name, ros2, caret, wall, dcpu, acpu, per, share))
    finally:
        caretd.send_signal(signal.SIGCONT)
    # The whole late start with caretd running: the provider, no longer registered by the
    # session start, is registered by each process at its first replay pass.
    lines += ["", "With caretd running: `lttng start` -> every process in RECORD (caretd's replay "
              "pass in each, the provider registered by then), median of %d:" % a.start_reps, "",
              "| processes | configuration | start -> all RECORD s (each run) |", "|---|---|---|"]
    for n in [int(x) for x in a.start_procs.split(",")]:
        got = {}
        for _ in range(a.start_reps):
            for name, pre in configs[1:]:
                env = dict(base, LD_PRELOAD=pre)
                got.setdefault(name, []).append(start_cost(c, app, env, n, layout, a.settle,
                                                           record=True))
        for name, _ in configs[1:]:
            lines.append("| %d | %s | %.2f (%s) |" % (n, name, statistics.median(got[name]),
                                                     ", ".join("%.2f" % x for x in got[name])))
    return ("## LTTng's session start with N real rclcpp processes (%s, %s)\n\n"
            "caret_real_app, a talker and a listener at 10 Hz per process; `lttng start` of a "
            "session in caretd's layout enabling ros2:* and ros2_caret:*; CPU from the start "
            "until %g s after it returned (the processes' above their idle rate).\n\n" %
            (distro, rmw, a.settle) + "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--distro", default="jazzy", help="comma-separated")
    ap.add_argument("--rmw", default="rmw_cyclonedds_cpp", help="comma-separated")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rows", default=",".join(ROW_KEYS),
                    help="comma-separated rows of the ping table: " + ",".join(ROW_KEYS))
    ap.add_argument("--caret", action="store_true",
                    help="add caret_trace's rows (tools/ros2/caret.sh DISTRO)")
    ap.add_argument("--start-procs", default="",
                    help="comma-separated process counts of the session start table")
    ap.add_argument("--settle", type=float, default=3.0,
                    help="seconds after lttng start counted in the session start's CPU")
    ap.add_argument("--start-reps", type=int, default=3)
    ap.add_argument("--agent-before", default="",
                    help="another libcaret-agent.so (e.g. an earlier commit's, its providers "
                    "beside it) as a third row of the session start table")
    ap.add_argument("--agent-before-name", default="earlier build")
    ap.add_argument("--no-ping", action="store_true", help="only the session start table")
    ap.add_argument("--b", default=os.environ.get("B", "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ros2.md"))
    a = ap.parse_args()
    os.environ["B"] = a.b
    c = harness.Ctx("ros2bench")
    caretd = c.caretd()
    layout = caretd_layout(c)
    load0, when = load(), time.strftime("%Y-%m-%d %H:%M")
    parts = []
    try:
        if not a.no_ping:
            for distro in a.distro.split(","):
                caret = libcaret(distro) if a.caret else ""
                for rmw in a.rmw.split(","):
                    parts.append(ping_table(c, a, distro, rmw, layout, caret))
                    print(parts[-1], flush=True)
        if a.start_procs:
            parts.append(start_table(c, a, layout, caretd))
            print(parts[-1], flush=True)
    finally:
        c.cleanup()
    chan, ctx, evs = layout
    text = ("# Real ROS 2 against its floor (`make bench-ros2`), commit %s, %s\n\n"
            "Load average %s at the start, %s at the end (2 shared cores). Every recording row "
            "records into caretd's own layout: channel `%s`, %d x %d KiB sub-buffers per CPU, "
            "per-UID buffers, discard mode, contexts %s; events ros2:* for plain ros2_tracing, "
            "%s for the agent and caret_trace.\n\n" % (
                git_describe(), when, load0, load(), chan["name"], chan["subbuf_count"],
                chan["subbuf_size"] // 1024, ", ".join(ctx), ", ".join(evs)))
    text += "\n".join(parts) + NOTES
    print(text)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
