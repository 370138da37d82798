# SPDX-License-Identifier: Apache-2.0
"""Several LTTng sessions on one host, by an unprivileged member of
caretd's group (issue 8; split from test_sessions.py): whose each
recording is, who may stop it, what survives a caretd restart, and a
tracing-group user's plain lttng session seen at once. Real
lttng-sessiond, real agents, babeltrace2."""
import errno
import grp
import json
import os
import pwd
import re
import subprocess
import time
import unittest

from harness import (CARETCTL, CARETD, STANDIN, STATES, lttng, mono_ns, read_trace,
                     wait_err, wait_line)
from seg_layout import seg_field
from sessions_base import Base
from trace_model import assert_all_init, per_pid


# Names of this run only: users and groups are the host's (/etc is not private to the
# test's namespaces), and two runs at once (a user's make check beside CI) must not add or
# remove each other's. A leftover of a killed run is found by its GECOS and removed first.
USER, GROUP = "cit-u%d" % os.getpid(), "cit-g%d" % os.getpid()
GECOS = "caretd integration test user (removed after each test)"


def remove_leftovers():
    """Users (and their groups) an earlier run killed before its tearDown left behind, whose
    processes are gone."""
    for pw in pwd.getpwall():
        if pw.pw_gecos != GECOS or pw.pw_name == USER:
            continue
        pid = re.match(r"cit-u(\d+)$", pw.pw_name)
        if pid and os.path.exists("/proc/%s" % pid.group(1)):
            continue  # a run in progress
        subprocess.run(["userdel", pw.pw_name], capture_output=True)
        if pid:
            subprocess.run(["groupdel", "cit-g" + pid.group(1)], capture_output=True)


