#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""make bench: the measured cost of the agent and the speed of replay, side
by side with their references, in one run. Prints one table row per target
(P1 ... P12) and writes the table with the machine description to a results
file. Run as root with a session daemon (make bench does both).

Over 600 lines (1,249): every row's runner beside the harness they share
(Caretd, the Fleet of stand-ins, measured_point, the consumer quota). The
split to make is along the rows (rotation, scaling, reader and check) over
a common module; it is not done: `make bench` runs the full rows, which
bench-smoke in make check does not all cover."""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (gates.py, tools/)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from consumer_quota import ConsumerQuota, QuotaUnavailable  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gates  # noqa: E402
import replay_split  # noqa: E402
import sessiond  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    lt = subprocess.run(["lttng", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "lttng": lt or "unknown"}


class Caretd:
    """A caretd of the bench's own, spoken to over its socket."""

    def __init__(self, b, tmp, prefix, args=()):
        self.sock = os.path.join(tmp, "caretd.sock")
        env = dict(os.environ, CARET_SHM_PREFIX=prefix)
        self.log = open(os.path.join(tmp, "caretd.log"), "w")
        self.p = subprocess.Popen([os.path.join(b, "bin", "caretd"), "--socket", self.sock,
                                   *args], env=env, stderr=self.log)
        deadline = time.time() + 10
        while not os.path.exists(self.sock):
            if time.time() > deadline or self.p.poll() is not None:
                raise RuntimeError("caretd did not start")
            time.sleep(0.02)

    def call(self, req, timeout=300):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        s.connect(self.sock)
        s.sendall((json.dumps(dict(req, v=1)) + "\n").encode())
        f = s.makefile()
        while True:
            line = f.readline()
            if not line:
                raise RuntimeError("caretd closed the connection")
            m = json.loads(line)
            if m["type"] in ("result", "error"):
                s.close()
                if m["type"] == "error":
                    raise RuntimeError("caretd: " + m["error"])
                return m

    def rss_kib(self, field="VmRSS"):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    # libddsc and what it alone pulls in (Debian's CycloneDDS 0.10 links
    # OpenSSL and iceoryx); libstdc++ is left out: ICU, under lttng-ctl's
    # libxml2, maps it without the bridge too
    BRIDGE_LIBS = ("libddsc.", "libcrypto.", "libssl.", "libiceoryx", "libacl.")

    def mem_split(self):
        """Where caretd's RSS is, in KiB: rss, pss, private (pages no other
        process maps), the bridge's libraries' pages (libddsc, OpenSSL,
        iceoryx), and every other shared library's."""
        out = dict(rss=0, pss=0, private=0, bridge_libs=0, other_libs=0)
        name = ""
        with open("/proc/%d/smaps" % self.p.pid) as f:
            for line in f:
                head = line.split(None, 5)
                if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                    name = head[5].strip() if len(head) > 5 else ""
                    continue
                if line.startswith("Rss:"):
                    kb = int(head[1])
                    out["rss"] += kb
                    base = os.path.basename(name)
                    if any(base.startswith(x) for x in self.BRIDGE_LIBS):
                        out["bridge_libs"] += kb
                    elif ".so" in base:
                        out["other_libs"] += kb
                elif line.startswith("Pss:"):
                    out["pss"] += int(head[1])
                elif line.startswith(("Private_Clean:", "Private_Dirty:")):
                    out["private"] += int(head[1])
        return out

    def cpu_ns(self):
        """CPU time of caretd's live threads in ns (schedstat: not rounded
        to clock ticks, which are 0.017 % of a 60 s window each)."""
        total = 0
        for tid in os.listdir("/proc/%d/task" % self.p.pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (self.p.pid, tid)) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # a thread that just ended
        return total

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def close(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
        self.log.close()
        keep = os.environ.get("BENCH_KEEP_LOGS")
        if keep:
            shutil.copy(self.log.name, os.path.join(keep, "caretd-%d.log" % self.p.pid))


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for fn in files:
            total += os.path.getsize(os.path.join(d, fn))
    return total


def replay_run(d, tmp, name, n, pacing=None, freq=None, subbuf=None, arm=False, nsub=None):
    """caretctl-equivalent: record, wait for all in RECORD, stop. Returns a
    dict: total (request -> all in RECORD), start (the record request:
    session created and started), replay (the rest), discarded (None when
    LTTng could not tell), bytes of the trace, caretd CPU seconds over the
    run and its RSS at the end."""
    req = {"cmd": "record", "session": name, "path": os.path.join(tmp, "traces")}
    if pacing:
        req["pacing"] = pacing
    if freq:
        req["recording_frequency"] = freq
    if subbuf:
        req["subbuf_size"] = subbuf
    if nsub:
        req["subbuf_count"] = nsub
    hz = os.sysconf("SC_CLK_TCK")
    c0 = d.cpu_ticks()
    t_arm = 0.0
    if arm:
        # what `caretctl record` does: arm the recording (the session
        # start) before it asks for Enter; the user's request is Enter
        ta = time.monotonic()
        a = d.call(dict(req, arm=True))
        t_arm = time.monotonic() - ta
        time.sleep(0.5)  # the user reads "press Enter"
        req = {"cmd": "record", "go": a["session"]}
    logpos = os.path.getsize(d.log.name)
    t0w = time.time()
    t0 = time.monotonic()
    r = d.call(req)
    tr = time.monotonic()
    w = d.call({"cmd": "wait", "timeout_ms": 600000}, timeout=700)
    t1 = time.monotonic()
    # Enter -> every agent's tracepoints on, then the replay proper
    split = replay_split.split(d.log.name, logpos, t0w, t1 - t0)
    cpu = (d.cpu_ticks() - c0) / hz
    rss = d.rss_kib()
    log("%s: session created and started in %.3f s, replay done %.3f s later" %
        (name, tr - t0, t1 - tr))
    if not w["ok"] or w["recording"] != n:
        log("warning: %s: %d of %d processes recording" % (name, w["recording"], n))
    st = d.call({"cmd": "stop", "session": name})
    # back to WAIT before the next run
    deadline = time.time() + 30
    while time.time() < deadline:
        ag = d.call({"cmd": "list"})["agents"]
        if all(a["state"] == "WAIT" for a in ag):
            break
        time.sleep(0.05)
    nbytes = du(r["path"])
    shutil.rmtree(r["path"], ignore_errors=True)
    return {"total": t1 - t0, "start": tr - t0, "replay": t1 - tr, "arm": t_arm,
            "discarded": st["discarded_total"], "bytes": nbytes, "cpu_s": cpu,
            "rss_kib": rss, "all": bool(w["ok"]) and w["recording"] == n, "split": split}


def detect_latency(d, tmp, n, starts=3):
    """P5's second figure: how soon a session started by anyone (the lttng
    CLI, not caretd) is seen while caretd idles. The session enables
    ros2:* and ros2_caret:* (what `ros2 caret record` or a user would); it
    is started while caretd is in its one-second idle read of the session
    list, and timed from `lttng start` returning to every one of the n
    agents out of WAIT (read with caretd's `list`, whose own time counts).
    Returns (the slowest start in ms, or None when one never came, what
    `lttng start` itself took in ms each time)."""
    worst, took = 0.0, []
    for k in range(starts):
        name = "bench-detect-%d-%s" % (k, uuid.uuid4().hex[:6])
        out = os.path.join(tmp, "detect")
        subprocess.run(["lttng", "create", name, "--output=" + out], check=True,
                       capture_output=True)
        try:
            for ev in ("ros2:*", "ros2_caret:*"):
                subprocess.run(["lttng", "enable-event", "-u", "-s", name, ev], check=True,
                               capture_output=True)
            subprocess.run(["lttng", "add-context", "-u", "-s", name, "-t", "vpid", "-t",
                            "vtid", "-t", "procname"], check=True, capture_output=True)
            time.sleep(1.3)  # caretd back in its one-second read
            t0 = time.monotonic()
            subprocess.run(["lttng", "start", name], check=True, capture_output=True)
            t1 = time.monotonic()
            took.append((t1 - t0) * 1e3)
            seen = None
            while time.monotonic() - t1 < 10:
                ag = d.call({"cmd": "list"})["agents"]
                if len(ag) == n and all(a["state"] != "WAIT" for a in ag):
                    seen = (time.monotonic() - t1) * 1e3
                    break
                time.sleep(0.002)
            if seen is None:
                return None, took
            worst = max(worst, seen)
        finally:
            subprocess.run(["lttng", "destroy", name], capture_output=True)
            shutil.rmtree(out, ignore_errors=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            if all(a["state"] == "WAIT" for a in d.call({"cmd": "list"})["agents"]):
                break
            time.sleep(0.05)
    return worst, took


def drain_rate(b, tmp, seconds, subbuf, nsub):
    """Bytes/s the consumer writes when flooded (same machine, same run),
    into a channel of the given geometry.

    The flood is one writer thread, started before the session like the
    replaying processes (it waits for its tracepoints, then for "go"):
    with two spinning writers on the 2 cores the consumer got so little
    CPU that, among 400 processes, the "drain" was 6-46 MB/s while one
    writer drained 150-220 MB/s in the same conditions. Counted: what
    the consumer wrote while the flood ran, by the flood's own clock;
    not the stop (seconds with hundreds of applications), nor the
    buffers it flushes."""
    name = "bench-drain-" + uuid.uuid4().hex[:6]
    out = os.path.join(tmp, "drain")
    subprocess.run(["lttng", "create", name, "--output=" + out], check=True,
                   capture_output=True)
    fl = None
    try:
        subprocess.run(["lttng", "enable-channel", "-u", "-s", name, "ch",
                        "--subbuf-size=" + subbuf, "--num-subbuf=" + nsub], check=True,
                       capture_output=True)
        subprocess.run(["lttng", "enable-event", "-u", "-s", name, "-c", "ch",
                        "ros2:rclcpp_callback_register"], check=True, capture_output=True)
        subprocess.run(["lttng", "add-context", "-u", "-s", name, "-c", "ch", "-t", "vpid",
                        "-t", "vtid", "-t", "procname"], check=True, capture_output=True)
        fl = subprocess.Popen([os.path.join(b, "bench", "caret-flood"), str(seconds), "1"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(b, "lib"),
                                       CARET_FLOOD_GO="stdin"))
        time.sleep(0.3)  # registered with the session daemon
        subprocess.run(["lttng", "start", name], check=True, capture_output=True)
        fl.stdin.write("go\n")
        fl.stdin.close()
        stdout = fl.stdout.read()
        if fl.wait(120) != 0:
            raise RuntimeError("caret-flood failed")
        written = du(out)
        flood_s = float(dict(kv.split("=") for kv in stdout.split())["seconds"])
        subprocess.run(["lttng", "stop", name], check=True, capture_output=True)
        return written / flood_s
    finally:
        if fl and fl.poll() is None:
            fl.kill()
            fl.wait()
        subprocess.run(["lttng", "destroy", name], capture_output=True)
        shutil.rmtree(out, ignore_errors=True)


ROW_IDS = ["P1", "P2", "P3", "P4", "P4b", "P4c", "P5", "P6", "P6b", "P7", "P8", "P9", "P10", "P11",
           "P12", "P13"]


def row(id_, measure, value, reference, ratio, target, met, details="", measured=True,
        num=None):
    """One target. `measured` is False when no value was obtained: such a
    row is reported as "not measured", never as a result. `num`: the raw
    numbers the smoke run's regression gate reads (bench/gates.py)."""
    return {"id": id_, "measure": measure, "value": value, "reference": reference,
            "ratio": ratio, "target": target, "met": bool(met) and measured,
            "measured": measured, "details": details, "num": num or {}}


def result(r):
    return "not measured" if not r["measured"] else "met" if r["met"] else "not met"


def unmeasured(rows):
    """What keeps this run from being a full measurement: ids without a
    row, twice, or without a value."""
    bad = []
    for id_ in ROW_IDS:
        mine = [r for r in rows if r["id"] == id_]
        if not mine:
            bad.append("%s: no row" % id_)
        elif len(mine) > 1:
            bad.append("%s: %d rows" % (id_, len(mine)))
        elif not mine[0]["measured"]:
            d = mine[0]["details"]
            bad.append("%s: %s" % (id_, d if d.startswith("not measured") else
                                   "not measured" + (": " + d if d else "")))
    return bad


class Fleet:
    """A caretd of the bench's own with n light stand-in processes of
    `records` init records each, all in WAIT."""

    def __init__(self, args, tmp, n, records):
        b = args.b
        self.b, self.n, self.tmp = b, n, tmp
        self.prefix = "caret-bench-" + uuid.uuid4().hex[:6]
        env = dict(os.environ, CARET_SHM_PREFIX=self.prefix, CARET_AGENT_QUIET="1",
                   LD_PRELOAD=os.path.join(b, "lib", "libcaret-agent.so"))
        # BENCH_CARETD_ARGS: extra caretd options (e.g. --log-level debug
        # with BENCH_KEEP_LOGS=DIR to see the pacing tick by tick)
        self.d = Caretd(b, tmp, self.prefix,
                        os.environ.get("BENCH_CARETD_ARGS", "").split())
        self.procs = []
        self.errlog = open(os.path.join(tmp, "standin-%d.log" % n), "w")
        try:
            # Records of a node with one timer and no topics, without the
            # executor/callback-group links (their number depends on the
            # distribution's entry points: none are hooked on Jazzy yet).
            # A few processes per DDS domain: light processes, no discovery
            # storm. Domains below 100: higher ones use ports in the kernel's
            # ephemeral range, where a bind may collide (seen: exit 1).
            base = 9
            for i in range(n):
                self.procs.append(subprocess.Popen(
                    [os.path.join(b, "bin", "caret-standin"), "--name", "bench%d" % i,
                     "--pubs", "0", "--subs", "0", "--timers", "1", "--period-ms", "1000",
                     "--extra-callbacks", str(max(0, records - base)),
                     "--domain", str(10 + (os.getpid() + i) % 80)],
                    env=env, stdout=subprocess.DEVNULL, stderr=self.errlog))
            deadline = time.time() + 60 + n * 1.0
            while True:
                ag = self.d.call({"cmd": "list"})["agents"]
                if len(ag) == n and all(a["records"] >= records and a["state"] == "WAIT"
                                        for a in ag):
                    break
                if time.time() > deadline:
                    dead = ["bench%d exited %d" % (i, p.returncode)
                            for i, p in enumerate(self.procs) if p.poll() is not None]
                    late = ["%s %s %d records" % (a["procname"], a["state"], a["records"])
                            for a in ag if a["records"] < records or a["state"] != "WAIT"]
                    self.errlog.flush()
                    with open(self.errlog.name) as fh:
                        tail = fh.read()[-300:]
                    raise RuntimeError("only %d of %d agents ready (%s) %s" %
                                       (len(ag), n, "; ".join((dead + late)[:10]), tail))
                time.sleep(0.2)
            # registered with the session daemon too (bench/sessiond.py:
            # a session made while they register is not the one measured,
            # and lttng-sessiond 2.13.9 aborts on it at N = 1,000)
            missing, waited = sessiond.wait_registered([p.pid for p in self.procs],
                                                       60 + n * 0.5)
            if missing:
                raise RuntimeError("%d of %d processes not registered with the session daemon "
                                   "%.0f s after caretd listed them all in WAIT%s" %
                                   (len(missing), n, waited,
                                    "" if sessiond.alive() else "; the session daemon exited"))
            log("%d processes registered with the session daemon %.1f s after all were in "
                "WAIT" % (n, waited))
            self.agents = ag
            self.cost = self.fleet_cost()
            log("%d processes x %d records ready; %s" % (n, records, self.cost))
        except BaseException:
            self.close()
            raise

    def fleet_cost(self):
        """What the stand-ins cost the machine: memory (proportional set
        size, so shared libraries are counted once) and threads."""
        pss = threads = 0
        for p in self.procs:
            try:
                with open("/proc/%d/smaps_rollup" % p.pid) as f:
                    for line in f:
                        if line.startswith("Pss:"):
                            pss += int(line.split()[1])
                with open("/proc/%d/status" % p.pid) as f:
                    for line in f:
                        if line.startswith("Threads:"):
                            threads += int(line.split()[1])
            except OSError:
                pass
        with open("/proc/meminfo") as f:
            avail = next(int(x.split()[1]) for x in f if x.startswith("MemAvailable:"))
        n = max(1, len(self.procs))
        return ("stand-ins: %.1f MiB each (PSS; %.2f GiB for %d), %d threads each, "
                "MemAvailable %.1f GiB" % (pss / 1024 / n, pss / 1024 / 1024, n, threads / n,
                                           avail / 1024 / 1024))

    def session_start(self, subbuf=None):
        """The session start with these processes and nothing to replay:
        caretd's own LTTng code while caretd is stopped (best of 2)."""
        best, got, failed = None, 0, []
        self.d.p.send_signal(signal.SIGSTOP)
        try:
            # two starts measured; a failed one (lttng-ctl's destroy cut
            # at 1,000 applications, lib/lttng/session.c) is said and tried again
            while got < 2:
                argv = [os.path.join(self.b, "bench", "caret-sessstart"),
                        os.path.join(self.tmp, "base"), "bench-base-" + uuid.uuid4().hex[:6]]
                if subbuf:
                    argv.append(str(subbuf))
                out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
                if out.returncode != 0:
                    failed.append(out.stderr.strip()[-300:])
                    if not sessiond.alive():
                        raise RuntimeError("caret-sessstart: the session daemon exited during "
                                           "the session-start reference (%s)" % failed[-1])
                    log("warning: caret-sessstart failed (%d): %s" % (len(failed), failed[-1]))
                    if len(failed) > 2:
                        raise RuntimeError("caret-sessstart: " + " / ".join(failed))
                    continue
                got += 1
                s_ = json.loads(out.stdout)["start_s"]
                best = s_ if best is None else min(best, s_)
        finally:
            self.d.p.send_signal(signal.SIGCONT)
            shutil.rmtree(os.path.join(self.tmp, "base"), ignore_errors=True)
        return best

    def close(self):
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.d.close()
        self.errlog.close()
        for n_ in os.listdir("/dev/shm"):
            if n_.startswith(self.prefix + "."):
                os.unlink(os.path.join("/dev/shm", n_))


# The channel caretd records into by default: LTTng 2.13's per-UID user
# space default, 512 KiB x 4 sub-buffers per CPU (the window of 1.5 MiB in
# caretd's debug log). The drain is measured into the same geometry.
DEFAULT_GEOM = ("512K", "4")
# The slow consumer of P7 (c): what a CPU quota leaves it (a slow trace
# device is not available here: tools/consumer_quota.py).
CONSUMER_PCT = 2


def measured_point(f, args, tmp, name, subbuf=None, drain_geom=DEFAULT_GEOM, arm=False,
                   nsub=None):
    """One replay of the fleet with its limit measured in the same
    conditions: the session start alone with these processes, and the
    replayed bytes / the consumer's drain rate."""
    base = f.session_start(subbuf)
    r = replay_run(f.d, tmp, name, f.n, subbuf=subbuf, arm=arm, nsub=nsub)
    rate = drain_rate(args.b, tmp, args.flood, *drain_geom)
    r["base"], r["rate"] = base, rate
    # with an armed session: its start, then Enter to all in RECORD
    r["immediate"] = r["arm"] + r["total"]
    r["limit"] = base + r["bytes"] / rate
    log("%s: %d processes: %.3f s (start %.3f + replay %.3f), limit %.3f s (start %.3f + "
        "%.1f MB at %.0f MB/s), discarded %s" % (name, f.n, r["total"], r["start"],
                                                 r["replay"], r["limit"], base,
                                                 r["bytes"] / 1e6, rate / 1e6, r["discarded"]))
    return r


class Busy:
    """Two busy processes competing for the CPUs."""

    def __enter__(self):
        self.p = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) for _ in range(2)]
        return self

    def __exit__(self, *a):
        for p in self.p:
            p.kill()
            p.wait()


