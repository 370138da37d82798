# SPDX-License-Identifier: Apache-2.0
"""`make install` / `make uninstall`: PREFIX and DESTDIR honoured, the unit's
paths follow PREFIX every time, it passes `systemd-analyze verify` and
scores 2.5 or less in `systemd-analyze security`, no stand-in is
installed, and uninstall leaves nothing behind."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import ROOT, SAN

MAKE = ["make", "-s", "-C", ROOT] + (["SAN=1"] if SAN else [])


def files_under(d):
    out = set()
    for dp, _, fs in os.walk(d):
        out.update(os.path.relpath(os.path.join(dp, f), d) for f in fs)
    return out


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="caret-install-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def make(self, *args):
        r = subprocess.run(MAKE + list(args), capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r

    def install(self, prefix):
        dest = os.path.join(self.tmp, "root" + prefix.replace("/", "_"))
        self.make("install", "DESTDIR=" + dest, "PREFIX=" + prefix)
        return dest

    def test_prefix_followed_and_uninstall_removes_everything(self):
        # Two prefixes in a row: the second unit must not be the first's.
        self.install("/usr/local")
        dest = self.install("/usr")
        unit = os.path.join(dest, "usr/lib/systemd/system/caretd.service")
        with open(unit) as f:
            svc = f.read()
        self.assertIn("ExecStart=/usr/bin/caretd ", svc)
        self.assertNotIn("/usr/local", svc)
        self.assertNotIn("@BINDIR@", svc)
        got = files_under(dest)
        for want in ("usr/bin/caretd", "usr/bin/caretctl", "usr/bin/caret-agentctl",
                     "usr/lib/libcaret-agent.so", "usr/lib/libcaret-agent-tp.so",
                     "usr/lib/caretd/caret-simclock",  # caretd's, beside its bin/
                     "usr/lib/systemd/system/caretd.socket",
                     "usr/lib/sysusers.d/caretd.conf",
                     "usr/share/man/man1/caretctl.1", "usr/share/man/man1/caret-agentctl.1",
                     "usr/share/man/man7/caret-agent.7", "usr/share/man/man8/caretd.8",
                     "usr/share/bash-completion/completions/caretctl",
                     "usr/share/doc/caretd/LICENSE"):
            self.assertIn(want, got)
        # The stand-ins are test fixtures: only install-standin puts them.
        self.assertFalse([f for f in got if "standin" in f or "libtracetools" in f or
                          "librclcpp" in f], got)
        self.make("install-standin", "DESTDIR=" + dest, "PREFIX=/usr")
        self.assertIn("usr/bin/caret-standin", files_under(dest))
        self.make("uninstall", "DESTDIR=" + dest, "PREFIX=/usr")
        self.assertEqual(files_under(dest), set())

    def test_uninstall_removes_the_directories_install_made_and_only_those(self):
        # issue 22 D13: 9 empty directories were left behind
        dest = os.path.join(self.tmp, "root")
        # found there before: a directory with someone else's file, and
        # an empty one; both stay
        os.makedirs(os.path.join(dest, "usr/share/man/man1"))
        with open(os.path.join(dest, "usr/share/man/man1/other.1"), "w"):
            pass
        os.makedirs(os.path.join(dest, "usr/lib/sysusers.d"))
        self.make("install", "DESTDIR=" + dest, "PREFIX=/usr")
        # installed twice: the second install finds them all, the record
        # of what the first made is kept
        self.make("install", "DESTDIR=" + dest, "PREFIX=/usr")
        # one made by install, holding something else by now: it stays
        with open(os.path.join(dest, "usr/bin/mine"), "w"):
            pass
        self.make("uninstall", "DESTDIR=" + dest, "PREFIX=/usr")
        left = set()
        for dp, ds, _ in os.walk(dest):
            left.update(os.path.relpath(os.path.join(dp, d), dest) for d in ds)
        self.assertEqual(left, {"usr", "usr/share", "usr/share/man", "usr/share/man/man1",
                                "usr/lib", "usr/lib/sysusers.d", "usr/bin"})
        self.assertEqual(files_under(dest), {"usr/share/man/man1/other.1", "usr/bin/mine"})

    def test_bash_completion(self):
        dest = self.install("/usr")
        comp = os.path.join(dest, "usr/share/bash-completion/completions/caretctl")
        script = ('source %s; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _caretctl; '
                  'echo "${COMPREPLY[*]}"; }; t caretctl ""; t caretctl record --; '
                  't caretctl record --pacing ""; t caretctl help s' % comp)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        top, rec, pacing, helps = r.stdout.splitlines()
        self.assertEqual(set(top.split()), {"record", "stop", "pause", "resume", "snapshot",
                                            "status", "list", "start", "end", "events", "nodes",
                                            "topics", "top", "check", "node-summary",
                                            "topic-summary", "trace-point-summary", "help",
                                            "--socket", "--json", "--help", "--version"})
        self.assertEqual(pacing.split(), ["adaptive", "frequency"])
        self.assertEqual(sorted(helps.split()), ["snapshot", "start", "status", "stop"])
        # every long option of `record --help` completes
        usage = subprocess.run([os.path.join(dest, "usr/bin/caretctl"), "record", "--help"],
                               capture_output=True, text=True).stdout
        # the options record --help lists (the first word of an option line)
        opts = set(re.findall(r"(?m)^\s+(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", usage))
        self.assertIn("--subbuffer-count", opts)
        for opt in opts:
            self.assertIn(opt, rec.split(), opt)

    def test_bash_completion_of_every_command(self):
        # issue 22 D14: every option each command's --help lists, and
        # directories (as file names) for check
        dest = self.install("/usr")
        comp = os.path.join(dest, "usr/share/bash-completion/completions/caretctl")
        ctl = os.path.join(dest, "usr/bin/caretctl")
        work = os.path.join(self.tmp, "work")
        os.makedirs(os.path.join(work, "caret-1"))
        os.makedirs(os.path.join(work, "caret-2"))
        with open(os.path.join(work, "caret-file"), "w"):
            pass
        fn = ('source %s; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _caretctl; '
              'echo "${COMPREPLY[*]}"; }; ' % comp)
        for cmd in ("record", "stop", "snapshot", "status", "list", "start", "end", "events",
                    "nodes", "topics", "check"):
            usage = subprocess.run([ctl, cmd, "--help"], capture_output=True,
                                   text=True).stdout
            # the usage lines' options, and the first of each option line
            opts = set(re.findall(r"(?m)^\s+(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", usage))
            for line in usage.splitlines():
                if re.match(r"\s*(Usage: )?caretctl ", line):
                    opts.update(re.findall(r"(?<![\w-])--[a-z][a-z-]*", line))
            self.assertIn("--json", opts, cmd)
            r = subprocess.run(["bash", "-c", fn + "t caretctl %s --" % cmd],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(opts - set(r.stdout.split()), set(), cmd)
        r = subprocess.run(["bash", "-c", fn + "t caretctl check car; t caretctl check ''"],
                           capture_output=True, text=True, timeout=30, cwd=work)
        pre, empty = r.stdout.splitlines()
        self.assertEqual(sorted(pre.split()), ["caret-1", "caret-2"])
        self.assertEqual(sorted(empty.split()), ["caret-1", "caret-2"])

    def test_man_pages_render_without_warnings(self):
        # issue 22 D14: caret-agent(7) gave "cannot adjust line"
        mandir = os.path.join(ROOT, "man")
        pages = sorted(os.listdir(mandir))
        self.assertIn("caret-agent.7", pages)
        for page in pages:
            for width in ("80", "60", "120"):
                r = subprocess.run(["man", "--warnings", "-l", os.path.join(mandir, page)],
                                   capture_output=True, text=True, timeout=60,
                                   env=dict(os.environ, MANWIDTH=width))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr, "", "%s at %s columns" % (page, width))

    def test_unit_verifies_and_is_hardened(self):
        dest = self.install("/usr")
        unitdir = os.path.join(dest, "usr/lib/systemd/system")
        svc, sock = (os.path.join(unitdir, u) for u in ("caretd.service", "caretd.socket"))
        # verify checks that ExecStart= exists: overlay the installed
        # /usr/bin on the host's, in a private mount namespace.
        script = ("mount --make-rprivate / && mount -t overlay overlay -o "
                  "lowerdir=%s:/usr/bin /usr/bin && exec systemd-analyze verify "
                  "--man=no %s %s" % (os.path.join(dest, "usr/bin"), svc, sock))
        r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = subprocess.run(["systemd-analyze", "security", "--offline=true", svc],
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"Overall exposure level for caretd.service: (\d+\.\d+)", r.stdout)
        self.assertTrue(m, r.stdout + r.stderr)
        self.assertLessEqual(float(m.group(1)), 2.5, r.stdout)
        with open(svc) as f:
            text = f.read()
        self.assertRegex(text, r"(?m)^RestrictAddressFamilies=AF_UNIX$")
        self.assertRegex(text, r"(?m)^PrivateNetwork=yes$")
        # Shared memory must stay the host's.
        for bad in ("RemoveIPC=yes", "PrivateIPC=yes", "DynamicUser=yes"):
            self.assertNotIn(bad, text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
