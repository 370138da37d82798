# SPDX-License-Identifier: Apache-2.0
"""A hostile peer on the DDS domain against the bridge (issue 20: B16b,
B16c, B16d, D3). Two hosts (network namespaces, see multihost.py): host A
holds the peer (tests/integration/ddspeer.c), an lttng-relayd and a real
caretd; host B runs the caretd under attack, restarted by each test with
the options it tries."""
import os
import re
import sys
import time
import unittest

from harness import CARETD, wait_err, wait_line
from multihost import PEER, NetTest


# the limiter's count of the lines it suppressed in the window that ended
SUPPRESSED = re.compile(r"bridge: (\d+) log lines caused by other hosts' samples suppressed "
                        r"in 10 s")


class BridgeHostileTest(NetTest):
    label = "bridge hostile"

    @classmethod
    def set_up_hosts(cls):
        cls.da = cls.a.caretd()
        cls.db = None
        # a host is heard through its processes' Status: one on host A
        cls.pa = cls.a.standin("a0", "--pubs", "1", "--rate", "10")
        # something to stream on host B
        cls.pb = cls.b.standin("b0", "--pubs", "2", "--rate", "200")

    def restart_b(self, *args, prefix=(), bridge_up=True):
        """Host B's caretd anew, with these options; waits until its bridge
        is up and host A's caretd is heard."""
        if self.db is not None and self.db.poll() is None:
            self.db.terminate()
            self.db.wait(10)
        db = type(self).db = self.b.caretd(*args, prefix=prefix)
        if bridge_up:
            self.b.wait_sees(self.a.name)
        return db

    def sessions_b(self):
        return self.b.run(["lttng", "list"], check=False).stdout

    def peer(self, *args, timeout=60):
        return self.a.run([PEER, "--peers", "2"] + list(args), timeout=timeout)

    # -- B16b: a relay session nobody ends ---------------------------------

    def test_b16b_relay_without_end_stops_at_time_bound(self):
        """RelayRecord with a valid URL and no stop: host B streams, and the
        session ends by itself after --relay-max-duration."""
        db = self.restart_b("--accept-relay", "--relay-allow", self.a.addr,
                            "--relay-max-duration", "4")
        n = len(db.errs)
        t0 = time.time()
        self.peer("--relay", "net://" + self.a.addr, "--session", "forever")
        wait_err(db, r"relay_record from .+?: session forever streaming to net://%s "
                 r"\(for at most 4 s and 1073741824 bytes\)" % re.escape(self.a.addr), n)
        self.assertIn("forever", self.sessions_b())
        wait_err(db, r"relay session forever: its time bound of 4 s is reached; stopping", n,
                 timeout=15)
        wait_err(db, r"relay session forever stopped and destroyed", n)
        self.assertLess(time.time() - t0, 12)
        self.assertNotIn("forever", self.sessions_b())
        self.assertIsNone(db.poll())
        time.sleep(0.5)  # the relay closes its files after the session is destroyed
        got = os.listdir(os.path.join(self.relay_dir, self.b.name))
        self.assertTrue(any(x.startswith("forever-") for x in got), got)

    def test_b16b_relay_stops_at_size_bound(self):
        """The size bound: the session daemon stops the session once it has
        consumed --relay-max-size; caretd destroys it."""
        db = self.restart_b("--accept-relay", "--relay-allow", self.a.addr,
                            "--relay-max-duration", "120", "--relay-max-size", "64K")
        n = len(db.errs)
        t0 = time.time()
        self.peer("--relay", "net://" + self.a.addr + ":5342:5343", "--session", "big")
        wait_err(db, r"session big streaming to net://\S+ \(for at most 120 s and 65536 bytes",
                 n)
        wait_err(db, r"relay session big: no longer tracing \(its size bound of 65536 bytes",
                 n, timeout=60)
        wait_err(db, r"relay session big stopped and destroyed", n)
        self.assertLess(time.time() - t0, 60)
        self.assertNotIn("big", self.sessions_b())
        # the bound went with the session
        self.assertNotIn("caretd-size-bound-", self.b.run(["lttng", "list-triggers"],
                                                          check=False).stdout)

    def test_b16b_relay_host_not_allowed(self):
        """A URL whose host is not in --relay-allow, and --accept-relay
        without --relay-allow: refused, nothing created."""
        db = self.restart_b("--accept-relay", "--relay-allow", self.a.addr)
        n = len(db.errs)
        self.peer("--relay", "net://10.255.1.1", "--session", "elsewhere")
        wait_err(db, r'relay_record elsewhere from .+? refused: relay host "10.255.1.1" is not '
                 r'in --relay-allow \(%s\)' % re.escape(self.a.addr), n)
        self.peer("--relay", "tcp://%s.evil:5342" % self.a.addr, "--session", "prefix")
        wait_err(db, r'relay_record prefix from .+? refused: relay host "%s.evil"' %
                 re.escape(self.a.addr), n)
        db = self.restart_b("--accept-relay")
        self.assertIn("--accept-relay without --relay-allow: every relay request will be "
                      "refused", db.err_text())
        n = len(db.errs)
        self.peer("--relay", "net://" + self.a.addr, "--session", "nolist")
        wait_err(db, r"relay_record nolist from .+? refused: relay host \"%s\" is not in "
                 r"--relay-allow \(none given: no relay is allowed\)" % re.escape(self.a.addr),
                 n)
        out = self.sessions_b()
        for s in ("elsewhere", "prefix", "nolist"):
            self.assertNotIn(s, out)

    # -- B16c: a flood of Start and End -------------------------------------

    def test_b16c_flood_log_lines_bounded(self):
        """60 KB strings, invalid UTF-8, control characters and valid
        Start/End as fast as the peer can for 6 s: caretd stays alive and
        logs at most the limiter's 30 lines per 10 s, then how many it
        suppressed."""
        db = self.restart_b()
        n = len(db.errs)
        before = self.b.hosts()["counts"]
        r = self.peer("--flood", "6", timeout=90)
        sent = int(re.search(r"flood sent (\d+)", r.stdout).group(1))
        self.assertGreater(sent, 1000, r.stdout)
        time.sleep(1)
        flood_lines = [l for l in db.errs[n:] if "bridge:" in l]
        after = self.b.hosts()["counts"]
        got = after["start"] + after["end"] - before["start"] - before["end"]
        self.assertGreater(got, 60, (before, after))
        # at most the burst in each of the limiter's 10 s windows (before the
        # limiter, one line per sample taken: about 80 here). The flood's 7 s
        # fit in one window on a quiet machine; under load caretd takes the
        # samples for longer (42 lines over two windows were seen at a load
        # of 116). A window after one that suppressed lines begins with the
        # count of those: the lines between two such counts are one window's.
        windows = [0]
        for line in flood_lines:
            if SUPPRESSED.search(line):
                windows.append(0)
            else:
                windows[-1] += 1
        self.assertLessEqual(max(windows), 30, "lines per window %s: %s" %
                             (windows, "".join(flood_lines[-20:])))
        m = wait_err(db, SUPPRESSED.pattern, n, timeout=25)
        self.assertGreater(int(m.group(1)), 10)
        print("flood: %d samples sent, %d taken, %d bridge lines, %s suppressed" %
              (sent, got, len(flood_lines), m.group(1)), file=sys.stderr)
        self.assertIsNone(db.poll())
        for l in db.errs[n:]:
            self.assertNotRegex(l.rstrip("\n"), r"[\x00-\x08\x0b-\x1f\x7f]")
        self.b.wait_sees(self.a.name)

    # -- B16d: one participant, a hundred hosts -----------------------------

    def test_b16d_fake_hosts(self):
        """One participant with 100 writers claiming fake000..fake099: it
        gets one host slot, the real host keeps its own. Then 70
        participants, one host each, take every slot and leave: a new real
        host gets a slot once they are silent."""
        db = self.restart_b()
        r = self.a.spawn([PEER, "--peers", "1", "--fake-hosts", "100", "--hold", "5"])
        wait_line(r, r"^fake hosts 100 over 1 participants")
        time.sleep(3)
        hosts = [x["host"] for x in self.b.hosts()["hosts"]]
        fakes = [h for h in hosts if h.startswith("fake")]
        self.assertLessEqual(len(fakes), 1, hosts)
        self.assertIn(self.a.name, hosts)
        rejected = self.b.hosts()["counts"]["rejected"]
        self.assertGreater(rejected, 50)
        wait_err(db, r"Status rejected: its DDS participant already speaks for another host")
        r.finish(30)
        # every slot taken by live participants, then they leave
        r = self.a.spawn([PEER, "--peers", "1", "--fake-hosts", "70", "--participants", "70",
                          "--hold", "4"], )
        wait_line(r, r"^fake hosts 70 over 70 participants", timeout=60)
        deadline = time.time() + 20
        while len(self.b.hosts()["hosts"]) < 64:
            self.assertLess(time.time(), deadline, self.b.hosts()["hosts"])
            time.sleep(0.3)
        r.finish(60)
        time.sleep(4)  # silent longer than BRIDGE_HOST_EVICT_S
        # a new real host: host A's caretd under another name
        self.da.terminate()
        self.da.wait(10)
        newname = "n" + self.a.name
        self.a.run(["hostname", newname])
        try:
            type(self).da = self.a.caretd()
            # (the log line saying which host it replaced may be suppressed:
            # the flood of rejections above used the limiter's burst)
            self.b.wait_sees(newname, timeout=20)
        finally:
            self.da.terminate()
            self.da.wait(10)
            self.a.run(["hostname", self.a.name])
            type(self).da = self.a.caretd()
        self.assertIsNone(db.poll())

    def test_b16d_one_host_many_processes(self):
        """One host claiming 600 processes gets 256 process slots; the real
        host's processes are still listed."""
        db = self.restart_b()
        before = self.b.hosts()["counts"]["rejected"]
        r = self.a.spawn([PEER, "--peers", "1", "--fake-hosts", "1", "--procs", "600",
                          "--hold", "15"])
        wait_line(r, r"^fake hosts 1 over 1 participants")
        deadline = time.time() + 14
        while True:
            st = self.b.hosts()
            procs = {x["host"]: len(x["processes"]) for x in st["hosts"]}
            if st["counts"]["rejected"] > before + 100 or time.time() > deadline:
                break
            time.sleep(0.3)
        # more than 256 processes claimed (what does not fit is rejected)
        self.assertGreater(st["counts"]["rejected"], before + 100, procs)
        self.assertEqual(procs.get("fake000"), 256, procs)
        self.assertEqual(procs.get(self.a.name), 1, procs)
        r.finish(30)
        self.assertIsNone(db.poll())

    # -- D3: out of descriptors when DDS starts -----------------------------

    def test_d3_few_descriptors_no_dds(self):
        """caretd short of descriptors when the bridge starts: CycloneDDS
        0.10 crashed in its own cleanup (rtps_fini, after "can't allocate
        sock waitset") when it ran out while starting: SIGSEGV at 12 and 13
        descriptors here, a clean failure at 10 and 11, up from 14. caretd
        does not start it then, says why, and lives, at every limit."""
        if self.db is not None and self.db.poll() is None:
            self.db.terminate()
            self.db.wait(10)
        for n in range(10, 21):
            db = type(self).db = self.b.caretd(prefix=["prlimit", "--nofile=%d:%d" % (n, n)])
            m = wait_err(db, r"bridge: (up|down: .*)", timeout=10)
            time.sleep(0.3)
            self.assertIsNone(db.poll(), "limit %d: %s" % (n, db.err_text()))
            self.assertRegex(m.group(1), r"^down: only \d+ file descriptors free \(32 needed "
                             r"to start DDS\); retrying", n)
            self.assertRegex(self.b.hosts()["bridge"], r"^down: only \d+ file descriptors")
            db.terminate()
            db.wait(10)


class RelayOptionsTest(unittest.TestCase):
    """The --relay-* options refuse bad values at start (exit 2, named)."""

    def test_bad_values(self):
        import subprocess
        for args, msg in ((["--relay-allow", ""], "invalid --relay-allow ''"),
                          (["--relay-allow", "a,,b"], "invalid --relay-allow 'a,,b'"),
                          (["--relay-allow", "a b"], "invalid --relay-allow 'a b'"),
                          (["--relay-max-duration", "0"], "invalid --relay-max-duration '0'"),
                          (["--relay-max-duration", "-5"], "invalid --relay-max-duration"),
                          (["--relay-max-duration", "604801"], "1 to 604800 seconds"),
                          (["--relay-max-size", "1K"], "must be 4K to 1T bytes"),
                          (["--relay-max-size", "2T"], "must be 4K to 1T bytes")):
            r = subprocess.run([CARETD] + args, capture_output=True, text=True, timeout=10)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr)
        r = subprocess.run([CARETD, "--help"], capture_output=True, text=True, timeout=10)
        for opt in ("--relay-allow", "--relay-max-duration", "--relay-max-size"):
            self.assertIn(opt, r.stdout)

if __name__ == "__main__":
    unittest.main(verbosity=2)