def scenario(args, tmp):
    """P4, P4b, P4c, P5, P7 on N stand-in processes with R init records each."""
    rows = []
    f = Fleet(args, tmp, args.procs, args.records)
    d = f.d
    try:
        ag = f.agents
        total_records = sum(a["records"] for a in ag)
        # P5 idle CPU first, while nothing else happens
        c0, t0 = d.cpu_ns(), time.monotonic()
        time.sleep(args.idle)
        cpu = 100.0 * (d.cpu_ns() - c0) / 1e9 / (time.monotonic() - t0)
        seen_ms, start_ms = detect_latency(d, tmp, args.procs)
        log("idle: %.3f %% CPU over %.0f s; an lttng CLI session seen by all %d agents %s "
            "after `lttng start` returned" % (cpu, args.idle, args.procs,
                                              "never" if seen_ms is None else
                                              "%.1f ms" % seen_ms))

        ours = measured_point(f, args, tmp, "bench-ours", arm=True)
        t_ours, disc = ours["total"], ours["discarded"]
        log("armed in %.3f s; Enter -> all in RECORD %.3f s" % (ours["arm"], t_ours))
        f100 = replay_run(d, tmp, "bench-f100", args.procs, "frequency", 100, arm=True)
        log("frequency 100: %.3f s, discarded %s" % (f100["total"], f100["discarded"]))
        f10k = replay_run(d, tmp, "bench-f10k", args.procs, "frequency", 10000, arm=True)
        log("frequency 10000: %.3f s, discarded %s" % (f10k["total"], f10k["discarded"]))
        rss = d.rss_kib()  # where P5 always took it: after the P4 runs
        ms = d.mem_split()
        rss_parts = "RssAnon %d KiB, RssFile %d KiB, RssShmem %d KiB (pages of the agents' " \
            "caches caretd read); of the RSS, %d KiB are pages of the bridge's libraries " \
            "(libddsc, OpenSSL, iceoryx) and %d KiB of other shared libraries; pages only " \
            "caretd maps (private) %d KiB, proportional set size %d KiB" % (
                tuple(d.rss_kib(k) for k in ("RssAnon", "RssFile", "RssShmem")) +
                (ms["bridge_libs"], ms["other_libs"], ms["private"], ms["pss"]))
        with Busy():
            loaded = measured_point(f, args, tmp, "bench-load")
        # 64 KiB x 4 whatever caretd's default count (the drain's geometry)
        small = measured_point(f, args, tmp, "bench-64k", subbuf=65536,
                               drain_geom=("64K", "4"), nsub=4)
        # a slow consumer: its daemons limited to CONSUMER_PCT % of a CPU
        slow, slow_why = None, ""
        try:
            with ConsumerQuota(percent=CONSUMER_PCT):
                slow = measured_point(f, args, tmp, "bench-slow")
        except QuotaUnavailable as e:
            slow_why = str(e)
        rss_end = d.rss_kib()
        # the bridge asleep (issue 24: loaded when a participant appears in
        # its domain or a command needs the other hosts): what it costs
        # once a hosts request woke it, for comparison
        bridge_libs_runs = ms["bridge_libs"]
        asleep = bridge_libs_runs == 0
        rss_awake, bridge_state = None, "?"
        try:
            d.call({"cmd": "hosts"})
            deadline = time.time() + 10
            while time.time() < deadline:
                bridge_state = d.call({"cmd": "hosts"}).get("bridge", "?")
                if bridge_state.startswith(("up", "down")):
                    break
                time.sleep(0.2)
            time.sleep(1.0)  # its threads and first samples
            rss_awake = d.rss_kib()
        except RuntimeError as e:
            bridge_state = "hosts request failed: %s" % e

        # P5 cache density
        shm_bytes = payload = 0
        for a in ag:
            out = subprocess.run([os.path.join(args.b, "bin", "caret-agentctl"), "stats",
                                  str(a["pid"])],
                                 env=dict(os.environ, CARET_SHM_PREFIX=f.prefix),
                                 capture_output=True, text=True).stdout
            kv = dict(x.split("=") for x in out.split())
            shm_bytes += int(kv["bytes"])
            payload += int(kv["payload"])
        density = shm_bytes / payload if payload else float("inf")

        n, r = args.procs, args.records
        split = ("armed (session started; its channel enabled when armed open, as here with "
                 "no other session) in %.3f s before Enter; from Enter: the go request %.3f s "
                 "+ replay %.3f s" %
                 (ours["arm"], ours["start"], ours["replay"]))
        rows.append(row("P4", "Enter (caretctl record) -> all %d processes in RECORD, %d init "
                        "records each, default channel" % (n, r), "%.3f s" % t_ours, "1 s",
                        "%.2fx" % t_ours, "<= 1 s, 0 discarded",
                        t_ours <= 1.0 and disc == 0 and ours["all"],
                        "%s; discarded=%s" % (split, disc),
                        num=dict(total=t_ours, discarded=disc, all=ours["all"])))
        rows.append(row("P4b", "same, vs CARET pacing (recording_frequency 100 / 10,000)",
                        "%.3f s" % t_ours, "%.3f s / %.3f s" % (f100["total"], f10k["total"]),
                        "%.1fx faster than f=100" % (f100["total"] / t_ours),
                        ">= 20x faster than f=100, 0 discarded",
                        f100["total"] / t_ours >= 20 and disc == 0 and f100["discarded"] == 0,
                        "discarded ours=%s f100=%s f10000=%s" %
                        (disc, f100["discarded"], f10k["discarded"]),
                        num=dict(faster=f100["total"] / t_ours,
                                 discarded=(disc or 0) + (f100["discarded"] or 0))))
        imm = ours["immediate"]
        rows.append(row("P4c", "same, armed + Enter -> all in RECORD (as with --immediate), vs "
                        "session start alone + replayed bytes / consumer drain rate",
                        "%.3f s" % imm, "%.3f s (%.3f s + %.1f MB at %.0f MB/s)" %
                        (ours["limit"], ours["base"], ours["bytes"] / 1e6, ours["rate"] / 1e6),
                        "%.2fx" % (imm / ours["limit"]), "<= 1.5x",
                        imm / ours["limit"] <= 1.5 and ours["all"], split,
                        num=dict(ratio=imm / ours["limit"], all=ours["all"])))
        seen = -1.0 if seen_ms is None else seen_ms
        rows.append(row("P5", "shm bytes/record / payload; caretd RSS, %d agents; caretd idle "
                        "CPU (no session); an lttng CLI session seen" % n,
                        "%.2fx; %.1f MiB; %.2f %%; %s" % (
                            density, rss / 1024, cpu,
                            "never" if seen_ms is None else "%.0f ms" % seen_ms),
                        "payload %.1f B/record" % (payload / max(1, total_records)),
                        "%.2fx" % density, "<= 1.5x; <= 8 MiB; <= 0.2 %; <= 100 ms",
                        density <= 1.5 and rss <= 8 * 1024 and cpu <= 0.2 and
                        seen_ms is not None and seen_ms <= 100,
                        "idle CPU (schedstat, all threads) measured over %.0f s with the bridge configured (asleep or not: see below); seen: the slowest of "
                        "%d sessions (ros2:*, ros2_caret:*) started with the lttng CLI while "
                        "caretd idled, from `lttng start` returning (it took %s ms) to all %d "
                        "agents out of WAIT; RSS after the P4 runs (as always), %.1f MiB after "
                        "the P7 runs too; %s; the bridge %s during the runs (default start: "
                        "CycloneDDS loads when a DDS participant appears in its domain or a "
                        "command needs the other hosts); woken at the end by a hosts request "
                        "(bridge %s): RSS %s" % (
                            args.idle, len(start_ms),
                            "/".join("%.0f" % x for x in start_ms), n, rss_end / 1024,
                            rss_parts,
                            "asleep (no CycloneDDS page mapped)" if asleep else
                            "AWAKE (%d KiB of its libraries mapped)" % bridge_libs_runs,
                            bridge_state,
                            "?" if rss_awake is None else "%.1f MiB" % (rss_awake / 1024)),
                        num=dict(density=density, rss_mib=rss / 1024, cpu_pct=cpu,
                                 seen_ms=seen)))
        tried = [x for x in (loaded, small, slow) if x]
        # issue 34: each condition within 1.5x its own limit
        ok7 = slow is not None and all(x["discarded"] == 0 and x["all"] and
                                       x["total"] <= 1.5 * x["limit"] for x in tried)
        rows.append(row("P7", "%d x %d: (a) with two busy processes, (b) 64 KiB sub-buffers, "
                        "(c) consumer daemons at %d %% of a CPU" % (n, r, CONSUMER_PCT),
                        " / ".join("%.3f s" % x["total"] for x in tried),
                        "limits " + " / ".join("%.3f s" % x["limit"] for x in tried),
                        " / ".join("%.2fx" % (x["total"] / x["limit"]) for x in tried),
                        "0 discarded, each of (a), (b), (c) <= 1.5x its limit", ok7,
                        "each limit measured in its own condition (drain rate under the load; "
                        "with 64K x 4 sub-buffers; with the consumer's CPU quota); (a) %s; "
                        "(b) %s; (c) %s" %
                        (point_text(loaded), point_text(small),
                         point_text(slow) if slow else "not run: " + slow_why),
                        num=dict(ratios=[x["total"] / x["limit"] for x in tried],
                                 over_s=[x["total"] - x["limit"] for x in tried],
                                 discarded=sum(x["discarded"] or 0 for x in tried) +
                                 sum(1 for x in tried if x["discarded"] is None),
                                 all=all(x["all"] for x in tried))))
    finally:
        f.close()
    return rows


