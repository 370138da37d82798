# SPDX-License-Identifier: Apache-2.0
"""`caretctl snapshot --all-hosts` (issue 23, item 3) on two hosts (network
namespaces joined by veth, multihost.py): each host's caretd takes its own
snapshot of its flight recorder of that name at once (its processes'
init records replayed first), and the caller's reply lists every host's
snapshot, each complete on its own (caretctl check, babeltrace2); a host
without such a recording, and a host whose caretd speaks another bridge
version, are named with the reason, never waited for in silence."""
import json
import os
import subprocess
import time
import unittest

from harness import CARETCTL, CARETD, read_trace, stop_proc, wait_line
from multihost import PEER, NetTest


def check(path):
    r = subprocess.run([CARETCTL, "check", "--json", path], capture_output=True, text=True,
                       timeout=300)
    return r.returncode, r.stdout + r.stderr


class SnapshotHostsTest(NetTest):
    label = "snapshot_hosts"

    @classmethod
    def set_up_hosts(cls):
        a, b = cls.a, cls.b
        cls.da = a.caretd()
        cls.db = b.caretd()
        cls.pa = [a.standin("a0", "--pubs", "2", "--rate", "200")]
        cls.pb = [b.standin("b0", "--pubs", "2", "--rate", "200"),
                  b.standin("b1", "--pubs", "0", "--subs", "2")]
        a.wait_sees(b.name)
        b.wait_sees(a.name)
        # the same flight recorder on both hosts (record --snapshot --all-hosts
        # on A: B's processes get A's Start too; B's recorder is its own)
        cls.recs = []
        for h, extra in ((a, ["--all-hosts"]), (b, [])):
            rec = h.spawn([CARETCTL, "--socket", h.sock, "record", "--immediate",
                           "--snapshot-size", "1M", "-p", os.path.join(h.dir, "traces"),
                           "-s", "fr"] + extra)
            wait_line(rec, r"processes recording", timeout=60)
            cls.recs.append(rec)

    def snapshot(self, *args):
        r = self.a.ctl("snapshot", "--all-hosts", "--json", "--timeout", "30", *args,
                       check=False, timeout=180)
        out = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else None
        return r, out

    def test_1_every_host_complete(self):
        a, b = self.a, self.b
        time.sleep(2)  # the rings hold a while of runtime events
        r, out = self.snapshot("fr")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(out["complete"], out)
        by = {h["host"]: h for h in out["hosts"]}
        self.assertEqual(set(by), {a.name, b.name}, out)
        self.assertTrue(by[a.name]["self"])
        self.assertFalse(by[b.name]["self"])
        for h, procs in ((a, self.pa), (b, self.pb)):
            x = by[h.name]
            self.assertTrue(x["complete"], x)
            self.assertTrue(x["path"].startswith(os.path.join(h.dir, "traces", "fr",
                                                              "snapshot-1-")), x)
            rc, rep = check(x["path"])
            self.assertEqual(rc, 0, "%s: %s" % (x["path"], rep))
            vpids = {e.vpid for e in read_trace(x["path"])
                     if e.name == "ros2_caret:rcl_node_init"}
            for p in procs:
                self.assertIn(p.pid, vpids, "%s lacks pid %d" % (x["path"], p.pid))
        # the snapshots were taken at about the same moment
        self.assertIn("snapshot of fr asked by host %s: taking it" % a.name,
                      "".join(self.db.errs))
        # text form: one line per host; the count on each host
        time.sleep(1.2)  # B's hold-off for other hosts' requests
        t = a.ctl("snapshot", "--all-hosts", "fr", timeout=180)
        self.assertRegex(t.stdout, r"host %s: \S+/fr/snapshot-2-" % a.name)
        self.assertRegex(t.stdout, r"host %s: \S+/fr/snapshot-2-" % b.name)
        st = json.loads(b.ctl("status", "--json").stdout)
        self.assertEqual([x["snapshots"] for x in st["recordings"] if x["session"] == "fr"],
                         [2])

    def test_2_host_without_it_and_other_version(self):
        a, b = self.a, self.b
        # a second flight recorder on A only
        rec = a.spawn([CARETCTL, "--socket", a.sock, "record", "--immediate",
                       "--snapshot-size", "1M", "-p", os.path.join(a.dir, "traces"),
                       "-s", "onlya"])
        wait_line(rec, r"processes recording", timeout=60)
        # a host whose caretd speaks bridge version 2 (before snapshots), as
        # B's network sees it (a peer on A itself is not seen by A's caretd)
        old = b.spawn([PEER, "--version", "2", "--fake-hosts", "1", "--hold", "20"])
        try:
            deadline = time.time() + 20
            while not any(h["host"] == "fake000" for h in a.hosts()["hosts"]):
                self.assertLess(time.time(), deadline, "the version 2 host never seen")
                time.sleep(0.2)
            t0 = time.time()
            r, out = self.snapshot("onlya")
            self.assertLess(time.time() - t0, 25, "waited for hosts that cannot answer")
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertFalse(out["complete"])
            by = {h["host"]: h for h in out["hosts"]}
            self.assertTrue(by[a.name]["complete"], by[a.name])
            self.assertEqual(check(by[a.name]["path"])[0], 0)
            self.assertIn("no flight recorder named onlya on this host", by[b.name]["error"])
            self.assertEqual(by["fake000"]["bridge_version"], 2)
            self.assertIn("speaks bridge version 2", by["fake000"]["error"])
            t = a.ctl("snapshot", "--all-hosts", "onlya", check=False, timeout=180)
            self.assertEqual(t.returncode, 1)
            self.assertIn("host %s: FAILED: no flight recorder named onlya" % b.name, t.stdout)
            self.assertIn("host fake000: FAILED: its caretd speaks bridge version 2", t.stdout)
        finally:
            stop_proc(old, 5)
            a.ctl("stop", "-s", "onlya")
            rec.wait(60)

    def test_3_help_and_no_such_recording(self):
        r = self.a.ctl("snapshot", "--all-hosts", "--help")
        self.assertIn("--all-hosts", r.stdout)
        r = self.a.ctl("snapshot", "--all-hosts", "nosuch", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no recording named nosuch", r.stderr)

    def test_4_request_flood(self):
        """A peer on the domain asking for snapshots as fast as it can:
        the host begins at most one a second for other hosts, answers at
        most 16 requests a second and rejects (counts) the rest, and still
        serves a real request afterwards."""
        a, b = self.a, self.b

        def written():
            st = json.loads(b.ctl("status", "--json").stdout)
            return [x["snapshots"] for x in st["recordings"] if x["session"] == "fr"][0]

        n0, rej0 = written(), b.hosts()["counts"]["rejected"]
        t0 = time.time()
        r = a.run([PEER, "--snap-flood", "3", "--session", "fr"], timeout=60)
        sent = int(r.stdout.split()[-1])
        time.sleep(1.5)  # the last one begun is written
        took = time.time() - t0
        n1 = written()
        self.assertGreater(sent, 100, r.stdout)
        self.assertGreaterEqual(n1 - n0, 1, "no request served")
        self.assertLessEqual(n1 - n0, int(took) + 1, "more than one snapshot a second")
        self.assertGreater(b.hosts()["counts"]["rejected"] - rej0, 0)
        self.assertIsNone(self.db.poll())
        time.sleep(1.2)
        r, out = self.snapshot("fr")
        by = {h["host"]: h for h in out["hosts"]}
        for h in (a, b):  # (test 2's version 2 host is remembered for a minute)
            self.assertTrue(by[h.name].get("complete"), out)

    @classmethod
    def tearDownClass(cls):
        for h in (cls.a, cls.b):
            h.ctl("stop", "-s", "fr", check=False)
        for rec in cls.recs:
            rec.wait(60)
        super().tearDownClass()


if __name__ == "__main__":
    unittest.main(verbosity=2)
