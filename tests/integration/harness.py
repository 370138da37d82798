# SPDX-License-Identifier: Apache-2.0
"""Helpers for integration tests: real lttng-sessiond sessions (driven with
the lttng CLI, as a user would), real workload processes with the agent
preloaded, and traces read back with babeltrace2's Python bindings."""
import collections
import functools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ISOLATED = os.path.join(ROOT, "tools", "isolated.sh")


def _ns(kind, pid="self"):
    try:
        return os.readlink("/proc/%s/ns/%s" % (pid, kind))
    except OSError:
        return None


def isolated():
    """True when this process runs where tools/isolated.sh put it: its own
    mount and network namespaces, with a session daemon of its own."""
    return (os.environ.get("CARET_ISOLATED_MNTNS") == _ns("mnt") and
            os.environ.get("CARET_ISOLATED_NETNS") == _ns("net") and
            _ns("mnt") is not None)


# Every test starts sessions, kills daemons and joins DDS domains: never on
# the machine's own tracer or network. A test module run by hand
# (`python3 test_x.py`) re-runs itself inside tools/isolated.sh.
if not isolated():
    if os.environ.get("CARET_ISOLATED_MNTNS"):
        sys.exit("harness: CARET_ISOLATED_MNTNS is set but this process is not in that "
                 "namespace; refusing to run against a tracer that is not the test's own")
    sys.stdout.flush()
    os.execv(ISOLATED, [ISOLATED] + list(sys.orig_argv))

import bt2  # noqa: E402

B = os.path.join(ROOT, os.environ.get("B", "build"))
SAN = os.environ.get("SAN") == "1"
BIN = os.path.join(B, "bin")
LIB = os.path.join(B, "lib")
AGENT = os.path.join(LIB, "libcaret-agent.so")
STANDIN = os.path.join(BIN, "caret-standin")
AGENTCTL = os.path.join(BIN, "caret-agentctl")
FORKER = os.path.join(B, "tests", "forker")
INITMAKER = os.path.join(B, "tests", "initmaker")
CARETD = os.path.join(BIN, "caretd")
CARETCTL = os.path.join(BIN, "caretctl")
# An integration module needs programs `make` alone does not build (`make
# test-programs` and integration-check do): one run by hand says so rather
# than failing deep inside a test. (The ros2 suite and the benches import
# this file too, with their own make targets.)
_MISSING = [p for p in (CARETD, CARETCTL, AGENT, STANDIN, FORKER, INITMAKER,
                        os.path.join(B, "bench", "caret-flood"),
                        os.path.join(B, "tests", "caret-ddspeer"))
            if not os.path.exists(p)]
if _MISSING and os.path.dirname(os.path.abspath(sys.argv[0])) == os.path.dirname(
        os.path.abspath(__file__)):
    sys.exit("harness: %s not built: run `make %stest-programs` first"
             % (", ".join(os.path.relpath(p, ROOT) for p in _MISSING),
                "SAN=1 " if SAN else ""))

# The kinds and state names, generated from proto/caret_segment.h at build time.
sys.path.insert(0, os.path.join(B, "gen"))
import caret_kinds  # noqa: E402

INIT_KINDS = caret_kinds.INIT_KINDS
STATES = caret_kinds.STATES
KIND_IDS = {k[1]: k[0] for k in caret_kinds.KINDS}
# Ours alone (agent/tp/caret_tp.h): each replay pass's record counts, for
# `caretctl check`; caret_analyze never reads them.
PASS_MARKS = frozenset(("ros2_caret:caret_replay_begin", "ros2_caret:caret_replay_end"))


RUNTIME_ROS2 = ["callback_start", "callback_end", "rclcpp_publish", "rcl_publish",
                "rmw_take", "rclcpp_intra_publish", "rcl_lifecycle_transition"]


