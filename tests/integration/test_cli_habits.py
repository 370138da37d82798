# SPDX-License-Identifier: Apache-2.0
"""What a CARET or `ros2 trace` user types works (issue 33, CLI items):
options after operands (L6), one duration syntax (L7), output cut by its
reader is a normal end (L12). Quick: caretd only where the command needs it."""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from harness import B, CARETCTL, ROOT, Ctx, wait_line


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, **kw)


class UsageTest(unittest.TestCase):
    """Decided before caretd is reached (its socket does not exist)."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.sock = os.path.join(self.c.tmp, "none.sock")

    def tearDown(self):
        self.c.cleanup()

    def ctl(self, *args):
        return run([CARETCTL, "--socket", self.sock] + list(args))

    def test_options_after_operands(self):
        """L6: GNU-style permuted arguments for every command: an option
        after an operand is an option, not 'unexpected argument'."""
        empty = os.path.join(self.c.tmp, "empty")
        os.mkdir(empty)
        for args in (["check", empty, "--json", "--timeout", "5"],
                     ["check", "--timeout", "5", empty, "--json"]):
            r = self.ctl(*args)
            self.assertNotIn("unexpected argument", r.stderr, args)
            self.assertEqual(r.returncode, 1, (args, r.stderr))  # not a trace
            self.assertIn("error", json.loads(r.stdout), args)  # --json was seen
        out = os.path.join(self.c.tmp, "snap")
        for args in (["snapshot", "flight", "-o", out, "--timeout", "1"],
                     ["snapshot", "flight", "--json"],
                     ["status", "--json"], ["list", "--json"], ["events", "--json"],
                     ["stop", "--json", "-s", "x"], ["nodes", "--json"]):
            r = self.ctl(*args)
            self.assertEqual(r.returncode, 3, (args, r.stderr))  # caretd not reachable
        # still one operand at most, wherever it is
        r = self.ctl("check", "a", "--json", "b")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unexpected argument 'b'", r.stderr)

    def test_size_options_say_what_is_wrong(self):
        """record's SIZE options share one parser (cli_size_opt): each
        names itself and its value, whether the text is no size or the
        size is out of its bounds; a good size is taken."""
        for opt, low in (("--rotate-size", "65536"), ("--max-size", "1048576"),
                         ("--snapshot-size", "65536")):
            r = self.ctl("record", "-l", opt, "12Q")
            self.assertEqual(r.returncode, 2, (opt, r.stderr))
            self.assertEqual(r.stderr.splitlines()[0], "caretctl: invalid %s '12Q': must be "
                             "bytes, with K, M or G" % opt)
            r = self.ctl("record", "-l", opt, "1")
            self.assertEqual(r.returncode, 2, (opt, r.stderr))
            self.assertTrue(r.stderr.splitlines()[0].startswith(
                "caretctl: invalid %s '1': must be from %s to " % (opt, low)), r.stderr)
        for args in (["--snapshot-size", "1M"], ["--rotate-size", "1M", "-p", self.c.tmp],
                     ["--rotate-size", "1M", "--max-size", "4M", "-p", self.c.tmp]):
            r = self.ctl("record", "-l", *args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))

    def test_one_duration_syntax(self):
        """L7: --duration and --timeout read what --rotate-every reads."""
        for args in (["--duration", "10m"], ["--duration", "1.5s"], ["--duration", "250ms"],
                     ["--timeout", "2m"], ["--rotate-every", "1.5s", "-p", self.c.tmp],
                     ["--duration", "1h", "--timeout", "90s"]):
            r = self.ctl("record", "-l", *args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
        for args, opt in ((["--duration", "10 m"], "--duration"),
                          (["--duration", "1d"], "--duration"),
                          (["--duration", "597h"], "--duration"),
                          (["--timeout", "1e3"], "--timeout"),
                          (["--rotate-every", "0x10s", "-p", self.c.tmp], "--rotate-every")):
            r = self.ctl("record", "-l", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn("invalid " + opt, r.stderr.splitlines()[0], args)
        self.assertIn("ms, s, m or h", self.ctl("record", "--duration", "x").stderr)
        r = self.ctl("check", "--timeout", "1m", os.path.join(self.c.tmp, "nope"))
        self.assertEqual(r.returncode, 1, r.stderr)  # no such directory: parsed

    def test_ros2_caret_record_options_run_here(self):
        """L5: a `ros2 caret record` command line runs: --init-retry-num
        and --subbuffer-size-kernel (which it takes without kernel
        events) are accepted, each ignored with a note; values still
        checked."""
        r = self.ctl("record", "-l", "--init-retry-num", "5", "--subbuffer-size-kernel",
                     "131072", "--subbuffer-size-ust", "32768")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("note: --init-retry-num ignored", r.stderr)
        self.assertIn("note: --subbuffer-size-kernel ignored", r.stderr)
        self.assertNotIn("kernel channel", r.stdout)
        for args, text in ((["--init-retry-num", "x"], "invalid --init-retry-num 'x'"),
                           (["--subbuffer-size-kernel", "3000"], "power of two")):
            r = self.ctl("record", "-l", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(text, r.stderr, args)
        h = self.ctl("record", "--help").stdout
        # what is ours is said so, not put on ros2 trace
        self.assertNotIn("as ros2 trace -o", h)
        self.assertRegex(h, r"--syscall \[NAME\.\.\.\] .*\n.*ours: not in ros2 trace")
    def test_full_event_list_is_caret_s(self):
        """L2: without --light, ros2caret's verb/record.py enables
        ['ros*', 'agnocast*'] (CARET 0.7): agnocast's events too."""
        r = self.ctl("record", "-l")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("UST events enabled (full list):\n  ros*\n  agnocast*\ncontext",
                      r.stdout)

