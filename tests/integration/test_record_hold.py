# SPDX-License-Identifier: Apache-2.0
"""A recording whose requester left is stopped, never orphaned (issue 34,
item 5): `caretctl record` holds its recording over one connection to
caretd (`hold`, daemon/server/cmd_hold.c); when caretctl goes without a
release (SIGKILL, a second signal), caretd stops the recording as `caretctl
stop` does, and the trace holds every process's init records. Exit 4
without --duration releases it: the recording runs on, as caretctl(1)
says. Another user's hold or release: tests/integration/test_sessions_users.py.
Real lttng-sessiond, real agents, babeltrace2."""
import json
import os
import re
import signal
import socket
import threading
import time
import unittest

from harness import SystemTest, lttng, wait_err, wait_line
from record_spawn import record_blocked_after_answer, spawn_record
from trace_model import assert_all_init, per_pid


def active_sessions():
    """The sessions this test's session daemon has, and whether each one is active."""
    return dict(re.findall(r"^\s*\d+\) (\S+) .*\[(active|inactive)[\] ]", lttng("list"), re.M))


def sessions_gone(name, timeout=20):
    """Whether name is gone from the session daemon (a stop by caretd destroys it)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if name not in active_sessions():
            return True
        time.sleep(0.2)
    return False


def release(sock, session):
    """What caretctl's exit 4 sends: every hold of session ends."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock)
        s.sendall(json.dumps({"v": 1, "cmd": "hold", "session": session,
                              "release": True}).encode() + b"\n")
        return json.loads(s.makefile().readline())


