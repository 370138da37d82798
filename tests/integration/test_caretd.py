# SPDX-License-Identifier: Apache-2.0
"""caretd + caretctl: record at any time, on one host, against a real
lttng-sessiond, real agents, CycloneDDS and babeltrace2."""
import collections
import json
import os
import re
import signal
import socket
import subprocess
import time
import unittest

from harness import (CARETD, ROOT, STATES, B, SystemTest, lttng, mono_ns, read_trace,
                     wait_line)
from seg_layout import seg_field
from trace_model import RUNTIME, check_complete


class CaretdTest(SystemTest):
    def check_complete(self, trace, procs, cached, t_start=None):
        return check_complete(self, trace, procs, cached, t_start)

    def record(self, *args, **kw):
        return self.c.caretctl("record", "--immediate", "-p", self.traces, *args, **kw)

    def trace_path(self, out):
        m = re.search(r"recording to (\S+)", out)
        self.assertTrue(m, out)
        return m.group(1)

    def test_late_start_record(self):
        self.c.caretd()
        procs = self.system(3)
        time.sleep(1.5)
        cached = self.dumps(procs)
        t0 = mono_ns()
        r = self.record("-s", "late", "--duration", "2", "--timeout", "30")
        out = r.stdout + r.stderr
        path = self.trace_path(out)
        # The discarded count itself, per channel: "0 packets lost" must
        # not make a trace with discarded events pass.
        counts = re.findall(r"channel \S+: (\S+) events discarded", out)
        self.assertTrue(counts, out)
        self.assertEqual(set(counts), {"0"}, out)
        per = self.check_complete(path, procs, cached, t_start=t0)
        for p in procs:
            self.assertTrue(any(e.name in RUNTIME for e in per[p.pid]), p.pid)

    def test_light_record(self):
        """`caretctl record --light` enables CARET's light list (tier4/ros2caret
        record.py): init events replayed, callbacks and takes kept,
        ros2_caret:dds_write left out, ros2:rcl_publish kept on Iron and
        later (the stand-in is detected as Iron)."""
        self.c.caretd()
        procs = self.system(2)
        time.sleep(1.0)
        r = self.record("-s", "light", "--light", "--duration", "2", "--timeout", "30")
        path = self.trace_path(r.stdout + r.stderr)
        pids = {p.pid for p in procs}
        names = collections.Counter(e.name for e in read_trace(path) if e.vpid in pids)
        for want in ("ros2_caret:rcl_node_init", "ros2_caret:rcl_publisher_init",
                     "ros2_caret:caret_init", "ros2:callback_start", "ros2:rmw_take",
                     "ros2:rcl_publish", "ros2_caret:dds_bind_addr_to_stamp"):
            self.assertGreater(names[want], 0, want)
        self.assertEqual(names["ros2_caret:dds_write"], 0)

    def test_session_from_lttng_cli_drives_prepare(self):
        self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        s = self.c.session()
        t0 = time.time()
        s.start()
        self.c.wait_states([p.pid for p in procs], "RECORD", timeout=10)
        self.assertLess(time.time() - t0, 5)
        time.sleep(0.5)
        s.stop()
        self.check_complete(s.path, procs, cached)

    def test_idle_sleeps_and_sees_cli_session_at_once(self):
        """Issue 24: with agents and no session caretd reads the session
        list once a second (not 20 times) and wakes rarely, yet a session
        the lttng CLI starts is seen within 100 ms: the agents' tracepoints
        tell it (agent/tpwatch.c). Timed on the agents' own state words."""
        import mmap
        d = self.c.caretd("--no-bridge")
        procs = self.system(3)
        pids = [p.pid for p in procs]
        self.c.wait_states(pids, "WAIT")
        maps = {}
        for n in self.c.segments():
            with open(os.path.join("/dev/shm", n), "rb") as f:
                m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
            pid = seg_field(m, "pid")
            if pid in pids:
                maps[pid] = m
        self.assertEqual(sorted(maps), sorted(pids))
        wait_state = [k for k, v in STATES.items() if v == "WAIT"][0]

        def switches():
            n = 0
            with open("/proc/%d/task/%d/status" % (d.pid, d.pid)) as f:
                for line in f:
                    if line.split(":")[0] in ("voluntary_ctxt_switches",
                                              "nonvoluntary_ctxt_switches"):
                        n += int(line.split()[-1])
            return n
        time.sleep(1.5)
        s0, t0 = switches(), time.monotonic()
        time.sleep(5)
        per_s = (switches() - s0) / (time.monotonic() - t0)
        # 20 session-list reads, 20 pacer, 20 status and 20 retry ticks a
        # second before: ~80 wakeups; now about five one-second timers
        self.assertLess(per_s, 20, "caretd woke %.1f times a second while idle" % per_s)
        s = self.c.session()
        time.sleep(1.2)  # caretd is in its one-second poll
        s.start()
        t1 = mono_ns()
        late = set(pids)
        while late and mono_ns() - t1 < 5e9:
            late = {p for p in late if seg_field(maps[p], "state") == wait_state}
            time.sleep(0.001)
        took = (mono_ns() - t1) / 1e6
        self.assertFalse(late, "still in WAIT 5 s after lttng start: %r" % late)
        self.assertLess(took, 100, "agents left WAIT %.1f ms after lttng start returned"
                        % took)
        self.c.wait_states(pids, "RECORD", timeout=10)
        for m in maps.values():
            m.close()

    def test_start_and_end_ignored(self):
        self.c.caretd()
        procs = self.system(2)
        pids = [p.pid for p in procs]
        r = json.loads(self.c.caretctl("start", "--json").stdout)
        self.assertFalse(r["accepted"])
        time.sleep(0.3)
        self.c.wait_states(pids, "WAIT", timeout=1)
        s = self.c.session()
        s.start()
        self.c.wait_states(pids, "RECORD")
        r = json.loads(self.c.caretctl("end", "--json").stdout)
        self.assertFalse(r["accepted"])
        time.sleep(0.3)
        self.c.wait_states(pids, "RECORD", timeout=1)
        s.stop()
        s.destroy()
        self.c.wait_states(pids, "WAIT")
        r = json.loads(self.c.caretctl("end", "--json").stdout)
        self.assertTrue(r["accepted"])

    def test_processes_started_during_session_and_prepare(self):
        self.c.caretd()
        procs = self.system(2, extra=("--extra-callbacks", "60"))
        cached = self.dumps(procs)
        # slow replay: about 2 s per process
        rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "slow",
                              "-f", "70", "--duration", "1.5", "--timeout", "60",
                              background=True)
        # a process that starts while the others are in PREPARE
        self.c.wait_any_state("PREPARE")
        late = self.c.workload("--name", "late", "--pubs", "1", "--rate", "40")
        wait_line(late, r"^ready")
        self.assertEqual(rec.finish(90), 0, rec.out_text() + rec.err_text())
        path = self.trace_path(rec.out_text() + rec.err_text())
        self.check_complete(path, procs, cached)
        names = collections.Counter(e.name for e in read_trace(path) if e.vpid == late.pid)
        self.assertGreater(names["ros2_caret:rcl_node_init"], 0, names)
        self.assertGreater(names["ros2:callback_start"], 0)
        # and one that starts while a session is active (lttng CLI)
        s = self.c.session()
        s.start()
        self.c.wait_states([p.pid for p in procs + [late]], "RECORD")
        during = self.c.workload("--name", "during", "--pubs", "1", "--rate", "40")
        wait_line(during, r"^ready")
        self.c.wait_states([during.pid], "RECORD")
        time.sleep(0.5)
        s.stop()
        evs = [e for e in read_trace(s.path) if e.vpid == during.pid]
        names = collections.Counter(e.name for e in evs)
        self.assertGreater(names["ros2_caret:rcl_node_init"], 0)
        self.assertGreater(names["ros2:callback_start"], 0)
        self.assertEqual(names["ros2:rcl_node_init"], 0)

    def test_two_cycles(self):
        self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        paths = []
        for i in range(2):
            r = self.record("-s", "cycle%d" % i, "--duration", "1", "--timeout", "30")
            paths.append(self.trace_path(r.stdout + r.stderr))
            self.c.wait_states([p.pid for p in procs], "WAIT")
        for path in paths:
            self.check_complete(path, procs, cached)

    def test_caretd_killed_during_prepare(self):
        d = self.c.caretd()
        procs = self.system(2, extra=("--extra-callbacks", "60"))
        cached = self.dumps(procs)
        rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "phoenix",
                              "-f", "60", "--duration", "1", "--timeout", "60",
                              background=True)
        self.c.wait_any_state("PREPARE")
        time.sleep(0.3)
        d.kill()
        d.wait()
        time.sleep(0.5)
        self.c.caretd()  # same socket: caretctl reconnects
        self.assertEqual(rec.finish(90), 0, rec.out_text() + rec.err_text())
        self.check_complete(self.trace_path(rec.out_text() + rec.err_text()), procs, cached)

    def test_process_killed_or_stuck_during_replay(self):
        self.c.caretd()
        procs = self.system(3, extra=("--extra-callbacks", "60"))
        victim, stuck = procs[1], procs[2]
        os.kill(stuck.pid, signal.SIGSTOP)
        try:
            rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "victim",
                                  "-f", "50", "--duration", "1", "--timeout", "4",
                                  background=True)
            self.c.wait_any_state("PREPARE", pid=victim.pid)
            victim.kill()
            t0 = time.time()
            rc = rec.finish(60)
            out = rec.out_text() + rec.err_text()
            self.assertLess(time.time() - t0, 30)
            self.assertEqual(rc, 4, out)  # timeout: the stuck process
            self.assertIn("pid %d" % stuck.pid, out)
            self.assertIn(str(victim.pid), out)  # reported as exited
        finally:
            os.kill(stuck.pid, signal.SIGCONT)

    def test_no_daemon_one_line_error(self):
        self.c.sock = os.path.join(self.c.tmp, "nobody.sock")
        r = self.c.caretctl("status", check=False)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        # The unit serves only the default socket: no systemctl hint here.
        self.assertNotIn("systemctl", r.stderr)
        self.assertIn(self.c.sock, r.stderr)

    def test_malformed_requests(self):
        self.c.caretd()
        for payload in (b"not json\n", b'{"v":1}\n', b'{"v":2,"cmd":"status"}\n',
                        b'{"v":1,"cmd":"record","subbuf_size":3,"path":"/tmp"}\n',
                        b'{"v":1,"cmd":"nope"}\n', b"[1,2,3]\n"):
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(5)
            s.connect(self.c.sock)
            s.sendall(payload)
            reply = json.loads(s.makefile().readline())
            s.close()
            self.assertEqual(reply["type"], "error", payload)
            self.assertTrue(reply["error"])
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(self.c.sock)
        s.sendall(b"x" * 70000)
        reply = json.loads(s.makefile().readline())
        self.assertIn("too long", reply["error"])
        s.close()
        # still serving
        self.assertIn("agents", json.loads(self.c.caretctl("status", "--json").stdout))

    def test_systemd_socket_activation_and_notify(self):
        ns = os.path.join(self.c.tmp, "notify.sock")
        n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        n.bind(ns)
        n.settimeout(15)
        self.c.sock = os.path.join(self.c.tmp, "activated.sock")
        env = {"NOTIFY_SOCKET": ns, "WATCHDOG_USEC": "400000"}
        d = self.c.spawn(["systemd-socket-activate", "-l", self.c.sock, "-E", "NOTIFY_SOCKET",
                          "-E", "WATCHDOG_USEC", CARETD, "--socket", "/nonexistent/x.sock"],
                         agent=False, extra_env=env)
        self.c.wait_socket(d)
        # the first connection makes systemd-socket-activate start caretd
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertIn("agents", st)
        msgs = []
        deadline = time.time() + 10
        while time.time() < deadline and not all(
                any(w in m for m in msgs) for w in ("READY=1", "WATCHDOG=1", "STATUS=")):
            msgs.append(n.recv(4096).decode())
        joined = "\n".join(msgs)
        self.assertIn("READY=1", joined)
        self.assertRegex(joined, r"STATUS=\S")
        self.assertIn("WATCHDOG=1", joined)
        self.assertFalse(os.path.exists("/nonexistent/x.sock"))
        d.send_signal(signal.SIGTERM)
        d.finish(10)
        n.close()

    def test_peer_credentials_checked(self):
        self.c.caretd()
        os.chmod(self.c.sock, 0o666)  # let the daemon itself judge the peer
        os.chmod(self.c.tmp, 0o755)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            os.path.join(os.path.dirname(CARETD), "caretctl"),
                            "--socket", self.c.sock, "status"],
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("permission denied", r.stdout + r.stderr)
        self.assertIn("agents", json.loads(self.c.caretctl("status", "--json").stdout))

    def test_permission_message_names_the_group_caretd_runs_with(self):
        # issue 22 D14: not always "the caretd group"
        self.c.caretd("--group", "daemon")
        os.chmod(self.c.tmp, 0o755)
        ctl = [os.path.join(os.path.dirname(CARETD), "caretctl"), "--socket", self.c.sock,
               "status"]
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        # the socket is caretd's group's: connect(2) refuses
        r = subprocess.run(nobody + ctl, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("you must be root or in group daemon", r.stderr)
        self.assertNotIn("caretd group", r.stderr)
        # caretd itself refuses (the socket opened to everyone)
        os.chmod(self.c.sock, 0o666)
        r = subprocess.run(nobody + ctl, capture_output=True, text=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("members of group daemon only", r.stdout + r.stderr)

    def test_sessiond_absent(self):
        """No session daemon: a clear log line, no READY, still serving."""
        ns = os.path.join(self.c.tmp, "notify2.sock")
        n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        n.bind(ns)
        n.settimeout(3)
        d = self.c.caretd_without_sessiond("nosessiond.sock", extra_env={"NOTIFY_SOCKET": ns})
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertFalse(st["lttng"]["reachable"])
        msgs = []
        try:
            while True:
                msgs.append(n.recv(4096).decode())
        except socket.timeout:
            pass
        n.close()
        self.assertNotIn("READY=1", "".join(msgs))
        self.assertIn("STATUS=waiting for lttng-sessiond", "".join(msgs))
        d.send_signal(signal.SIGTERM)
        self.assertEqual(d.finish(10), 0)
        self.assertIn("not reachable", d.err_text())
        self.assertEqual(d.err_text().count("not reachable"), 1)  # said once, not spammed

    def test_units_verify(self):
        unitdir = os.path.join(self.c.tmp, "units")
        os.makedirs(unitdir)
        with open(os.path.join(ROOT, "systemd", "caretd.service.in")) as f:
            svc = f.read().replace("@BINDIR@", os.path.dirname(CARETD))
        with open(os.path.join(unitdir, "caretd.service"), "w") as f:
            f.write(svc)
        with open(os.path.join(ROOT, "systemd", "caretd.socket")) as f, \
                open(os.path.join(unitdir, "caretd.socket"), "w") as g:
            g.write(f.read())
        r = subprocess.run(["systemd-analyze", "verify", "--man=no",
                            os.path.join(unitdir, "caretd.service"),
                            os.path.join(unitdir, "caretd.socket")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("RemoveIPC=yes", svc)
        self.assertIn("After=lttng-sessiond.service", svc.replace(" caretd.socket", ""))


if __name__ == "__main__":
    unittest.main(verbosity=2)