def proper(x):
    """The replay proper of a point against its bytes / drain, None when
    caretd's log did not say when the tracepoints came on."""
    sp = x.get("split")
    return sp["replay_proper_s"] / (x["bytes"] / x["rate"]) if sp else None


def floor_ratio(x):
    """Enter -> RECORD against the floor neither caretd's pacing nor any
    other can go under: the last agent's tracepoints on (LTTng's) or the
    bytes at the drain rate, whichever is longer (agents replay as soon as
    theirs are on, while later ones still wait)."""
    return x["total"] / max(x["split"]["tp_on_s"], x["bytes"] / x["rate"])


def point_text(x):
    sp = x.get("split")
    return ("%sstart %.3f + replay %.3f s%s, discarded %s, limit %.3f = %.3f + %.1f MB / %.0f MB/s"
            % ("armed in %.3f s before Enter; from Enter: go " % x["arm"] if x["arm"] else "",
               x["start"], x["replay"],
               " (every agent's tracepoints on %.3f s after Enter, the first's %.3f s, then "
               "the replay proper %.4f s = %.2fx bytes / drain, %.4f s of it after caretd "
               "saw the last pass done, read from its log to %.1f ms; Enter -> RECORD %.2fx "
               "the longer of tracepoints on and bytes / drain)" %
               (sp["tp_on_s"], sp["tp_first_s"], sp["replay_proper_s"], proper(x),
                sp["seen_after_s"], replay_split.RESOLUTION_S * 1e3,
                floor_ratio(x)) if sp else "",
               x["discarded"], x["limit"], x["base"],
               x["bytes"] / 1e6, x["rate"] / 1e6))


