# SPDX-License-Identifier: Apache-2.0
"""`caretctl top --all-hosts` (issue 35, item 3) on two hosts (network
namespaces joined by veth, each with its own caretd): host B's stand-in
ticks at 10 Hz with 5 ms of work; `top --all-hosts` on host A reads its
row, with B's host name, at the rate and duration the local `top` reads;
B watches its processes only while some host asks."""
import json
import sys
import time
import unittest

from harness import wait_err
from multihost import NetTest

RATE_TOL, DUR_TOL = 0.05, 0.10


def one_json(out):
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    assert len(lines) == 1, out
    return lines[0]["top"]


class MultiHostTopTest(NetTest):
    label = "multihost top"

    @classmethod
    def set_up_hosts(cls):
        a, b = cls.a, cls.b
        cls.da = a.caretd()
        cls.db = b.caretd()
        cls.pa = a.standin("a0", "--pubs", "1", "--rate", "20")
        cls.tick = b.standin("ticker", "--pubs", "0", "--timers", "1", "--period-ms", "100",
                             "--timer-work-ms", "5")
        a.wait_sees(b.name)
        b.wait_sees(a.name)

    def test_1_all_hosts_once_json(self):
        n = len(self.db.errs)
        top = one_json(self.a.ctl("top", "--all-hosts", "--once", "--json").stdout)
        hosts = {h["host"]: h for h in top["hosts"]}
        self.assertEqual(top["hosts"][0]["host"], self.a.name, top["hosts"])
        self.assertIn(self.b.name, hosts, top)
        self.assertGreater(hosts[self.b.name]["interval_ms"], 0, top["hosts"])
        rows = [r for r in top["callbacks"] if r["pid"] == self.tick.pid]
        self.assertEqual(len(rows), 1, top)
        r = rows[0]
        print("host %s's ticker read on %s: %.3f Hz, mean %.3f ms, p99 %.3f ms" %
              (self.b.name, self.a.name, r["rate_hz"], r["mean_ns"] / 1e6, r["p99_ns"] / 1e6),
              file=sys.stderr)
        self.assertEqual((r["host"], r["kind"], r["node"]), (self.b.name, "timer", "/ticker"), r)
        self.assertIn("on_timer_0", r["symbol"])
        self.assertAlmostEqual(r["rate_hz"], 10.0, delta=10.0 * RATE_TOL, msg=r)
        self.assertAlmostEqual(r["mean_ns"], 5e6, delta=5e6 * DUR_TOL, msg=r)
        # this host's own rows carry its name
        mine = [r for r in top["callbacks"] if r["pid"] == self.pa.pid]
        self.assertTrue(mine, top)
        self.assertTrue(all(r["host"] == self.a.name for r in mine), mine)
        wait_err(self.db, r"bridge: top summaries asked by host %s" % self.a.name, n)

    def test_2_table_has_a_host_column(self):
        out = self.a.ctl("top", "--all-hosts", "--once").stdout
        self.assertRegex(out, r"(?m)^HOST +PID +NODE")
        self.assertRegex(out, r"(?m)^%s +%d +/ticker +timer" % (self.b.name, self.tick.pid))
        self.assertRegex(out, r"(?m)^  host %s: \d+ processes, interval [1-9]\d* ms" %
                         self.b.name)

    def test_3_unasked_host_unwatches(self):
        """B's lease is the asker's: once A stops asking, B's processes go
        back to their unwatched hooks; without --all-hosts, B is not asked."""
        n = len(self.db.errs)
        self.a.ctl("top", "--once", "--json")
        wait_err(self.db, r"top: pid %d unwatched" % self.tick.pid, n, timeout=20)
        m = len(self.db.errs)
        self.a.ctl("top", "--once", "--json")
        time.sleep(1.5)
        self.assertFalse([l for l in self.db.errs[m:] if "top summaries asked" in l],
                         self.db.errs[m:])


if __name__ == "__main__":
    unittest.main()