def dds_domain(n):
    """A DDS domain for index n, 1..99: CycloneDDS's ports are 7400 + 250 *
    domain + ..., and above domain ~100 they fall in Linux's ephemeral
    range (32768-60999), where any outgoing socket may already hold one."""
    return 1 + n % 99


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def ros_env(prefix):
    """The environment `source PREFIX/setup.bash` gives, as a user has it, for a real ROS 2
    process (ROS_DISTRO is the caller's: a test may leave it unset on purpose)."""
    out = subprocess.run(["bash", "-c", 'source "$0/setup.bash" && env -0', prefix],
                         capture_output=True, check=True, timeout=60).stdout
    env = {}
    for item in out.split(b"\0"):
        if b"=" in item:
            k, v = item.split(b"=", 1)
            env[k.decode()] = v.decode()
    keep = ("LD_LIBRARY_PATH", "AMENT_PREFIX_PATH", "PYTHONPATH", "PATH", "CMAKE_PREFIX_PATH",
            "COLCON_PREFIX_PATH", "ROS_VERSION", "ROS_PYTHON_VERSION")
    return {k: v for k, v in env.items() if k in keep}


def real_ros_asan(env, ctx):
    """Under SAN=1, the ASan options for a real ROS 2 process with the agent: rclcpp's allocator
    adapter frees what rcutils_string_map_init allocated through it with a sized delete of 1
    byte (rcl_resolve_name, Humble and Jazzy; rclpy's Destroyable too): upstream's own
    new-delete type mismatch, the one check turned off. Everything else ASan checks stays on."""
    if SAN:
        env["ASAN_OPTIONS"] = ctx.env(agent=False)["ASAN_OPTIONS"] + ":new_delete_type_mismatch=0"
    return env


@functools.lru_cache(maxsize=None)
def asan_preload():
    """The sanitizer runtime to preload before the ASan-built agent (asked
    of gcc once, not at every spawn)."""
    if not SAN:
        return ""
    out = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return out + " "