def scaling(args, tmp):
    """P6: the curve over N, each N a fleet of its own."""
    pts = []
    for n in args.curve:
        f = Fleet(args, tmp, n, args.curve_records)
        try:
            r = measured_point(f, args, tmp, "bench-n%d" % n, arm=True)
            r["fleet"] = f.cost
        finally:
            f.close()
        r["n"] = n
        pts.append(r)
    lo = min(pts, key=lambda p: abs(p["n"] - args.procs))
    # P6 is N = 400 against N = 100 (4x the processes); the largest N, to
    # 1,000, is a row of its own (P6b)
    hi = min((p for p in pts if p is not lo), key=lambda p: abs(p["n"] - 4 * lo["n"]),
             default=lo)
    top = max(pts, key=lambda p: p["n"])
    ratio = hi["total"] / lo["total"]
    # issue 34: <= 3.5x for 4x the processes (the smoke curve's 8x: 7x)
    lin = 3.5 * (hi["n"] / lo["n"]) / 4
    worst = max(p["immediate"] / p["limit"] for p in pts if p["n"] <= hi["n"])
    # the replay proper (from the last agent's tracepoints on to all in
    # RECORD: bench/replay_split.py) against its own bytes / drain at
    # every N (target 1.3x); Enter -> tracepoints on is LTTng's enabling,
    # per process, beside it
    vsd = [(p["n"], proper(p)) for p in pts]
    dgrow = (hi["bytes"] / hi["rate"]) / (lo["bytes"] / lo["rate"])
    ok = (ratio <= lin and worst <= 1.5 and all(v is not None and v <= 1.3 for _, v in vsd)
          and all(p["discarded"] == 0 and p["all"] for p in pts))
    # out of reach when the drain alone grows more than the target: a
    # replay at the consumer's rate at both N would miss it too; the row
    # says so, with the numbers, rather than a looser target
    why = ("; out of reach here: bytes / drain alone grows %.2fx (drain %.0f -> %.0f MB/s)" %
           (dgrow, lo["rate"] / 1e6, hi["rate"] / 1e6)) if ratio > lin and dgrow > lin else ""
    why += replay_split.enabling_reason(lo["split"], hi["split"], lo["total"], hi["total"], lin)
    rows = [row("P6", "scaling, N = %s x %d records: Enter -> all in RECORD at N=%d / at N=%d"
                "; armed + Enter vs the limit at every N" %
                (", ".join(str(p["n"]) for p in pts), args.curve_records, hi["n"], lo["n"]),
                "%.2fx" % ratio, "worst vs limit %.2fx; replay proper / (bytes / drain) %s "
                "(the split read from caretd's log to %.1f ms); "
                "Enter -> tracepoints on / Enter -> RECORD %s" %
                (worst, ", ".join("%s at N=%d" % ("?" if v is None else "%.2fx" % v, n_)
                                  for n_, v in vsd), replay_split.RESOLUTION_S * 1e3,
                 ", ".join("%s / %.3f s" % (
                     "?" if not p["split"] else "%.3f" % p["split"]["tp_on_s"], p["total"])
                     for p in pts)),
                "%.2fx%s" % (ratio, why),
                "<= %.1fx; replay proper <= 1.3x bytes / drain at every N; <= 1.5x the limit "
                "at every N; 0 discarded" % lin, ok,
                "the drain itself, N=%d vs N=%d: %.0f vs %.0f MB/s, so bytes / drain grows "
                "%.1fx for %.1fx the bytes; " %
                (hi["n"], lo["n"], hi["rate"] / 1e6, lo["rate"] / 1e6,
                 (hi["bytes"] / hi["rate"]) / (lo["bytes"] / lo["rate"]),
                 hi["bytes"] / lo["bytes"]) +
                "; ".join("N=%d: Enter -> RECORD %.3f s (%s), armed + Enter %.3f s vs limit "
                          "%.3f s, caretd CPU %.2f s, RSS %.1f MiB"
                          % (p["n"], p["total"], point_text(p), p["immediate"], p["limit"],
                             p["cpu_s"], p["rss_kib"] / 1024) for p in pts),
                num=dict(ratio=ratio, nratio=hi["n"] / lo["n"], worst=worst,
                         proper_s=[p["split"]["replay_proper_s"] if p["split"] else None
                                   for p in pts],
                         drain_each_s=[p["bytes"] / p["rate"] for p in pts],
                         discarded=sum(p["discarded"] or 0 for p in pts) +
                         sum(1 for p in pts if p["discarded"] is None),
                         all=all(p["all"] for p in pts if p["n"] <= hi["n"])))]
    # the N = 1,000 row: within 1.5x its own limit like every N (issue 24),
    # and its time to RECORD grows from N = 100 no faster than linearly in
    # N or than the replayed bytes / drain rate itself, plus 10 %. Linear
    # alone (11x) was below what any pacer can do here: the consumer's
    # drain rate falls with 1,000 processes on 2 cores (181 vs 427 MB/s in
    # the run of 16:24 UTC), so bytes / drain grows 24x for 10x the bytes,
    # and a replay at the drain rate at both N would have failed it.
    dratio = (top["bytes"] / top["rate"]) / (lo["bytes"] / lo["rate"])
    tlin = max(top["n"] / lo["n"], dratio) * 1.1
    tratio = top["total"] / lo["total"]
    tvl = top["immediate"] / top["limit"]
    rows.append(row("P6b", "the curve's end, N = %d x %d records: Enter -> all in RECORD; vs "
                    "N=%d; armed + Enter vs its limit" % (top["n"], args.curve_records, lo["n"]),
                    "%.3f s" % top["total"], "%.3f s at N=%d; limit %.3f s" %
                    (lo["total"], lo["n"], top["limit"]),
                    "%.2fx; %.2fx the limit%s" % (tratio, tvl, replay_split.enabling_reason(
                        lo["split"], top["split"], lo["total"], top["total"], tlin)),
                    "<= %.1fx (linear in N, or bytes / drain's own %.1fx, + 10 %%); <= 1.5x "
                    "the limit; 0 discarded" % (tlin, dratio),
                    tratio <= tlin and tvl <= 1.5 and top["discarded"] == 0 and top["all"],
                    "N=%d: %s; armed + Enter %.3f s; caretd CPU %.2f s, RSS %.1f MiB; %s; "
                    "the replay against its own bytes / drain: %.2fx at N=%d, %.2fx at N=%d" %
                    (top["n"], point_text(top), top["immediate"], top["cpu_s"],
                     top["rss_kib"] / 1024, top.get("fleet", ""),
                     top["total"] / (top["bytes"] / top["rate"]), top["n"],
                     lo["total"] / (lo["bytes"] / lo["rate"]), lo["n"]),
                    num=dict(ratio=tratio, nratio=top["n"] / lo["n"], vs_limit=tvl,
                             enter_s=top["total"], drain_s=top["bytes"] / top["rate"],
                             discarded=top["discarded"], all=top["all"])))
    return rows, pts