def envelope(tc, out, cmd, types=("result",)):
    """Every line of out is one JSON object in --json's envelope (L8):
    v 1, a type among types, cmd. The objects, in order."""
    objs = [json.loads(line) for line in out.splitlines()]
    tc.assertTrue(objs, "no JSON line")
    for o in objs:
        tc.assertEqual(o.get("v"), 1, o)
        tc.assertIn(o.get("type"), types, o)
        tc.assertEqual(o.get("cmd"), cmd, o)
    return objs


class JsonEnvelopeTest(unittest.TestCase):
    setUp, tearDown, ctl = UsageTest.setUp, UsageTest.tearDown, UsageTest.ctl

    def test_every_json_line_has_the_envelope(self):
        """L8: record -l and help printed text under --json, failures
        lacked v, type and cmd: one envelope for every command."""
        r = self.ctl("record", "-l", "--json", "--context", "perf:thread:cycles")
        self.assertEqual(r.returncode, 0, r.stderr)
        (o,) = envelope(self, r.stdout, "record")
        self.assertEqual(o["list"]["ust_events"], ["ros*", "agnocast*"])
        self.assertEqual(o["list"]["context"], ["vpid", "vtid", "procname",
                                                "perf:thread:cycles"])
        self.assertEqual(o["list"]["channel"]["subbuf_size"], 524288)
        for args, cmd in ((["--help", "--json"], "help"), (["help", "--json"], "help"),
                          (["help", "record", "--json"], "record"),
                          (["record", "--help", "--json"], "record"),
                          (["status", "-h", "--json"], "status"),
                          (["check", "--json", "--help"], "check"),
                          (["events", "--help", "--json"], "events"),
                          (["nodes", "--help", "--json"], "nodes"),
                          (["stop", "--help", "--json"], "stop"),
                          (["snapshot", "--help", "--json"], "snapshot")):
            r = self.ctl(*args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            (o,) = envelope(self, r.stdout, cmd, ("help",))
            self.assertIn("Usage: caretctl", o["help"], args)
        # failures: the same envelope, type error, the keys they had kept
        for args, cmd, code in ((["check", "--json", os.path.join(self.c.tmp, "no")], "check", 1),
                                (["events", "--json"], "events", 3),
                                (["record", "--json", "--duration", "x"], "record", 2),
                                (["nope", "--json"], None, 2)):
            r = self.ctl(*args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            (o,) = envelope(self, r.stdout, cmd, ("error",))
            self.assertIn("error", o)
            self.assertIn("errno", o)
        r = self.ctl("-V", "--json")
        envelope(self, r.stdout, "version", ("version",))


class DemoTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def demo_sessionds(self):
        """The lttng-sessiond processes started with this test's
        LTTNG_HOME (their environment says so): the demo's, not the other
        tests' running beside it."""
        mine = ("LTTNG_HOME=%s" % self.c.tmp).encode()
        r = subprocess.run(["pgrep", "-x", "lttng-sessiond"], capture_output=True, text=True)
        found = []
        for pid in r.stdout.split():
            try:
                with open("/proc/%s/environ" % pid, "rb") as f:
                    if mine in f.read().split(b"\0"):
                        found.append(int(pid))
            except OSError:
                pass
        return found

    def test_demo_stops_the_sessiond_it_started(self):
        """L10: tools/demo.sh on a machine with no session daemon starts a
        root lttng-sessiond; it stops it (by PID) at its end. Run in a
        mount namespace of its own, whose /run/lttng and /dev/shm are
        empty, so the daemon it starts is the demo's alone."""
        script = ("mount --make-rprivate / && mount -t tmpfs none /run/lttng && "
                  "mount -t tmpfs none /dev/shm && exec tools/demo.sh")
        env = dict(self.c.env(agent=False), B=os.path.relpath(B, ROOT), DEMO_SECONDS="0.5",
                   DEMO_OUTPUT=os.path.join(self.c.tmp, "traces"),
                   CARETD_SOCKET=os.path.join(self.c.tmp, "demo.sock"),
                   LTTNG_HOME=self.c.tmp)
        try:
            r = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=120,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("demo: trace written to", r.stdout)
            m = re.search(r"demo: stopped the lttng-sessiond it started \(pid (\d+)\)",
                          r.stdout)
            self.assertTrue(m, r.stdout)
            deadline = time.time() + 10  # its exit, after SIGTERM
            while self.demo_sessionds() and time.time() < deadline:
                time.sleep(0.1)
            self.assertEqual(self.demo_sessionds(), [])
        finally:
            for pid in self.demo_sessionds():  # what an old demo.sh left
                os.kill(pid, signal.SIGTERM)


def perf_cycles_errno():
    """perf_event_open of this thread's user space CPU cycles, as an LTTng
    traced process opens it: 0, the errno, or None where the system call's
    number is not known here."""
    import ctypes
    import platform
    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        return None
    # struct perf_event_attr's first fields: type, size, config, then the
    # sample union, sample_type, read_format and the flag bits
    attr = (ctypes.c_uint8 * 128)()
    ctypes.c_uint32.from_buffer(attr, 0).value = 0  # PERF_TYPE_HARDWARE
    ctypes.c_uint32.from_buffer(attr, 4).value = 128
    ctypes.c_uint64.from_buffer(attr, 8).value = 0  # PERF_COUNT_HW_CPU_CYCLES
    ctypes.c_uint64.from_buffer(attr, 40).value = 1 | 1 << 5 | 1 << 6  # disabled, excl. kernel, hv
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), attr, 0, -1, -1, ctypes.c_ulong(0))
    if fd < 0:
        return ctypes.get_errno()
    os.close(fd)
    return 0


class DaemonTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def test_output_cut_by_its_reader_is_a_normal_end(self):
        """L12: `caretctl events | head -1`: the reader gone is no error.
        The pipe's reader is closed before caretctl starts, so every write
        fails, whatever the timing."""
        p = self.c.workload("--name", "cut", "--pubs", "2", "--subs", "2")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.wait_states([p.pid], "WAIT")
        time.sleep(0.3)  # past caretd's 50 ms reorder window: the records show
        self.assertIn("rcl_node_init", self.c.caretctl("events").stdout)
        for args in (["events"], ["events", "--json"], ["nodes"], ["list"],
                     ["events", "--help"]):
            rd, wr = os.pipe()
            os.close(rd)
            try:
                r = subprocess.run([CARETCTL, "--socket", self.c.sock] + args, stdout=wr,
                                   stderr=subprocess.PIPE, text=True, timeout=60,
                                   env=self.c.env(agent=False))
            finally:
                os.close(wr)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            self.assertNotIn("cannot write", r.stderr, args)
            if args[0] == "events":  # nor the position after what nobody read
                self.assertEqual(r.stderr, "", args)
        # written to a full disk, the output is still an error
        if os.path.exists("/dev/full"):
            with open("/dev/full", "w") as full:
                r = subprocess.run([CARETCTL, "--socket", self.c.sock, "events"], stdout=full,
                                   stderr=subprocess.PIPE, text=True, timeout=60,
                                   env=self.c.env(agent=False))
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot write the output", r.stderr)

    def test_json_envelope_of_caretd_s_commands(self):
        """L8: events --json lacked "cmd", check --json v, type and cmd:
        every line of every command in one envelope."""
        p = self.c.workload("--name", "env", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.wait_states([p.pid], "WAIT")
        time.sleep(0.3)  # past caretd's 50 ms reorder window: the records show
        envelope(self, self.c.caretctl("events", "--json").stdout, "events")
        for cmd in ("status", "list", "nodes", "topics"):
            envelope(self, self.c.caretctl(cmd, "--json").stdout, cmd)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "0.3", "-p", traces,
                            "-s", "env", "--json")
        objs = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual([o.get("v") for o in objs], [1] * len(objs), objs)
        self.assertIn("stop", [o.get("cmd") for o in objs])
        r = self.c.caretctl("check", "--json", os.path.join(traces, "env"))
        (o,) = envelope(self, r.stdout, "check")
        self.assertIs(o["complete"], True)

    def test_permission_message_of_a_0600_socket(self):
        """L9: caretd without --group: its socket is 0600, no group may
        connect; the message says that, not "be root or in group root"."""
        os.chmod(self.c.tmp, 0o755)
        self.assertEqual(os.stat(self.c.sock).st_mode & 0o777, 0o600)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            CARETCTL, "--socket", self.c.sock, "status"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("in group", r.stderr)
        self.assertIn("only root may connect (the socket's mode is 0600: caretd runs "
                      "without --group)", r.stderr)

    def test_rotate_size_below_a_sub_buffer_refused(self):
        """L11: LTTng sees a recording grow a full sub-buffer at a time: a
        --rotate-size below the sub-buffer size is refused, naming the
        least size, instead of '0 rotations'."""
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "0.1", "-p", traces,
                            "--rotate-size", "64K", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the least size is 524288 (512K)", r.stderr)
        self.assertFalse(os.path.exists(traces) and os.listdir(traces))
        self.c.caretctl("record", "--immediate", "--duration", "0.1", "-p", traces,
                        "--rotate-size", "128K", "--subbuffer-size-ust", "128K")

    def test_perf_context_without_the_counter_fails_at_once(self):
        """L3: LTTng takes a perf counter context at the session whatever
        the hardware; each process's channel then fails inside the session
        daemon, unseen, and record waited its whole --timeout for '0/1
        processes recording'. Refused at once, naming the context."""
        e = perf_cycles_errno()
        if e is None or e == 0:
            self.skipTest("this machine has the counter (or its syscall is unknown here)")
        p = self.c.workload("--name", "perf", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.wait_states([p.pid], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        t0 = time.monotonic()
        r = self.c.caretctl("record", "--immediate", "--duration", "0.5", "--timeout", "8",
                            "-p", traces, "--context", "perf:thread:cycles", check=False)
        self.assertLess(time.monotonic() - t0, 4, r.stderr)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--context perf:thread:cycles: this machine has no such perf counter",
                      r.stderr)
        self.assertIn("perf_event_open: " + os.strerror(e), r.stderr)
        self.assertFalse(os.path.exists(traces) and os.listdir(traces))

    def test_record_notices_caretd_gone(self):
        """L4: caretd killed during two foreground records: each says so
        within a second or two (it stayed silent), root's watches its
        session through LTTng meanwhile: the one stopped by 'caretctl stop
        -s' (through LTTng) ends by itself, the other stops through LTTng
        on SIGTERM; both say the agents stay in RECORD."""
        from harness import CARETCTL as ctl, wait_err
        p = self.c.workload("--name", "away", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.wait_states([p.pid], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        recs = [self.c.spawn([ctl, "--socket", self.c.sock, "record", "--immediate", "-p",
                              traces, "-s", name, "--timeout", "20"],
                             agent=False, stdin=subprocess.PIPE)
                for name in ("l4out", "l4term")]
        for rec in recs:
            wait_line(rec, r"^press Enter or Ctrl-C to stop", timeout=40)
        d = self.c.procs[0]
        d.kill()
        d.wait()
        t0 = time.monotonic()
        for rec in recs:
            wait_err(rec, r"caretd is gone .*session l4\w+ records on in LTTng.*agents stay "
                     r"in RECORD until caretd is back", timeout=5)
        self.assertLess(time.monotonic() - t0, 3)
        # stopped outside, through LTTng: the record ends by itself
        r = run([ctl, "--socket", self.c.sock, "stop", "-s", "l4out"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("stopped session l4out directly through LTTng", r.stderr)
        try:
            rc = recs[0].finish(10)
        except subprocess.TimeoutExpired:
            raise AssertionError("record did not notice: " + recs[0].err_text())
        self.assertEqual(rc, 0, recs[0].err_text())
        self.assertIn("session l4out was stopped or destroyed outside this command",
                      recs[0].out_text())
        self.assertIn("caretd is still away", recs[0].err_text())
        # SIGTERM: stopped through LTTng, by root, with no word of root's daemon
        recs[1].send_signal(signal.SIGTERM)
        self.assertEqual(recs[1].finish(20), 0, recs[1].err_text())
        err = recs[1].err_text()
        self.assertIn("stopped session l4term directly through LTTng; the processes' agents "
                      "stay in RECORD until caretd is back", err)
        self.assertNotIn("answers only root", err)
        self.assertIn("stopped session l4term", recs[1].out_text())
        r = subprocess.run(["lttng", "list"], capture_output=True, text=True)
        self.assertNotIn("l4term", r.stdout)
        self.assertNotIn("l4out", r.stdout)

    def test_clean_exit_leaves_no_state_files(self):
        """L10: caretd's recordings file (and the rotation file beside it)
        names recordings for the next caretd to adopt; after a clean
        SIGTERM with none left, nothing of it stays beside the socket."""
        traces = os.path.join(self.c.tmp, "traces")
        self.c.caretctl("record", "--immediate", "--duration", "0.1", "-p", traces)
        d = self.c.procs[0]
        d.send_signal(signal.SIGTERM)
        self.assertEqual(d.wait(20), 0)
        left = [n for n in os.listdir(self.c.tmp) if n.startswith("caretd.sock.")]
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