class HoldTest(SystemTest):
    def recorder(self, name, *args):
        """caretctl record without --duration, standard input closed: it
        records until a signal."""
        p = spawn_record(self.c, self.traces, name, "--timeout", "30", *args)
        wait_line(p, r"processes recording", timeout=40)
        wait_line(p, r"standard input closed", timeout=10)
        return p

    def trace_of(self, p):
        m = re.search(r"recording to (\S+)", p.out_text())
        self.assertTrue(m, p.out_text())
        return m.group(1)

    def assert_stopped_with_init(self, d, name, trace, procs, cached, mark):
        self.assertTrue(sessions_gone(name), lttng("list"))
        wait_err(d, r"session %s: its requester \(pid \d+\) left without releasing it" % name,
                 start=mark)
        wait_err(d, r"session %s stopped and destroyed; trace in" % name, start=mark)
        self.assertNotIn(name, self.c.caretctl("status").stdout)
        assert_all_init(self, per_pid(trace, procs), procs, cached, trace)

    def test_sigkill_while_recording_stops_the_recording(self):
        d = self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        mark = len(d.errs)
        rec = self.recorder("killed")
        trace = self.trace_of(rec)
        self.assertEqual(active_sessions().get("killed"), "active")
        rec.kill()
        rec.wait()
        self.assert_stopped_with_init(d, "killed", trace, procs, cached, mark)

    def test_sigkill_right_after_the_answer(self):
        """The moment between caretd's answer and anything caretctl does
        next, made to last: caretctl blocks writing "recording to ..." to a
        full pipe, right after it read the result. The record's own
        connection holds the recording (its "hold"): killed there, the
        recording is stopped. (A hold asked for on another connection after
        the answer left it running for no one.)"""
        d = self.c.caretd()
        self.system(2)
        mark = len(d.errs)
        rec, r = record_blocked_after_answer(self, self.c, self.traces, "instant")
        try:
            self.assertEqual(active_sessions().get("instant"), "active", lttng("list"))
            rec.kill()
            rec.wait()
        finally:
            if rec.poll() is None:
                rec.kill()
                rec.wait()
            os.close(r)
        self.assertTrue(sessions_gone("instant"), lttng("list"))
        wait_err(d, r"session instant: its requester \(pid \d+\) left without releasing it",
                 start=mark)
        self.assertNotIn("instant", self.c.caretctl("status").stdout)

    def test_caretd_killed_right_after_the_answer_knows_it(self):
        """The recording a deferred record made is saved before its answer
        goes out (the server's save after a deferred change, as no
        command's end follows LTTng's start): caretd killed while caretctl
        is held right after reading the answer, the next caretd takes the
        recording over."""
        d = self.c.caretd()
        self.system(1)
        rec, r = record_blocked_after_answer(self, self.c, self.traces, "known")
        try:
            d.kill()
            d.wait()
            os.unlink(self.c.sock)
            d = self.c.caretd()
            wait_err(d, r"recording known of uid 0 taken over")
        finally:
            rec.kill()
            rec.wait()
            os.close(r)
        self.c.caretctl("stop", "-s", "known")

    def test_status_says_held(self):
        """status's "held": true while caretctl record holds it, gone once
        released (the recording then runs until caretctl stop)."""
        self.c.caretd()
        self.system(1)
        rec = self.recorder("shown")

        def entry():
            st = json.loads(self.c.caretctl("status", "--json").stdout)
            return [x for x in st["recordings"] if x["session"] == "shown"][0]
        self.assertIs(entry().get("held"), True)
        self.assertRegex(self.c.caretctl("status").stdout, r"shown: plain, held \(")
        self.assertIs(release(self.c.sock, "shown").get("held"), False)
        self.assertNotIn("held", entry())
        self.assertNotRegex(self.c.caretctl("status").stdout, r"shown: plain, held")
        rec.kill()
        rec.wait()
        time.sleep(1)  # past the hold's last poll: released, nothing stops it
        self.assertEqual(active_sessions().get("shown"), "active", lttng("list"))
        self.c.caretctl("stop", "-s", "shown")

    def test_all_hosts_kept_across_a_caretd_kill(self):
        """--all-hosts outlives a kill -9 of caretd for a recording made at
        once (not armed): its caretctl killed after the restart, the new
        caretd ends it on every host as stop --all-hosts would (End)."""
        d = self.c.caretd()
        self.system(1)
        rec = self.recorder("everyhost", "--all-hosts")
        d.kill()
        d.wait()
        os.unlink(self.c.sock)
        d = self.c.caretd()
        wait_err(rec, r"holding session everyhost again \(caretd restarted\)", timeout=20)
        rec.kill()
        rec.wait()
        self.assertTrue(sessions_gone("everyhost"), lttng("list"))
        wait_err(d, r"session everyhost: its requester \(pid \d+\) left without releasing it")
        wait_err(d, r"End (broadcast to every host|not broadcast|held while the bridge wakes)")

    def test_older_caretd_is_held_with_hold(self):
        """A caretd before record's "hold" ignores it and answers without
        "held": caretctl then holds with `hold` on a connection of its own,
        as before (proto/caret_ctl.h)."""
        sock = os.path.join(self.c.tmp, "old.sock")
        srv = socket.socket(socket.AF_UNIX)
        srv.bind(sock)
        srv.listen(4)
        srv.settimeout(30)
        seen, conns = [], []

        def serve():
            for _ in range(2):
                c, _ = srv.accept()
                conns.append(c)
                f = c.makefile("rwb")
                q = json.loads(f.readline())
                seen.append(q)
                if q["cmd"] == "record":
                    reply = {"v": 1, "type": "result", "session": "old", "path": "/tmp/old"}
                else:
                    reply = {"v": 1, "type": "result", "session": "old", "held": True}
                f.write(json.dumps(reply).encode() + b"\n")
                f.flush()
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        rec = spawn_record(self.c, self.traces, "old", "--timeout", "30", sock=sock)
        try:
            t.join(30)
            self.assertEqual(len(seen), 2, seen)
            self.assertEqual(seen[0]["cmd"], "record")
            self.assertIs(seen[0].get("hold"), True)
            self.assertEqual(seen[1], {"v": 1, "cmd": "hold", "session": "old"})
        finally:
            rec.kill()
            rec.wait()
            for c in conns:
                c.close()
            srv.close()

    def test_sigkill_of_an_armed_record_after_enter(self):
        """Armed, then Enter: held from before `go`."""
        d = self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        mark = len(d.errs)
        rec = self.c.arm("-p", self.traces, "-s", "armedkill", "--timeout", "30")
        rec.stdin.write("\n")
        rec.stdin.flush()
        out = ""
        deadline = time.time() + 40
        while "press Enter or Ctrl-C to stop" not in out and time.time() < deadline:
            out += rec.stdout.readline()
        self.assertIn("press Enter or Ctrl-C to stop", out)
        trace = re.search(r"recording to (\S+)", out).group(1)
        rec.kill()
        rec.wait()
        rec.stdin.close()
        rec.stdout.close()
        self.assert_stopped_with_init(d, "armedkill", trace, procs, cached, mark)

    def test_caretd_restarted_caretctl_holds_again(self):
        """The rule across a restart: holds live in the connections, a
        caretd killed ends none of its recordings, and the caretctl still
        recording holds again once caretd is back; killed then, its
        recording is stopped by the new caretd."""
        d = self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        rec = self.recorder("phoenix")
        trace = self.trace_of(rec)
        d.kill()
        d.wait()
        os.unlink(self.c.sock)  # so that caretd() waits for the new one
        d = self.c.caretd()
        wait_err(rec, r"holding session phoenix again \(caretd restarted\)", timeout=20)
        self.assertEqual(active_sessions().get("phoenix"), "active")
        mark = 0
        wait_err(d, r"session phoenix: held by its requester", start=mark)
        rec.kill()
        rec.wait()
        self.assert_stopped_with_init(d, "phoenix", trace, procs, cached, mark)

    def test_sigkill_of_rotating_and_flight_recorder_records(self):
        """The other forms are held too: a rotating recording and a flight
        recorder, their caretctl killed, are stopped as `caretctl stop`
        stops them (the flight recorder without a snapshot leaves no
        directory)."""
        d = self.c.caretd()
        self.system(2)
        for name, args in (("rot", ["--rotate-every", "2s"]), ("ring", ["--snapshot"])):
            mark = len(d.errs)
            rec = self.recorder(name, *args)
            self.assertEqual(active_sessions().get(name), "active", lttng("list"))
            rec.kill()
            rec.wait()
            self.assertTrue(sessions_gone(name), lttng("list"))
            wait_err(d, r"session %s: its requester \(pid \d+\) left without releasing it"
                     % name, start=mark)
            self.assertNotIn(name, self.c.caretctl("status").stdout)
        wait_err(d, r"flight recorder ring stopped without a snapshot")

    def test_second_sigint_stops_the_recording(self):
        d = self.c.caretd()
        procs = self.system(2)
        cached = self.dumps(procs)
        mark = len(d.errs)
        rec = self.recorder("twice")
        trace = self.trace_of(rec)
        rec.send_signal(signal.SIGINT)
        rec.send_signal(signal.SIGINT)
        rec.wait(30)
        self.assertTrue(sessions_gone("twice"), lttng("list"))
        self.assertNotIn("twice", self.c.caretctl("status").stdout)
        assert_all_init(self, per_pid(trace, procs), procs, cached, trace)

    def test_exit_4_without_duration_leaves_it_running(self):
        """Processes that cannot finish their replay within --timeout (one
        record a second): exit 4, the recording released and running on."""
        d = self.c.caretd()
        self.system(2)
        mark = len(d.errs)
        rec = spawn_record(self.c, self.traces, "slow", "-f", "1", "--timeout", "2")
        self.assertEqual(rec.finish(60), 4, rec.out_text() + rec.err_text())
        self.assertIn("session slow is still recording", rec.err_text())
        wait_err(d, r"session slow: released by uid 0 \(1 hold ended\)", start=mark)
        time.sleep(2)  # past the hold's last poll
        self.assertEqual(active_sessions().get("slow"), "active", lttng("list"))
        self.assertIn("slow", self.c.caretctl("status").stdout)
        self.assertFalse(any("left without releasing" in l for l in d.errs[mark:]))
        self.c.caretctl("stop", "-s", "slow")

    def test_normal_end_needs_no_hold(self):
        """--duration: caretctl's own stop; the hold ends with the recording
        and its connection's close stops nothing more."""
        d = self.c.caretd()
        self.system(2)
        mark = len(d.errs)
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "plain",
                            "--duration", "1", "--timeout", "30")
        self.assertIn("plain", r.stdout)
        wait_err(d, r"session plain: held by its requester", start=mark)
        time.sleep(1.5)
        self.assertFalse(any("left without releasing" in l for l in d.errs[mark:]),
                         "".join(d.errs[mark:]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