class UsersTest(Base):
    """Recordings by an unprivileged member of caretd's group (a user made
    for the test with useradd, removed afterwards)."""

    @classmethod
    def setUpClass(cls):
        remove_leftovers()

    def setUp(self):
        super().setUp()
        self.made = []
        if subprocess.run(["getent", "group", GROUP], capture_output=True).returncode != 0:
            subprocess.run(["groupadd", GROUP], check=True)
            self.made.append(["groupdel", GROUP])
        try:
            pwd.getpwnam(USER)
        except KeyError:
            subprocess.run(["useradd", "-M", "-N", "-c", GECOS, "-s", "/usr/sbin/nologin",
                            "-G", GROUP, USER], check=True)
            self.made.insert(0, ["userdel", USER])
        pw = pwd.getpwnam(USER)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        self.sgid = grp.getgrnam(GROUP).gr_gid
        # a socket the user can reach, and a home for the user's traces
        os.chmod(self.c.tmp, 0o755)
        self.home = os.path.join(self.c.tmp, "home")
        os.mkdir(self.home, 0o700)
        os.chown(self.home, self.uid, self.gid)
        self.c.caretd("--group", GROUP)

    def tearDown(self):
        super().tearDown()
        for cmd in self.made:
            # a process of the user may take a moment to be gone
            for _ in range(50):
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode == 0:
                    break
                time.sleep(0.1)
            else:
                raise AssertionError("%s: %s" % (" ".join(cmd), r.stderr))

    def drop(self):
        os.setgroups([self.sgid])
        os.setgid(self.gid)
        os.setuid(self.uid)

    def user_workload(self, name):
        """A publisher of the user's own: a member's recording sees only
        their processes (issue 30 H7)."""
        p = self.c.spawn([STANDIN, "--domain", self.c.domain, "--name", name, "--pubs", "2",
                          "--rate", "40", "--services", "1"], preexec_fn=self.drop)
        wait_line(p, r"^ready pid=%d" % p.pid)
        return p

    def as_user(self, *args, check=True):
        r = subprocess.run([CARETCTL, "--socket", self.c.sock] + list(args),
                           env=self.c.env(agent=False), capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL, preexec_fn=self.drop)
        if check and r.returncode != 0:
            raise AssertionError("caretctl %s as %s: %d %s%s" % (
                " ".join(args), USER, r.returncode, r.stdout, r.stderr))
        return r

    def test_cli_session_of_tracing_group_user_seen_at_once(self):
        """Issue 24: while caretd idles (no session: it reads the session
        list once a second), a session that a member of the tracing group
        starts with plain `lttng` in root's session daemon is still seen
        within 100 ms: the agents' tracepoint hint, not the slow read. The
        agents' state words are read from their segments every millisecond,
        from `lttng start` returning."""
        import mmap
        procs = self.system(2)
        pids = [p.pid for p in procs]
        self.c.wait_states(pids, "WAIT")
        maps = {}
        for n in self.c.segments():
            with open(os.path.join("/dev/shm", n), "rb") as f:
                m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
            if seg_field(m, "pid") in pids:
                maps[seg_field(m, "pid")] = m
        self.assertEqual(sorted(maps), sorted(pids))
        wait = [k for k, v in STATES.items() if v == "WAIT"][0]
        env = dict(self.c.env(agent=False), HOME=self.home, LTTNG_HOME=self.home)
        out = os.path.join(self.home, "cli")
        tracing = grp.getgrnam("tracing").gr_gid  # lttng-tools' package made it

        def as_member():
            os.setgroups([self.sgid, tracing])
            os.setgid(self.gid)
            os.setuid(self.uid)

        def lttng_as_user(*args):
            r = subprocess.run(["lttng", "--no-sessiond"] + list(args), env=env,
                               capture_output=True, text=True, timeout=60,
                               preexec_fn=as_member)
            self.assertEqual(r.returncode, 0, "lttng %s as %s: %s%s" % (
                " ".join(args), USER, r.stdout, r.stderr))
            return r.stdout
        name = "grp-%d" % os.getpid()
        lttng_as_user("create", name, "--output=" + out)
        try:
            for ev in ("ros2:*", "ros2_caret:*"):
                lttng_as_user("enable-event", "-u", "-s", name, ev)
            lttng_as_user("add-context", "-u", "-s", name, "-t", "vpid", "-t", "vtid",
                          "-t", "procname")
            # root's session daemon holds it (the tracing group's): caretd's
            self.assertIn(name, lttng("list"))
            time.sleep(1.3)  # caretd in its one-second read
            lttng_as_user("start", name)
            t1 = mono_ns()
            late = set(pids)
            while late and mono_ns() - t1 < 5e9:
                late = {p for p in late if seg_field(maps[p], "state") == wait}
                time.sleep(0.001)
            took = (mono_ns() - t1) / 1e6
            self.assertFalse(late, "still in WAIT 5 s after lttng start: %r" % late)
            self.assertLess(took, 100, "agents left WAIT %.1f ms after lttng start returned"
                            % took)
            self.c.wait_states(pids, "RECORD", timeout=20)
            lttng_as_user("stop", name)
        finally:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
            for m in maps.values():
                m.close()
        # the trace is the user's, and holds the processes' init records
        self.assertEqual(os.stat(out).st_uid, self.uid)
        names = {e.name for e in read_trace(out) if e.vpid in pids}
        self.assertIn("ros2_caret:rcl_node_init", names)

    def test_user_owns_its_trace_and_is_refused_a_path(self):
        procs = self.system(1) + [self.user_workload("upub")]
        r = self.as_user("record", "--immediate", "-p", os.path.join(self.home, "traces"),
                         "-s", "mine", "--duration", "1", "--timeout", "30")
        path = self.trace_path(r.stdout + r.stderr)
        st = os.stat(path)
        self.assertEqual((st.st_uid, st.st_gid), (self.uid, self.gid))
        bt = subprocess.run(["babeltrace2", path], capture_output=True, text=True,
                            preexec_fn=self.drop, timeout=60)
        self.assertEqual(bt.returncode, 0, bt.stderr)
        self.assertIn("vpid = %d" % procs[1].pid, bt.stdout)
        self.assertNotIn("vpid = %d" % procs[0].pid, bt.stdout)  # root's process
        rm = subprocess.run(["rm", "-r", path], capture_output=True, text=True,
                            preexec_fn=self.drop)
        self.assertEqual(rm.returncode, 0, rm.stderr)
        self.assertFalse(os.path.exists(path))

        forbidden = os.path.join(self.c.tmp, "rootonly")
        os.mkdir(forbidden, 0o700)
        r = self.as_user("record", "--immediate", "-p", os.path.join(forbidden, "traces"),
                         "-s", "theirs", "--duration", "1", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stdout + r.stderr, r"refused output path: uid %d cannot create or "
                         r"write \S*rootonly\S*: Permission denied" % self.uid)
        self.assertFalse(os.path.exists(os.path.join(forbidden, "traces")))
        self.assertNotIn("theirs", lttng_list())

    def test_member_record_counts_only_their_processes(self):
        """A member's record counts and waits for their own processes only
        (caretd(8): their recording traces no other user's), root's
        recording active or not: the count no longer depends on which of
        the two records reached caretd first."""
        procs = self.system(1) + [self.user_workload("upub")]
        rec_root = self.recorder("cntroot")  # root's session active, both processes in it
        self.assertIn("2/2 processes recording", rec_root.out_text())
        r = self.as_user("record", "--immediate", "-p", os.path.join(self.home, "traces"),
                         "-s", "cntuser", "--duration", "1", "--timeout", "30")
        self.assertIn("1/1 processes recording", r.stdout, r.stderr)
        self.assertNotIn("pid %d " % procs[0].pid, r.stderr)
        self.c.caretctl("stop", "-s", "cntroot")
        self.assertEqual(rec_root.finish(10), 0, rec_root.err_text())

    def test_two_users_stop_semantics_and_completeness(self):
        """Root and a user record at the same time, and an lttng CLI session
        runs too: root's trace has every init record of every process, the
        user's every one of their own process and nothing of root's; stop
        without -s stops the caller's own recording only; another user's
        recording or a CLI session is refused to the user."""
        procs = self.system(2) + [self.user_workload("upub")]
        cached = self.dumps(procs)
        rec_root = self.recorder("rootrec")
        rec_user = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                                 "-p", os.path.join(self.home, "traces"), "-s", "userrec",
                                 "--timeout", "30"],
                                agent=False, stdin=subprocess.DEVNULL, preexec_fn=self.drop)
        wait_line(rec_user, r"standard input closed", timeout=40)
        s = self.c.session()
        s.start()
        time.sleep(0.5)

        r = self.as_user("stop", "-s", s.name, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not started by 'caretctl record'", r.stdout + r.stderr)
        r = self.as_user("stop", "-s", "rootrec", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("another user's recording", r.stdout + r.stderr)

        self.c.wait_states([p.pid for p in procs], "RECORD")
        time.sleep(1)  # the user's and the CLI session's passes are over
        out = self.c.caretctl("stop").stdout  # root's own, not the newer ones
        self.assertIn("stopped session rootrec", out)
        self.assertRegex(out, r"\d+ replayed initialization records appear twice")
        self.assertEqual(rec_root.finish(10), 0, rec_root.err_text())
        self.assertIn("userrec", lttng_list())
        self.assertIn(s.name, lttng_list())

        out = self.as_user("stop").stdout
        self.assertIn("stopped session userrec", out)
        self.assertEqual(rec_user.finish(10), 0, rec_user.err_text())
        s.stop()

        path = self.trace_path(rec_root.out_text())
        assert_all_init(self, per_pid(path, procs), procs, cached, "root")
        path = self.trace_path(rec_user.out_text())
        mine = per_pid(path, procs)
        assert_all_init(self, mine, procs[2:], cached, "user")
        for p in procs[:2]:
            self.assertFalse(mine.get(p.pid), "root's pid %d in the user's trace" % p.pid)
        self.assertEqual(os.stat(self.trace_path(rec_user.out_text())).st_uid, self.uid)

    def user_line(self, req):
        """One request line sent as the user on a connection of its own,
        and caretd's first reply line."""
        code = ("import json, socket, sys\n"
                "s = socket.socket(socket.AF_UNIX)\n"
                "s.connect(sys.argv[1])\n"
                "s.sendall(sys.argv[2].encode() + b'\\n')\n"
                "print(s.makefile().readline(), end='')\n")
        r = subprocess.run(["/usr/bin/python3", "-c", code, self.c.sock, json.dumps(req)],
                           capture_output=True, text=True, timeout=30, preexec_fn=self.drop)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_user_may_not_hold_or_release_roots_recording(self):
        """Issue 34 item 5: a hold (caretd stops the recording when it
        closes) and a release (the recording runs on unheld) are the
        owner's: another user is refused both, and root's hold stays, so
        root's caretctl killed still stops root's recording."""
        self.system(1)
        rec_root = self.recorder("roothold")
        for req in ({"v": 1, "cmd": "hold", "session": "roothold"},
                    {"v": 1, "cmd": "hold", "session": "roothold", "release": True}):
            r = self.user_line(req)
            self.assertEqual(r.get("errno"), errno.EPERM, r)
            self.assertIn("another user's recording", r.get("error", ""))
        d = self.c.procs[0]
        self.assertNotIn("released by", d.err_text())
        self.assertIn("roothold", lttng_list())
        rec_root.kill()
        rec_root.wait()
        wait_err(d, r"session roothold: its requester \(pid \d+\) left without releasing")
        deadline = time.time() + 20
        while "roothold" in lttng_list() and time.time() < deadline:
            time.sleep(0.2)
        self.assertNotIn("roothold", lttng_list())

    def test_user_stops_own_recording_after_caretd_restart(self):
        """caretd restarted during a user's recording: the trace directory
        still says whose it is, so the user may stop it and gets it."""
        self.system(1)
        rec = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                            "-p", os.path.join(self.home, "traces"), "-s", "phoenix",
                            "--timeout", "30"],
                           agent=False, stdin=subprocess.DEVNULL, preexec_fn=self.drop)
        wait_line(rec, r"standard input closed", timeout=40)
        self.c.procs[0].kill()  # the first caretd of this test
        self.c.procs[0].wait()
        os.unlink(self.c.sock)  # so that caretd() waits for the new one
        self.c.caretd("--group", GROUP)
        out = self.as_user("stop", "-s", "phoenix").stdout
        self.assertIn("stopped session phoenix", out)
        self.assertEqual(rec.finish(10), 0, rec.err_text())
        path = self.trace_path(rec.out_text())
        for d, _, files in os.walk(path):
            for f in [d] + [os.path.join(d, x) for x in files]:
                self.assertEqual(os.lstat(f).st_uid, self.uid, f)

    def kill_caretd(self, restart):
        """kill -9 of this test's caretd (the last one started); then,
        if asked, a new one on the same socket."""
        d = [p for p in self.c.procs if p.args[0] == CARETD][-1]
        d.kill()
        d.wait()
        os.unlink(self.c.sock)  # so that caretd() waits for the new one
        return self.c.caretd("--group", GROUP) if restart else None

    def test_b5_recordings_survive_caretd_restart(self):
        """B5: caretd killed (-9) and restarted during a root's and a
        user's recording: it remembers whose they are, so `stop` without
        -s finds each caller's own, and both recorders end normally."""
        self.system(1)
        rec_root = self.recorder("b5root")
        rec_user = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                                 "-p", os.path.join(self.home, "traces"), "-s", "b5user",
                                 "--timeout", "30"],
                                agent=False, stdin=subprocess.DEVNULL, preexec_fn=self.drop)
        wait_line(rec_user, r"standard input closed", timeout=40)
        d = self.kill_caretd(restart=True)
        out = self.as_user("stop").stdout
        self.assertIn("stopped session b5user", out)
        out = self.c.caretctl("stop").stdout
        self.assertIn("stopped session b5root", out)
        self.assertEqual(rec_root.finish(10), 0, rec_root.err_text())
        self.assertEqual(rec_user.finish(10), 0, rec_user.err_text())
        self.assertRegex(d.err_text(), r"recording b5user of uid %d taken over" % self.uid)
        self.assertRegex(d.err_text(), r"recording b5root of uid 0 taken over")
        path = self.trace_path(rec_user.out_text())
        self.assertEqual(os.lstat(os.path.join(path, "ust")).st_uid, self.uid)
        r = self.c.caretctl("stop", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("b5", lttng_list())
        # a forged line in the state file is not believed
        state = self.c.sock + ".recordings"
        self.assertEqual(os.stat(state).st_mode & 0o777, 0o600)
        s = self.c.session()
        s.start()
        with open(state, "w") as f:
            f.write("1 %d %d 9 -1 0 0 0 0 0 0 %s %s\n" % (
                self.uid, self.gid, s.name.encode().hex(), s.path.encode().hex()))
        d = self.kill_caretd(restart=True)
        r = self.as_user("stop", check=False)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn(s.name, lttng_list())
        self.assertIn("not taken over: its session or trace directory does not match",
                      d.err_text())

    def test_b5_record_duration_while_caretd_is_away(self):
        """B5: caretd killed (-9) during `record --duration` and not back:
        root's caretctl stops and reads its own session through LTTng when
        the duration is over (a readable trace, the session gone); a user
        who cannot reach root's session daemon is told so, exit 3, and
        root stops it through LTTng and gives the user the trace."""
        procs = self.system(1)
        traces = os.path.join(self.c.tmp, "traces")
        rec = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p",
                            traces, "-s", "b5dur", "--duration", "3", "--timeout", "30"],
                           agent=False, stdin=subprocess.DEVNULL)
        rec_user = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                                 "-p", os.path.join(self.home, "traces"), "-s", "b5udur",
                                 "--duration", "3", "--timeout", "30"],
                                agent=False, stdin=subprocess.DEVNULL, preexec_fn=self.drop)
        wait_line(rec, r"^1/1 processes recording$", timeout=40)
        # root's process is not the member's to count (whichever record came first)
        wait_line(rec_user, r"^0/0 processes recording$", timeout=40)
        t0 = time.monotonic()
        self.kill_caretd(restart=False)
        try:
            rc = rec.finish(20)
        except subprocess.TimeoutExpired:
            raise AssertionError("record hangs: %s %s" % (rec.out_text(), rec.err_text()))
        self.assertEqual(rc, 0, rec.err_text())
        self.assertLess(time.monotonic() - t0, 10)
        self.assertIn("stopped session b5dur directly through LTTng", rec.err_text())
        self.assertIn("stopped session b5dur", rec.out_text())
        self.assertNotIn("b5dur", lttng_list())
        path = self.trace_path(rec.out_text())
        self.assertTrue(any(e.vpid == procs[0].pid for e in read_trace(path)))

        self.assertEqual(rec_user.finish(20), 3, rec_user.err_text())
        self.assertIn("stopping session b5udur through LTTng failed too", rec_user.err_text())
        self.assertIn("root's lttng-sessiond answers only root and the tracing group",
                      rec_user.err_text())
        self.assertIn("b5udur", lttng_list())
        # root may, and hands the trace to its owner as caretd would
        r = self.c.caretctl("stop", "-s", "b5udur")
        self.assertIn("stopped session b5udur directly through LTTng", r.stderr)
        self.assertNotIn("b5udur", lttng_list())
        path = self.trace_path(rec_user.out_text())
        for d, _, files in os.walk(path):
            for f in [d] + [os.path.join(d, x) for x in files]:
                self.assertEqual(os.lstat(f).st_uid, self.uid, f)

    def test_b5_caretd_killed_right_after_record_starts(self):
        """B5: caretd killed as soon as the session exists (during the
        wait for the replay, or just after): the recording still ends
        after --duration, stopped through LTTng, without caretd."""
        self.system(1)
        traces = os.path.join(self.c.tmp, "traces")
        rec = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p",
                            traces, "-s", "b5early", "--duration", "2", "--timeout", "2"],
                           agent=False, stdin=subprocess.DEVNULL)
        wait_line(rec, r"^recording to ", timeout=40)
        t0 = time.monotonic()
        self.kill_caretd(restart=False)
        rc = rec.finish(30)
        self.assertLess(time.monotonic() - t0, 15)
        # 3: caretd was away, so whether every process recorded is unknown
        self.assertIn(rc, (0, 3), rec.err_text())
        self.assertIn("stopped session b5early directly through LTTng", rec.err_text())
        self.assertNotIn("b5early", lttng_list())
        # readable (empty when the agents never heard of the session)
        read_trace(self.trace_path(rec.out_text()))


def lttng_list():
    return subprocess.run(["lttng", "list"], capture_output=True, text=True).stdout


if __name__ == "__main__":
    unittest.main(verbosity=2)
