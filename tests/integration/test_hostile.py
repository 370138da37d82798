# SPDX-License-Identifier: Apache-2.0
"""Local users attacking caretd: through /dev/shm (planted, truncated and
squatted segments, touch storms, huge counters), its socket (idle and slow
clients, big replies, forged log lines). caretd stays responsive, bounded
and correct. Group members' attacks through their recording rights are
test_hostile_users.py; what the segment readers themselves refuse,
test_hostile_segments.py."""
import json
import os
import subprocess
import time
import unittest

from harness import CARETCTL, CARETD, FORKER, STANDIN, wait_line
from seg_layout import seg_header
from caret_kinds import SHM_LAYOUT_VERSION
from hostile import HostileBase, as_user, node_record, temp_user


class CaretdUnderAttack(HostileBase):
    """Local users attacking caretd through /dev/shm and its socket: caretd
    stays responsive, bounded and correct."""

    def test_b1_rejected_files_do_not_spin(self):
        """B1: files caretd rejects (garbage, empty, another layout, a uid
        mismatch, a FIFO) created by any user never make it spin."""
        d = self.c.caretd()
        shm = "/dev/shm/" + self.c.prefix
        with temp_user() as pw:
            as_user(pw, ["sh", "-c", "printf x > %s.4242.1" % shm], check=True)
            as_user(pw, ["sh", "-c", ": > %s.4243.1" % shm], check=True)
            p = self.c.prefix
            self.plant(pw, p + ".4244.1", seg_header(pid=4244, uid=pw.pw_uid,
                                                     layout_version=SHM_LAYOUT_VERSION + 1),
                       1 << 20)
            self.plant(pw, p + ".4245.1", seg_header(pid=4245, uid=0), 1 << 20)
            as_user(pw, ["mkfifo", "%s.4246.1" % shm], check=True)
            time.sleep(0.3)
            self.assert_idle_cpu(d)
            t0 = time.time()
            self.assertEqual(self.status()["agents"], [])
            self.assertLess(time.time() - t0, 2)
            # a rejected file changed by its owner is looked at again, once
            as_user(pw, ["sh", "-c", "printf yy > %s.4242.1" % shm], check=True)
            time.sleep(0.3)
            self.assert_idle_cpu(d)
        d.send_signal(15)
        self.assertEqual(d.finish(10), 0)
        # a name is warned about once per state of its file, not at every
        # event: two writes by the attacker (each may be seen empty, then
        # written) make at most four lines
        self.assertLessEqual(d.err_text().count(".4242.1"), 4, d.err_text())

    def test_touch_storm_reads_sessions_no_faster_than_the_old_poll(self):
        """Issue 24: an agent touches its segment (IN_ATTRIB) when its
        ros2/ros2_caret probes change, and caretd then reads the session
        list at once. Any user can touch a file under a segment name as
        fast as it likes: caretd reads the list at most once per 50 ms
        (20 a second, its old poll), and stays idle otherwise."""
        d = self.c.caretd()
        path = "/dev/shm/%s.4250.1" % self.c.prefix
        line = "an agent's ros2/ros2_caret probes changed"
        secs = 3.0
        with temp_user() as pw:
            before = d.err_text().count(line)
            t0 = time.time()
            as_user(pw, ["/usr/bin/python3", "-c",
                         "import os, time\n"
                         "fd = os.open(%r, os.O_CREAT | os.O_WRONLY, 0o600)\n"
                         "t = time.time()\n"
                         "while time.time() - t < %r:\n"
                         "    os.utime(fd)\n" % (path, secs)], check=True)
            took = time.time() - t0
            time.sleep(0.3)
            reads = d.err_text().count(line) - before
        # the hints do hasten reads ...
        self.assertGreater(reads, 5, d.err_text()[-2000:])
        # ... but no more than one per 50 ms, however many touches
        self.assertLessEqual(reads, (took + 0.3) / 0.05 + 2, "%d reads in %.1f s" % (reads, took))
        self.assertIsNone(d.poll())

    def test_b3_refused_attach_leaks_nothing(self):
        """B3: a valid segment claiming pid 1, rewritten 300 times by its
        unprivileged owner, costs caretd no descriptor and no mapping."""
        d = self.c.caretd()
        with open("/proc/1/stat") as f:
            start1 = int(f.read().rsplit(")", 1)[1].split()[19])
        name = "%s.1.%d" % (self.c.prefix, start1)
        with temp_user() as pw:
            dst = self.plant(pw, name, seg_header(pid=1, uid=pw.pw_uid, start_time=start1),
                             1 << 20)
            time.sleep(0.3)
            fds0 = len(os.listdir("/proc/%d/fd" % d.pid))
            src = os.path.join(self.c.tmp, "hdr")
            with open(src, "wb") as f:
                f.write(seg_header(pid=1, uid=pw.pw_uid, start_time=start1))
            os.chmod(src, 0o644)
            as_user(pw, ["sh", "-c", "for i in $(seq 300); do dd if=%s of=%s conv=notrunc "
                         "status=none; done" % (src, dst)], check=True)
            time.sleep(0.5)
            fds = len(os.listdir("/proc/%d/fd" % d.pid))
            with open("/proc/%d/maps" % d.pid) as f:
                maps = sum(1 for l in f if name in l)
            self.assertLessEqual(fds, fds0 + 1)
            self.assertEqual(maps, 0)
            self.assertEqual(self.status()["agents"], [])
        self.assertIn("ignoring segment %s: Operation not permitted" % name, d.err_text())

    def test_b3_out_of_descriptors_is_not_death(self):
        """B3: with caretd out of descriptors (held by clients), a live
        agent's segment is not taken for a dead one's, and caretd does not
        spin on its listening socket."""
        self.c.sock = os.path.join(self.c.tmp, "caretd.sock")
        d = self.c.spawn(["prlimit", "--nofile=48:48", CARETD, "--socket", self.c.sock,
                          "--log-level", "debug"], agent=False)
        w = self.c.workload("--name", "victim")
        wait_line(w, r"^ready pid=%d" % w.pid)
        self.c.wait_states([w.pid], "WAIT")
        seg = self.c.segments()
        self.assertEqual(len(seg), 1)
        import socket
        conns = []
        try:
            fails = 0
            while len(conns) < 60 and fails < 20:
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.setblocking(False)
                try:
                    c.connect(self.c.sock)
                    conns.append(c)
                except OSError:  # backlog full: caretd is behind, or stopped accepting
                    c.close()
                    fails += 1
                    time.sleep(0.05)
            deadline = time.time() + 5
            while "cannot accept a client" not in d.err_text() and time.time() < deadline:
                time.sleep(0.05)
            self.assertIn("Too many open files", d.err_text())
            time.sleep(2.5)  # two sweeps of dead processes
            self.assert_idle_cpu(d)
            self.assertEqual(self.c.segments(), seg)
        finally:
            for c in conns:
                c.close()
        time.sleep(0.5)
        self.assertIn(w.pid, self.c.wait_states([w.pid], "WAIT"))
        self.assertNotIn("reclaiming the segment of dead pid %d" % w.pid, d.err_text())

    def test_b2_owner_truncates_attached_segment(self):
        """B2: the owner of an attached segment truncates it; caretd goes on
        (no SIGBUS), drops the segment and keeps serving."""
        d = self.c.caretd()
        with temp_user() as pw:
            owner = subprocess.Popen(["setpriv", "--reuid=%d" % pw.pw_uid,
                                      "--regid=%d" % pw.pw_gid, "--clear-groups",
                                      "sleep", "60"])
            try:
                time.sleep(0.2)
                with open("/proc/%d/stat" % owner.pid) as f:
                    start = int(f.read().rsplit(")", 1)[1].split()[19])
                name = "%s.%d.%d" % (self.c.prefix, owner.pid, start)
                dst = self.plant(pw, name, seg_header(pid=owner.pid, uid=pw.pw_uid,
                                                      start_time=start, procname=b"victim"),
                                 1 << 20)
                deadline = time.time() + 5
                while not self.status()["agents"] and time.time() < deadline:
                    time.sleep(0.05)
                self.assertEqual([a["pid"] for a in self.status()["agents"]], [owner.pid])
                as_user(pw, ["truncate", "-s", "0", dst], check=True)
                for _ in range(30):  # status reads the header words; so do the ticks
                    self.status()
                    time.sleep(0.05)
                self.assertIsNone(d.poll(), d.err_text())
                self.assertEqual(self.status()["agents"], [])
                # the shrunk file is not attached again while unchanged
                time.sleep(1.2)
                self.assertEqual(self.status()["agents"], [])
            finally:
                owner.kill()
                owner.wait()
        self.assertIn("truncated by its owner", d.err_text())

    def test_b6_huge_counters_keep_status_working(self):
        """B6: a segment claiming 2^63 records (and 2^64-1 dropped) does not
        break status, list or wait for everyone."""
        d = self.c.caretd()
        owner = subprocess.Popen(["sleep", "60"])
        try:
            time.sleep(0.1)
            with open("/proc/%d/stat" % owner.pid) as f:
                start = int(f.read().rsplit(")", 1)[1].split()[19])
            name = "%s.%d.%d" % (self.c.prefix, owner.pid, start)
            with open("/dev/shm/" + name, "wb") as f:
                f.write(seg_header(pid=owner.pid, start_time=start, records=1 << 63,
                                   dropped=(1 << 64) - 1, replayed=(1 << 64) - 1))
                f.truncate(1 << 20)
            os.chmod("/dev/shm/" + name, 0o600)
            deadline = time.time() + 5
            while not self.status()["agents"] and time.time() < deadline:
                time.sleep(0.05)
            a = self.status()["agents"][0]
            self.assertEqual(a["records"], 10 ** 15 - 1)
            self.assertEqual(a["dropped"], 10 ** 15 - 1)
            for cmd in (["status"], ["list"], ["list", "--json"]):
                r = self.c.caretctl(*cmd, check=False)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        finally:
            owner.kill()
            owner.wait()
        self.assertIsNone(d.poll())

    def live_segment(self, procname=b"evil", recs=b"", **hdr):
        """A valid segment of a live process of ours (a sleep), holding the
        records recs: returns its pid. The file is whole before caretd can
        see it (written under a name outside the prefix, then renamed), so
        caretd never reads the records area before the records are in."""
        owner = subprocess.Popen(["sleep", "60"])
        self.addCleanup(lambda: (owner.kill(), owner.wait()))
        time.sleep(0.05)
        with open("/proc/%d/stat" % owner.pid) as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        name = "/dev/shm/%s.%d.%d" % (self.c.prefix, owner.pid, start)
        tmp = "/dev/shm/.making.%d" % owner.pid
        with open(tmp, "wb") as f:
            f.write(seg_header(pid=owner.pid, start_time=start, procname=procname,
                               tail=len(recs), **hdr) + recs)
            f.truncate(1 << 20)
        os.chmod(tmp, 0o600)
        os.rename(tmp, name)
        return owner.pid

    def test_b13_forged_log_lines_and_invalid_utf8(self):
        """B13: a procname with a newline and a "<0>" level, and one with
        invalid UTF-8 and an escape sequence, forge no journal line and no
        invalid JSON; refusals are rate-limited."""
        self.c.sock = os.path.join(self.c.tmp, "caretd.sock")
        env = {"JOURNAL_STREAM": "1:1"}
        d = self.c.spawn([CARETD, "--socket", self.c.sock, "--log-level", "debug"],
                         agent=False, extra_env=env)
        self.c.wait_socket(d)
        p1 = self.live_segment(procname=b"x\n<0>FAKE")
        nodes = node_record(b"n\xff\x1b[2J\n<0>FAKE", b"/\xed\xa0\x80ns")
        p2 = self.live_segment(procname=b"\xff\xfe\x1b[31mred\xc0", recs=nodes, records=1)
        deadline = time.time() + 5
        while len(self.status()["agents"]) < 2 and time.time() < deadline:
            time.sleep(0.05)
        for cmd in (["status", "--json"], ["list", "--json"]):
            raw = subprocess.run([CARETCTL, "--socket", self.c.sock] + cmd,
                                 capture_output=True, timeout=10).stdout
            names = {a["pid"]: a["procname"]
                     for a in json.loads(raw.decode("utf-8", errors="strict"))["agents"]}
            self.assertEqual(names[p1], "x?<0>FAKE")
            self.assertNotIn("\x1b", names[p2])
            node = [a["nodes"] for a in json.loads(raw)["agents"] if a["pid"] == p2][0]
            self.assertEqual(node, ["/???ns/n??[2J?<0>FAKE"])
        # 100 garbage files: a handful of lines, then a count
        for i in range(100):
            with open("/dev/shm/%s.%d.1" % (self.c.prefix, 5000 + i), "wb") as f:
                f.write(b"junk")
        time.sleep(0.5)
        d.send_signal(15)
        d.finish(10)
        err = d.err_text()
        for line in err.splitlines():
            self.assertRegex(line, r"^<[3-7]>", "forged or unlevelled line: %r" % line)
        self.assertLessEqual(err.count("ignoring segment"), 10, err)
        err.encode("utf-8")  # valid text (the pump decoded it strictly)

    def test_b7_big_status_reply(self):
        """B7: 30 processes x 40 nodes with long names: status and list
        (a reply far above the 64 KiB request limit) work."""
        self.c.caretd()
        recs = b"".join(node_record("node_with_a_rather_long_descriptive_name_%02d_%s" %
                                    (i, "x" * 20), "/some/long_namespace") for i in range(40))
        pids = []
        for _ in range(30):
            pids.append(self.live_segment(recs=recs, records=40))
        deadline = time.time() + 10
        while len(self.status()["agents"]) < 30 and time.time() < deadline:
            time.sleep(0.1)
        r = self.c.caretctl("list", "--json")
        self.assertGreater(len(r.stdout), 100000)
        agents = json.loads(r.stdout)["agents"]
        self.assertEqual(sorted(a["pid"] for a in agents), sorted(pids))
        self.assertTrue(all(len(a["nodes"]) == 40 for a in agents))
        for cmd in (["status"], ["list"], ["status", "--json"]):
            self.assertEqual(self.c.caretctl(*cmd, check=False).returncode, 0, cmd)

    HOG = r"""
import socket, sys, time
conns = []
for _ in range(int(sys.argv[2])):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(sys.argv[1])
    if sys.argv[3] == "slow":
        try:
            c.send(b'{"v": 1, "cmd": "sta')  # a request never finished
        except OSError:  # refused and closed already
            pass
    conns.append(c)
print("held", flush=True)
time.sleep(float(sys.argv[4]))
closed = 0
for c in conns:
    c.settimeout(0.2)
    try:
        while c.recv(4096):
            pass
        closed += 1
    except ConnectionResetError:
        closed += 1
    except OSError:  # timed out: still open
        pass
print("closed", closed, flush=True)
"""

    def test_b8_idle_and_slow_clients_cannot_lock_out(self):
        """B8: a group member holding 64 slow connections (a request never
        finished) and 70 idle ones: root's status is still served; the member
        gets its share (16), and its clients are closed after 10 s."""
        with temp_user() as pw:
            d = self.c.caretd("--group", pw.pw_name)
            hog = os.path.join(self.c.tmp, "hog.py")
            with open(hog, "w") as f:
                f.write(self.HOG)
            os.chmod(hog, 0o644)
            procs = []
            # the slow ones first: 16 of them are accepted, and must time out
            for mode, n in (("slow", 64), ("idle", 70)):
                procs.append(subprocess.Popen(
                    ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                     "--clear-groups", "/usr/bin/python3", hog, self.c.sock, str(n), mode,
                     "12"], stdout=subprocess.PIPE, text=True))
            for p in procs:
                self.assertEqual(p.stdout.readline().strip(), "held")
            time.sleep(0.3)
            t0 = time.time()
            self.assertIn("agents", self.status())
            self.assertLess(time.time() - t0, 2)
            outs = [p.communicate(timeout=30)[0] for p in procs]
            # every connection was closed: refused at once, or idle/slow
            self.assertIn("closed 64", outs[0])
            self.assertIn("closed 70", outs[1])
        self.assertIn("too many clients", d.err_text())
        self.assertIn("agents", self.status())

    def test_b10_squatted_name_gets_a_fallback(self):
        """B10: another user pre-creates the segment name of root's next
        app; the app still gets a cache (a name with a random suffix) and
        caretd lists it with its nodes."""
        self.c.caretd()
        gate = self.c.spawn(["sh", "-c", "read x; exec %s --domain %s --name squatted"
                             % (STANDIN, self.c.domain)], stdin=subprocess.PIPE)
        with open("/proc/%d/stat" % gate.pid) as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        name = "%s.%d.%d" % (self.c.prefix, gate.pid, start)
        with temp_user() as pw:
            as_user(pw, ["sh", "-c", ": > /dev/shm/" + name], check=True)
            self.assertEqual(os.stat("/dev/shm/" + name).st_uid, pw.pw_uid)
            gate.stdin.write("go\n")
            gate.stdin.flush()
            wait_line(gate, r"^ready pid=%d" % gate.pid)
            ag = self.c.wait_states([gate.pid], "WAIT")
            seg = ag[gate.pid]["segment"]
            self.assertRegex(seg, r"^%s\.[0-9a-f]{16}$" % name.replace(".", r"\."))
            self.assertIn("/squatted", ag[gate.pid]["nodes"])
            self.assertNotIn("no init cache", gate.err_text())
            os.unlink("/dev/shm/" + name)

    def test_b12_exec_gets_a_fresh_segment(self):
        """B12: an app that called tracetools exec()s itself: the new image
        replaces the old image's segment (same pid and start time)."""
        self.c.caretd()
        p = self.c.spawn([FORKER, "--exec", "20"])
        wait_line(p, r"^ready pid=%d" % p.pid)
        ag = self.c.wait_states([p.pid], "WAIT")
        self.assertEqual(ag[p.pid]["nodes"], ["/after"])
        mine = [n for n in self.c.segments() if ".%d." % p.pid in n]
        self.assertEqual(len(mine), 1, mine)
        self.assertNotIn("no init cache", p.err_text())

    def test_b11b_cache_drops_reported_by_wait_and_stop(self):
        """B11b: init records an agent could not cache (a small cache) are
        reported by record's wait and by stop, per process with their
        numbers, and both exit 4 (initialization data incomplete); a
        process whose cache held everything is not named."""
        d = self.c.caretd()
        w = self.c.workload("--name", "tiny", "--pubs", "30", "--subs", "30",
                            extra_env={"CARET_AGENT_CACHE_SIZE": "8K"})
        ok = self.c.workload("--name", "roomy", "--pubs", "1", "--subs", "1")
        wait_line(w, r"^ready pid=%d" % w.pid)
        wait_line(ok, r"^ready pid=%d" % ok.pid)
        ag = self.c.wait_states([w.pid, ok.pid], "WAIT")
        dropped = ag[w.pid]["dropped"]
        self.assertGreater(dropped, 0)
        self.assertEqual(ag[ok.pid]["dropped"], 0)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "--timeout", "30",
                            "--json", "-p", traces, check=False)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        results = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        wait = [x for x in results if "not_recording" in x]
        stop = [x for x in results if "channels" in x]
        self.assertEqual([x["dropped"] for x in wait], [dropped], r.stdout)
        self.assertEqual([x["dropped"] for x in stop], [dropped], r.stdout)
        for x in wait + stop:
            self.assertEqual(x["drops"], [{"pid": w.pid, "procname": "tiny",
                                           "dropped": dropped}], x)
        # each of wait and stop says it, naming the process
        line = "pid %d (tiny): %d records dropped" % (w.pid, dropped)
        self.assertEqual(r.stderr.count(line), 2, r.stderr)
        self.assertIn("dropped %d initialization records" % dropped, r.stderr)
        self.assertNotIn("pid %d " % ok.pid, r.stderr)
        # text mode, and a stop of its own (Enter never comes: stdin closed)
        s = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p",
                          traces, "-s", "b11b", "--timeout", "30"], agent=False,
                         stdin=subprocess.DEVNULL)
        wait_line(s, r"^2/2 processes recording")
        r = self.c.caretctl("stop", "-s", "b11b", check=False)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("stopped session b11b", r.stdout)
        self.assertIn(line, r.stderr)
        self.assertEqual(s.wait(30), 4, s.err_text())
        self.assertIn(line, s.err_text())
        self.assertRegex(d.err_text(), r"pid %d \(tiny\): %d initialization records dropped" %
                         (w.pid, dropped))


if __name__ == "__main__":
    unittest.main(verbosity=2)