class Ctx:
    """One test's isolation: its own shm prefix, DDS domain and temp dir."""

    def __init__(self, name):
        self.tag = "%s-%s" % (name, uuid.uuid4().hex[:6])
        self.prefix = "caret-it-" + uuid.uuid4().hex[:8]
        self.domain = str(dds_domain(os.getpid() + hash(self.tag)))
        self.tmp = tempfile.mkdtemp(prefix="caret-it-")
        self.procs = []
        self.sessions = []

    def env(self, agent=True, extra=None):
        env = dict(os.environ)
        env["CARET_SHM_PREFIX"] = self.prefix
        env["ROS_DISTRO"] = env.get("ROS_DISTRO", "jazzy")
        # caretd's DDS bridge stays in this test's own domain
        env["ROS_DOMAIN_ID"] = self.domain
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
        if agent:
            env["LD_PRELOAD"] = asan_preload() + AGENT
        if extra:
            env.update(extra)
        return env

    def spawn(self, args, agent=True, extra_env=None, **kw):
        p = Proc(args, self.env(agent, extra_env), **kw)
        self.procs.append(p)
        return p

    def workload(self, *args, agent=True, extra_env=None):
        return self.spawn([STANDIN, "--domain", self.domain] + list(args), agent, extra_env)

    def session(self, events=("ros2:*", "ros2_caret:*")):
        s = Session(self.tag + "-" + str(len(self.sessions)),
                    os.path.join(self.tmp, "trace%d" % len(self.sessions)), events)
        self.sessions.append(s)
        return s

    def caretd(self, *args, socket_path=None):
        """Starts a caretd of this test's own (own socket, own segments)."""
        self.sock = socket_path or os.path.join(self.tmp, "caretd.sock")
        d = self.spawn([CARETD, "--socket", self.sock, "--log-level", "debug"] + list(args),
                       agent=False)
        self.wait_socket(d)
        return d

    def wait_socket(self, proc, timeout=10):
        """Until self.sock exists (caretd, or whatever proc runs it, listens);
        fails when proc exits first."""
        deadline = time.time() + timeout
        while not os.path.exists(self.sock):
            if proc.poll() is not None or time.time() > deadline:
                raise AssertionError("caretd did not start: " + proc.err_text())
            time.sleep(0.02)

    def caretd_without_sessiond(self, name, extra_env=None):
        """caretd on socket `name` in a mount namespace whose /run/lttng is
        empty: no session daemon to reach."""
        self.sock = os.path.join(self.tmp, name)
        script = ("mount --make-rprivate / && mount -t tmpfs none /run/lttng && "
                  "exec %s --socket %s" % (CARETD, self.sock))
        d = self.spawn(["unshare", "-m", "sh", "-c", script], agent=False, extra_env=extra_env)
        self.wait_socket(d)
        return d

    def caretctl(self, *args, check=True, timeout=120, background=False):
        argv = [CARETCTL, "--socket", self.sock] + list(args)
        if background:
            return self.spawn(argv, agent=False)
        r = subprocess.run(argv, env=self.env(agent=False), capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError("caretctl %s failed (%d): %s%s" %
                                 (" ".join(args), r.returncode, r.stdout, r.stderr))
        return r

    def arm(self, *args):
        """`caretctl record ARGS` armed: running, once it asks for Enter."""
        rec = subprocess.Popen([CARETCTL, "--socket", self.sock, "record"] + list(args),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=self.env(agent=False))
        line = line_past_progress(rec.stdout)
        if "press Enter to start recording" not in line:
            rec.kill()
            raise AssertionError("record %s did not arm: %s%s" %
                                 (" ".join(args), line, rec.stdout.read()))
        return rec

    @staticmethod
    def enter_then_stop(rec, hold=0.0):
        """Enter on an armed record (arm()); once it records, hold seconds,
        then Enter again to stop it: (CLOCK_MONOTONIC ns of the first Enter,
        its whole output). Fails unless it exits 0."""
        t_enter = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        rec.stdin.write("\n")
        rec.stdin.flush()
        out = ""
        deadline = time.time() + 60
        while "press Enter or Ctrl-C to stop" not in out and time.time() < deadline:
            line = rec.stdout.readline()
            if not line:
                break
            out += line
        time.sleep(hold)
        rec.stdin.write("\n")
        rec.stdin.close()
        out += rec.stdout.read()
        rec.stdout.close()
        rc = rec.wait(60)
        if rc != 0:
            raise AssertionError("record exited %d: %s" % (rc, out))
        return t_enter, out

    def agents(self):
        import json
        return {a["pid"]: a for a in
                json.loads(self.caretctl("list", "--json").stdout)["agents"]}

    def wait_states(self, pids, state, timeout=20):
        # all() of nothing is true: an empty pid list would wait for nothing
        if not pids:
            raise AssertionError("wait_states: no pids to wait for")
        if state not in STATES.values():
            raise AssertionError("wait_states: %r is not a state (%s)" %
                                 (state, ", ".join(STATES.values())))
        deadline = time.time() + timeout
        while True:
            ag = self.agents()
            if all(p in ag and ag[p]["state"] == state for p in pids):
                return ag
            if time.time() > deadline:
                raise AssertionError("agents not all %s: %r" % (state, ag))
            time.sleep(0.05)

    def wait_any_state(self, state, pid=None, timeout=10):
        """Until some agent (or the agent `pid`) is in `state`."""
        if state not in STATES.values():
            raise AssertionError("wait_any_state: %r is not a state" % state)
        deadline = time.time() + timeout
        while True:
            ag = self.agents()
            if any(a["state"] == state for p, a in ag.items() if pid in (None, p)):
                return ag
            if time.time() > deadline:
                raise AssertionError("no agent%s in %s: %r" %
                                     ("" if pid is None else " %d" % pid, state, ag))
            time.sleep(0.02)

    def segments(self):
        return sorted(n for n in os.listdir("/dev/shm") if n.startswith(self.prefix + "."))

    def agentctl(self, *args, check=True, timeout=60):
        r = subprocess.run([AGENTCTL] + list(args), env=self.env(agent=False),
                           capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError("caret-agentctl %s failed (%d): %s" %
                                 (" ".join(args), r.returncode, r.stderr))
        return r

    def cleanup(self):
        for p in self.procs:
            stop_proc(p, 5)
        for s in self.sessions:
            s.destroy()
        for n in self.segments():
            try:
                os.unlink(os.path.join("/dev/shm", n))
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)


class Proc(subprocess.Popen):
    """A child whose stdout and stderr are collected by threads, so a test
    can wait for a line without blocking on a pipe."""

    def __init__(self, args, env, **kw):
        super().__init__(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, **kw)
        self.lines, self.errs, self.eof = [], [], False
        self.cv = threading.Condition()
        self.pumps = [threading.Thread(target=self._pump, daemon=True),
                      threading.Thread(target=self._pump_err, daemon=True)]
        for t in self.pumps:
            t.start()

    def _pump(self):
        for line in self.stdout:
            with self.cv:
                self.lines.append(line)
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def _pump_err(self):
        for line in self.stderr:
            self.errs.append(line)

    def out_text(self):
        with self.cv:
            return "".join(self.lines)

    def err_text(self):
        return "".join(self.errs)

    def finish(self, timeout=30):
        """Waits for exit; returns the exit status."""
        rc = self.wait(timeout)
        self.close_pipes()
        return rc

    def close_pipes(self):
        # a grandchild may hold the pipes open: do not wait for it forever
        for t in self.pumps:
            t.join(5)
        for f in (self.stdout, self.stderr):
            if not any(t.is_alive() for t in self.pumps):
                f.close()


def start_helpers(caretd_pid):
    """The pids of a caretd's LTTng start helpers (its children in that
    mode: daemon/lttng/lttng_start.c)."""
    out = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == caretd_pid and b"--lttng-start-helper" in cmd:
            out.append(int(pid))
    return out


def own_sessiond():
    """The PID of the session daemon tools/isolated.sh started for this test
    run (or one the test started in its place), read from /run/lttng as
    LTTng writes it; raises unless that process is an lttng-sessiond in this
    private mount namespace, so a test never signals the machine's own."""
    with open("/run/lttng/lttng-sessiond.pid") as f:
        # lttng-sessiond 2.13 rewrites its pid file without truncating it:
        # after a restart a shorter pid leaves the old one's tail.
        pid = int(f.readline())
    try:
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().strip()
    except OSError:
        comm = None
    if not isolated() or comm != "lttng-sessiond" or _ns("mnt", pid) != _ns("mnt"):
        raise AssertionError("pid %d (%s) is not this test's own lttng-sessiond" % (pid, comm))
    return pid


def lttng(*args):
    r = subprocess.run(["lttng"] + list(args), capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError("lttng %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
    return r.stdout


class Session:
    def __init__(self, name, path, events):
        self.name, self.path, self.alive = name, path, True
        lttng("create", name, "--output=" + path)
        for ev in events:
            lttng("enable-event", "--userspace", "--session=" + name, ev)
        lttng("add-context", "--userspace", "--session=" + name,
              "-t", "vpid", "-t", "vtid", "-t", "procname")

    def start(self):
        lttng("start", self.name)

    def stop(self):
        lttng("stop", self.name)

    def destroy(self):
        if self.alive:
            self.alive = False
            subprocess.run(["lttng", "destroy", self.name], capture_output=True, timeout=60)


class Event:
    __slots__ = ("name", "ts", "f", "ctx")

    def __init__(self, name, ts, f, ctx):
        self.name, self.ts, self.f, self.ctx = name, ts, f, ctx

    @property
    def vpid(self):
        return self.ctx.get("vpid")

    def __repr__(self):
        return "%s@%d%s%s" % (self.name, self.ts, self.ctx, self.f)


def _val(field):
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, (bt2._SignedIntegerFieldConst, bt2._UnsignedIntegerFieldConst)):
        return int(field)
    if isinstance(field, bt2._ArrayFieldConst):
        return [_val(x) for x in field]
    return field


def read_trace(path):
    """All events of a trace, in time order; ts is the raw clock value
    (CLOCK_MONOTONIC ns for LTTng UST)."""
    events = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        payload = {k: _val(v) for k, v in ev.payload_field.items()} if ev.payload_field else {}
        ctx = {}
        if ev.common_context_field is not None:
            ctx = {k: _val(v) for k, v in ev.common_context_field.items()}
        events.append(Event(ev.name, msg.default_clock_snapshot.value, payload, ctx))
    return events



# caretctl's progress while LTTng starts a session (tools/caretctl/
# record_start.c): on stderr, a second after the request, so on a loaded
# machine it may come before the line a test reads first.
PROGRESS = re.compile(r"^(caretctl: )?LTTng is starting (the|another) session")


def line_past_progress(stream):
    """The next line of a caretctl's output that is not start progress."""
    while True:
        line = stream.readline()
        if not line or not PROGRESS.match(line):
            return line


def wait_line(proc, pattern, timeout=20):
    """Waits until a line of proc's stdout matches; returns the match."""
    deadline = time.time() + timeout
    rx = re.compile(pattern)
    i = 0
    while True:
        with proc.cv:
            while i >= len(proc.lines) and not proc.eof and time.time() < deadline:
                proc.cv.wait(0.1)
            lines, eof = list(proc.lines), proc.eof
        while i < len(lines):
            m = rx.search(lines[i])
            i += 1
            if m:
                return m
        if eof or time.time() >= deadline:
            raise AssertionError("no line matching %r within %ss; got %r; stderr %r" %
                                 (pattern, timeout, lines, proc.err_text()))


def parse_counts(line):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def wait_err(proc, pattern, start=0, timeout=15):
    """Waits for a stderr line of proc (a caretd log) matching pattern,
    among the lines after index start; returns the match."""
    rx = re.compile(pattern)
    deadline = time.time() + timeout
    while True:
        for line in list(proc.errs)[start:]:
            m = rx.search(line)
            if m:
                return m
        if time.time() > deadline or proc.poll() is not None:
            raise AssertionError("no log line matching %r within %ss; log:\n%s" %
                                 (pattern, timeout, "".join(proc.errs[start:])[-4000:]))
        time.sleep(0.05)


def release_after_restart(sock, rec, session):
    """A recorder's hold released (as its exit 4 does) once it held its
    recording again after a caretd restart: killed then, its recording runs
    on (killed while held, caretd stops it; issue 34)."""
    wait_err(rec, r"holding session %s again" % re.escape(session), timeout=30)
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock)
        s.sendall(json.dumps({"v": 1, "cmd": "hold", "session": session,
                              "release": True}).encode() + b"\n")
        reply = json.loads(s.makefile().readline())
    if reply.get("held") is not False:
        raise AssertionError("release of %s: %r" % (session, reply))


def stop_proc(p, timeout):
    """Ends a Proc the test started: SIGTERM, SIGKILL after timeout
    seconds; its pipes closed."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    p.close_pipes()


def dumps(tc, agentctl, procs):
    """Each process's cache, as caret-agentctl dumps it (agentctl(*args)
    runs it): {pid: Counter((kind, init_timestamp))}."""
    out = {}
    for p in procs:
        lines = agentctl("dump", str(p.pid)).stdout.splitlines()
        out[p.pid] = collections.Counter(
            re.match(r"(\w+) ts=(-?\d+)", l).groups() for l in lines)
        tc.assertGreater(len(lines), 5)
    return out


def kind_of(e):
    """An event's name without its provider: rcl_node_init."""
    return e.name.split(":", 1)[1]


class SystemTest(unittest.TestCase):
    """A test with its own Ctx, a trace directory and a small workload."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.traces = os.path.join(self.c.tmp, "traces")

    def tearDown(self):
        self.c.cleanup()

    def system(self, n=3, extra=()):
        """n workload processes: one subscriber, n-1 publishers."""
        procs = [self.c.workload("--name", "sub0", "--pubs", "0", "--subs", "2", *extra)]
        for i in range(1, n):
            procs.append(self.c.workload("--name", "pub%d" % i, "--pubs", "2", "--rate", "40",
                                         "--services", "1", *extra))
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        return procs

    def dumps(self, procs):
        return dumps(self, self.c.agentctl, procs)
