# SPDX-License-Identifier: Apache-2.0
"""Issue 30, round 4 of hostile input: what a group member or a DDS peer
can make the host pay. H2: chunk directories full of files planted in a
rotating recording's archives never keep caretd from answering; H3: a
flight recorder's rings are bounded by the host's available memory, per
user and in total, with root's share kept; H4: a flood of RTPS-headed junk
never makes CycloneDDS's own log pass caretd's limiter."""
import json
import os
import re
import socket
import subprocess
import sys
import time
import unittest

from harness import CARETCTL, wait_err
from hostile import HostileBase, as_user, cpu_ticks, temp_user

PLANTED = 6
FILES = 30000
# caretd(8): status within 100 ms throughout a prune. Measured by this
# client, which a loaded 2-core CI machine also delays: 9 to 73 ms at most
# here while a prune runs (median 0.3 ms), and 1.3 to 1.6 s on the code
# that pruned on caretd's loop; the bound leaves the client its slack
# (405 ms seen once under ASan+UBSan with the machine's 2 cores busy
# elsewhere: still well below the stall it guards against).
STATUS_MS = 800


def ask(sock_path, req, timeout=10):
    """One request on caretd's control socket (as whoever runs it): its
    result or error line, decoded."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(sock_path)
        s.sendall((json.dumps(dict(req, v=1)) + "\n").encode())
        buf = b""
        while True:
            while b"\n" not in buf:
                got = s.recv(65536)
                if not got:
                    raise AssertionError("caretd closed the connection: %r" % buf)
                buf += got
            line, buf = buf.split(b"\n", 1)
            r = json.loads(line)
            if r.get("type") in ("result", "error"):
                return r
    finally:
        s.close()


# the same, run as a group member (a throwaway user): prints the reply
ASK_AS = """import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\\n").encode())
buf = b""
while True:
    got = s.recv(65536)
    if not got:
        break
    buf += got
    done = [l for l in buf.split(b"\\n") if b'"result"' in l or b'"error"' in l]
    if done:
        print(done[0].decode())
        break
"""

# a throwaway user fills chunk directories (made aside, then renamed into
# the archives at once: a prune sees each whole or not at all)
PLANT = """import os, sys
stage, arch, n, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
names = []
for i in range(n):
    name = "19990101T000000+0000-19990101T000001+0000-%d" % i
    d = os.path.join(stage, name)
    os.mkdir(d)
    for k in range(files):
        os.close(os.open(os.path.join(d, "f%d" % k), os.O_CREAT | os.O_WRONLY, 0o644))
    names.append(name)
for name in names:
    os.rename(os.path.join(stage, name), os.path.join(arch, name))