def _log_s(line):
    """Seconds of the day of a caretd log line (HH:MM:SS.mmm, its first
    word), None for a line without one."""
    try:
        h, m, s = line.split(None, 1)[0].split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)
    except (ValueError, IndexError):
        return None


def rotation_passes(logpath, session, n):
    """From caretd's log: for each rotation of `session`, the instant its
    chunk closed (LTTng's rotation started: events go to the next chunk),
    the instant caretd began the next chunk's pass (its "closed;
    replaying" line: at the close since issue 34, at the archive before),
    the instant the chunk was archived, and the instant the last of the n
    processes finished that pass (None when fewer than n did before the
    next rotation). Log times have 1 ms resolution."""
    close = re.compile(r"session %s: chunk (\d+) (complete|is INCOMPLETE|may hold)" %
                       re.escape(session))
    arch = re.compile(r"session %s: chunk (\d+) archived" % re.escape(session))
    begun = re.compile(r"session %s: chunk (\d+) (closed|archived)\S*; replaying" %
                       re.escape(session))
    again = re.compile(r"pid (\d+) \(.*\) replayed again: ")
    out, cur, day = [], None, 0.0
    last = None
    with open(logpath, errors="replace") as fh:
        for line in fh:
            t = _log_s(line)
            if t is None:
                continue
            if last is not None and t + day < last - 43200:
                day += 86400.0  # past midnight
            t += day
            last = t
            m = close.search(line)
            if m:
                if cur and cur["index"] == int(m.group(1)):
                    continue  # the same chunk's verdict said twice (dups, then complete)
                cur = {"index": int(m.group(1)), "closed": t, "begun": None, "archived": None,
                       "done": None, "pids": set()}
                out.append(cur)
                continue
            m = begun.search(line)
            if m and cur and int(m.group(1)) == cur["index"] and cur["begun"] is None:
                cur["begun"] = t
            m = arch.search(line)
            if m and cur and int(m.group(1)) == cur["index"]:
                cur["archived"] = t
                continue
            m = again.search(line)
            if m and cur and cur["begun"] is not None and cur["done"] is None:
                cur["pids"].add(int(m.group(1)))
                if len(cur["pids"]) >= n:
                    cur["done"] = t
    return out


# What a plain recording of the stand-ins lacks too: caret-standin's extra
# callbacks (--extra-callbacks) are registered without a *_callback_added;
# caretctl check counts each as a note (filtered_registers, as caret_trace's
# filters leave such registrations), a check older than that as missing.
STANDIN_MISSING = {"rclcpp_callback_register:callback_added"}


def chunk_complete(b, path, want):
    """None when caretctl check finds in the chunk at `path` every process
    of `want` (pid -> records in its cache) with caret_init and all its
    cached records, none twice, nothing discarded and nothing missing but
    what the stand-ins never emit; else why not."""
    cr = subprocess.run([os.path.join(b, "bin", "caretctl"), "check", "--json", path],
                        capture_output=True, text=True, timeout=600)
    if cr.returncode not in (0, 6):
        return "caretctl check exited %d: %s" % (cr.returncode, cr.stderr.strip()[-200:])
    try:
        rep = json.loads(cr.stdout)
    except ValueError:
        return "caretctl check wrote no JSON"
    if rep.get("discarded_events") or rep.get("lost_packets") or \
            rep.get("discarded_events_unknown") or rep.get("lost_packets_unknown"):
        return "discarded events %s%s, lost packets %s%s" % (
            rep.get("discarded_events"),
            " (and an unknown number)" if rep.get("discarded_events_unknown") else "",
            rep.get("lost_packets"),
            " (and an unknown number)" if rep.get("lost_packets_unknown") else "")
    got = {p["pid"]: p for p in rep.get("processes", [])}
    for pid, n in want.items():
        p = got.get(pid)
        if p is None:
            return "pid %d absent" % pid
        if not p.get("caret_init") or p.get("init_total") != n or p.get("duplicates_total"):
            return "pid %d: caret_init %s, %s of %d init records, %s duplicated" % (
                pid, p.get("caret_init"), p.get("init_total"), n, p.get("duplicates_total"))
        other = set(p.get("missing", {})) - STANDIN_MISSING
        if other:
            return "pid %d lacks %s" % (pid, ", ".join(sorted(other)))
    return None


