# SPDX-License-Identifier: Apache-2.0
"""caretctl and caretd as a user meets them (issue 13): exit status 2 and
a message naming the option and its range for every usage error, the same
limits in caretd, --version, `help CMD`, --json errors and result objects,
unique default session names, status text, no 'press Enter' before caretd
is known to answer."""
import errno
import json
import os
import re
import signal
import socket
import subprocess
import time
import unittest

from harness import AGENTCTL, CARETCTL, CARETD, Ctx, wait_err


def run(argv, stdin=subprocess.DEVNULL, env=None, timeout=60):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=stdin,
                          env=env)


class UsageTest(unittest.TestCase):
    """No caretd needed: all of this is decided before connecting."""

    def setUp(self):
        self.sock = "/nonexistent-caret/caretd.sock"

    def ctl(self, *args, **kw):
        return run([CARETCTL, "--socket", self.sock] + list(args), **kw)

    def test_bad_values_exit_2_and_name_option_and_range(self):
        cases = [
            (["-f", "200000000"], "-f/--recording-frequency", "from 1 to 1000000"),
            (["-f", "0"], "-f/--recording-frequency", "from 1 to 1000000"),
            (["-f", "ten"], "-f/--recording-frequency", "from 1 to 1000000"),
            (["--subbuffer-count", "3"], "--subbuffer-count", "power of two from 2 to 1024"),
            (["--subbuffer-count", "1"], "--subbuffer-count", "power of two from 2 to 1024"),
            (["--subbuffer-size-ust", "8G"], "--subbuffer-size-ust", "to 1G"),
            (["--subbuffer-size-ust", "1K"], "--subbuffer-size-ust", "from 4K"),
            (["--subbuffer-size-ust", "3000"], "--subbuffer-size-ust", "power of two"),
            (["-s", "a/b"], "-s/--session-name", "'/'"),
            (["-s", "x" * 255], "-s/--session-name", "1 to 254 bytes"),
            (["-s", "--immediate"], "-s/--session-name", "start with '-'"),
            (["--timeout", "100000"], "--timeout", "at most 86400"),
            (["--duration", "-1"], "--duration", "more than 0"),
            (["--pacing", "fast"], "--pacing", "frequency or adaptive"),
        ]
        for args, opt, rng in cases:
            r = self.ctl("record", "--immediate", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            first = r.stderr.splitlines()[0]
            self.assertIn("invalid " + opt, first, args)
            self.assertIn(rng, first, args)
            self.assertEqual(r.stdout, "")
        # 254 bytes is the longest name LTTng takes: it passes the check.
        r = self.ctl("record", "-l", "-s", "x" * 254)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_other_usage_errors_exit_2(self):
        for args in (["nope"], [], ["help", "nope"], ["status", "extra"], ["record", "--bogus"],
                     ["stop", "-s", ""], ["list", "--socket"],
                     # issue 22 D11: an unknown kind is a usage error, found
                     # before caretd is asked
                     ["events", "--kind", "bogus"]):
            r = self.ctl(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn("--help", r.stderr)

    def test_version_and_help_command(self):
        r = self.ctl("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^caretctl \d+\.\d+\.\d+")
        # issue 22 D11/D14: --json --version is JSON; caret-agentctl --version works
        for args in (("--json", "--version"), ("--version", "--json")):
            j = json.loads(self.ctl(*args).stdout)
            self.assertEqual((j["v"], j["type"], j["cmd"]), (1, "version", "version"))
            self.assertRegex(j["version"], r"^\d+\.\d+\.\d+$")
        a = subprocess.run([AGENTCTL, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertRegex(a.stdout, r"^caret-agentctl \d+\.\d+\.\d+")
        for cmd in ("record", "stop", "status", "list", "start", "end"):
            h = self.ctl("help", cmd)
            self.assertEqual(h.returncode, 0, h.stderr)
            self.assertEqual(h.stdout, self.ctl(cmd, "--help").stdout)
            self.assertIn("Usage: caretctl " + cmd, h.stdout)
        self.assertIn("Commands:", self.ctl("help").stdout)

    def test_caretd_help_version_and_bad_arguments(self):
        r = run([CARETD, "--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^caretd \d+\.\d+\.\d+")
        r = run([CARETD, "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("SIGHUP", r.stdout)
        r = run([CARETD, "stray"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unexpected argument 'stray'", r.stderr)
        self.assertNotIn("Usage:", r.stderr)
        r = run([CARETD, "--recording-frequency", "200000000"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--recording-frequency '200000000': must be an integer from 1 to 1000000",
                      r.stderr)

    def test_json_errors_on_stdout(self):
        r = self.ctl("--json", "status")
        self.assertEqual(r.returncode, 3)
        o = json.loads(r.stdout)
        self.assertEqual(o["errno"], errno.ENOENT)
        self.assertIn(self.sock, o["error"])
        r = self.ctl("record", "-f", "0", "--json")
        self.assertEqual(r.returncode, 2)
        o = json.loads(r.stdout)
        self.assertEqual(o["errno"], errno.EINVAL)
        self.assertIn("-f/--recording-frequency", o["error"])
        r = self.ctl("--json", "record", "--no-such-option")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(json.loads(r.stdout)["errno"], errno.EINVAL)

    def test_unreachable_before_press_enter_and_hint_only_for_default_socket(self):
        r = self.ctl("record", stdin=subprocess.PIPE, timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("press Enter", r.stdout + r.stderr)
        self.assertNotIn("systemctl", r.stderr)
        self.assertIn(self.sock, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_systemctl_hint_with_the_default_socket(self):
        self.assertFalse(os.path.exists("/run/caretd/caretd.sock"))
        r = run([CARETCTL, "--socket", "/run/caretd/caretd.sock", "status"])
        self.assertEqual(r.returncode, 3)
        self.assertIn("systemctl start caretd", r.stderr)

    def test_list_needs_no_daemon(self):
        r = self.ctl("record", "--list", "-p", "/tmp/t", "-s", "mine")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  ros*\n", r.stdout)
        self.assertIn("vpid", r.stdout)
        self.assertIn("/tmp/t/mine", r.stdout)
        light = self.ctl("record", "-l", "--light").stdout
        self.assertIn("ros2:*callback*", light)  # CARET's light list
        self.assertIn("ros2:rcl_publish", light)  # Iron and later
        self.assertNotIn("  ros2:*\n", light)

    def test_output_is_path_under_ros2_traces_name(self):
        # issue 22: ros2 trace users reach for -o/--output
        for opt in ("-o", "--output"):
            r = self.ctl("record", "--list", opt, "/tmp/o", "-s", "mine")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("/tmp/o/mine", r.stdout)
        r = self.ctl("record", "--list", "-p", "/tmp/a", "-o", "/tmp/b")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("-o/--output", r.stderr)
        self.assertIn("-o, --output", self.ctl("record", "--help").stdout)

    def test_record_help_covers_ros2_caret_record_and_ros2_trace(self):
        """Issue 22: every option of ros2 caret record (ros2caret's
        verb/record.py) and the ros2 trace options it names, or why not."""
        h = self.ctl("record", "--help").stdout
        for short, long in (("-s", "--session-name"), ("-p", "--path"), ("-l", "--list"),
                            ("-v", "--verbose"), ("-f", "--recording-frequency"),
                            (None, "--light"), (None, "--subbuffer-size-ust"),
                            (None, "--subbuffer-size-kernel"), (None, "--immediate"),
                            ("-c", "--record-clock"), ("-u", "--ust"), (None, "--context"),
                            ("-k", "--kernel"), (None, "--syscall"), ("-o", "--output"),
                            ("-a", "--append")):
            self.assertRegex(h, r"(?m)^ +%s%s\b" % (short + ", " if short else "",
                                                     re.escape(long)), long)
        # issue 33 L5: accepted and ignored, said so
        self.assertRegex(h, r"(?m)^ +--init-retry-num N +accepted and ignored")


class DaemonTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.traces = os.path.join(self.c.tmp, "traces")
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def request(self, obj):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.c.sock)
        s.sendall((json.dumps(obj) + "\n").encode())
        reply = json.loads(s.makefile().readline())
        s.close()
        return reply

    def test_caretd_applies_the_same_limits(self):
        base = {"v": 1, "cmd": "record", "path": self.traces}
        for extra, text in (({"subbuf_count": 3}, "power of two from 2 to 1024"),
                            ({"subbuf_size": 1024}, "from 4K to 1G"),
                            ({"subbuf_size": 8 << 30}, "from 4K to 1G"),
                            ({"recording_frequency": 200000000}, "from 1 to 1000000"),
                            ({"session": "a/b"}, "'/'"),
                            ({"session": "-x"}, "start with '-'"),
                            ({"session": "x" * 255}, "1 to 254 bytes")):
            reply = self.request(dict(base, **extra))
            self.assertEqual(reply["type"], "error", extra)
            self.assertIn(text, reply["error"], extra)
            self.assertEqual(reply["errno"], errno.EINVAL)
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertEqual(st["lttng"]["active_sessions"], [])

    def test_back_to_back_default_names_and_json_results(self):
        names = []
        for _ in range(3):
            r = self.c.caretctl("record", "--immediate", "--duration", "0.1", "-p",
                                self.traces, "--json")
            objs = [json.loads(l) for l in r.stdout.splitlines()]
            results = [o for o in objs if o.get("type") == "result"]
            self.assertEqual([o["cmd"] for o in results], ["record", "wait", "stop"], r.stdout)
            names.append(results[0]["session"])
            self.assertEqual(results[2]["session"], names[-1])
        self.assertEqual(len(set(names)), 3, names)
        for n in names:
            self.assertRegex(n, r"^caret-\d{8}-\d{6}(-\d+)?$")
            self.assertTrue(os.path.isdir(os.path.join(self.traces, n)))

    def test_progress_plain_and_json(self):
        p = self.c.workload("--name", "slowpoke", "--pubs", "2", "--subs", "2")
        from harness import wait_line
        wait_line(p, r"^ready pid=%d" % p.pid)
        # known to caretd before the record (else "0/0 processes", no bar)
        self.c.wait_states([p.pid], "WAIT")
        # 10 records/s: the replay takes seconds, so progress is shown.
        r = self.c.caretctl("record", "--immediate", "--duration", "0.1", "-f", "10", "-p",
                            self.traces)
        lines = [l for l in r.stdout.splitlines() if "records replayed" in l]
        self.assertTrue(lines, r.stdout)
        # not a terminal: plain lines, no carriage returns, rate/elapsed/ETA
        self.assertNotIn("\r", r.stdout)
        self.assertRegex(lines[-1], r"\d+/\d+ processes recording, \d+/\d+ records "
                         r"replayed \(\d+ %\), \d+ records/s, elapsed \d\d:\d\d, ETA ")
        r = self.c.caretctl("record", "--immediate", "--duration", "0.1", "-f", "10", "-p",
                            self.traces, "--json")
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        prog = [o for o in objs if o["type"] == "progress"]
        self.assertTrue(prog, r.stdout)
        self.assertTrue(all(o["cmd"] == "wait" for o in prog))
        self.assertEqual([o["cmd"] for o in objs if o["type"] == "result"],
                         ["record", "wait", "stop"])
        # progress text went to stderr, not into the JSON stream
        self.assertIn("records replayed", r.stderr)

    def test_ctrl_c_at_the_prompt_on_its_own_line(self):
        import fcntl
        import pty
        import termios
        import time
        master, slave = pty.openpty()

        def ctty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        p = subprocess.Popen([CARETCTL, "--socket", self.c.sock, "record", "-p", self.traces],
                             stdin=slave, stdout=slave, stderr=slave, preexec_fn=ctty,
                             env=self.c.env(agent=False))
        os.close(slave)
        out = b""
        deadline = time.time() + 20
        while b"press Enter" not in out and time.time() < deadline:
            out += os.read(master, 4096)
        os.write(master, b"\x03")  # the terminal's Ctrl-C: echoes ^C, sends SIGINT
        try:
            while True:
                chunk = os.read(master, 4096)
                if not chunk:
                    break
                out += chunk
        except OSError:  # EIO once caretctl has exited
            pass
        os.close(master)
        self.assertEqual(p.wait(20), 130, out)
        text = out.decode()
        self.assertRegex(text, r"(?m)^caretctl: interrupted; nothing was recorded", text)
        # issue 22 D8: and nothing is left (the armed session's tree went,
        # and the directory caretd made for -p)
        self.assertFalse(os.path.exists(self.traces))

    def test_stdin_ended_before_enter_leaves_nothing(self):
        # issue 22 D8: `record </dev/null` without --immediate
        r = self.c.caretctl("record", "-s", "never", "-p", self.traces, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("standard input ended before Enter", r.stderr)
        self.assertFalse(os.path.exists(self.traces))
        wait_err(self.c.procs[0], r"armed recording never stopped before it started")
        # a directory that was there (empty) stays; LTTng's tree in it goes
        os.makedirs(os.path.join(self.traces, "kept"))
        r = self.c.caretctl("record", "-s", "kept", "-p", self.traces, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(os.listdir(self.traces), ["kept"])
        self.assertEqual(os.listdir(os.path.join(self.traces, "kept")), [])

    def test_append_keeps_the_earlier_trace(self):
        from harness import read_trace, wait_line
        p = self.c.workload("--name", "appender", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        rec = ["record", "--immediate", "--duration", "0.3", "-s", "same", "-p", self.traces]
        self.c.caretctl(*rec)
        top = os.path.join(self.traces, "same")
        first = {f: os.path.getsize(os.path.join(dp, f))
                 for dp, _, fs in os.walk(top) for f in fs}
        n_first = len(read_trace(top))
        self.assertGreater(n_first, 0)
        # without --append: refused, and said how to append
        r = self.c.caretctl(*rec, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--append", r.stderr)
        r = self.c.caretctl(*(rec + ["--append"]))
        self.assertIn("recording to %s/append-1 " % top, r.stdout)
        r = self.c.caretctl(*(rec + ["-a"]))
        self.assertIn("recording to %s/append-2 " % top, r.stdout)
        # the first trace's files are untouched; the directory holds all three
        for dp, _, fs in os.walk(top):
            if "append-" in dp:
                continue
            for f in fs:
                self.assertEqual(os.path.getsize(os.path.join(dp, f)), first[f], f)
        self.assertGreater(len(read_trace(top)), n_first)
        inits = [e for e in read_trace(top) if e.name == "ros2_caret:caret_init"
                 and e.vpid == p.pid]
        self.assertEqual(len(inits), 3)

    def test_json_error_carries_caretds_errno(self):
        r = self.c.caretctl("--json", "stop", "-s", "nosuch", check=False)
        self.assertEqual(r.returncode, 1)
        o = json.loads(r.stdout)
        self.assertEqual(o["errno"], errno.ENOENT)
        self.assertIn("nosuch", o["error"])
        self.assertEqual(r.stderr.count("No such file or directory"), 1, r.stderr)

    def test_status_text(self):
        rec = self.c.caretctl("record", "--immediate", "--duration", "30", "-s", "mine", "-p",
                              self.traces, background=True)
        try:
            import time
            deadline = time.time() + 20
            while True:
                out = self.c.caretctl("status").stdout
                if "(caretd's)" in out or time.time() > deadline:
                    break
                time.sleep(0.1)
            self.assertIn("mine (caretd's)", out)
            self.assertRegex(out, r"session: mine, .*%s" % re.escape(
                os.path.join(self.traces, "mine")))
            # adaptive pacing (the default): its knob, not a per-process rate
            self.assertIn("pacing adaptive", out)
            self.assertNotIn("records/s", out)
            self.assertIn("from the buffers' room (fallback budget 64 MiB/s host-wide)", out)
        finally:
            rec.send_signal(signal.SIGINT)
            rec.finish(30)

    def test_all_hosts_status_names_each_process_once(self):
        # issue 22 D14: "pid 3263     pid 3263 (talker2)"
        from harness import wait_line
        p = self.c.workload("--name", "talker2", "--pubs", "1", "--subs", "0")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.wait_states([p.pid], "WAIT")
        r = self.c.caretctl("status", "--all-hosts", "--timeout", "0.3", check=False)
        line = [l for l in r.stdout.splitlines() if "pid %d" % p.pid in l]
        self.assertEqual(len(line), 1, r.stdout + r.stderr)
        self.assertEqual(line[0].count(str(p.pid)), 1, line[0])
        self.assertRegex(line[0], r"^  WAIT +pid %d +talker2 +/talker2$" % p.pid)
        st = json.loads(self.c.caretctl("status", "--all-hosts", "--timeout", "0.3", "--json",
                                        check=False).stdout)
        me = [h for h in st["hosts"] if h["self"]][0]
        self.assertEqual([(x["name"], x["pid"]) for x in me["processes"]],
                         [("talker2", p.pid)])

    def test_error_text_once(self):
        # An unwritable trace path: caretd's message carries the errno text
        # already; caretctl must not repeat it.
        r = self.c.caretctl("record", "--immediate", "-p", "/proc/nope", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        for text in ("No such file or directory", "Permission denied",
                     "Read-only file system"):
            self.assertLessEqual(r.stderr.count(text), 1, r.stderr)


class NoSessiondTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def test_status_says_why_lttng_is_not_reachable(self):
        self.c.caretd_without_sessiond("lonely.sock")
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertTrue(st["lttng"]["error"])
        out = self.c.caretctl("status").stdout
        self.assertIn("lttng:   NOT reachable: " + st["lttng"]["error"], out)
        self.assertNotIn("no active session", out)  # unknown, not absent


class SandboxTest(unittest.TestCase):
    """caretd.service's sandbox cannot be started here (no systemd
    manager), so its effects are rebuilt with namespaces and mounts: no
    network (PrivateNetwork=), a /dev with pseudo devices and the host's
    /dev/shm only (PrivateDevices=), /usr and /etc read-only
    (ProtectSystem=full). (ProcSubset=pid is not in the unit: with /proc
    mounted subset=pid here, liblttng-ctl's /proc/meminfo check made
    enabling the channel fail with "Not enough memory".)
    A recording must still work: agents found, session created through
    /run/lttng, replay complete."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def test_record_inside_the_units_sandbox(self):
        from harness import read_trace, wait_line
        p = self.c.workload("--name", "boxed", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.sock = os.path.join(self.c.tmp, "sandboxed.sock")
        dev = os.path.join(self.c.tmp, "dev")
        script = " && ".join([
            "mount --make-rprivate /",
            "mkdir -p %(d)s && mount -t tmpfs tmpfs %(d)s",
            "for n in null zero full random urandom; do touch %(d)s/$n && "
            "mount --bind /dev/$n %(d)s/$n; done",
            "mkdir %(d)s/shm && mount --bind /dev/shm %(d)s/shm",
            "mount --move %(d)s /dev",
            "mount --bind /usr /usr && mount -o remount,bind,ro /usr",
            "mount --bind /etc /etc && mount -o remount,bind,ro /etc",
            "test ! -e /dev/tty1",
            "test \"$(ip -o link | wc -l)\" = 1",
            "exec %(caretd)s --socket %(sock)s",
        ]) % {"d": dev, "caretd": CARETD, "sock": self.c.sock}
        d = self.c.spawn(["unshare", "--net", "--mount", "sh", "-c", script], agent=False)
        self.c.wait_socket(d)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "0.3", "-s", "boxed", "-p",
                            traces)
        self.assertIn("1/1 processes recording", r.stdout)
        evs = [e for e in read_trace(os.path.join(traces, "boxed")) if e.vpid == p.pid]
        self.assertTrue(any(e.name == "ros2_caret:caret_init" for e in evs))
        self.assertTrue(any(e.name == "ros2_caret:rcl_node_init" for e in evs), evs[:5])

    def test_syscalls_within_the_units_filter(self):
        """caretd's system calls during a recording, under strace: all in
        the unit's SystemCallFilter= allow list, none in its deny list."""
        from harness import ROOT, wait_line
        with open(os.path.join(ROOT, "systemd", "caretd.service.in")) as f:
            filters = re.findall(r"(?m)^SystemCallFilter=(.*)$", f.read())
        # systemd applies the lines in order: the first (an allow list) sets
        # the default, later ones add ("@x") or remove ("~@x") entries.
        allow = set()
        for f in filters:
            if f.startswith("~"):
                allow -= set().union(*(expand(g) for g in f[1:].split()))
            else:
                allow |= set().union(*(expand(g) for g in f.split()))
        self.assertNotIn("setrlimit", allow)
        p = self.c.workload("--name", "traced", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.sock = os.path.join(self.c.tmp, "traced.sock")
        log = os.path.join(self.c.tmp, "strace.log")
        d = self.c.spawn(["strace", "-f", "-qq", "-o", log, CARETD, "--socket", self.c.sock],
                         agent=False)
        self.c.wait_socket(d)
        self.c.caretctl("record", "--immediate", "--duration", "0.3", "-p",
                        os.path.join(self.c.tmp, "traces"))
        pid = json.loads(self.c.caretctl("status", "--json").stdout)["caretd"]["pid"]
        os.kill(pid, signal.SIGTERM)
        d.finish(20)
        with open(log) as f:
            used = set(re.findall(r"(?m)^\d+\s+(\w+)\(", f.read()))
        used.discard("execve")  # strace's own start of caretd
        self.assertIn("inotify_add_watch", used)  # the trace is caretd's
        self.assertEqual(used - allow, set())


def expand(group):
    """A SystemCallFilter= item as system calls (groups expanded)."""
    if not group.startswith("@"):
        return {group}
    out = set()
    r = subprocess.run(["systemd-analyze", "syscall-filter", group], capture_output=True,
                       text=True, check=True)
    for line in r.stdout.splitlines()[1:]:
        line = line.strip()
        if line and not line.startswith("#"):
            out |= expand(line)
    return out


if __name__ == "__main__":
    unittest.main(verbosity=2)
