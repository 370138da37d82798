# SPDX-License-Identifier: Apache-2.0
"""Garbage, truncated and hostile segments are rejected by validation, with
a clear error, by the tools that read segments."""
import os
import struct
import unittest

from harness import Ctx


class HostileSegments(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def put(self, pid, data, size=None, start=1):
        name = "%s.%d.%d" % (self.c.prefix, pid, start)
        path = "/dev/shm/" + name
        with open(path, "wb") as f:
            f.write(data)
            if size:
                f.truncate(size)
        os.chmod(path, 0o600)
        return name

    def header(self, **over):
        h = dict(magic=0x4d48535445524143, version=1, hsize=4096, cap=1 << 20,
                 pid=4242, uid=os.getuid(), start=1, tail=0)
        h.update(over)
        b = struct.pack("<QIIQiIQ16s16sq", h["magic"], h["version"], h["hsize"], h["cap"],
                        h["pid"], h["uid"], h["start"], b"evil", b"jazzy", 0)
        # state, doorbell, grant, cursor, tp_enabled_epoch, progress, tail
        b += struct.pack("<IIQQIIQ", 1, 0, 0, 0, 0, 0, h["tail"])
        return b

    def check_rejected(self, name, why):
        r = self.c.agentctl("check", name, check=False)
        self.assertEqual(r.returncode, 1, why)
        self.assertIn(name, r.stderr)
        self.assertTrue(r.stderr.strip(), why)

    def test_garbage_truncated_and_lies(self):
        # each case names the segment after the pid/start its header claims,
        # except where the mismatch is the point
        cases = [
            ("random", lambda st: os.urandom(8192), None),
            ("short", lambda st: b"CARETSHM", None),
            ("zeros", lambda st: b"", 1 << 20),
            ("bad-magic", lambda st: self.header(start=st, magic=1), 1 << 20),
            ("bad-version", lambda st: self.header(start=st, version=99), 1 << 20),
            ("size-lie", lambda st: self.header(start=st, cap=1 << 30), 1 << 20),
            ("tail-past-end", lambda st: self.header(start=st, tail=1 << 21), 1 << 20),
            ("pid-mismatch", lambda st: self.header(start=st, pid=1), 1 << 20),
        ]
        for i, (why, make, size) in enumerate(cases):
            n = self.put(4242, make(i + 1), size, start=i + 1)
            self.check_rejected(n, why)
        # the same header with nothing wrong is accepted: the cases above
        # fail for the reason they name
        ok = self.put(4242, self.header(start=99), 1 << 20, start=99)
        r = self.c.agentctl("check", ok)
        self.assertIn("ok: 0 records", r.stdout)
        listing = self.c.agentctl("list").stdout
        self.assertEqual(listing.count("INVALID"), len(cases), listing)

    def test_corrupt_records(self):
        hdr = self.header(tail=32)
        rec = struct.pack("<IIq", 13, 0, 5)  # size 0: corrupt
        data = hdr + b"\0" * (4096 - len(hdr)) + rec
        n = self.put(4242, data, 1 << 20)
        r = self.c.agentctl("check", n, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("corrupt record", r.stderr)

    def test_symlink_not_followed(self):
        name = "%s.4242.1" % self.c.prefix
        os.symlink("/etc/passwd", "/dev/shm/" + name)
        r = self.c.agentctl("check", name, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("Too many levels of symbolic links", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