def rotation_row(args, tmp):
    """P11: a rotating recording of N processes x R init records: for each
    rotation, the time from the chunk's close to the end of the next
    chunk's replay pass, against the replayed bytes / the consumer's drain
    rate; none discarded; every chunk complete by caretctl check."""
    n, rec = args.rotation_procs, args.rotation_records
    every = args.rotation_every
    f = Fleet(args, tmp, n, rec)
    d = f.d
    name = "bench-rot"
    try:
        r = d.call({"cmd": "record", "session": name, "path": os.path.join(tmp, "rot"),
                    "rotate_every_ms": int(every * 1000)})
        w = d.call({"cmd": "wait", "timeout_ms": 600000}, timeout=700)
        if not w["ok"] or w["recording"] != n:
            log("warning: %s: %d of %d processes recording" % (name, w["recording"], n))
        # a rotation before every process recorded may overlap the
        # recording's own pass: measured are the rotations after this
        st = d.call({"cmd": "status"})
        first = sum(x["rotations"] for x in st.get("rotations", []) if x["session"] == name)
        deadline = time.time() + (args.rotation_count + 3) * every + 120
        while True:
            st = d.call({"cmd": "status"})
            rot = [x for x in st.get("rotations", []) if x["session"] == name]
            done = rot[0]["rotations"] if rot else 0
            # each measured pass is followed by a close of its own chunk
            if done >= first + args.rotation_count + 1:
                break
            if time.time() > deadline:
                raise RuntimeError("only %d rotations in %.0f s" % (done, every * args.rotation_count))
            time.sleep(0.2)
        # stop in the middle of a chunk, its pass long done
        time.sleep(every / 2)
        stop = d.call({"cmd": "stop", "session": name})
        d.log.flush()
        rate = drain_rate(args.b, tmp, args.flood, *DEFAULT_GEOM)
        passes = rotation_passes(d.log.name, name, n)
        # the pacer says when it cannot read the consumer's progress for a
        # second (it then holds the replays to its window): a pass into a
        # chunk it does not find
        with open(d.log.name, errors="replace") as fh:
            blind = sum("session %s: the consumer's progress cannot be read" % name in l
                        for l in fh)
        info = stop.get("rotation") or {}
        by_index = {c["index"]: c for c in info.get("chunks", [])}
        arch = os.path.join(r["path"], "archives")
        dirs = sorted(os.listdir(arch)) if os.path.isdir(arch) else []
        want = {a["pid"]: a["records"] for a in f.agents}
        checked = 0
        bad = []
        for c in dirs:
            why = chunk_complete(args.b, os.path.join(arch, c), want)
            if why:
                bad.append("%s: %s" % (c, why))
            else:
                checked += 1
        shutil.rmtree(r["path"], ignore_errors=True)
    finally:
        f.close()
    # the pass into chunk k+1 begins at the close of chunk k; the first
    # close's pass may have shared the time with the recording's own
    pts = []
    for p in passes[first:first + args.rotation_count]:
        nxt = by_index.get(p["index"] + 1)
        if nxt is None:
            raise RuntimeError("chunk %d is not in the stop's listing" % (p["index"] + 1))
        lim = nxt["bytes"] / rate
        took = (p["done"] - p["closed"]) if p["done"] is not None else float("inf")
        pts.append(dict(took=took, limit=lim, bytes=nxt["bytes"],
                        archive=(p["archived"] - p["closed"]) if p["archived"] else float("inf"),
                        begun=(p["begun"] - p["closed"]) if p["begun"] else float("inf"),
                        pass_s=(p["done"] - p["begun"]) if p["done"] is not None and
                        p["begun"] else float("inf"),
                        ratio=took / lim if lim > 0 else float("inf")))
    if not pts:
        raise RuntimeError("no rotation measured (%d in caretd's log)" % len(passes))
    worst = max(pts, key=lambda x: x["ratio"])
    slow = max(pts, key=lambda x: x["took"])
    disc = stop.get("discarded_total")
    incomplete = len(info.get("incomplete", [])) + len(bad)
    allc = bool(w["ok"]) and w["recording"] == n and checked == len(dirs) and len(dirs) >= len(pts) + 1 and not info.get("incomplete")
    share = slow["took"] / every
    return [row("P11", "rotating recording (--rotate-every %gs), %d processes x %d init records: "
                "chunk closed -> the next chunk's replay pass complete, vs replayed bytes / "
                "consumer drain rate (worst of %d rotations); share of the chunk interval"
                % (every, n, rec, len(pts)),
                "%.3f s; %.1f %% of %g s" % (worst["took"], 100 * share, every),
                "%.4f s (%.2f MB at %.0f MB/s)" % (worst["limit"], worst["bytes"] / 1e6,
                                                   rate / 1e6),
                "%.2fx" % worst["ratio"], "<= 3x the limit, 0 discarded, every chunk complete",
                worst["ratio"] <= 3 and disc == 0 and allc,
                "per rotation, chunk closed (LTTng's rotation started) -> the next chunk's "
                "pass complete (pass begun: caretd's notice of the start; archived: LTTng "
                "archiving the closed chunk meanwhile) vs the limit: %s; "
                "discarded %s; %d of %d chunks complete by caretctl check%s; caretd's own "
                "verdicts: %d incomplete; pacing blind to the chunk: %d times" %
                ("; ".join("%.3f s (pass begun %.3f s, archived %.3f s) vs %.4f s" %
                           (x["took"], x["begun"], x["archive"], x["limit"]) for x in pts),
                 disc, checked, len(dirs), " (%s)" % ", ".join(bad) if bad else "",
                 len(info.get("incomplete", [])), blind),
                num=dict(ratio=worst["ratio"], took_s=worst["took"], slowest_s=slow["took"],
                         pass_s=max(x["pass_s"] for x in pts),
                         drain_s=worst["limit"], share=share, discarded=disc,
                         incomplete=incomplete, chunks=len(dirs), checked=checked,
                         rotations=len(pts), all=allc, blind=blind))]


def snapshot_check(b, path, n):
    """None when caretctl check calls the snapshot at `path` complete (exit
    0: every process with caret_init and all its init records), nothing
    discarded or lost, n processes in it; else why not. A ring that did not
    wrap also holds the recording's own pass: duplicates are allowed."""
    cr = subprocess.run([os.path.join(b, "bin", "caretctl"), "check", "--json", path],
                        capture_output=True, text=True, timeout=600)
    try:
        rep = json.loads(cr.stdout)
    except ValueError:
        return "caretctl check exited %d without JSON: %s" % (cr.returncode,
                                                              cr.stderr.strip()[-200:])
    if cr.returncode != 0:
        return "caretctl check exited %d: %s" % (cr.returncode,
                                                 "; ".join(rep.get("problems", []))[:300])
    if rep.get("discarded_events") or rep.get("lost_packets") or \
            rep.get("discarded_events_unknown") or rep.get("lost_packets_unknown"):
        return "discarded events %s, lost packets %s" % (rep.get("discarded_events"),
                                                         rep.get("lost_packets"))
    got = len(rep.get("processes", []))
    return None if got >= n else "%d of %d processes" % (got, n)


def snapshot_row(args, tmp):
    """P12: a flight recorder of N processes x R init records (P11's): the
    time from `snapshot` to its reply (every process's init records
    replayed into the ring, then LTTng's snapshot written and closed),
    against the snapshot's bytes / the consumer's drain rate; each snapshot
    complete by caretctl check, none discarded."""
    n, rec = args.rotation_procs, args.rotation_records
    f = Fleet(args, tmp, n, rec)
    d = f.d
    name = "bench-snap"
    path = os.path.join(tmp, "snap")
    try:
        size = 32 << 20
        for _ in range(2):
            try:
                d.call({"cmd": "record", "session": name, "path": path,
                        "snapshot_size": size})
                break
            except RuntimeError as e:
                # the least ring caretd accepts for these caches
                m = re.search(r"--snapshot-size (\d+)K", str(e))
                if not m:
                    raise
                size = int(m.group(1)) << 10
        else:
            raise RuntimeError("no ring size accepted")
        w = d.call({"cmd": "wait", "timeout_ms": 600000}, timeout=700)
        if not w["ok"] or w["recording"] != n:
            log("warning: %s: %d of %d processes recording" % (name, w["recording"], n))
        time.sleep(1.0)  # the ring holds the recording's pass and a second of events
        pts = []
        for i in range(args.snap_count):
            t0 = time.monotonic()
            r = d.call({"cmd": "snapshot", "session": name, "timeout_ms": 600000}, timeout=700)
            took = time.monotonic() - t0
            pts.append(dict(took=took, pass_s=r["pass_ms"] / 1000.0, path=r["path"],
                            complete=bool(r["complete"]), why=r.get("why", ""),
                            bytes=du(r["path"])))
            log("%s: snapshot %d: %.3f s (pass %.3f s), %.2f MB, %s" %
                (name, i + 1, took, r["pass_ms"] / 1000.0, pts[-1]["bytes"] / 1e6,
                 "complete" if r["complete"] else "INCOMPLETE: " + pts[-1]["why"]))
            time.sleep(0.5)
        stop = d.call({"cmd": "stop", "session": name})
        rate = drain_rate(args.b, tmp, args.flood, *DEFAULT_GEOM)
        bad = []
        for p_ in pts:
            why = snapshot_check(args.b, p_["path"], n)
            if why:
                bad.append("%s: %s" % (os.path.basename(p_["path"]), why))
        shutil.rmtree(path, ignore_errors=True)
    finally:
        f.close()
    for p_ in pts:
        p_["limit"] = p_["bytes"] / rate
        p_["ratio"] = p_["took"] / p_["limit"] if p_["limit"] > 0 else float("inf")
    worst = max(pts, key=lambda x: x["ratio"])
    disc = stop.get("discarded_total")
    allc = all(p_["complete"] for p_ in pts) and not bad and bool(w["ok"]) and \
        w["recording"] == n
    return [row("P12", "flight recorder (ring %d KiB per CPU), %d processes x %d init records: "
                "snapshot request -> its trace written and closed (every process's init "
                "records replayed into the ring first), vs the snapshot's bytes / consumer "
                "drain rate (worst of %d)" % (size >> 10, n, rec, len(pts)),
                "%.3f s" % worst["took"],
                "%.4f s (%.2f MB at %.0f MB/s)" % (worst["limit"], worst["bytes"] / 1e6,
                                                   rate / 1e6),
                "%.2fx" % worst["ratio"],
                "<= 1.5x the limit, 0 discarded, every snapshot complete",
                worst["ratio"] <= 1.5 and disc == 0 and allc,
                "per snapshot, request -> reply (of which caretd's replay pass) vs the limit: "
                "%s; discarded %s; %d of %d complete by caretctl check%s" %
                ("; ".join("%.3f s (pass %.3f s) vs %.4f s (%.2f MB)" %
                           (x["took"], x["pass_s"], x["limit"], x["bytes"] / 1e6) for x in pts),
                 disc, len(pts) - len(bad), len(pts), " (%s)" % ", ".join(bad) if bad else ""),
                num=dict(ratio=worst["ratio"], took_s=max(x["took"] for x in pts),
                         pass_s=max(x["pass_s"] for x in pts), drain_s=worst["limit"],
                         discarded=disc, complete=allc, snapshots=len(pts)))]


