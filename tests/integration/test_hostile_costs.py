# SPDX-License-Identifier: Apache-2.0
"""Issue 30, round 4 of hostile input: what a group member or a DDS peer
can make the host pay. H4: a flood of RTPS-headed junk never makes
CycloneDDS's own log pass caretd's limiter."""
import os
import socket
import sys
import time
import unittest

from harness import wait_err
from hostile import HostileBase, cpu_ticks


class HostileCosts(HostileBase):
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
