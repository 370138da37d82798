# SPDX-License-Identifier: Apache-2.0
"""Rotating recordings at their limits (issue 23): a disk about to fill
ends the recording while its last chunk can still be closed, pruning never
follows the owner's links, bad values are usage errors, and caretd applies
the same limits to a request that skips caretctl."""
import errno
import json
import os
import socket
import subprocess
import time
import unittest

from harness import CARETCTL
from hostile import temp_user
from rotation_base import RotationBase, check, chunks, setpriv


class RotationLimitsTest(RotationBase):
    def test_disk_about_to_fill(self):
        """A rotating recording without a bound on a small file system:
        caretd ends it while room is left (the rest of the host keeps its
        disk), caretctl record exits 1 saying why, status keeps the reason,
        and every chunk written stays readable."""
        mnt = os.path.join(self.c.tmp, "small")
        os.mkdir(mnt)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt], check=True)
        try:
            self.system(3, extra=("--rate", "2000"))
            rec = self.c.caretctl("record", "--immediate", "-p", mnt, "-s", "full",
                                  "--rotate-every", "1s", background=True)
            rc = rec.finish(120)
            err = rec.err_text()
            self.assertEqual(rc, 1, rec.out_text() + err)
            self.assertRegex(err, r"session full ended: the file system of .* has \d+ bytes "
                                  r"left, less than the \d+ this rotating recording needs")
            st = json.loads(self.c.caretctl("status", "--json").stdout)
            self.assertEqual([e["session"] for e in st["rotations_ended"]], ["full"])
            self.assertEqual(st["rotations"], [])
            self.assertNotIn("full", st["lttng"]["active_sessions"])
            vfs = os.statvfs(mnt)
            self.assertGreater(vfs.f_bavail * vfs.f_frsize, 1 << 20)
            all_chunks = chunks(os.path.join(mnt, "full"))
            self.assertGreaterEqual(len(all_chunks), 2)
            complete = 0
            for c in all_chunks:
                rc, rep, e = check(c)
                self.assertIn(rc, (0, 6), "%s unreadable: %s %s" % (c, rep, e))
                complete += rc == 0
            self.assertGreaterEqual(complete, len(all_chunks) - 2)
        finally:
            subprocess.run(["umount", "-l", mnt], capture_output=True)

    def test_prune_never_follows_the_owners_links(self):
        """The disk bound removes chunks with the recording owner's rights,
        never following a link: a user whose recording keeps 1 chunk plants,
        among its archives, links named like its oldest chunks to a
        directory and a file of root's. After many rotations root's files
        are intact, and the user's own older chunks are gone."""
        os.chmod(self.c.tmp, 0o755)
        victim = os.path.join(self.c.tmp, "victim")
        vchunk = os.path.join(victim, "20000101T000000+0000-20000101T000001+0000-0")
        os.makedirs(vchunk)
        with open(os.path.join(vchunk, "precious"), "w") as f:
            f.write("root's")
        with open(os.path.join(victim, "file"), "w") as f:
            f.write("root's")
        with temp_user() as pw:
            self.c.caretd("--group", pw.pw_name)
            self.system(2)
            out = os.path.join(self.c.tmp, "user-traces")
            os.mkdir(out)
            os.chown(out, pw.pw_uid, pw.pw_gid)
            rec = subprocess.Popen(setpriv(pw) + [
                CARETCTL, "--socket", self.c.sock, "record", "--immediate", "-p", out,
                "-s", "evil", "--rotate-every", "1s", "--keep", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            try:
                arch = os.path.join(out, "evil", "archives")
                deadline = time.time() + 30
                while not os.path.isdir(arch):
                    if time.time() > deadline or rec.poll() is not None:
                        rec.kill()
                        o, e = rec.communicate()
                        self.fail("no chunk archived: %s %s %s" % (o, e, "".join(
                            [p for p in self.c.procs if p.args[0].endswith("caretd")][0]
                            .errs[-30:])))
                    time.sleep(0.1)
                subprocess.run(setpriv(pw) + ["ln", "-s", vchunk, os.path.join(
                    arch, "19990101T000000+0000-19990101T000001+0000-0")], check=True)
                subprocess.run(setpriv(pw) + ["ln", "-s", os.path.join(victim, "file"),
                                              os.path.join(arch, "19990101T000000+0000-"
                                                           "19990101T000001+0000-1")],
                               check=True)
                deadline = time.time() + 60
                while True:
                    st = json.loads(self.c.caretctl("status", "--json").stdout)
                    r = [x for x in st["rotations"] if x["session"] == "evil"]
                    if r and r[0]["rotations"] >= 5:
                        break
                    self.assertLess(time.time(), deadline, st.get("rotations"))
                    time.sleep(0.2)
                stop = subprocess.run(setpriv(pw) + [CARETCTL, "--socket", self.c.sock,
                                                     "stop", "-s", "evil"],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(stop.returncode, 0, stop.stdout + stop.stderr)
            finally:
                rec.kill()
                rec.communicate()
            self.assertTrue(os.path.exists(os.path.join(vchunk, "precious")))
            self.assertTrue(os.path.exists(os.path.join(victim, "file")))
            real = [c for c in chunks(os.path.join(out, "evil")) if not os.path.islink(c)]
            self.assertEqual(len(real), 1, real)
            self.assertEqual(os.lstat(real[0]).st_uid, pw.pw_uid)

    def test_bad_values(self):
        """Bad sizes, durations and combinations are usage errors (exit 2)."""
        self.c.caretd()
        for args in (["--rotate-size", "0"], ["--rotate-size", "1x"],
                     ["--rotate-size", "100"], ["--rotate-every", "0"],
                     ["--rotate-every", "abc"], ["--rotate-every", "10ms"],
                     ["--rotate-every", "-1"], ["--rotate-every", "1s", "--keep", "0"],
                     ["--rotate-every", "1s", "--keep", "x"],
                     ["--rotate-every", "1s", "--max-size", "1K"],
                     ["--keep", "3"], ["--max-size", "1G"]):
            r = self.c.caretctl("record", "--immediate", "-p", self.traces, *args,
                                check=False)
            self.assertEqual(r.returncode, 2, "%s: %d %s" % (args, r.returncode, r.stderr))
            self.assertIn("caretctl", r.stderr)

    def test_caretd_applies_the_same_limits(self):
        """Any client may send anything: caretd checks the rotation fields
        itself, before a session exists."""
        self.c.caretd()
        base = {"v": 1, "cmd": "record", "path": self.traces}
        for extra, text in (({"rotate_every_ms": 999}, "rotate_every_ms 999 must be from 1000"),
                            ({"rotate_size": 1024}, "rotate_size 1024 must be from 65536"),
                            # the decoder's one wording for every integer field
                            ({"rotate_size": 1.5}, '"rotate_size" is not an integer'),
                            ({"rotate_size": "1M"}, '"rotate_size" is not an integer'),
                            ({"keep": 3}, "give rotate_size or rotate_every_ms"),
                            ({"max_size": 1 << 30}, "give rotate_size or rotate_every_ms"),
                            ({"rotate_every_ms": 1000, "keep": 0}, "keep 0 must be from 1"),
                            ({"rotate_every_ms": 1000, "keep": 257}, "keep 257 must be"),
                            ({"rotate_every_ms": 1000, "url": "net://localhost"},
                             "needs a local path")):
            sk = socket.socket(socket.AF_UNIX)
            sk.settimeout(10)
            sk.connect(self.c.sock)
            sk.sendall((json.dumps(dict(base, **extra)) + "\n").encode())
            reply = json.loads(sk.makefile().readline())
            sk.close()
            self.assertEqual(reply["type"], "error", extra)
            self.assertIn(text, reply["error"], extra)
            self.assertEqual(reply["errno"], errno.EINVAL)
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertEqual(st["lttng"]["active_sessions"], [])
        self.assertEqual(st["rotations"], [])


if __name__ == "__main__":
    unittest.main()