def previous_curve(path):
    """The curve of the results file about to be replaced, to draw beside
    the new one: [(n, Enter -> all in RECORD, armed + Enter)], and when
    it was produced; ([], None) when there is none."""
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError:
        return [], None
    when = re.search(r"^Produced by .* on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", text, re.M)
    pts = []
    for m in re.finditer(r"^\| (\d+) \| ([\d.]+) s \| ([\d.]+) s \| [\d.]+ s \| [\d.]+ s \| "
                         r"([\d.]+) s \|", text, re.M):
        pts.append((int(m.group(1)), float(m.group(3)), float(m.group(4))))
    return pts, when.group(1) if when else None


def svg(pts, path, prev=(), prev_when=None):
    """The curve: time to RECORD (session start and replay stacked) and
    the limit, against N; beside it the previous results' Enter -> all
    in RECORD (prev: previous_curve())."""
    W, H, L, B, T, R = 760, 400, 60, 50, 30, 270
    xmax = max([p["n"] for p in pts] + [n for n, _, _ in prev]) * 1.05
    ymax = max([max(p["immediate"], p["limit"]) for p in pts] +
               [t for _, t, _ in prev]) * 1.15 or 1
    X = lambda n: L + (W - L - R) * n / xmax
    Y = lambda v: H - B - (H - B - T) * v / ymax
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="14">caretd: request to all processes in RECORD</text>'
         % L]
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - R, H - B))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, H - B))
    for i in range(6):
        v = ymax * i / 5
        o.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (L - 5, Y(v) + 4, v))
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' %
                 (L, Y(v), W - R, Y(v)))
    bw = max(6, (W - L - R) / xmax * min(25, pts[0]["n"]) * 0.6)
    for p in pts:
        x = X(p["n"])
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x, H - B + 16, p["n"]))
        # stacked: armed (before Enter), channel enabled at Enter, replay
        y0 = 0
        for v, c in ((p["arm"], "#7aa6d8"), (p["start"], "#70b070"), (p["replay"], "#f0a860")):
            o.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' %
                     (x - bw / 2, Y(y0 + v), bw, Y(y0) - Y(y0 + v), c))
            y0 += v
    lines = [([(p["n"], p["limit"]) for p in pts], "black", "6,4"),
             ([(p["n"], p["total"]) for p in pts], "#c03030", "")]
    if prev:
        lines.append(([(n, t) for n, t, _ in prev], "#909090", "2,3"))
    for xy, color, dash in lines:
        pl = " ".join("%.1f,%.1f" % (X(n), Y(v)) for n, v in xy)
        o.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' %
                 (pl, color, ' stroke-dasharray="%s"' % dash if dash else ""))
    o.append('<text x="%d" y="%d" text-anchor="middle">registered processes (N), %d init '
             'records each</text>' % ((L + W - R) / 2, H - 12, pts[0].get("records", 0)))
    o.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">'
             'seconds</text>' % ((T + H - B) / 2, (T + H - B) / 2))
    leg = [("#7aa6d8", "session start (armed, before Enter)"),
           ("#70b070", "Enter: go (channel enabled unless armed open)"), ("#f0a860", "replay"),
           ("#c03030", "Enter -> all in RECORD"), ("black", "limit: start alone + bytes / drain")]
    if prev:
        leg.append(("#909090", "Enter -> all in RECORD: results of %s" %
                    (prev_when or "the previous run")))
    for i, (c, t) in enumerate(leg):
        y = T + 10 + i * 20
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (W - R + 10, y - 10, c))
        o.append('<text x="%d" y="%d">%s</text>' % (W - R + 28, y, t))
    o.append("</svg>")
    with open(path, "w") as fh:
        fh.write("\n".join(o) + "\n")


def reader_rows(args):
    """P8 and P9: the merged cache reader over procs x records caches."""
    out = subprocess.run([os.path.join(args.b, "bench", "caret-readerbench"), str(args.procs),
                          str(args.records)], capture_output=True, text=True, timeout=600)
    got = {}
    for line in out.stdout.splitlines():
        try:
            m = json.loads(line)
            got[m["id"]] = m
        except ValueError:
            continue
    rows = []
    n, r = args.procs, args.records
    p8 = got.get("P8")
    if p8:
        rows.append(row("P8", "merged read of %d caches x %d records (shm reader, one core)" %
                        (n, r), "%.1f M records/s" % (p8["value"] / 1e6), "-", "-",
                        ">= 10 M records/s per core", p8["met"],
                        "best of 5 full reads %.4f s for %d records; building the index "
                        "(attach, copy, decode, sort, merge) %.3f s, again %.3f s (page "
                        "faults on this VM dominate it)" % (p8["read_s"], p8["records"],
                                                            p8["index_s"], p8["index2_s"]),
                        num=dict(rate=p8["value"])))
    else:
        rows.append(row("P8", "merged read", "-", "-", "-", ">= 10 M records/s per core",
                        False, "not measured: caret-readerbench exited %d: %s" %
                        (out.returncode, out.stderr.strip()[:200]), measured=False))
    p9 = got.get("P9")
    if p9:
        rows.append(row("P9", "seek_time latency on the same set, indexed (p99; median %.3f "
                        "us)" % p9["value"], "%.3f us" % p9["p99"], "-", "-", "<= 20 us",
                        p9["met"], "%d seeks to random instants, each with the read of the "
                        "first event (a seek is resolved lazily)" % p9["seeks"],
                        num=dict(p99_us=p9["p99"])))
    else:
        rows.append(row("P9", "seek_time latency", "-", "-", "-", "<= 20 us", False,
                        "not measured", measured=False))
    return rows


def timed(argv, ok_codes=(0,)):
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=3600)
    if r.returncode not in ok_codes:
        raise RuntimeError("%s exited %d: %s" % (argv[0], r.returncode, r.stderr[-300:]))
    return time.monotonic() - t0


def check_row(args, tmp):
    """P10: caretctl check against babeltrace2's dummy output on one trace
    of runtime events (callback_start/end pairs from caret-flood), made in
    this run, each timed in the same run (best of the repetitions)."""
    name = "bench-check-" + uuid.uuid4().hex[:6]
    path = os.path.join(tmp, "checktrace")
    want = args.check_mb * 1e6
    subprocess.run(["lttng", "create", name, "--output=" + path], check=True,
                   capture_output=True)
    try:
        for cmd in (["enable-channel", "-u", "--session=" + name, "--subbuf-size=8M",
                     "--num-subbuf=8", "big"],
                    ["enable-event", "-u", "--session=" + name, "--channel=big", "ros2:*"],
                    ["add-context", "-u", "--session=" + name, "--channel=big", "-t", "vpid",
                     "-t", "vtid", "-t", "procname"],
                    ["start", name]):
            subprocess.run(["lttng"] + cmd, check=True, capture_output=True)
        flood = os.path.join(args.b, "bench", "caret-flood")
        for _ in range(60):
            if du(path) >= want:
                break
            subprocess.run([flood, "0.5", "2", "runtime"], check=True, capture_output=True)
        subprocess.run(["lttng", "stop", name], check=True, capture_output=True)
    finally:
        subprocess.run(["lttng", "destroy", name], capture_output=True)
    size = du(path)
    bt, ck = [], []
    for _ in range(args.check_reps):
        bt.append(timed(["babeltrace2", "--output-format=dummy", path]))
        # 6: incomplete (this flood has no init data, and may discard)
        # the 1 GB trace: babeltrace2 took 15 s quiet, more than caretctl
        # check's default 60 s limit on a loaded machine
        ck.append(timed([os.path.join(args.b, "bin", "caretctl"), "check", "--json",
                         "--timeout", "1800", path], ok_codes=(0, 6)))
    shutil.rmtree(path, ignore_errors=True)
    ratio = min(ck) / min(bt)
    return [row("P10", "caretctl check on a %.0f MB trace vs babeltrace2 --output-format=dummy"
                % (size / 1e6), "%.2f s" % min(ck), "%.2f s" % min(bt), "%.2fx" % ratio,
                "<= 1.5x", ratio <= 1.5,
                "best of %d runs each, interleaved; check %s, babeltrace2 %s" %
                (args.check_reps, ", ".join("%.2f" % x for x in ck),
                 ", ".join("%.2f" % x for x in bt)), num=dict(ratio=ratio))]


