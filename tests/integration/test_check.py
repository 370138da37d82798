# SPDX-License-Identifier: Apache-2.0
"""caretctl check on real traces: a complete one recorded through caretd,
one missing a process's init data, one with duplicate init records and one
with discarded events. Each defect is produced for real (a process started
without the agent, a second replay into the same session, tiny sub-buffers
under a flood) and must be reported with its numbers."""
import errno
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from harness import B, CARETCTL, Ctx, lttng, read_trace, wait_line

FLOOD = os.path.join(B, "bench", "caret-flood")


def check(path, *args):
    r = subprocess.run([CARETCTL, "check", "--json"] + list(args) + [path],
                       capture_output=True, text=True, timeout=300)
    rep = json.loads(r.stdout) if r.stdout.strip() else None
    return r.returncode, rep, r.stderr


def kinds_sum(line):
    """The sum of the kind=N list at the end of a line (proves it whole)."""
    m = re.search(r"\(((?:[a-z_]+=\d+ ?)+)\)$", line)
    assert m, line
    return sum(int(x.split("=")[1]) for x in m.group(1).split())


def stop_copies(text):
    """The number of copies `stop` (the end of `record`) reported, or 0."""
    m = re.search(r"(\d+) replayed initialization records? appears? twice", text)
    return int(m.group(1)) if m else 0


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def procs_by_pid(self, rep):
        return {p["pid"]: p for p in rep["processes"]}

    def test_complete_trace(self):
        """A caretd recording of a running system: exit 0, every process
        has caret_init and init records, the summary names the stand-in's
        nodes and topics, and the event counts agree with babeltrace2's
        Python bindings."""
        self.c.caretd()
        procs = [self.c.workload("--name", "sub0", "--pubs", "0", "--subs", "2"),
                 self.c.workload("--name", "pub1", "--pubs", "2", "--rate", "40")]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        time.sleep(0.5)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "complete",
                            "--duration", "2", "--timeout", "30")
        path = os.path.join(traces, "complete")
        self.assertTrue(os.path.isdir(path), r.stdout + r.stderr)
        rc, rep, err = check(path)
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        self.assertTrue(rep["complete"])
        self.assertEqual(rep["problems"], [])
        per = self.procs_by_pid(rep)
        for p in procs:
            self.assertIn(p.pid, per)
            self.assertTrue(per[p.pid]["caret_init"])
            self.assertGreater(per[p.pid]["init_records"]["rcl_node_init"], 0)
            self.assertEqual(per[p.pid]["duplicates_total"], 0)
            self.assertGreater(per[p.pid]["runtime_events"], 0)
        self.assertGreater(per[procs[1].pid]["publishes"], 0)
        self.assertGreater(per[procs[1].pid]["bindings"], 0)
        names = {n["name"] for n in rep["nodes"]}
        self.assertTrue(any("sub0" in n for n in names), names)
        self.assertTrue(any("pub1" in n for n in names), names)
        self.assertTrue(any(t["publishers"] and t["subscriptions"] for t in rep["topics"]),
                        rep["topics"])
        events = read_trace(path)
        self.assertEqual(rep["events"], len(events))
        self.assertEqual(rep["events_per_kind"]["ros2:callback_start"],
                         sum(1 for e in events if e.name == "ros2:callback_start"))
        # The text form says the same.
        t = subprocess.run([CARETCTL, "check", path], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(t.returncode, 0, t.stdout + t.stderr)
        self.assertRegex(t.stdout, r"(?m)^complete$")

    def test_process_without_init_data(self):
        """A process that emitted its init events before the session
        existed and has no agent: its runtime events are in the trace, its
        init data is not; reported, exit 6."""
        self.c.caretd()
        good = self.c.workload("--name", "good", "--pubs", "1", "--rate", "40")
        bare = self.c.workload("--name", "bare", "--pubs", "1", "--rate", "40", agent=False)
        for p in (good, bare):
            wait_line(p, r"^ready pid=%d" % p.pid)
        traces = os.path.join(self.c.tmp, "traces")
        self.c.caretctl("record", "--immediate", "-p", traces, "-s", "noinit",
                        "--duration", "2", "--timeout", "30")
        rc, rep, err = check(os.path.join(traces, "noinit"))
        self.assertEqual(rc, 6, err)
        self.assertFalse(rep["complete"])
        per = self.procs_by_pid(rep)
        self.assertGreater(per[bare.pid]["runtime_events"], 0)
        self.assertEqual(per[bare.pid]["init_total"], 0)
        self.assertFalse(per[bare.pid]["caret_init"])
        self.assertTrue(per[good.pid]["caret_init"])
        bad = [m for m in rep["problems"] if "pid %d " % bare.pid in m]
        self.assertEqual(len(bad), 2, rep["problems"])
        self.assertTrue(any("no init records" in m for m in bad), bad)
        self.assertTrue(any("caret_init" in m for m in bad), bad)
        self.assertFalse([m for m in rep["problems"] if "pid %d " % good.pid in m])
        # Nobody subscribes to what `good` publishes: each binding lacks a
        # take, a warning that does not make the trace incomplete.
        self.assertGreater(per[good.pid]["bindings"], 0)
        self.assertEqual(per[good.pid]["unmatched_bindings"], per[good.pid]["bindings"])
        self.assertTrue(any("pid %d " % good.pid in m and "without a matching rmw_take" in m
                            for m in rep["warnings"]), rep["warnings"])

    def test_duplicate_init_records(self):
        """Two replays of one process into one session: every cached
        record twice. The analyzer drops such copies (lttng_info.py:
        drop_duplicate), so they are a note with their count per kind, and
        the trace is complete."""
        p = self.c.workload("--name", "dup", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        cached = len(self.c.agentctl("dump", str(p.pid)).stdout.splitlines())
        s = self.c.session()
        s.start()
        for i in range(2):
            if i:  # a replay starts from WAIT or PREPARE only (compare-and-swap moves)
                self.c.agentctl("state", str(p.pid), "wait")
            self.c.agentctl("replay", str(p.pid), "--timeout", "20")
        s.stop()
        rc, rep, err = check(s.path)
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        self.assertTrue(rep["complete"])
        per = self.procs_by_pid(rep)
        self.assertEqual(per[p.pid]["duplicates_total"], cached)
        self.assertEqual(per[p.pid]["missing_total"], 0)
        self.assertEqual(per[p.pid]["duplicates"]["rcl_node_init"],
                         per[p.pid]["init_records"]["rcl_node_init"] // 2)
        notes = [m for m in rep["notes"] if "pid %d " % p.pid in m]
        self.assertEqual(len(notes), 1, rep["notes"])
        self.assertIn("%d replayed initialization records appear twice" % cached, notes[0])
        self.assertEqual(kinds_sum(notes[0]), cached)

    def test_discarded_events(self):
        """Tiny sub-buffers under a flood: the tracer discards events and
        check reports how many (babeltrace2's discarded-events messages)."""
        name = self.c.tag + "-disc"
        path = os.path.join(self.c.tmp, "disc")
        lttng("create", name, "--output=" + path)
        self.c.sessions.append(type("S", (), {"destroy": lambda self_: subprocess.run(
            ["lttng", "destroy", name], capture_output=True, timeout=60)})())
        lttng("enable-channel", "--userspace", "--session=" + name, "--subbuf-size=4096",
              "--num-subbuf=2", "tiny")
        lttng("enable-event", "--userspace", "--session=" + name, "--channel=tiny", "ros2:*")
        lttng("add-context", "--userspace", "--session=" + name, "--channel=tiny",
              "-t", "vpid", "-t", "vtid", "-t", "procname")
        lttng("start", name)
        subprocess.run([FLOOD, "1", "2"], env=self.c.env(agent=False), check=True,
                       capture_output=True, timeout=60)
        lttng("stop", name)
        rc, rep, err = check(path)
        self.assertEqual(rc, 6, err)
        self.assertGreater(rep["discarded_events"], 0)
        self.assertTrue(any("events discarded" in m for m in rep["problems"]),
                        rep["problems"])
        t = subprocess.run([CARETCTL, "check", path], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(t.returncode, 6)
        self.assertRegex(t.stdout, r"INCOMPLETE")

    def test_truncated_metadata(self):
        """B18: a real trace whose metadata file is cut in the middle of a
        packet (babeltrace2 itself loops forever on it): check names the
        cause within seconds and exits 1; on an intact copy, a reader that
        outlives --timeout is killed and reported, and nothing is left
        running."""
        p = self.c.workload("--name", "trunc", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        s = self.c.session()
        s.start()
        self.c.agentctl("replay", str(p.pid), "--timeout", "20")
        time.sleep(0.3)
        s.stop()
        s.destroy()
        metas = [os.path.join(d, f) for d, _, fs in os.walk(s.path) for f in fs
                 if f == "metadata"]
        self.assertEqual(len(metas), 1, metas)
        rc, rep, err = check(s.path)
        self.assertEqual(rc, 0, err)
        intact = os.path.join(self.c.tmp, "intact")
        shutil.copytree(s.path, intact)
        size = os.path.getsize(metas[0])
        with open(metas[0], "rb") as f:
            head = f.read(32)
        packet = int.from_bytes(head[28:32], "little") // 8
        self.assertEqual(head[:4], bytes.fromhex("571dd175"))
        self.assertGreater(size, packet, "one packet: cut it in its middle")
        # in the middle of the second packet's text, as a copy taken while
        # the tracer wrote it
        os.truncate(metas[0], packet + packet // 2)
        t0 = time.monotonic()
        r = subprocess.run([CARETCTL, "check", s.path], capture_output=True, text=True,
                           timeout=100)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertRegex(r.stderr, r"metadata truncated: packet 1 at byte %d holds \d+ "
                         r"bytes .* but the file ends %d bytes into it" %
                         (packet, packet // 2))
        # The deadline: even babeltrace2's plugin loading outlives 1 ms.
        t0 = time.monotonic()
        r = subprocess.run([CARETCTL, "check", "--timeout", "0.001", intact],
                           capture_output=True, text=True, timeout=100)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("babeltrace2 did not finish reading %s within 0.001 s and was "
                      "stopped" % intact, r.stderr)
        time.sleep(0.2)
        r = subprocess.run(["pgrep", "-f", intact], capture_output=True, text=True)
        self.assertEqual(r.stdout, "", "a reader child outlived caretctl")
        r = subprocess.run([CARETCTL, "check", "--timeout", "0"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)

    def test_truncated_stream_file(self):
        """Issue 33 C3: a stream file cut in the middle of a packet (a copy
        taken while LTTng wrote it): check blames that stream file, with
        the packet's numbers, not the metadata; exit 1."""
        p = self.c.workload("--name", "cut", "--pubs", "2", "--subs", "1", "--rate", "200")
        wait_line(p, r"^ready pid=%d" % p.pid)
        s = self.c.session()
        s.start()
        self.c.agentctl("replay", str(p.pid), "--timeout", "20")
        time.sleep(0.5)
        s.stop()
        s.destroy()
        streams = sorted((os.path.getsize(os.path.join(d, f)), os.path.join(d, f))
                         for d, _, fs in os.walk(s.path) for f in fs
                         if f != "metadata" and os.path.basename(d) != "index")
        size, victim = streams[-1]
        self.assertGreater(size, 4096, streams)
        os.truncate(victim, size // 2 + 7)
        r = subprocess.run([CARETCTL, "check", s.path], capture_output=True, text=True,
                           timeout=100)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertNotIn("/metadata", r.stderr)
        self.assertNotIn("not a CTF trace", r.stderr)
        self.assertRegex(r.stderr, r"stream file %s cannot be read: .*truncated: the packet at "
                         r"byte \d+ holds \d+ bytes but the file ends \d+ bytes into it" %
                         re.escape(victim))
        rc, rep, err = check(s.path)
        self.assertEqual(rc, 1)
        self.assertEqual(rep["errno"], errno.EIO)
        self.assertIn(victim, rep["error"])

    def test_missing_callback_registration(self):
        """A trace that lacks one rclcpp_callback_register (the agent under a
        session of the lttng CLI whose filter drops the registration of
        the second subscription's callback, and only that): check reports
        it, as the callbacks' missing rclcpp_callback_register of that
        process, and exits non-zero (issue 31 item 6: only the unit test
        caught check not reporting it)."""
        name = self.c.tag + "-reg"
        path = os.path.join(self.c.tmp, "trace-reg")
        lttng("create", name, "--output=" + path)
        try:
            lttng("enable-event", "--userspace", "--session=" + name, "ros2:*")
            lttng("enable-event", "--userspace", "--session=" + name, "ros2_caret:*",
                  "--exclude=ros2_caret:rclcpp_callback_register")
            lttng("enable-event", "--userspace", "--session=" + name,
                  "ros2_caret:rclcpp_callback_register",
                  "--filter", 'symbol != "caret_standin::reg::on_message_1*"')
            lttng("add-context", "--userspace", "--session=" + name,
                  "-t", "vpid", "-t", "vtid", "-t", "procname")
            lttng("start", name)
            p = self.c.workload("--name", "reg", "--pubs", "0", "--subs", "2")
            wait_line(p, r"^ready pid=%d" % p.pid)
            lttng("stop", name)
        finally:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
        # the trace is what the test means: one registration missing, the
        # other there
        regs = [e.f["symbol"] for e in read_trace(path) if e.vpid == p.pid
                and e.name == "ros2_caret:rclcpp_callback_register"]
        self.assertTrue(any("::reg::on_message_0" in r for r in regs), regs)
        self.assertFalse(any("::reg::on_message_1" in r for r in regs), regs)
        rc, rep, err = check(path)
        self.assertNotEqual(rc, 0, "check called a trace missing a callback registration "
                            "complete: %s" % (rep and rep["processes"]))
        self.assertFalse(rep["complete"])
        per = self.procs_by_pid(rep)
        self.assertTrue(per[p.pid]["caret_init"])
        self.assertEqual(per[p.pid]["missing_total"], 1, per[p.pid])
        bad = [m for m in rep["problems"] if "pid %d " % p.pid in m]
        self.assertTrue(any("1 callbacks without rclcpp_callback_register" in m for m in bad),
                        rep["problems"])
        self.assertEqual(per[p.pid]["filtered_registers"], 0)
        # as text too: the process and what it lacks
        r = subprocess.run([CARETCTL, "check", path], capture_output=True, text=True,
                           timeout=300)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("callbacks without rclcpp_callback_register", r.stdout + r.stderr)

    def test_not_a_trace(self):
        rc, rep, err = check(self.c.tmp)
        self.assertEqual(rc, 1)
        self.assertIn("not a CTF trace: no 'metadata' file under", err)
        r = subprocess.run([CARETCTL, "check"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)


class CheckModelTest(unittest.TestCase):
    """Issue 22: check and stop judge a recording with one model (D5, D6,
    D12), errors name their cause (D9, D10), JSON numbers are exact, and
    traces made by plain lttng are judged as the analyzer reads them."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def system(self):
        self.caretd = self.c.caretd()
        procs = [self.c.workload("--name", "sub0", "--pubs", "0", "--subs", "2"),
                 self.c.workload("--name", "pub1", "--pubs", "2", "--rate", "40")]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        time.sleep(0.5)
        return procs, os.path.join(self.c.tmp, "traces")

    def overlap(self, *b_args, a_secs="6", delay=2, b_secs="2", f="100", a_json=False):
        """A records 6 s; B, 2 s later, 2 s: B's replay lands in A too."""
        procs, traces = self.system()
        a = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "A", "--duration",
                            a_secs, "--timeout", "30", "-f", f,
                            *(["--json"] if a_json else []), background=True)
        time.sleep(delay)
        b = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "B", "--duration",
                            b_secs, "--timeout", "30", "-f", f, *b_args)
        self.assertEqual(a.wait(60), 0, a.err_text())
        a.finish()
        return procs, traces, a.out_text(), b.stdout

    def test_overlapping_records_agree(self):
        """D5: stop and check give the same number of copies, per process
        and in all; the copies do not make A incomplete (exit 0), and each
        note lists every kind (the kinds add up to its count)."""
        procs, traces, a_out, b_out = self.overlap()
        rc, rep, err = check(os.path.join(traces, "A"))
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        self.assertTrue(rep["complete"])
        self.assertEqual(rep["problems"], [])
        per = {p["pid"]: p for p in rep["processes"]}
        total = sum(per[p.pid]["duplicates_total"] for p in procs)
        self.assertGreater(total, 0)
        self.assertEqual(stop_copies(a_out), total, a_out)
        for p in procs:
            self.assertEqual(per[p.pid]["missing_total"], 0)
            note = [m for m in rep["notes"] if "pid %d " % p.pid in m]
            self.assertEqual(len(note), 1, rep["notes"])
            self.assertEqual(kinds_sum(note[0]), per[p.pid]["duplicates_total"])
        # The text form: a note, "complete", exit 0.
        t = subprocess.run([CARETCTL, "check", os.path.join(traces, "A")],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(t.returncode, 0, t.stdout + t.stderr)
        self.assertRegex(t.stdout, r"(?m)^notes:$")
        self.assertRegex(t.stdout, r"(?m)^complete$")
        # B got one replay of its own: no copies, and stop says none.
        rc, rep, err = check(os.path.join(traces, "B"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(rep["notes"], [])
        self.assertEqual(stop_copies(b_out), 0, b_out)

    def test_overlap_with_filter_agrees(self):
        """B records only /pub1 (a filtered replay pass): stop's count of
        copies in A is the trace's, as check counts them."""
        procs, traces, a_out, _ = self.overlap("--select-nodes", "/pub1")
        rc, rep, err = check(os.path.join(traces, "A"))
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        total = sum(p["duplicates_total"] for p in rep["processes"])
        self.assertGreater(total, 0)
        self.assertEqual(stop_copies(a_out), total, a_out)

    def test_cut_pass_copies_agree(self):
        """D12: B starts while A's replay (10 records/s) is still running:
        the agents start their pass again for both, and A gets the records
        of its first pass twice. caretd, which charges a pass only to the
        sessions an earlier pass covered, counts none: stop must still say
        what check finds in the trace, in text and in JSON."""
        for a_json in (False, True):
            procs, traces, a_out, _ = self.overlap(a_secs="4", delay=1.0, b_secs="1", f="10",
                                                   a_json=a_json)
            rc, rep, err = check(os.path.join(traces, "A"))
            self.assertEqual(rc, 0, (rep and rep["problems"], err))
            total = sum(p["duplicates_total"] for p in rep["processes"])
            self.assertGreater(total, 0, rep["processes"])
            if a_json:
                stop = [o for o in map(json.loads, a_out.splitlines())
                        if o.get("cmd") == "stop"]
                self.assertEqual(len(stop), 1, a_out)
                self.assertEqual(stop[0]["duplicates"], total, stop[0])
                self.assertNotIn("missing_init", stop[0])
            else:
                self.assertEqual(stop_copies(a_out), total, a_out)
            self.c.cleanup()
            self.c = Ctx(self._testMethodName)
        for p in procs:
            note = [m for m in rep["notes"] if "pid %d " % p.pid in m]
            self.assertEqual(len(note), 1 if self.procs_dups(rep, p.pid) else 0, rep["notes"])

    def test_caretd_counts_the_copies_check_finds(self):
        """caretd's own count of copies (its log line at stop, and the
        stop reply's duplicates) is the trace's, as check counts them: D12
        (A's pass started over for B: A's first records twice), and D5 (B's
        own pass reaches A, which holds the whole cache). Before, caretd
        charged a pass only to the sessions an earlier pass covered and
        counted none in D12."""
        cases = (dict(a_secs="4", delay=1.0, b_secs="1", f="10"), dict())
        for n, case in enumerate(cases):
            procs, traces, a_out, _ = self.overlap(**case)
            log = self.caretd.err_text()
            for s in ("A", "B"):
                rc, rep, err = check(os.path.join(traces, s))
                self.assertEqual(rc, 0, (rep and rep["problems"], err))
                total = sum(p["duplicates_total"] for p in rep["processes"])
                if s == "A":
                    self.assertGreater(total, 0, rep["processes"])
                m = re.search(r"session %s stopped and destroyed; trace in \S+(; (at most )?"
                              r"(\d+) replayed initialization records in it twice[^\n]*)?\n" % s, log)
                self.assertIsNotNone(m, log[-3000:])
                self.assertEqual((m.group(2), int(m.group(3) or 0)), (None, total),
                                 "case %d, %s: caretd's count, check's" % (n, s))
            self.c.cleanup()
            self.c = Ctx(self._testMethodName)

    def procs_dups(self, rep, pid):
        return next(p["duplicates_total"] for p in rep["processes"] if p["pid"] == pid)

    def test_replay_cut_short(self):
        """D6: --duration 1 --timeout 1 -f 5 stops the replay after a few
        records: record exits 4 and check names what each process lacks
        (exit 6), in full sentences, which record's stop already warned
        of."""
        procs, traces = self.system()
        r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "cut", "--duration",
                            "1", "--timeout", "1", "-f", "5", check=False)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        rc, rep, err = check(os.path.join(traces, "cut"))
        self.assertEqual(rc, 6, err)
        self.assertFalse(rep["complete"])
        per = {p["pid"]: p for p in rep["processes"]}
        for p in procs:
            self.assertTrue(per[p.pid]["caret_init"])
            self.assertGreater(per[p.pid]["missing_total"], 0, per[p.pid])
            bad = [m for m in rep["problems"] if "pid %d " % p.pid in m]
            self.assertEqual(len(bad), 1, rep["problems"])
            self.assertIn("init records missing", bad[0])
            self.assertRegex(bad[0], r"\d+ [a-z_ ]+ without [a-z_ ]+")
            self.assertTrue(bad[0].endswith("?)"), bad[0])
            # the stop that ended record said the same, in the same words
            self.assertIn("warning: the trace is incomplete: " + bad[0], r.stderr)
        self.assertTrue(any(k == "callback_group:executor"
                            for p in procs for k in per[p.pid]["missing"]), per)
        # --json: the stop object carries the same lines
        r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "cut2", "--duration",
                            "1", "--timeout", "1", "-f", "5", "--json", check=False)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        stop = [o for o in map(json.loads, r.stdout.splitlines()) if o.get("cmd") == "stop"]
        self.assertEqual(len(stop), 1, r.stdout)
        rc, rep, err = check(os.path.join(traces, "cut2"))
        self.assertEqual(rc, 6, err)
        self.assertEqual(sorted(stop[0]["missing_init"]),
                         sorted(m for m in rep["problems"] if "init records missing" in m))

    def test_replay_cut_counted(self):
        """Issue 33 C2: a pass the recording cut short is flagged for every
        process it hit, with its count from the trace's own pass marks
        (ros2_caret:caret_replay_begin/end), even where the records it kept
        lack nothing they refer to (a cut before the first timer leaves
        rcl_init, the node and its publishers, all joined)."""
        self.caretd = self.c.caretd()
        procs = [self.c.workload("--name", "sub0", "--pubs", "0", "--subs", "2"),
                 self.c.workload("--name", "pub1", "--pubs", "2", "--rate", "40"),
                 self.c.workload("--name", "many2", "--pubs", "6", "--rate", "20"),
                 self.c.workload("--name", "many3", "--pubs", "6", "--subs", "3", "--rate", "20"),
                 self.c.workload("--name", "stat4", "--executor", "static", "--rate", "20")]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        time.sleep(0.5)
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "cut", "--duration",
                            "2", "--timeout", "2", "-f", "2", check=False)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        # The same processes recorded whole: how many records each has.
        r2 = self.c.caretctl("record", "--immediate", "-p", traces, "-s", "whole", "--duration",
                             "2", "--timeout", "30", "-f", "1000", check=False)
        self.assertEqual(r2.returncode, 0, r2.stdout + r2.stderr)
        rc, whole, err = check(os.path.join(traces, "whole"))
        self.assertEqual(rc, 0, (whole and whole["problems"], err))
        total = {p["pid"]: p["init_total"] for p in whole["processes"]}
        rc, rep, err = check(os.path.join(traces, "cut"))
        self.assertEqual(rc, 6, err)
        per = {p["pid"]: p for p in rep["processes"]}
        cut = [p.pid for p in procs if per[p.pid]["init_total"] < total[p.pid]]
        self.assertTrue(cut, (per, total))
        unflagged = [pid for pid in cut if not any("pid %d " % pid in m for m in rep["problems"])]
        self.assertEqual(unflagged, [], ({pid: (per[pid]["init_total"], total[pid]) for pid in cut},
                                         rep["problems"]))
        for pid in cut:
            kept = per[pid]["init_total"]
            bad = [m for m in rep["problems"] if "pid %d " % pid in m]
            self.assertEqual(len(bad), 1, (pid, rep["problems"]))
            self.assertRegex(bad[0], r"^pid %d \(\w+\): init records missing: replay pass \d+ "
                             r"cut short: %d of its %d records in the trace" % (pid, kept, total[pid]))
            self.assertTrue(per[pid]["replay_cut"], per[pid])
            self.assertIn("warning: the trace is incomplete: " + bad[0], r.stderr)
        # The case links alone cannot see (what check missed before).
        self.assertTrue(any(per[pid]["missing_total"] == 0 for pid in cut),
                        {pid: (per[pid]["init_total"], total[pid], per[pid]["missing"])
                         for pid in cut})
        # A whole pass is not flagged.
        self.assertFalse(any(p["replay_cut"] for p in whole["processes"]), whole["processes"])

    def test_errors_name_the_cause(self):
        """D9/D10: a missing directory, an unreadable one, a file, a
        directory without a trace and a metadata file babeltrace2 cannot
        parse: each one line naming its cause, no babeltrace2 log, exit 1;
        with --json, a JSON object with the errno on stdout."""
        empty = os.path.join(self.c.tmp, "empty")
        os.mkdir(empty)
        locked = os.path.join(self.c.tmp, "locked")
        os.makedirs(os.path.join(locked, "ust"))
        os.chmod(locked, 0o700)
        os.chmod(self.c.tmp, 0o755)
        afile = os.path.join(self.c.tmp, "afile")
        open(afile, "w").close()
        garbage = os.path.join(self.c.tmp, "garbage")
        os.makedirs(os.path.join(garbage, "ust"))
        with open(os.path.join(garbage, "ust", "metadata"), "w") as f:
            f.write("/* CTF 1.8 */\ntrace { garbage ;;; {{{\n")
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        cases = [
            ([], os.path.join(self.c.tmp, "missing"), 2, r"/\S+/missing: no such file or "
             r"directory$"),
            (nobody, locked, 13, r"cannot read the directory %s: Permission denied$" % locked),
            ([], afile, 20, r"%s: not a directory" % afile),
            ([], empty, 61, r"not a CTF trace: no 'metadata' file under %s$" % empty),
            ([], garbage, 74, r"not a CTF trace: babeltrace2 cannot read %s/ust/metadata "
             r"\(metadata: At line 2 in metadata stream: syntax error, .*\)$" % garbage),
        ]
        for pre, path, errno_, rx in cases:
            r = subprocess.run(pre + [CARETCTL, "check", path], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 1, (path, r.stderr))
            self.assertEqual(r.stdout, "")
            lines = r.stderr.splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertRegex(lines[0], r"^caretctl: check: " + rx)
            self.assertLess(len(lines[0]), 400, lines[0])
            r = subprocess.run(pre + [CARETCTL, "check", "--json", path], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            o = json.loads(r.stdout)
            self.assertEqual(o["errno"], errno_, o)
            self.assertRegex(o["error"], r"^check: " + rx)

    def test_json_numbers_exact(self):
        """first_ns/last_ns (2^60 and up) are the trace's nanoseconds to
        the unit, as babeltrace2's Python bindings read them, printed as
        JSON integers."""
        procs, traces = self.system()
        self.c.caretctl("record", "--immediate", "-p", traces, "-s", "exact", "--duration", "1",
                        "--timeout", "30")
        path = os.path.join(traces, "exact")
        r = subprocess.run([CARETCTL, "check", "--json", path], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r'"first_ns":\d+,"last_ns":\d+,')
        rep = json.loads(r.stdout)
        import bt2
        ns = [m.default_clock_snapshot.ns_from_origin
              for m in bt2.TraceCollectionMessageIterator(path)
              if type(m) is bt2._EventMessageConst]
        self.assertGreater(ns[0], 2 ** 53)
        self.assertEqual(rep["first_ns"], ns[0])
        self.assertEqual(rep["last_ns"], ns[-1])
        self.assertEqual(rep["events"], len(ns))

    def plain_session(self, events, agent):
        """A session of the lttng CLI alone (no caretd), and a process
        started while it records."""
        s = self.c.session(events)
        s.start()
        p = self.c.workload("--name", "plain", "--pubs", "1", "--subs", "1", "--rate", "40",
                            agent=agent)
        wait_line(p, r"^ready pid=%d" % p.pid)
        time.sleep(1)
        s.stop()
        return p, s

    def test_plain_lttng_without_agent(self):
        """ros2_tracing's way: ros2:* only, no agent. No caret_init and no
        executor records, none expected: complete, nodes and topics
        named."""
        p, s = self.plain_session(("ros2:*",), agent=False)
        rc, rep, err = check(s.path)
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        per = {q["pid"]: q for q in rep["processes"]}
        self.assertFalse(per[p.pid]["caret_init"])
        self.assertEqual(per[p.pid]["missing_total"], 0)
        self.assertGreater(per[p.pid]["init_records"]["rcl_node_init"], 0)
        self.assertGreater(per[p.pid]["runtime_events"], 0)
        self.assertTrue(any("plain" in n["name"] for n in rep["nodes"]), rep["nodes"])

    def test_trace_without_contexts_is_incomplete(self):
        """Issue 33 C1: `lttng enable-event -u 'ros2_caret:*'` without
        add-context: the analyzer cannot place one event; check names the
        missing contexts and exits 6 instead of "complete" with a process
        "-1 ?"."""
        name = self.c.tag + "-noctx"
        path = os.path.join(self.c.tmp, "noctx")
        lttng("create", name, "--output=" + path)
        try:
            lttng("enable-event", "-u", "--session=" + name, "ros2_caret:*")
            lttng("start", name)
            p = self.c.workload("--name", "noctx", "--pubs", "1", "--subs", "1", "--rate", "40")
            wait_line(p, r"^ready pid=%d" % p.pid)
            time.sleep(0.5)
            lttng("stop", name)
        finally:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
        rc, rep, err = check(path)
        self.assertEqual(rc, 6, (rep and rep["problems"], err))
        self.assertFalse(rep["complete"])
        ctx = rep["events_without_context"]
        self.assertEqual(ctx, {"vpid": rep["events"], "vtid": rep["events"],
                               "procname": rep["events"]})
        self.assertGreater(rep["events"], 0)
        self.assertTrue(any("lack the context fields vpid, vtid, procname" in x
                            for x in rep["problems"]), rep["problems"])
        t = subprocess.run([CARETCTL, "check", path], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(t.returncode, 6)
        self.assertNotIn("\ncomplete", t.stdout)
        self.assertIn("add-context", t.stdout)

    def test_plain_lttng_with_agent(self):
        """The agent under a session of the lttng CLI (no caretd): each
        process starts in RECORD and emits its init records live, with
        caret_init and the executor records of its distribution (Jazzy's
        collectors, Humble's add_callback_group, a static executor):
        complete, nothing missing."""
        s = self.c.session(("ros2:*", "ros2_caret:*"))
        s.start()
        procs = [self.c.workload("--name", "jz", "--pubs", "1", "--subs", "1", "--rate", "40"),
                 self.c.workload("--name", "hm", "--distro", "humble", "--executor", "multi",
                                 "--pubs", "0", "--subs", "1"),
                 self.c.workload("--name", "hs", "--distro", "humble", "--executor", "static",
                                 "--pubs", "1", "--rate", "40")]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        time.sleep(1)
        s.stop()
        rc, rep, err = check(s.path)
        self.assertEqual(rc, 0, (rep and rep["problems"], err))
        per = {q["pid"]: q for q in rep["processes"]}
        for p in procs:
            self.assertTrue(per[p.pid]["caret_init"])
            self.assertEqual(per[p.pid]["missing_total"], 0)
            self.assertEqual(per[p.pid]["duplicates_total"], 0)
            self.assertGreater(per[p.pid]["runtime_events"], 0)
        kinds = [set(per[p.pid]["init_records"]) for p in procs]
        self.assertIn("callback_group_to_executor_entity_collector", kinds[0])
        self.assertIn("add_callback_group", kinds[1])
        self.assertIn("add_callback_group_static_executor", kinds[2])


if __name__ == "__main__":
    unittest.main(verbosity=2)
