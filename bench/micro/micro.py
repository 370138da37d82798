#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Micro-benchmarks P1-P3 and P13 of `make bench` (timing loops: caret-microbench).

  P1  WAIT-state runtime hook (agent preloaded, initialised, no session)
      versus libtracetools' own ros_trace_callback_start, no session.
  P2  RECORD-state runtime hook (agent -> tracetools -> ros2:callback_start)
      versus a bare lttng-ust tracepoint with the same payload
      (caret_micro:callback_start), each in a session of its own with the
      same channel and contexts; discarded events and event counts checked.
  P3  caret_seg_append of one rcl_publisher_init record (ns, and
      instructions from callgrind), plus caret_now_ns.
  P13 callback_start + callback_end through the agent while caretctl top
      watches the process (counted) versus unwatched; per hook against
      P2's RECORD-state hook.

Variants A and B alternate within every rep (AB, BA, ...); values are
medians over the reps. Prints one JSON object per benchmark on stdout,
progress on stderr. Cleans up its sessions, segments and temp dir.
"""
import argparse
import glob
import json
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# Per rep and variant: *_iters calls, interleaved with the other variant in
# chunks of *_chunk calls.
FULL = dict(p1_iters=20000000, p1_chunk=100000, p1_reps=7,
            p2_iters=300000, p2_chunk=10000, p2_reps=11, p2_drain_ms=150,
            p3_iters=2000000, p3_reps=7, pw_iters=2000000, pw_chunk=50000, pw_reps=7,
            cg_count=100000)
QUICK = dict(p1_iters=200000, p1_chunk=20000, p1_reps=3,
             p2_iters=5000, p2_chunk=1000, p2_reps=3, p2_drain_ms=20,
             p3_iters=20000, p3_reps=3, pw_iters=20000, pw_chunk=5000, pw_reps=3,
             cg_count=2000)

P1_TARGET, P2_TARGET = 1.10, 1.15
# issue 35: a hook while `caretctl top` watches, against the RECORD hook
P13_TARGET = 1.3
# P3 counts instructions (repeatable under load); the time is the second figure
P3_TARGET = 200.0


def log(msg):
    sys.stderr.write("micro: %s\n" % msg)
    sys.stderr.flush()


def emit(row):
    sys.stdout.write(json.dumps(row) + "\n")
    sys.stdout.flush()


def med(xs):
    return statistics.median(xs) if xs else None


class Failure(Exception):
    pass


class Bench:
    def __init__(self, b, quick, verbose=False):
        self.verbose = verbose
        self.b = os.path.abspath(b)
        self.cfg = QUICK if quick else FULL
        self.bin = os.path.join(self.b, "bench", "caret-microbench")
        self.agent = os.path.join(self.b, "lib", "libcaret-agent.so")
        self.tmp = tempfile.mkdtemp(prefix="caret-micro-")
        self.prefix = "caret-micro-%d" % os.getpid()
        self.lttng_home = os.path.join(self.tmp, "lttng-home")
        os.mkdir(self.lttng_home)
        self.sessions = []
        self.procs = []

    # ---- environment and clean-up ----

    def env(self, preload):
        e = dict(os.environ)
        for k in ("LD_PRELOAD", "CARET_AGENT_DISABLE", "CARET_AGENT_TP_LIB",
                  "CARET_AGENT_CACHE_SIZE"):
            e.pop(k, None)
        e["CARET_SHM_PREFIX"] = self.prefix
        e["RMW_IMPLEMENTATION"] = "rmw_cyclonedds_cpp"
        if preload:
            e["LD_PRELOAD"] = self.agent
        return e

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for s in list(self.sessions):
            self.destroy(s)
        for path in glob.glob("/dev/shm/%s.*" % self.prefix):
            try:
                os.unlink(path)
                log("removed leftover segment %s" % path)
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- helpers ----

    def lttng(self, *args, check=True):
        e = dict(os.environ)
        e["LTTNG_HOME"] = self.lttng_home  # keeps ~/.lttngrc untouched
        r = subprocess.run(["lttng"] + [str(a) for a in args], env=e, capture_output=True,
                           text=True, timeout=60)
        if check and r.returncode != 0:
            raise Failure("lttng %s: %s" % (" ".join(str(a) for a in args),
                                            (r.stderr or r.stdout).strip()[:200]))
        return r.stdout

    def destroy(self, s):
        try:
            self.lttng("destroy", s, check=False)
        except (OSError, subprocess.SubprocessError):
            pass
        if s in self.sessions:
            self.sessions.remove(s)

    def run_bin(self, args, preload, timeout, extra_env=None, prefix_cmd=()):
        env = self.env(preload)
        env.update(extra_env or {})
        cmd = list(prefix_cmd) + [self.bin] + [str(a) for a in args]
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, timeout=timeout)
        objs = []
        for line in r.stdout.splitlines():
            try:
                objs.append(json.loads(line))
            except ValueError:
                pass
        if r.returncode != 0:
            err = [o["error"] for o in objs if "error" in o]
            raise Failure("caret-microbench %s exited %d%s" % (
                args[0], r.returncode, (": " + err[0]) if err else ""))
        return objs

    def show_reps(self, id_, reps):
        if self.verbose:
            for o in reps:
                log("%s rep %d: %s" % (id_, o["rep"], " ".join(
                    "%s=%.3f" % (k, v) for k, v in o.items() if k != "rep")))

    @staticmethod
    def pick(objs, key):
        for o in objs:
            if key in o:
                return o[key]
        return None

    # ---- P1 ----

    def p1(self):
        c = self.cfg
        row = dict(id="P1", measure="WAIT-state runtime hook ros_trace_callback_start "
                   "(agent preloaded, no session)", value=None, unit="ns", reference=None,
                   ref_desc="libtracetools ros_trace_callback_start, no session, no agent",
                   ratio=None, target="<= %.2fx" % P1_TARGET, met=False, details="")
        try:
            # One rep per process, so that the reps also sample code layouts
            # (ASLR): at ~2 ns a call, where two functions land moves their
            # cost by up to ~15 % on this kind of vCPU. Every rep pairs a
            # preloaded process (A and B interleaved) with a process without
            # LD_PRELOAD (B only: the reference as literally specified).
            log("P1: %d reps (process pairs) x %d calls per variant"
                % (c["p1_reps"], c["p1_iters"]))
            reps, plain, problems = [], [], []
            args = ["p1", "--iters", c["p1_iters"], "--reps", 1, "--chunk", c["p1_chunk"]]
            for i in range(c["p1_reps"]):
                for pre in ((True, False) if i % 2 == 0 else (False, True)):
                    objs = self.run_bin(args + ["--only", 0 if pre else 2], pre, 120)
                    t = [x for x in objs if "rep" in x]
                    if not t:
                        raise Failure("no timing output")
                    if not pre:
                        plain.append(t[0]["b"])
                        continue
                    t[0]["rep"] = i
                    reps.append(t[0])
                    info = self.pick(objs, "info") or {}
                    if not info.get("agent"):
                        p = "agent not interposed (ros_trace_callback_start from %s)" % (
                            info.get("hook_lib"))
                    elif not info.get("segment"):
                        p = "agent has no segment"
                    elif info.get("state") != 1:
                        p = ("agent state %s, not WAIT (1): a session records ros2_caret "
                             "events" % info.get("state"))
                    elif info.get("real_enabled"):
                        p = ("a session enables ros2:callback_start in this process: not "
                             "the no-session case")
                    else:
                        p = None
                    if p and p not in problems:
                        problems.append(p)
            self.show_reps("P1", reps)
            if self.verbose:
                log("P1 without LD_PRELOAD: %s" % " ".join("%.3f" % x for x in plain))
            a, b = med([o["a"] for o in reps]), med([o["b"] for o in reps])
            rr = [o["ratio"] for o in reps]
            xb = med(plain)
            instr = "not measured (valgrind not found)"
            if shutil.which("valgrind"):
                log("P1: callgrind, instructions per call")
                try:
                    n = c["cg_count"]
                    calls = n + n // 10 + 1000  # the rep and the warm-up
                    ia, ib = (self.callgrind(["p1", "--iters", n, "--reps", 1], fn, True) / calls
                              for fn in ("time_calls_a", "time_calls_b"))
                    instr = "%.1f (hook) vs %.1f (direct) per call, loop included" % (ia, ib)
                    row.update(instr_hook=round(ia, 1), instr_direct=round(ib, 1))
                except (Failure, OSError, subprocess.SubprocessError) as e:
                    instr = "not measured: %s" % e
            row.update(value=round(a, 3), reference=round(b, 3), ratio=round(a / b, 3))
            row["met"] = not problems and a / b <= P1_TARGET
            row["details"] = (
                "%s%d reps x %d calls per variant, each rep a process of its own: A (agent "
                "hook, WAIT after ros_trace_rcl_init: two relaxed loads and branches, the "
                "state and watched words) and B "
                "(libtracetools' own function, what runs without LD_PRELOAD), each through "
                "a function pointer from a loop of its own, interleaved in chunks of %d "
                "calls; value/reference = medians over reps of the chunk medians; chunk-pair "
                "ratio per rep %.3f..%.3f (median %.3f); fastest chunks A %.3f, B %.3f ns; "
                "literal reference, direct call in %d processes without LD_PRELOAD (each "
                "next to a rep): %.3f ns, A/that = %.3fx; callgrind: %s; spread over "
                "this run's processes: A %.3f..%.3f ns, B %.3f..%.3f ns, without "
                "LD_PRELOAD %.3f..%.3f ns" % (
                    "NOT MEASURABLE AS SPECIFIED: %s; " % "; ".join(problems) if problems else "",
                    len(reps), c["p1_iters"], c["p1_chunk"], min(rr), max(rr), med(rr),
                    min(o["amin"] for o in reps), min(o["bmin"] for o in reps),
                    len(plain), xb, a / xb, instr,
                    min(o["a"] for o in reps), max(o["a"] for o in reps),
                    min(o["b"] for o in reps), max(o["b"] for o in reps),
                    min(plain), max(plain)))
        except (Failure, OSError, subprocess.SubprocessError, KeyError, ZeroDivisionError) as e:
            row["details"] = "not measured: %s" % e
        emit(row)

    # ---- P2 ----

    def session(self, name, event, pid):
        out = os.path.join(self.tmp, name)
        self.lttng("create", name, "--output=" + out)
        self.sessions.append(name)
        self.lttng("enable-channel", "-u", "-s", name, "ch", "--subbuf-size=8M",
                   "--num-subbuf=8")
        self.lttng("add-context", "-u", "-s", name, "-c", "ch",
                   "-t", "vpid", "-t", "vtid", "-t", "procname")
        self.lttng("enable-event", "-u", "-s", name, "-c", "ch", event)
        self.lttng("untrack", "-u", "-s", name, "--vpid", "--all")
        self.lttng("track", "-u", "-s", name, "--vpid=%d" % pid)
        return out

    def finish_session(self, name, out):
        """Stops, returns (discarded, lost packets, events counted or None)."""
        self.lttng("stop", name)
        listing = self.lttng("list", name)
        disc = sum(int(x) for x in re.findall(r"Discarded events:\s*(\d+)", listing))
        lost = sum(int(x) for x in re.findall(r"Lost packets:\s*(\d+)", listing))
        count = None
        if shutil.which("babeltrace2"):
            r = subprocess.run(["babeltrace2", out, "-c", "sink.utils.counter",
                                "-p", "step=+0"], capture_output=True, text=True, timeout=300)
            ev = re.findall(r"^\s*(\d+) Event messages", r.stdout, re.M)
            dm = re.findall(r"^\s*(\d+) Discarded event messages", r.stdout, re.M)
            if r.returncode == 0 and ev:
                count = int(ev[-1])
                disc = max(disc, int(dm[-1]) if dm else 0)
        self.destroy(name)
        shutil.rmtree(out, ignore_errors=True)
        return disc, lost, count

    @staticmethod
    def readline(p, deadline):
        buf = b""
        fd = p.stdout.fileno()
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("caret-microbench p2 did not answer in time")
            r, _, _ = select.select([fd], [], [], left)
            if r:
                ch = os.read(fd, 1)
                if not ch:
                    return buf.decode() if buf else None
                buf += ch
        return buf.decode()

    def p2(self):
        c = self.cfg
        row = dict(id="P2", measure="RECORD-state runtime hook: agent -> tracetools -> "
                   "ros2:callback_start", value=None, unit="ns", reference=None,
                   ref_desc="bare lttng-ust tracepoint, same payload (caret_micro:callback_start)",
                   ratio=None, target="<= %.2fx" % P2_TARGET, met=False, details="")
        try:
            if not shutil.which("lttng"):
                raise Failure("lttng CLI not found")
            self.lttng("list")  # a session daemon answers
            log("P2: %d reps x %d events per variant" % (c["p2_reps"], c["p2_iters"]))
            p = subprocess.Popen([self.bin, "p2", "--iters", str(c["p2_iters"]),
                                  "--reps", str(c["p2_reps"]), "--chunk", str(c["p2_chunk"]),
                                  "--drain-ms", str(c["p2_drain_ms"])],
                                 env=self.env(True), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE)
            self.procs.append(p)
            objs = []
            deadline = time.monotonic() + 30
            while True:
                line = self.readline(p, deadline)
                if line is None:
                    raise Failure("caret-microbench p2 exited early (%s)" % p.wait())
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                objs.append(o)
                if "ready" in o:
                    break
            pid = o["ready"]
            names = {"a": "caret-micro-%d-a" % os.getpid(), "b": "caret-micro-%d-b" % os.getpid()}
            outs = {"a": self.session(names["a"], "ros2:callback_start", pid),
                    "b": self.session(names["b"], "caret_micro:callback_start", pid)}
            for k in ("a", "b"):
                self.lttng("start", names[k])
            p.stdin.write(b"go\n")
            p.stdin.flush()
            budget = 60 + c["p2_reps"] * (2 * c["p2_iters"] * 2e-6 + 3 * c["p2_drain_ms"] / 1e3)
            deadline = time.monotonic() + budget
            while True:
                line = self.readline(p, deadline)
                if line is None:
                    break
                try:
                    objs.append(json.loads(line))
                except ValueError:
                    pass
            rc = p.wait(timeout=30)
            err = self.pick(objs, "error")
            if rc != 0 or err:
                raise Failure("caret-microbench p2 exited %d%s" % (rc, ": " + err if err else ""))
            log("P2: stopping sessions, counting events")
            res = {k: self.finish_session(names[k], outs[k]) for k in ("a", "b")}
            reps = [o for o in objs if "rep" in o]
            self.show_reps("P2", reps)
            calls = {"a": self.pick(objs, "calls_a"), "b": self.pick(objs, "calls_b")}
            a, b = med([o["a"] for o in reps]), med([o["b"] for o in reps])
            rr = [o["ratio"] for o in reps]
            problems = []
            for k in ("a", "b"):
                disc, lost, count = res[k]
                if disc or lost:
                    problems.append("variant %s lost events (discarded %d, lost packets %d)"
                                    % (k.upper(), disc, lost))
                if count is None:
                    problems.append("variant %s: events not counted (babeltrace2)" % k.upper())
                elif count != calls[k]:
                    problems.append("variant %s: %d events recorded for %d calls"
                                    % (k.upper(), count, calls[k]))
            cg = self.p2_instructions()
            if cg:
                row.update(instr_record=cg[0], instr_real=cg[1])
                cg_text = ("callgrind, no session: %.1f instructions per event through the "
                           "agent in RECORD (agent -> tracetools, the tracepoint's disabled "
                           "branch; loop included), of which libtracetools' own function "
                           "%.1f; " % cg)
            else:
                cg_text = "instructions not measured; "
            row.update(value=round(a, 3), reference=round(b, 3), ratio=round(a / b, 3),
                       discarded=sum(res[k][0] + res[k][1] for k in ("a", "b")),
                       counted=all(res[k][2] == calls[k] for k in ("a", "b")))
            row["met"] = not problems and a / b <= P2_TARGET
            self.p2_value = None if problems else a
            row["details"] = cg_text + (
                "%s%d reps x %d events per variant, A and B in one process interleaved in "
                "chunks of %d, each event in a session of its own (channel 8M x 8 "
                "sub-buffers, contexts vpid/vtid/procname, vpid-tracked), %d ms pause after "
                "each rep so the consumer drains; value/reference = medians over reps of "
                "the chunk medians; median chunk-pair ratio per rep %.3f..%.3f (median "
                "%.3f); means A %.1f, B %.1f ns; discarded A %d, B %d; events recorded "
                "A %s/%d, B %s/%d" % (
                    "PROBLEM: %s; " % "; ".join(problems) if problems else "",
                    len(reps), c["p2_iters"], c["p2_chunk"], c["p2_drain_ms"], min(rr),
                    max(rr), med(rr), med([o["amean"] for o in reps]),
                    med([o["bmean"] for o in reps]), res["a"][0], res["b"][0],
                    res["a"][2], calls["a"], res["b"][2], calls["b"]))
        except (Failure, OSError, subprocess.SubprocessError, KeyError, TypeError,
                ZeroDivisionError) as e:
            row["details"] = "not measured: %s" % e
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for s in list(self.sessions):
            self.destroy(s)
        emit(row)

    def p2_instructions(self):
        """(agent hook, libtracetools' own) instructions per call in
        RECORD without a session, or None."""
        if not shutil.which("valgrind"):
            return None
        n = self.cfg["cg_count"]
        try:
            out = []
            for only in (1, 2):
                c = [self.callgrind(["p2count", "--count", k, "--only", only], "record_loop",
                                    True) for k in (n, 0)]
                out.append(round((c[0] - c[1]) / n, 1))
            return tuple(out)
        except (Failure, OSError, subprocess.SubprocessError) as e:
            log("P2: callgrind: %s" % e)
            return None

    # ---- P13 ----

    def p13(self):
        """caretctl top's cost: a callback_start + callback_end pair through
        the agent in WAIT while its segment is watched (counted) and not,
        per hook against P2's RECORD hook of the same run."""
        c = self.cfg
        row = dict(id="P13", measure="watched runtime hook (caretctl top counting): "
                   "callback_start + callback_end through the agent, per hook",
                   value=None, unit="ns", reference=None,
                   ref_desc="the RECORD-state hook, P2's value", ratio=None,
                   target="<= %.2fx" % P13_TARGET, met=False, details="")
        try:
            log("P13: %d reps x %d pairs per variant" % (c["pw_reps"], c["pw_iters"]))
            objs = self.run_bin(["pw", "--iters", c["pw_iters"], "--reps", c["pw_reps"],
                                 "--chunk", c["pw_chunk"]], True, 300)
            reps = [o for o in objs if "rep" in o]
            if not reps:
                raise Failure("no timing output")
            self.show_reps("P13", reps)
            a, b = med([o["a"] for o in reps]), med([o["b"] for o in reps])
            instr = "not measured (valgrind not found)"
            if shutil.which("valgrind"):
                n = c["cg_count"]
                calls = n + n // 10 + 1000  # the rep and the warm-up
                iw, iu = (self.callgrind(["pw", "--iters", n, "--reps", 1, "--chunk", n], fn,
                                         True) / calls
                          for fn in ("time_pairs_watched", "time_pairs_unwatched"))
                row.update(instr_watched=round(iw, 1), instr_unwatched=round(iu, 1))
                instr = "%.1f watched vs %.1f unwatched per pair, loop included" % (iw, iu)
            ref = getattr(self, "p2_value", None)
            row.update(value=round(a / 2, 3), pair_watched=round(a, 3),
                       pair_unwatched=round(b, 3))
            if ref:
                row.update(reference=round(ref, 3), ratio=round(a / 2 / ref, 3))
                row["met"] = a / 2 / ref <= P13_TARGET
            row["details"] = (
                "%s%d reps x %d pairs per variant in one process, interleaved in chunks of "
                "%d, the watched word set before each chunk: a pair %.2f ns watched (two "
                "clock reads, the slot's count, total, histogram and max), %.2f ns "
                "unwatched (%.2fx); value = half a watched pair; callgrind: %s" % (
                    "" if ref else "NO REFERENCE: P2 not measured in this run; ",
                    len(reps), c["pw_iters"], c["pw_chunk"], a, b, a / b, instr))
        except (Failure, OSError, subprocess.SubprocessError, KeyError,
                ZeroDivisionError) as e:
            row["details"] = "not measured: %s" % e
        emit(row)

    # ---- P3 ----

    def callgrind(self, args, toggle, preload=False):
        """Instructions executed inside `toggle` (and its callees)."""
        out = os.path.join(self.tmp, "callgrind.out")
        self.run_bin(args, preload, 300, extra_env={"LTTNG_UST_REGISTER_TIMEOUT": "0"},
                     prefix_cmd=("valgrind", "--tool=callgrind", "-q",
                                 "--toggle-collect=" + toggle,
                                 "--callgrind-out-file=" + out))
        with open(out) as f:
            m = re.findall(r"^totals:\s*(\d+)", f.read(), re.M)
        os.unlink(out)
        if not m:
            raise Failure("no totals in callgrind output")
        return int(m[-1])

    def p3(self):
        c = self.cfg
        row = dict(id="P3", measure="capture of one rcl_publisher_init record into the "
                   "cache (caret_seg_append, without emission)", value=None, unit="ns",
                   reference=None, ref_desc=None, ratio=None, instructions=None,
                   target="<= %.0f instructions" % P3_TARGET, met=False, details="")
        try:
            log("P3: %d reps x %d captures" % (c["p3_reps"], c["p3_iters"]))
            objs = self.run_bin(["p3", "--iters", c["p3_iters"], "--reps", c["p3_reps"]],
                                False, 300)
            reps = [o for o in objs if "rep" in o]
            if not reps:
                raise Failure("no timing output")
            self.show_reps("P3", reps)
            info = self.pick(objs, "info") or {}
            m = {k: med([o[k] for o in reps]) for k in ("fresh", "warm", "clock", "both")}
            row["value"] = round(m["fresh"], 2)
            instr, why = None, ""
            if shutil.which("valgrind"):
                log("P3: callgrind, %d captures and 0" % c["cg_count"])
                try:
                    n = c["cg_count"]
                    instr = round((self.callgrind(["p3count", "--count", n], "capture_loop") -
                                   self.callgrind(["p3count", "--count", 0], "capture_loop"))
                                  / n, 1)
                except (Failure, OSError, subprocess.SubprocessError) as e:
                    why = "instructions not measured: %s; " % e
            else:
                why = "instructions not measured: valgrind not found; "
            row["instructions"] = instr
            row["met"] = instr is not None and instr <= P3_TARGET
            row["details"] = (
                "%s%d reps x %d captures of a %s-byte record (3 pointers, \"/standin/topic_0\","
                " depth 10), each rep into a new sparse segment (first touch of its pages "
                "included); pre-faulted pages %.1f ns; caret_now_ns %.1f ns; capture + clock "
                "(the agent's path before emission) %.1f ns; callgrind: %s instructions per "
                "capture (N=%d minus N=0, collection toggled on the capture loop, so the "
                "loop and call site are included)" % (
                    why, len(reps), c["p3_iters"], info.get("record_bytes", "?"), m["warm"],
                    m["clock"], m["both"], instr, c["cg_count"]))
        except (Failure, OSError, subprocess.SubprocessError, KeyError) as e:
            row["details"] = "not measured: %s" % e
        emit(row)


def on_signal(signum, frame):
    raise SystemExit(128 + signum)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--b", default="build", help="build directory (default: build)")
    ap.add_argument("--quick", action="store_true",
                    help="tiny iteration counts: proves it runs, measures nothing")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="log every rep's timings to stderr")
    args = ap.parse_args()
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)
    bench = Bench(args.b, args.quick, args.verbose)
    t0 = time.monotonic()
    try:
        if not os.access(bench.bin, os.X_OK):
            for id_ in ("P1", "P2", "P3", "P13"):
                emit(dict(id=id_, measure="micro-benchmark", value=None, unit="ns",
                          reference=None, ref_desc=None, ratio=None, target="-", met=False,
                          details="not measured: %s missing (make %s)" % (bench.bin, bench.bin)))
            return 1
        bench.p1()
        bench.p2()
        bench.p3()
        bench.p13()
    finally:
        bench.cleanup()
    log("done in %.1f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