def micro(args):
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "bench", "micro", "micro.py"), "--b", args.b]
    if args.smoke:
        cmd.append("--quick")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stderr.write(out.stderr)
    rows = []
    for line in out.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        ref = m.get("reference")
        measured = m.get("value") is not None
        if not measured:
            value = "-"
        elif m["id"] == "P3":
            value = "%s instr, %.1f ns" % (m.get("instructions", "?"), m["value"])
        else:
            value = "%.2f ns" % m["value"]
        rows.append(row(m["id"], m["measure"], value,
                        "-" if ref is None else "%.2f ns (%s)" % (ref, m.get("ref_desc", "")),
                        "-" if m.get("ratio") is None else "%.2fx" % m["ratio"],
                        m["target"], m["met"], m.get("details", ""), measured,
                        num={k: v for k, v in m.items()
                             if isinstance(v, (int, float)) and k != "met"}))
    for id_ in ("P1", "P2", "P3", "P13"):
        if not any(r["id"] == id_ for r in rows):
            rows.append(row(id_, "micro-benchmark", "-", "-", "-", "-", False,
                            "micro.py exited %d without this row" % out.returncode,
                            measured=False))
    return rows


def table(rows):
    rows = sorted(rows, key=lambda r: ROW_IDS.index(r["id"]))
    lines = ["| id | measure | value | reference | ratio | target | result |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["id"], r["measure"], r["value"], r["reference"], r["ratio"], r["target"],
            result(r)))
    plain = ["%s  %s | %s | ref %s | %s | %s | %s" % (
        r["id"], r["measure"], r["value"], r["reference"], r["ratio"], r["target"],
        result(r)) for r in rows]
    return lines, plain, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--b", default=os.path.join(ROOT, "build"))
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: proves it runs")
    ap.add_argument("--procs", type=int, default=100)
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--idle", type=float, default=60.0,
                    help="seconds of P5's idle CPU measurement (issue 24: 60)")
    ap.add_argument("--flood", type=float, default=2.0)
    ap.add_argument("--check-mb", type=float, default=1000.0)
    ap.add_argument("--check-reps", type=int, default=1)
    ap.add_argument("--curve", default="25,100,400,1000",
                    help="N of the scaling curve (P6)")
    ap.add_argument("--curve-records", type=int, default=0,
                    help="init records per process of the scaling curve (default --records; "
                    "10,000 with --smoke)")
    ap.add_argument("--rot-procs", dest="rotation_procs", type=int, default=100, help="processes of P11")
    ap.add_argument("--rot-records", dest="rotation_records", type=int, default=2000,
                    help="init records per process of P11")
    ap.add_argument("--rot-every", dest="rotation_every", type=float, default=5.0,
                    help="P11's chunk interval, seconds (--rotate-every)")
    ap.add_argument("--rot-count", dest="rotation_count", type=int, default=5, help="P11's rotations measured")
    ap.add_argument("--snap-count", type=int, default=3,
                    help="P12's snapshots measured (P12 runs P11's processes and records)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--only", help="comma-separated groups: micro,scenario,scaling,reader,check,"
                    "rotation,snapshot")
    args = ap.parse_args()
    # a killed bench still stops its processes and its caretd (finally:)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    if args.smoke:
        args.procs, args.records, args.idle, args.flood = 3, 200, 2.0, 0.5
        args.check_mb, args.check_reps = 20.0, 2
        # the curve replays several pacing windows (1.5 MiB) with more
        # replaying processes than one tick wakes (24), so that the feedback
        # from the buffers runs as at full size: a pacing that waits for
        # packets it cannot see fails P6b's gate (seen: 2.07 s from Enter at
        # N = 48 for 0.063 s of bytes / drain; 0.1 s without that fault)
        args.curve = "6,48"
        args.curve_records = args.curve_records or 2000
        # P11: 2 s chunks (LTTng's rotation alone takes ~0.5 s here), 3
        # rotations measured
        args.rotation_procs, args.rotation_records, args.rotation_every, args.rotation_count = 6, 200, 2.0, 3
        # P12: 2 snapshots of those 6 processes
        args.snap_count = 2
    args.curve = [int(x) for x in args.curve.split(",")]
    args.curve_records = args.curve_records or args.records
    args.b = os.path.abspath(args.b)
    tmp = tempfile.mkdtemp(prefix="caret-bench-")
    load0, t_begin = os.getloadavg(), time.time()
    try:
        only = set(args.only.split(",")) if args.only else None
        rows, pts = [], []
        # a group that fails leaves its rows unmeasured (with the reason),
        # not the other groups' results unwritten
        def group(name, ids, fn):
            if only and name not in only:
                return None
            try:
                return fn()
            except (OSError, RuntimeError, ValueError, KeyError,
                    subprocess.SubprocessError) as e:
                log("%s failed: %s" % (name, e))
                rows.extend(row(i, name, "-", "-", "-", "-", False, "not measured: %s" %
                                str(e)[-300:], measured=False) for i in ids)
                return None
        rows += group("micro", (), lambda: micro(args)) or []
        rows += group("scenario", ("P4", "P4b", "P4c", "P5", "P7"),
                      lambda: scenario(args, tmp)) or []
        got = group("scaling", ("P6", "P6b"), lambda: scaling(args, tmp))
        if got:
            rows += got[0]
            pts = got[1]
        rows += group("reader", ("P8", "P9"), lambda: reader_rows(args)) or []
        rows += group("check", ("P10",), lambda: check_row(args, tmp)) or []
        rows += group("rotation", ("P11",), lambda: rotation_row(args, tmp)) or []
        rows += group("snapshot", ("P12",), lambda: snapshot_row(args, tmp)) or []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines, plain, rows = table(rows)
    print("\n".join(plain))
    m = machine()
    # read before the file is replaced: the curve drawn beside the new one
    prev, prev_when = previous_curve(args.out)
    with open(args.out, "w") as f:
        f.write("# caretd benchmark results\n\n")
        f.write("Produced by `make bench` (`bench/run.py`)%s on %s.\n\n" %
                (" in smoke mode (tiny sizes, not the targets' scenario)" if args.smoke else "",
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
        f.write("Machine: %s, %d cores, kernel %s, %s.\n\n" %
                (m["cpu"], m["cores"], m["kernel"], m["lttng"]))
        load1 = os.getloadavg()
        f.write("Machine load: load average %.2f / %.2f / %.2f (1 / 5 / 15 min) at the start, "
                "%.2f / %.2f / %.2f at the end, %.0f min later (the bench's own processes "
                "count in it: up to 1,000 stand-ins at the end of the curve).\n\n" %
                (load0 + load1 + ((time.time() - t_begin) / 60,)))
        f.write("Ratios are taken in one run; absolute times drift on shared machines.\n\n")
        f.write("\n".join(lines) + "\n\n")
        if pts:
            for p in pts:
                p["records"] = args.curve_records
            pic = os.path.splitext(args.out)[0] + "-scaling.svg"
            svg(pts, pic, prev, prev_when)
            f.write("Scaling curve (P6): ![time to RECORD against N](%s)\n\n" %
                    os.path.basename(pic))
            f.write("| N | session start (armed, before Enter) | Enter -> all in RECORD | "
                    "of which the go request | of which replay | armed + Enter | limit "
                    "(start alone + bytes / drain) | armed + Enter / limit | discarded | "
                    "trace MB | drain MB/s | caretd CPU s | caretd RSS MiB |\n")
            f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for p in pts:
                f.write("| %d | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s (%.3f + "
                        "%.3f) | %.2fx | %s | %.1f | %.0f | %.2f | %.1f |\n" %
                        (p["n"], p["arm"], p["total"], p["start"], p["replay"], p["immediate"],
                         p["limit"], p["base"], p["bytes"] / p["rate"],
                         p["immediate"] / p["limit"], p["discarded"], p["bytes"] / 1e6,
                         p["rate"] / 1e6, p["cpu_s"], p["rss_kib"] / 1024))
            f.write("\n")
        f.write("Details:\n\n")
        for r in rows:
            if r["details"]:
                f.write("- %s: %s\n" % (r["id"], r["details"]))
        # the analysis behind the numbers (why a target is not met, where
        # the time goes), written by hand next to this script
        notes = os.path.join(ROOT, "bench", "NOTES.md")
        if os.path.exists(notes) and not args.smoke:
            with open(notes) as fh:
                f.write("\n" + fh.read())
    log("results written to %s" % args.out)
    bad = unmeasured(rows)
    for b_ in bad:
        log("FAILED: " + b_)
    if args.smoke:
        # smoke sizes prove nothing about the targets, but a regression
        # beyond each row's margin fails (bench/gates.py)
        for r in rows:
            ok, text = gates.gate(r)
            print("gate %s: %s: %s" % (r["id"], "ok" if ok else "REGRESSED", text))
            if not ok:
                bad.append("%s regressed: %s" % (r["id"], text))
                log("FAILED: %s regressed: %s" % (r["id"], text))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
