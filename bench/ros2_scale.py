#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 34 item 5's row: a real ROS 2 system of a given size (the generated
system of tests/ros2/apps/caret_scale_app.cpp: PROCS processes x NODES nodes,
NODES pipelines across every process, a publisher, a subscription and a timer
per node at RATE Hz) recorded late, on the Jazzy fixture.

    bench/ros2_scale.py --libcaret PATH [--sizes 16x8,50x8]
        [--rmw rmw_cyclonedds_cpp,rmw_fastrtps_cpp]
        [--rate 10] [--record-s 10] [--out bench/RESULTS-ros2-scale.md]

`make bench-ros2-scale` runs it on its own host (tools/isolated.sh) with
caret_trace beside. For each size and RMW, each tracer in a system of its own:
  - none (no tracing): the processes' CPU and memory, and a plain LTTng
    session of ros2:* and ros2_caret:* (vpid, vtid, procname) made with the
    lttng CLI (create, enable-event, add-context, start: each timed) with the
    processes running and no preload;
  - agent: the same plain session with caretd's agent preloaded and no
    caretd (its provider registered in every process, nothing replayed);
  - record: caretd's agent, caretd, and `caretctl record --immediate
    --duration RECORD_S` on a system no session has seen yet: request ->
    every process in RECORD (caretd's `list`, polled), of which caretd's
    answer (LTTng started) -> every process in RECORD, what caretctl printed
    meanwhile, its exit, and the scale gate's verdict (ros2_scale_gate.py);
  - caret_trace (libcaret.so) at recording_frequency 100 and 10,000: what
    `ros2 caret record` does: the session started, then caret_msgs/Start
    (bench/ros2_scale/caret_start.cpp) -> every trace node says RECORD.
Each recording: discarded events (babeltrace2), `caretctl check`, and
caret_analyze (tests/ros2/caret_scale_oracle.py): every node, each
pipeline's path and its complete rows; the processes' CPU seconds over the
recording and their summed VmRSS at its end (caretd's beside, for the
agent)."""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHM_MAX = 32  # processes: Fast DDS with shared memory came up at 16 x 8, hung at 50 x 8
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ros2"))
sys.path.insert(0, HERE)


def lttng_timed(*args, timeout=600):
    t = time.monotonic()
    r = subprocess.run(["lttng"] + list(args), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("lttng %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
    return time.monotonic() - t


def plain_session(name, path):
    """A session as ros2_tracing / `ros2 caret record` make it, each step
    timed: {step: s}; left started."""
    t = {"create": lttng_timed("create", name, "--output=" + path)}
    t["enable ros2:*"] = lttng_timed("enable-event", "--userspace", "--session=" + name, "ros2:*")
    t["enable ros2_caret:*"] = lttng_timed("enable-event", "--userspace", "--session=" + name,
                                           "ros2_caret:*")
    t["add-context"] = lttng_timed("add-context", "--userspace", "--session=" + name,
                                   "-t", "vpid", "-t", "vtid", "-t", "procname")
    t["start"] = lttng_timed("start", name)
    return t


def end_session(name):
    t = lttng_timed("stop", name)
    subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=600)
    return t


class Bench:
    def __init__(self, a, prefix, app, caret, starter):
        self.a, self.prefix, self.app, self.caret, self.starter = a, prefix, app, caret, starter

    def system(self, c, procs, nodes, tracer, rmw):
        import scale_system
        from harness import dds_domain
        sysm = scale_system.ScaleSystem(c, self.app, self.prefix, "jazzy", rmw,
                                        dds_domain(int(c.domain) + 11), procs, nodes,
                                        self.a.rate, tracer, fastdds_shm=self.shm(procs))
        t = time.monotonic()
        sysm.wait_ready(timeout=600)
        ready = time.monotonic() - t
        time.sleep(self.a.settle)
        return sysm, ready

    def shm(self, procs):
        """Whether Fast DDS keeps its shared memory transport (scale_system.FASTDDS_UDP_ONLY
        says why not past SHM_MAX processes)."""
        return {"on": True, "off": False}.get(self.a.fastdds_shm, procs <= SHM_MAX)

    def judge(self, row, path, procs, nodes):
        import scale_system
        from harness import CARETCTL
        from trace_model import discarded
        row["discarded"] = discarded(path)
        ck = subprocess.run([CARETCTL, "check", path], capture_output=True, text=True,
                            timeout=1800)
        row["check"] = ck.returncode
        if ck.returncode:
            row["check_why"] = (ck.stdout + ck.stderr).strip().splitlines()[-4:]
        t = time.monotonic()
        o = scale_system.oracle(self.caret, path, procs, nodes, timeout=3600)
        row["analyze_s"] = time.monotonic() - t
        if "error" in o:
            row["analyze"] = "error: " + o["error"].strip().splitlines()[-1][:200]
            return
        want = scale_system.want_nodes(procs, nodes)
        row["nodes"] = "%d/%d" % (len(set(o["nodes"]) & set(want)), len(want))
        gone = sorted(set(want) - set(o["nodes"]))
        if gone:  # which processes: a whole process missing is not a node missing
            row["missing"] = sorted({n.split("_")[0] for n in gone}, key=lambda x: int(x[2:]))
            row["missing_nodes"] = len(gone)
        full = [k for k, v in o["paths"].items() if len(v) == 1 and len(v[0]["nodes"]) == procs]
        row["paths"] = "%d/%d" % (len(full), nodes)
        row["path_rows"] = min((v[0]["complete"] for v in o["paths"].values()), default=0)
        row["comms"] = "%d/%d with rows" % (o["comms_with_rows"], o["comms"])

    def run(self, procs, nodes, mode, rmw):
        """One tracer at one size on one RMW: a row (dict)."""
        import scale_system
        from harness import Ctx
        c = Ctx("scale-%s-%d" % (mode.replace(" ", ""), procs))
        row = {"size": "%dx%d" % (procs, nodes), "rmw": rmw, "mode": mode}
        if "fastrtps" in rmw and not self.shm(procs):
            row["transport"] = "UDPv4"
        try:
            tracer = {"none": None, "agent": "agent", "record": "agent"}.get(
                mode, self.a.libcaret)
            sysm, row["ready_s"] = self.system(c, procs, nodes, tracer, rmw)
            path = os.path.join(c.tmp, "trace")
            lt0 = scale_system.lttng_usage()
            if mode in ("none", "agent"):
                cpu0 = time.monotonic(), sysm.usage()[0]
                row["session"] = plain_session(c.tag, path)
                time.sleep(self.a.record_s)
                row["session"]["stop"] = end_session(c.tag)
                row["cpu_s"] = sysm.usage()[0] - cpu0[1]
                row["rss_mib"] = sysm.usage()[1] / 1024
                row["span_s"] = time.monotonic() - cpu0[0]
            elif mode == "record":
                self.record(c, sysm, row)
            else:
                self.caret_record(c, sysm, row, path, int(mode.split("f=")[1]))
            lt1 = scale_system.lttng_usage()
            if lt0 and lt1:
                row["lttng_cpu_s"], row["lttng_rss_mib"] = lt1[0] - lt0[0], lt1[1] / 1024
            outs = sysm.stop()
            row["stop_s"], row["killed"] = sysm.stop_s, sysm.killed
            got = [v for v in outs.values() if v]
            # Whether the pipelines carried messages at all (a path with no rows may be the
            # system's, not the tracer's): processes that took any, published and taken summed.
            row["traffic"] = (sum(1 for v in got if v[1] > 0), sum(v[0] for v in got),
                              sum(v[1] for v in got))
            if mode not in ("none", "agent"):
                trace = row.pop("trace", path)
                self.judge(row, trace, procs, nodes)
                if "missing" in row or "analyze" in row:
                    self.keep(c, sysm, row, trace, outs)
            if mode == "record" and row.get("after_answer_s") is not None:
                import ros2_scale_gate
                row["gate"] = ros2_scale_gate.gate(dict(row, procs=procs))
        except Exception as e:  # a row that failed says why; the others still run
            row["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
        finally:
            c.cleanup()
        print(json.dumps(row), flush=True)
        return row

    def keep(self, c, sysm, row, trace, outs):
        """An incomplete trace kept for a look afterwards (--keep): the trace, the
        folder's caret.log files and each process's pid, published/taken and output."""
        if not self.a.keep:
            return
        dest = os.path.join(self.a.keep, c.tag)
        shutil.copytree(trace, os.path.join(dest, "trace"))
        for root, _, files in os.walk(c.tmp):
            for f in files:
                if f == "caret.log" and not root.startswith(trace):
                    shutil.copy(os.path.join(root, f), os.path.join(
                        dest, root[len(c.tmp):].strip("/").replace("/", "_") + "caret.log"))
        with open(os.path.join(dest, "procs.txt"), "w") as f:
            for i, p in enumerate(sysm.procs):
                f.write("p%d pid %d %s\n%s\n" % (i, p.pid, outs.get(p.pid), p.out_text()[-3000:]))
        row["kept"] = dest

    def record(self, c, sysm, row):
        import scale_system
        from harness import CARETCTL
        d = c.caretd()
        c.wait_states(sysm.pids(), "WAIT", timeout=300)
        traces = os.path.join(c.tmp, "traces")
        cpu0 = sysm.usage()[0]
        d0 = scale_system.proc_stat(d.pid)[0]
        t0 = time.monotonic()
        rec = subprocess.Popen([CARETCTL, "--socket", c.sock, "record", "--immediate", "-p",
                                traces, "-s", "scale", "--duration", str(self.a.record_s)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=c.env(agent=False))
        out, answered = [], []

        def read():
            for line in rec.stdout:
                out.append(line)
                if line.startswith("recording to "):
                    answered.append(time.monotonic())
        reader = threading.Thread(target=read)
        reader.start()
        try:
            c.wait_states(sysm.pids(), "RECORD", timeout=1200)
        except AssertionError:
            raise RuntimeError(self.not_recording(c, d, sysm, rec, reader, out, t0)) from None
        t1 = time.monotonic()
        row["to_record_s"] = t1 - t0
        rss = sysm.usage()[1]
        rc = rec.wait(1800)
        reader.join()
        row["total_s"] = time.monotonic() - t0
        row["cpu_s"] = sysm.usage()[0] - cpu0
        row["rss_mib"] = rss / 1024
        st = scale_system.proc_stat(d.pid)
        row["caretd_cpu_s"], row["caretd_rss_mib"] = st[0] - d0, st[1] / 1024
        row["caretctl_rc"] = rc
        row["after_answer_s"] = max(0.0, t1 - answered[0]) if answered else None
        # What caretctl showed while caretd waited (progress lines), and its last lines.
        text = "".join(out)
        waits = re.findall(r"LTTng is starting[^.\r\n]*", text)
        row["caretctl_waiting"] = "%d progress lines%s" % (
            len(waits), (": first '%s', last '%s'" % (waits[0], waits[-1])) if waits else "")
        row["caretctl_tail"] = text.strip().splitlines()[-3:]
        row["trace"] = os.path.join(traces, "scale")
        if self.a.keep:  # caretd's log: each process's tracepoints on and pass, to the ms
            dest = os.path.join(self.a.keep, c.tag)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, "caretd.log"), "w") as f:
                f.write("".join(d.errs))
            row["caretd_log"] = os.path.join(dest, "caretd.log")

    def not_recording(self, c, d, sysm, rec, reader, out, t0):
        """Why the wait for every process in RECORD failed, in a line: the
        states caretd lists now, caretctl's end and last lines; caretd's
        log kept under --keep (the row's error is cut at 300 characters)."""
        ag = c.agents()
        states = collections.Counter(ag[p]["state"] if p in ag else "unlisted"
                                     for p in sysm.pids())
        try:
            rc = rec.wait(60)
        except subprocess.TimeoutExpired:
            rec.terminate()
            rc = rec.wait(30)
        reader.join(30)
        kept = ""
        if self.a.keep:
            dest = os.path.join(self.a.keep, c.tag)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, "caretd.log"), "w") as f:
                f.write("".join(d.errs))
            with open(os.path.join(dest, "caretctl.txt"), "w") as f:
                f.write("".join(out))
            kept = "; caretd's log in " + dest
        return "after %.1f s: %s; caretctl exit %s, last: %s%s" % (
            time.monotonic() - t0, dict(states), rc,
            " / ".join(x.strip() for x in out[-2:]), kept)

    def starter_env(self, sysm):
        env = dict(os.environ)
        env.update(sysm.ros_env)
        env["LD_LIBRARY_PATH"] = os.path.join(self.caret, "install", "lib") + ":" + \
            env.get("LD_LIBRARY_PATH", "")
        env.pop("LD_PRELOAD", None)
        return env

    def caret_record(self, c, sysm, row, path, freq):
        cpu0 = sysm.usage()[0]
        t0 = time.monotonic()
        row["session"] = plain_session(c.tag, path)
        r = subprocess.run([self.starter, str(len(sysm.procs)), str(freq), "1200"],
                           capture_output=True, text=True, timeout=1800,
                           env=self.starter_env(sysm))
        row["caret_start"] = r.stdout.strip().splitlines()
        m = re.search(r"record \d+ after ([\d.]+) s", r.stdout)
        row["to_record_s"] = time.monotonic() - t0 if m else None
        row["after_start_msg_s"] = float(m.group(1)) if m else None
        rss = sysm.usage()[1]
        time.sleep(self.a.record_s)
        row["session"]["stop"] = end_session(c.tag)
        row["total_s"] = time.monotonic() - t0
        row["cpu_s"] = sysm.usage()[0] - cpu0
        row["rss_mib"] = rss / 1024


def rmw_name(r):
    return r.get("rmw", "").replace("rmw_", "").replace("_cpp", "") + (
        " (%s only)" % r["transport"] if "transport" in r else "")


def fmt(v, f="%.1f"):
    return "-" if v is None else (f % v if isinstance(v, float) else str(v))


def table(rows):
    lines = ["| size | RMW | tracer | start-up s | request -> all RECORD s | request -> recording ended s "
             "| discarded | check | caret_analyze nodes | paths (min complete rows) "
             "| CPU s (processes) / over s | RSS MiB (processes) | caretd CPU s / RSS MiB "
             "| LTTng daemons CPU s / RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append("| %s | %s | %s | %s |" % (r["size"], rmw_name(r), r["mode"], r["error"]))
            continue
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["size"], rmw_name(r), r["mode"], fmt(r.get("ready_s")), fmt(r.get("to_record_s"), "%.2f"),
            fmt(r.get("total_s")), fmt(r.get("discarded")),
            {0: "ok", None: "-"}.get(r.get("check"), "exit %s" % r.get("check")),
            r.get("nodes", r.get("analyze", "-")),
            "%s (%s)" % (r["paths"], r["path_rows"]) if "paths" in r else "-",
            "%s / %s" % (fmt(r.get("cpu_s")), fmt(r.get("total_s", r.get("span_s")))),
            fmt(r.get("rss_mib")),
            "%s / %s" % (fmt(r.get("caretd_cpu_s")), fmt(r.get("caretd_rss_mib")))
            if "caretd_cpu_s" in r else "-",
            "%s / %s" % (fmt(r.get("lttng_cpu_s")), fmt(r.get("lttng_rss_mib")))
            if "lttng_cpu_s" in r else "-"))
    lines += ["", "Plain LTTng session (lttng CLI: create, enable-event ros2:* and ros2_caret:*, "
              "add-context, start; stop), seconds, with the processes running:", "",
              "| size | RMW | processes | create | enable ros2:* | enable ros2_caret:* "
              "| add-context | start | stop |", "|---|---|---|---|---|---|---|---|---|"]
    names = {"none": "no preload", "agent": "caretd's agent (WAIT, no caretd)",
             "record": "caretd's agent, caretd's own session (caretctl record)",
             "caret_trace f=100": "caret_trace (f=100 row)",
             "caret_trace f=10000": "caret_trace (f=10000 row)"}
    for r in rows:
        s = r.get("session")
        if s:
            lines.append("| %s | %s | %s | %s |" % (r["size"], rmw_name(r),
                                                   names.get(r["mode"], r["mode"]), " | ".join(
                fmt(s.get(k), "%.2f") for k in ("create", "enable ros2:*", "enable ros2_caret:*",
                                                 "add-context", "start", "stop"))))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="16x8,50x8")
    ap.add_argument("--rmw", default="rmw_cyclonedds_cpp,rmw_fastrtps_cpp")
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--record-s", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after ready")
    # The recordings first: a run at saturation cut short (tens of minutes at 50 x 8) keeps them.
    ap.add_argument("--modes", default="record,caret_trace f=100,caret_trace f=10000,none,agent")
    ap.add_argument("--libcaret", default=os.environ.get("CARET_LIBCARET", ""))
    ap.add_argument("--b", default=os.environ.get("B", "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ros2-scale.md"))
    ap.add_argument("--fastdds-shm", choices=("auto", "on", "off"), default="auto",
                    help="Fast DDS's shared memory transport (auto: off past %d processes)" % SHM_MAX)
    ap.add_argument("--keep", default="", help="folder for incomplete traces (kept to look into)")
    a = ap.parse_args()
    os.environ["B"] = a.b
    prefix = subprocess.run([os.path.join(ROOT, "tools", "ros2", "fixture.sh"), "jazzy"],
                            capture_output=True, text=True, check=True).stdout.strip()
    caret = os.path.dirname(os.path.dirname(os.path.dirname(a.libcaret))) if a.libcaret else ""
    bdir = os.path.join(ROOT, a.b, "ros2", "jazzy")
    subprocess.run([os.path.join(ROOT, "tests", "ros2", "build-app.sh"), prefix, bdir], check=True)
    sdir = os.path.join(ROOT, a.b, "ros2", "scale-bench-jazzy")
    subprocess.run(["bash", "-c", 'set -e; source "$1/setup.bash"; source "$2/install/local_setup.bash"; '
                    'cmake -S "$3" -B "$4" -DCMAKE_BUILD_TYPE=RelWithDebInfo '
                    '-DPython3_EXECUTABLE=/usr/bin/python3 >"$4.cmake.log" 2>&1 && '
                    'cmake --build "$4" -j2 >>"$4.cmake.log" 2>&1', "_", prefix, caret,
                    os.path.join(HERE, "ros2_scale"), sdir], check=True)
    b = Bench(a, prefix, os.path.join(bdir, "caret_scale_app"), caret,
              os.path.join(sdir, "caret_start"))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    rows, loads = [], []
    for size in a.sizes.split(","):
        procs, nodes = (int(x) for x in size.split("x"))
        for rmw in a.rmw.split(","):
            for mode in a.modes.split(","):
                loads.append(os.getloadavg()[0])
                rows.append(b.run(procs, nodes, mode, rmw))
                write(a, commit, loads, rows, final=False)
    print(write(a, commit, loads, rows, final=True))


def write(a, commit, loads, rows, final):
    """The results so far to a.out (a long run interrupted keeps its rows)."""
    head = ("# A real ROS 2 system recorded late: Jazzy, %s, %g Hz, %g s recorded%s\n\n"
            "Commit %s, %s UTC; load average (1 min) before each row: %s; `nproc` %d.\n"
            "`bench/ros2_scale.py` (`make bench-ros2-scale`); each row a system of its own.\n\n"
            % (a.rmw.replace(",", " and "), a.rate, a.record_s, "" if final else " (run in progress)", commit,
               time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
               ", ".join("%.0f" % x for x in loads), os.cpu_count()))
    text = head + table(rows) + "\n"
    extra = ["", "What caretctl printed while caretd waited, and its last lines:", ""]
    for r in rows:
        if r.get("mode") == "record":
            extra.append("- %s %s: exit %s; %s; last: %s" % (
                r["size"], rmw_name(r), r.get("caretctl_rc"), r.get("caretctl_waiting"),
                r.get("caretctl_tail")))
            if "gate" in r:
                extra.append("- %s %s: scale gate %s: %s" % (
                    r["size"], rmw_name(r), "ok" if r["gate"][0] else "FAILED", r["gate"][1]))
        if "caret_start" in r:
            extra.append("- %s %s %s: caret_start: %s" % (r["size"], rmw_name(r), r["mode"],
                                                          r["caret_start"]))
        if "traffic" in r:
            extra.append("- %s %s %s: %d processes took messages; published %d, taken %d "
                         "(whole run); ended in %.0f s, %d killed" % (
                             r["size"], rmw_name(r), r["mode"], r["traffic"][0], r["traffic"][1],
                             r["traffic"][2], r.get("stop_s", 0), r.get("killed", 0)))
        if "missing" in r:
            extra.append("- %s %s %s: %d nodes missing, of processes %s%s" % (
                r["size"], rmw_name(r), r["mode"], r["missing_nodes"], ", ".join(r["missing"]),
                " (trace kept in %s)" % r["kept"] if "kept" in r else ""))
        if "check_why" in r:
            extra.append("- %s %s %s: caretctl check exit %s: %s" % (
                r["size"], rmw_name(r), r["mode"], r["check"], r["check_why"]))
    text += "\n".join(extra) + "\n"
    with open(a.out, "w") as f:
        f.write(text)
    return text


if __name__ == "__main__":
    main()
