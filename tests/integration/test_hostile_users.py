# SPDX-License-Identifier: Apache-2.0
"""Members of caretd's group (its --group) attacking through their
recording rights: a swapped output directory never lets root write
elsewhere (B15), and armed recordings have a per-user share and expire
(B17)."""
import json
import os
import subprocess
import time
import unittest

from harness import CARETCTL
from hostile import HostileBase, as_user, temp_user


class GroupMembers(HostileBase):
    def test_b15_swapped_output_dir_never_lets_root_write_elsewhere(self):
        """B15: a group member records into a directory of theirs that
        they keep exchanging (RENAME_EXCHANGE) with a symlink to a
        root-owned directory (as /etc/cron.d): nothing ever lands there,
        whatever the timing; without the swap the trace is theirs."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            target = os.path.join(self.c.tmp, "cron.d")  # root's, 0755
            os.mkdir(target, 0o755)
            evil = os.path.join(self.c.tmp, "evil")
            os.mkdir(evil, 0o755)
            os.chown(evil, pw.pw_uid, pw.pw_gid)
            out, swap = os.path.join(evil, "out"), os.path.join(evil, "swap")
            as_user(pw, ["mkdir", out], check=True)
            as_user(pw, ["ln", "-s", target, swap], check=True)
            loop = os.path.join(self.c.tmp, "swap.py")
            with open(loop, "w") as f:
                f.write("import ctypes, sys\n"
                        "libc = ctypes.CDLL(None, use_errno=True)\n"
                        "a, b = sys.argv[1].encode(), sys.argv[2].encode()\n"
                        "while True:\n"
                        "    libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE\n")
            os.chmod(loop, 0o644)
            swapper = subprocess.Popen(
                ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                 "--clear-groups", "/usr/bin/python3", loop, out, swap])
            try:
                ctl = [CARETCTL, "--socket", self.c.sock]
                for i in range(20):
                    name = "evil%d" % i
                    r = as_user(pw, ctl + ["record", "-p", out, "--duration", "0.1", "--timeout", "5", "-s", name])
                    as_user(pw, ctl + ["stop", "-s", name])
                    self.assertEqual(os.listdir(target), [],
                                     "try %d: %s%s" % (i, r.stdout, r.stderr))
            finally:
                swapper.kill()
                swapper.wait()
            # the real directory may have been either name when it stopped
            real = out if not os.path.islink(out) else swap
            r = as_user(pw, ctl + ["record", "-p", real, "--duration", "0.1", "--timeout", "5", "-s", "fair"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            trace = os.path.join(real, "fair")
            for top, dirs, files in os.walk(trace):
                for n in dirs + files:
                    self.assertEqual(os.lstat(os.path.join(top, n)).st_uid, pw.pw_uid,
                                     os.path.join(top, n))
            self.assertTrue(os.path.isdir(os.path.join(trace, "ust")), os.listdir(trace))
            self.assertEqual(os.listdir(target), [])
        d.send_signal(15)
        d.finish(10)

    def test_b17_armed_recordings_have_a_share_and_expire(self):
        """B17: a group member arming 40 recordings and never pressing
        Enter gets its share only (2 armed, 8 recordings in all); root can
        still arm and record, its immediate recording is remembered (stop
        finds it); the armed ones nobody starts are destroyed after
        --arm-timeout, and a late Enter says why."""
        hog = os.path.join(self.c.tmp, "armhog.py")
        with open(hog, "w") as f:
            f.write("import json, socket, sys\n"
                    "sock, path, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), "
                    "sys.argv[4]\n"
                    "def req(o):\n"
                    "    s = socket.socket(socket.AF_UNIX)\n"
                    "    s.connect(sock)\n"
                    "    s.sendall((json.dumps(o) + '\\n').encode())\n"
                    "    r = json.loads(s.makefile().readline())\n"
                    "    s.close()\n"
                    "    return r\n"
                    "ok, errs = [], []\n"
                    "for i in range(n):\n"
                    "    o = {'v': 1, 'cmd': 'record', 'path': path, 'session': '%s%d' % (mode, i)}\n"
                    "    if mode == 'arm':\n"
                    "        o['arm'] = True\n"
                    "    r = req(o)\n"
                    "    (errs if r.get('type') == 'error' else ok).append(r.get('error', o['session']))\n"
                    "print(json.dumps({'ok': ok, 'errors': errs}), flush=True)\n"
                    "sys.stdin.readline()  # never Enter\n")
        os.chmod(hog, 0o644)
        with temp_user() as pw:
            d = self.c.caretd("--group", pw.pw_name, "--arm-timeout", "4")
            home = os.path.join(self.c.tmp, "home")
            os.mkdir(home, 0o755)
            os.chown(home, pw.pw_uid, pw.pw_gid)
            armer = subprocess.Popen(
                ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                 "--clear-groups", "/usr/bin/python3", hog, self.c.sock, home, "40", "arm"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                got = json.loads(armer.stdout.readline())
                self.assertEqual(got["ok"], ["arm0", "arm1"], got)
                self.assertEqual(len(got["errors"]), 38)
                self.assertIn("armed recordings waiting for Enter", got["errors"][0])
                r = as_user(pw, ["/usr/bin/python3", hog, self.c.sock, home, "10", "imm"],
                            input="\n")
                imm = json.loads(r.stdout.splitlines()[0])
                self.assertEqual(len(imm["ok"]), 6, imm)  # 8 in all
                self.assertIn("the most a user may have", imm["errors"][0])
                # root still arms, starts and stops; its immediate one is
                # remembered: stop without -s finds it
                traces = os.path.join(self.c.tmp, "root")
                r = self.c.caretctl("record", "-p", traces, "-s", "rootarm", "--duration",
                                    "0.2", "--timeout", "10")
                self.assertIn("stopped session rootarm", r.stdout)
                self.c.caretctl("record", "--immediate", "-p", traces, "-s", "rootimm",
                                background=True)
                deadline = time.time() + 20
                while "rootimm" not in self.c.caretctl("status").stdout:
                    self.assertLess(time.time(), deadline)
                    time.sleep(0.1)
                self.assertIn("stopped session rootimm", self.c.caretctl("stop").stdout)
                for i in range(6):
                    as_user(pw, [CARETCTL, "--socket", self.c.sock, "stop", "-s",
                                 "imm%d" % i], check=True)
                # nobody presses Enter: gone after --arm-timeout (4 s)
                deadline = time.time() + 15
                while True:
                    ls = subprocess.run(["lttng", "list"], capture_output=True,
                                        text=True).stdout
                    if "arm0" not in ls and "arm1" not in ls:
                        break
                    self.assertLess(time.time(), deadline, ls)
                    time.sleep(0.2)
                self.assertIn("not started within 4 s", d.err_text())
                late = as_user(pw, ["/usr/bin/python3", "-c",
                                    "import json, socket, sys\n"
                                    "s = socket.socket(socket.AF_UNIX)\n"
                                    "s.connect(sys.argv[1])\n"
                                    "s.sendall(b'{\"v\":1,\"cmd\":\"record\",\"go\":\"arm0\"}\\n')\n"
                                    "print(s.makefile().readline())", self.c.sock])
                self.assertIn("expired", late.stdout, late.stderr)
                self.assertIn("--arm-timeout", late.stdout)
            finally:
                armer.stdin.close()
                armer.wait(10)
                armer.stdout.close()
        d.send_signal(15)
        d.finish(10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
