# SPDX-License-Identifier: Apache-2.0
"""caretctl events / nodes / topics against a live stand-in system: what
the caches hold, compared with what the stand-in says it created (its
--print-counts line), paged with position tokens, no recording."""
import json
import re
import subprocess
import time
import unittest

from harness import CARETCTL, Ctx, wait_line


class ViewsTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.c.caretd()
        self.talker = self.c.workload("--name", "talker", "--nodes", "2", "--pubs", "2",
                                      "--timers", "2", "--services", "1", "--clients", "1",
                                      "--executor", "multi", "--print-counts")
        self.listener = self.c.workload("--name", "listener", "--pubs", "0", "--subs", "2",
                                        "--print-counts")
        self.counts = {}
        for p in (self.talker, self.listener):
            m = wait_line(p, r"^counts (.*)")
            self.counts[p.pid] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}
            wait_line(p, r"^ready pid=%d" % p.pid)
        self.pids = {self.talker.pid, self.listener.pid}
        # caretd publishes a record once it is older than its reorder
        # window (50 ms): give the last init records that long.
        time.sleep(0.2)

    def tearDown(self):
        self.c.cleanup()

    def events(self, *args):
        r = self.c.caretctl("events", "--json", *args)
        evs = []
        for line in r.stdout.splitlines():
            evs.extend(json.loads(line)["events"])
        return evs, re.search(r"next: (\S+)", r.stderr).group(1)

    def test_events_match_what_was_created(self):
        evs, _ = self.events()
        keys = [(e["ts"], e["pid"], e["index"]) for e in evs]
        self.assertEqual(keys, sorted(keys))
        for pid in self.pids:
            mine = [e for e in evs if e["pid"] == pid]
            for kind, n in self.counts[pid].items():
                self.assertEqual(sum(1 for e in mine if e["kind"] == kind), n,
                                 "pid %d kind %s" % (pid, kind))
        # filters
        only, _ = self.events("--kind", "rcl_node_init", "--pid", str(self.talker.pid))
        self.assertEqual(len(only), 2)
        self.assertTrue(all(e["kind"] == "rcl_node_init" and e["pid"] == self.talker.pid
                            for e in only))
        names = sorted(e["fields"]["node_name"] for e in only)
        self.assertEqual(names, ["talker_0", "talker_1"])
        # an interval
        t0, t1 = evs[3]["ts"], evs[-3]["ts"]
        mid, _ = self.events("--since", str(t0), "--until", str(t1))
        self.assertEqual(mid, [e for e in evs if t0 <= e["ts"] < t1])

    def test_events_paged_by_tokens(self):
        evs, _ = self.events()
        for k in (1, 3, 7):
            got, token, short = [], None, False
            while True:
                args = ["--count", str(k)] + (["--after", token] if token else [])
                page, token = self.events(*args)
                if not page:
                    break
                # only the last page may be short
                self.assertFalse(short, "a short page before the end")
                short = len(page) < k
                # beyond k, only the events sharing the last timestamp
                self.assertTrue(all(e["ts"] == page[k - 1]["ts"] for e in page[k:]))
                got.extend(page)
            self.assertEqual(got, evs)
        # the text form: one line per event, the token on stderr
        r = self.c.caretctl("events", "--count", "2")
        self.assertGreaterEqual(len(r.stdout.splitlines()), 2)
        self.assertRegex(r.stdout.splitlines()[0], r"^\d+ \d+ \S+ \w+")
        # a corrupted token is refused with a clear error
        bad = self.c.caretctl("events", "--after", "A" + "0" * 56, check=False)
        self.assertEqual(bad.returncode, 1, bad.stderr)
        self.assertIn("position", bad.stderr)

    def test_vanished_process_token(self):
        page, token = self.events("--pid", str(self.listener.pid), "--count", "3")
        self.assertEqual({e["pid"] for e in page}, {self.listener.pid})
        self.listener.terminate()
        self.listener.wait(10)
        seg = [n for n in self.c.segments() if ".%d." % self.listener.pid in n]
        for n in seg:  # what caretd's sweep does for a dead agent
            subprocess.run(["rm", "-f", "/dev/shm/" + n], check=True)
        r = self.c.caretctl("events", "--after", token, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("gone", r.stderr)

    def test_nodes(self):
        top = json.loads(self.c.caretctl("nodes", "--json").stdout)
        # issue 22 D14: the envelope every other JSON result has
        self.assertEqual((top["v"], top["type"], top["cmd"]), (1, "result", "nodes"))
        out = top["nodes"]
        by_pid = {}
        for n in out:
            by_pid.setdefault(n["pid"], []).append(n)
        for pid in self.pids:
            c, nodes = self.counts[pid], by_pid[pid]
            self.assertEqual(len(nodes), c["rcl_node_init"])
            self.assertEqual(sum(len(n["publishers"]) for n in nodes), c["rcl_publisher_init"])
            self.assertEqual(sum(len(n["subscriptions"]) for n in nodes),
                             c["rcl_subscription_init"])
            self.assertEqual(sum(len(n["timers"]) for n in nodes), c["rcl_timer_init"])
            self.assertEqual(sum(len(n["services"]) for n in nodes), c["rcl_service_init"])
            self.assertEqual(sum(len(n["clients"]) for n in nodes), c["rcl_client_init"])
            for n in nodes:
                for t in n["timers"]:
                    self.assertGreater(t["period_ns"], 0)
                    self.assertTrue(t["callback"], n)
                for s in n["subscriptions"] + n["services"]:
                    self.assertTrue(s["callback"], n)
                self.assertTrue(n["callback_groups"], n)
                for g in n["callback_groups"]:
                    self.assertTrue(g["executor_type"], g)
        names = {n["name"] for n in out}
        self.assertIn("/talker_0", names)
        self.assertIn("/listener", names)
        talker = by_pid[self.talker.pid][0]
        self.assertTrue(any(g["executor_type"] == "multi_threaded_executor" for g in talker["callback_groups"]),
                        talker["callback_groups"])
        text = self.c.caretctl("nodes").stdout
        self.assertRegex(text, r"(?m)^/listener \(pid %d" % self.listener.pid)
        self.assertRegex(text, r"(?m)^  subscription  /standin/topic_1  callback ")

    def test_topics(self):
        top = json.loads(self.c.caretctl("topics", "--json").stdout)
        self.assertEqual((top["v"], top["type"], top["cmd"]), (1, "result", "topics"))
        out = top["topics"]
        topics = {t["name"]: t for t in out}
        self.assertEqual(set(topics), {"/standin/topic_0", "/standin/topic_1"})
        for name, t in topics.items():
            # two talker nodes publish on each, the listener subscribes
            self.assertEqual(sorted(p["node"] for p in t["publishers"]),
                             ["/talker_0", "/talker_1"])
            self.assertEqual([(s["node"], s["pid"]) for s in t["subscriptions"]],
                             [("/listener", self.listener.pid)])
        only = json.loads(self.c.caretctl("topics", "--json", "--pid",
                                          str(self.listener.pid)).stdout)["topics"]
        self.assertTrue(all(not t["publishers"] for t in only))


if __name__ == "__main__":
    unittest.main(verbosity=2)
