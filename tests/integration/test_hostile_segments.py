# SPDX-License-Identifier: Apache-2.0
"""Garbage, truncated and hostile segments are rejected by validation, with
a clear error, by the tools that read segments (agentctl check and list)."""
import os
import unittest

from harness import Ctx
from seg_layout import rec_header, seg_header


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
            ("bad-magic", lambda st: seg_header(start_time=st, magic=1), 1 << 20),
            ("bad-version", lambda st: seg_header(start_time=st, layout_version=99), 1 << 20),
            ("size-lie", lambda st: seg_header(start_time=st, capacity=1 << 30), 1 << 20),
            ("tail-past-end", lambda st: seg_header(start_time=st, tail=1 << 21), 1 << 20),
            ("pid-mismatch", lambda st: seg_header(start_time=st, pid=1), 1 << 20),
        ]
        for i, (why, make, size) in enumerate(cases):
            n = self.put(4242, make(i + 1), size, start=i + 1)
            self.check_rejected(n, why)
        # the same header with nothing wrong is accepted: the cases above
        # fail for the reason they name
        ok = self.put(4242, seg_header(start_time=99), 1 << 20, start=99)
        r = self.c.agentctl("check", ok)
        self.assertIn("ok: 0 records", r.stdout)
        listing = self.c.agentctl("list").stdout
        self.assertEqual(listing.count("INVALID"), len(cases), listing)

    def test_writable_by_others_rejected(self):
        """A segment others may write (0666, 0777, 0620) is refused; the same
        segment at 0600 or 0644 is accepted."""
        for i, mode in enumerate((0o666, 0o777, 0o620)):
            n = self.put(4242, seg_header(start_time=i + 1), 1 << 20, start=i + 1)
            os.chmod("/dev/shm/" + n, mode)
            r = self.c.agentctl("check", n, check=False)
            self.assertEqual(r.returncode, 1, oct(mode))
            self.assertIn("Permission denied", r.stderr)
        for i, mode in enumerate((0o600, 0o644)):
            n = self.put(4242, seg_header(start_time=10 + i), 1 << 20, start=10 + i)
            os.chmod("/dev/shm/" + n, mode)
            self.assertIn("ok: 0 records", self.c.agentctl("check", n).stdout)

    def test_corrupt_records(self):
        rec = rec_header(13, 0, 5)  # size 0: corrupt
        data = seg_header(tail=32) + rec
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
