# SPDX-License-Identifier: Apache-2.0
"""Issue 24: a bridge asleep (daemon/bridge/bridge_wake.c). caretd does not load
CycloneDDS until a DDS participant announces itself in its domain (SPDP,
heard with a plain UDP socket) or a command of its host needs the other
hosts; then its own participant wakes the other hosts' caretd, and the
broadcasts of that command are held until they joined. Two hosts on a veth
pair (multihost.py), each caretd started asleep."""
import glob
import json
import os
import time
import unittest

from harness import CARETCTL, stop_proc, wait_err, wait_line
from multihost import NetTest


def ddsc_mapped(proc):
    with open("/proc/%d/maps" % proc.pid) as f:
        return "libddsc" in f.read()


class BridgeAsleepTest(NetTest):
    label = "bridge asleep"

    @classmethod
    def set_up_hosts(cls):
        a, b = cls.a, cls.b
        cls.da = cls.db = None
        cls.fresh_daemons()
        cls.pa = [a.standin("a0", "--pubs", "1", "--rate", "40")]
        cls.pb = [b.standin("b0", "--pubs", "1", "--rate", "40")]

    @classmethod
    def fresh_daemons(cls):
        """Both caretd (re)started, asleep (their agents stay and register again)."""
        a, b = cls.a, cls.b
        for h, d in ((a, cls.da), (b, cls.db)):
            if d:
                stop_proc(d, 10)
                h.procs.remove(d)
        cls.da = a.caretd()
        cls.db = b.caretd("--accept-relay", "--relay-allow", a.addr)
        for d in (cls.da, cls.db):
            wait_err(d, r"bridge: asleep: DDS loads when a participant appears in domain "
                        r"\d+ \(UDP \d+\) or --all-hosts needs it; [1-9]\d* interface")

    def send_to_group(self, host, payload, port):
        """One UDP datagram from host to the SPDP group on its veth."""
        code = ("import socket,sys\n"
                "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
                "s.setsockopt(socket.IPPROTO_IP,socket.IP_MULTICAST_IF,"
                "socket.inet_aton(sys.argv[1]))\n"
                "s.sendto(bytes.fromhex(sys.argv[2]),('239.255.0.1',int(sys.argv[3])))\n")
        host.run(["python3", "-c", code, host.addr, payload.hex(), str(port)])

    def test_1_asleep_until_rtps(self):
        """Neither caretd maps libddsc at start, a local command that does
        not need the other hosts leaves it asleep, and a datagram that is
        not RTPS does not wake it."""
        a, b = self.a, self.b
        self.assertFalse(ddsc_mapped(self.da))
        self.assertFalse(ddsc_mapped(self.db))
        a.ctl("status")
        port = 7400 + 250 * int(self.net.domain)
        n = len(self.da.errs)
        self.send_to_group(b, b"RTPX" + bytes(30), port)
        self.send_to_group(b, b"RTPS\x02", port)  # shorter than a header
        time.sleep(1.0)
        self.assertFalse(ddsc_mapped(self.da), "".join(self.da.errs[n:]))
        self.assertNotIn("waking", "".join(self.da.errs[n:]))

    def test_1b_snapshot_all_hosts_asks_once_woken(self):
        """snapshot --all-hosts on host A, both asleep, each with a flight
        recorder of its own: A loads DDS, holds the request until B (woken
        by A's participant) has joined, and B's snapshot is in the reply."""
        a, b = self.a, self.b
        self.fresh_daemons()
        recs = []
        try:
            for h in (a, b):
                rec = h.spawn([CARETCTL, "--socket", h.sock, "record", "--immediate",
                               "--snapshot-size", "1M", "-p", os.path.join(h.dir, "traces"),
                               "-s", "fr"])
                wait_line(rec, r"processes recording", timeout=60)
                recs.append(rec)
            self.assertFalse(ddsc_mapped(self.da) or ddsc_mapped(self.db))
            na = len(self.da.errs)
            r = a.ctl("snapshot", "--all-hosts", "--json", "--timeout", "30", "fr",
                      check=False, timeout=180)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            out = json.loads(r.stdout.strip().splitlines()[-1])
            wait_err(self.da, r"a snapshot asked of every host once the bridge woke "
                              r"\(1 other\(s\) known\)", na)
            by = {h["host"]: h for h in out["hosts"]}
            self.assertEqual(set(by), {a.name, b.name}, out)
            self.assertTrue(by[b.name]["complete"], out)
            self.assertTrue(by[b.name]["path"].startswith(
                os.path.join(b.dir, "traces", "fr", "snapshot-1-")), out)
        finally:
            for h in (a, b):
                h.ctl("stop", "-s", "fr", check=False)
            for rec in recs:
                stop_proc(rec, 10)

    def test_2_all_hosts_record_wakes_every_host(self):
        """record --all-hosts on host A: A loads DDS for the command; its
        participant wakes B; the RelayRecord and Start, held until B
        joined, reach B's process, which records into the relay."""
        a, b = self.a, self.b
        self.fresh_daemons()
        self.assertFalse(ddsc_mapped(self.db))
        na, nb = len(self.da.errs), len(self.db.errs)
        r = a.ctl("record", "--immediate", "--all-hosts", "--set-url", "net://" + a.addr,
                  "-s", "asl", "--duration", "3", "--timeout", "30")
        out = r.stdout + r.stderr
        wait_err(self.da, r"bridge: waking: caretctl record --all-hosts", na)
        wait_err(self.db, r"bridge: waking: a DDS participant announced itself from %s"
                 % a.addr.replace(".", r"\."), nb)
        wait_err(self.da, r"bridge: held RelayRecord broadcast to every host", na)
        wait_err(self.da, r"bridge: held Start broadcast to every host", na)
        self.assertIn("Start held while the bridge wakes", out)
        self.assertIn("host %s: 1/1 processes recording" % b.name, out)
        wait_err(self.db, r"relay_record from %s: session asl streaming to net://" % a.name, nb)
        wait_err(self.db, r"relay session asl stopped and destroyed", nb)
        self.assertTrue(ddsc_mapped(self.da) and ddsc_mapped(self.db))
        time.sleep(0.5)  # the relay closes its files after the session is destroyed
        self.assertEqual(len(glob.glob(os.path.join(self.relay_dir, b.name, "asl-*"))), 1,
                         os.listdir(self.relay_dir))

    def test_3_late_sleeper_joins_within_seconds(self):
        """A caretd started asleep after A's bridge is up hears A's next
        announcement (every second) and joins without any command."""
        a, b = self.a, self.b
        if not ddsc_mapped(self.da):
            a.ctl("status", "--all-hosts", "--timeout", "3", check=False)
        stop_proc(self.db, 10)
        b.procs.remove(self.db)
        t0 = time.time()
        d = type(self).db = b.caretd("--accept-relay", "--relay-allow", a.addr)
        wait_err(d, r"bridge: waking: a DDS participant announced itself from %s"
                 % a.addr.replace(".", r"\."), 0, timeout=10)
        wait_err(d, r"bridge: up on DDS domain", 0, timeout=10)
        took = time.time() - t0
        self.assertLess(took, 10)
        a.wait_sees(b.name, timeout=10)
        print("late sleeper joined in %.1f s" % took)


if __name__ == "__main__":
    unittest.main(verbosity=2)
