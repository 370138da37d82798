# SPDX-License-Identifier: Apache-2.0
"""caretctl check and stop judge a recording with one model (issue 22),
on real traces: overlapping recordings and cut replay passes counted alike,
errors that name their cause, exact JSON numbers, and traces made by plain
lttng judged as the analyzer reads them. The defects of one trace:
test_check.py."""
import json
import os
import re
import subprocess
import time
import unittest

from check_json import check, kinds_sum, stop_copies
from harness import CARETCTL, Ctx, lttng, wait_line


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
