# SPDX-License-Identifier: Apache-2.0
"""caretctl check on real traces: a complete one recorded through caretd,
one missing a process's init data, one with duplicate init records and one
with discarded events. Each defect is produced for real (a process started
without the agent, a second replay into the same session, tiny sub-buffers
under a flood) and must be reported with its numbers. Check and stop's one
model, and traces of plain lttng: test_check_model.py."""
import errno
import os
import re
import shutil
import subprocess
import time
import unittest

from check_json import check, kinds_sum
from harness import B, CARETCTL, Ctx, lttng, read_trace, wait_line

FLOOD = os.path.join(B, "bench", "caret-flood")


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