"""


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


class HostileCosts(HostileBase):
    def tearDown(self):
        # under SAN=1: a sanitizer's report on caretd's stderr fails the test
        bad = [l for p in self.c.procs if p.args[0].endswith("caretd") for l in p.errs
               if "runtime error:" in l or "Sanitizer" in l]
        super().tearDown()
        self.assertEqual(bad, [])

    def member_ask(self, pw, req):
        r = as_user(pw, ["/usr/bin/python3", "-c", ASK_AS, self.c.sock,
                         json.dumps(dict(req, v=1))])
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def member_dir(self, pw, name):
        d = os.path.join(self.c.tmp, name)
        os.mkdir(d)
        os.chown(d, pw.pw_uid, pw.pw_gid)
        return d

    # -- H2: pruning off caretd's loop -------------------------------------

    def test_h2_prune_never_stalls_status(self):
        """A member's rotating recording keeps 1 chunk; they plant 6 chunk
        directories of 30,000 files each among its archives. Every status
        asked while caretd prunes them (with their rights) is answered
        within STATUS_MS, at most 100,000 entries go per rotation, and all
        of them are gone after a few rotations."""
        with temp_user() as pw:
            self.group_caretd(pw)
            w = self.c.workload("--name", "pub", "--pubs", "1", "--rate", "10")
            out = self.member_dir(pw, "traces")
            rec = subprocess.Popen(
                ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                 "--clear-groups", CARETCTL, "--socket", self.c.sock, "record", "--immediate",
                 "-p", out, "-s", "prune", "--rotate-every", "1s", "--keep", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            try:
                arch = os.path.join(out, "prune", "archives")
                deadline = time.time() + 30
                while not os.path.isdir(arch):
                    self.assertLess(time.time(), deadline, "no chunk archived")
                    if rec.poll() is not None:
                        self.fail("record exited: %s" % (rec.communicate(),))
                    time.sleep(0.1)
                stage = os.path.join(out, "stage")
                as_user(pw, ["mkdir", stage], check=True)
                t0 = time.time()
                as_user(pw, ["/usr/bin/python3", "-c", PLANT, stage, arch, str(PLANTED),
                             str(FILES)], check=True)
                planted = [os.path.join(arch, "19990101T000000+0000-19990101T000001+0000-%d"
                                        % i) for i in range(PLANTED)]
                print("planted %d x %d files in %.1f s" % (PLANTED, FILES, time.time() - t0),
                      file=sys.stderr)
                lat, removed_at = [], []
                deadline = time.time() + 60
                while any(os.path.lexists(p) for p in planted):
                    self.assertLess(time.time(), deadline, "planted chunks still there")
                    t = time.monotonic()
                    st = ask(self.c.sock, {"cmd": "status"})
                    lat.append((time.monotonic() - t) * 1000)
                    self.assertEqual(st["type"], "result", st)
                    r = [x for x in st["rotations"] if x["session"] == "prune"]
                    if r:
                        removed_at.append((r[0]["rotations"], r[0]["removed"]))
                    time.sleep(0.01)
                # a last look, once the last prune is applied
                for _ in range(20):
                    t = time.monotonic()
                    ask(self.c.sock, {"cmd": "status"})
                    lat.append((time.monotonic() - t) * 1000)
                    time.sleep(0.01)
                lat.sort()
                print("status during the prune: %d answers, median %.1f ms, max %.1f ms" %
                      (len(lat), lat[len(lat) // 2], lat[-1]), file=sys.stderr)
                self.assertLess(lat[-1], STATUS_MS, "slowest status answers (ms): %s" %
                                ["%.0f" % x for x in lat[-5:]])
                self.assertIsNone(rec.poll())
                errs = "".join(self.c.procs[0].errs)
                # one budget per prune: 180,000 entries take two of them
                self.assertRegex(errs, r"session prune: pruning stopped after 100000 entries")
            finally:
                rec.kill()
                rec.communicate()
            w.terminate()

    # -- H3: flight-recorder memory against the host's ---------------------

    def snapshot_req(self, out, name, size):
        return {"cmd": "record", "session": name, "path": out, "snapshot_size": size}

    def test_h3_rings_bounded_by_available_memory(self):
        """A member's flight recorder whose rings (size x CPUs x traced users)
        exceed their share of the host's available memory is refused with the
        least and largest sizes allowed; their recorders adding up past that
        share are refused too; root still gets its share."""
        with temp_user() as pw:
            self.group_caretd(pw)
            out = self.member_dir(pw, "rings")
            ncpu = os.cpu_count()
            huge = 8 << 30  # the largest --snapshot-size
            if huge * ncpu * 8 <= mem_available() // 4:
                self.skipTest("this host has room for 8 recorders of 8 GiB per CPU")
            got = []
            for i in range(8):
                r = self.member_ask(pw, self.snapshot_req(out, "big%d" % i, huge))
                got.append(r)
                if r["type"] == "error":
                    break
            refused = got[-1]
            self.assertEqual(refused["type"], "error", got)
            msg = refused["error"]
            m = re.search(r"--snapshot-size between (\d+)K and (\d+)K", msg)
            self.assertTrue(m, msg)
            least, largest = int(m.group(1)) << 10, int(m.group(2)) << 10
            self.assertLessEqual(least, largest, msg)
            self.assertLess(largest, huge, msg)
            self.assertRegex(msg, r"available memory", msg)
            for r in got[:-1]:
                self.member_ask(pw, {"cmd": "stop", "session": r["session"]})
            # the largest size allowed is taken; recorders of that size add
            # up past the member's share. The host's available memory moves
            # (other processes): a first refusal names the size that fits
            # now, which is asked for instead.
            held, size = [], largest
            for i in range(8):
                a = self.member_ask(pw, self.snapshot_req(out, "fits%d" % i, size))
                if a["type"] == "result":
                    held.append(a["session"])
                    continue
                if held:
                    break
                m = re.search(r"--snapshot-size between (\d+)K and (\d+)K", a["error"])
                self.assertTrue(m, a["error"])
                size = int(m.group(2)) << 10
            self.assertEqual(a["type"], "error", held)
            self.assertTrue(held)
            m = re.search(r"--snapshot-size between (\d+)K and (\d+)K", a["error"])
            if m:
                self.assertLess(int(m.group(2)) << 10, size, a["error"])
            else:
                self.assertRegex(a["error"], r"no --snapshot-size fits", a["error"])
            # root's share stays: an eighth of what is available (asked
            # for half of it, the available memory moving meanwhile)
            root_size = 1 << ((mem_available() // 16 // ncpu).bit_length() - 1)
            root_size = min(root_size, huge)
            rootdir = os.path.join(self.c.tmp, "root-rings")
            os.mkdir(rootdir)
            c = ask(self.c.sock, self.snapshot_req(rootdir, "root", root_size))
            self.assertEqual(c["type"], "result", c)
            ask(self.c.sock, {"cmd": "stop", "session": "root"})
            for name in held:
                self.member_ask(pw, {"cmd": "stop", "session": name})

    # -- H4: CycloneDDS's log through caretd's limiter ---------------------

    def test_h4_rtps_junk_flood_log_bounded(self):
        """Datagrams with an RTPS header and junk after it, sent to the
        bridge's discovery port for 3 s: caretd's stderr gets at most 30
        lines of them (and one saying how many were suppressed)."""
        d = self.c.caretd("--eager-bridge")
        wait_err(d, r"bridge: up on DDS domain", timeout=30)
        port = 7400 + 250 * int(self.c.domain)
        n = len(d.errs)
        hdr = b"RTPS\x02\x01\x01\x10" + bytes(range(12))
        # a DATA submessage whose length runs past the datagram
        junk = hdr + b"\x15\x01\xff\x7f" + b"\xaa" * 64
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sent, t0, c0 = 0, time.time(), cpu_ticks(d.pid)
        while time.time() - t0 < 3:
            for _ in range(100):
                try:
                    s.sendto(junk, ("127.0.0.1", port))
                    sent += 1
                except OSError:
                    pass
            time.sleep(0.002)
        cpu = (cpu_ticks(d.pid) - c0) / os.sysconf("SC_CLK_TCK") / (time.time() - t0)
        s.close()
        time.sleep(1)
        lines = d.errs[n:]
        dds = [l for l in lines if "malformed" in l or "CycloneDDS" in l or "suppressed" in l]
        print("junk flood: %d datagrams, %d caretd lines, %d of them CycloneDDS's, caretd "
              "at %.0f %% of a CPU" % (sent, len(lines), len(dds), cpu * 100), file=sys.stderr)
        self.assertGreater(len(dds), 0, "the junk never reached CycloneDDS: %s" % lines[-5:])
        self.assertLessEqual(len(dds), 31, "".join(dds[:3] + dds[-3:]))
        self.assertIsNone(d.poll())


if __name__ == "__main__":
    unittest.main()
