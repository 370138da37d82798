# SPDX-License-Identifier: Apache-2.0
"""The Debian package (debian/, `make deb`): it holds exactly what `make
install` puts with the package's layout (`debian/rules print-layout`) plus
its conffile and Debian's documents; lintian finds no error; apt can
install it with what is on the machine; and its maintainer scripts install,
remove and purge it in a scratch root (dpkg --root, scripts run with
DPKG_ROOT) with no systemd running, with or without systemd-sysusers,
writing nothing outside that root. Installed there, its caretd, caretctl
and agent record a stand-in system; removed, only its configuration
remains; purged, nothing but the group."""
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

from harness import (ROOT, SAN, STANDIN, Ctx, asan_preload, kind_of, read_trace,
                     wait_line)

DEB_OUT = os.path.join(ROOT, os.environ.get("DEB_OUT", "build/deb"))
MAKE = ["make", "-s", "-C", ROOT] + (["SAN=1"] if SAN else [])
CONFFILES = {"etc/default/caretd"}
# What Debian's tools add to `make install`'s files.
DEBIAN_DOCS = {"usr/share/doc/caretd/copyright", "usr/share/doc/caretd/changelog.gz"}
# Runs a command with /etc, /var and /usr of the host behind overlays whose
# upper layers are in $1: whatever the command writes there is caught.
GUARD = r"""set -e
up=$1; shift
mount --make-rprivate /
for d in etc var usr; do
	mkdir -p "$up/upper/$d" "$up/work/$d"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$up/upper/$d,workdir=$up/work/$d" "/$d"
done
exec "$@"
"""


def run(argv, **kw):
    kw.setdefault("timeout", 120)
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def tree(d):
    """Every file, symlink and directory under d, relative to d."""
    out = set()
    for dp, dns, fs in os.walk(d):
        out.update(os.path.relpath(os.path.join(dp, n), d) for n in dns + fs)
    return out


def files(d):
    return {p for p in tree(d) if not os.path.isdir(os.path.join(d, p)) or
            os.path.islink(os.path.join(d, p))}


def deb_version():
    return run(["dpkg-parsechangelog", "-l", os.path.join(ROOT, "debian/changelog"),
                "-S", "Version"], check=True).stdout.strip()


class DebTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A no-op when `make integration-check` built it already.
        r = run(MAKE + ["deb-if-changed", "DEB_OUT=" + DEB_OUT], timeout=900)
        if r.returncode != 0:
            raise AssertionError("make deb-if-changed: " + r.stdout[-4000:] + r.stderr)
        arch = run(["dpkg", "--print-architecture"], check=True).stdout.strip()
        cls.deb = os.path.join(DEB_OUT, "caretd_%s_%s.deb" % (deb_version(), arch))
        assert os.path.isfile(cls.deb), (cls.deb, os.listdir(DEB_OUT))
        cls.contents = run(["dpkg-deb", "-c", cls.deb], check=True).stdout

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="caret-deb-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def packaged(self):
        """path -> mode string, for every non-directory in the package."""
        out = {}
        for line in self.contents.splitlines():
            mode, path = line.split()[0], line.split()[5]
            path = os.path.normpath(path)
            if not mode.startswith("d"):
                out[path] = mode
        return out

    # ---- the package's contents --------------------------------------

    def test_contents_are_make_install(self):
        layout = run(["make", "-s", "--no-print-directory", "-f", "debian/rules", "print-layout"], cwd=ROOT,
                     check=True).stdout.split()
        self.assertIn("PREFIX=/usr", layout)
        dest = os.path.join(self.tmp, "dest")
        r = run(MAKE + ["install", "DESTDIR=" + dest] + layout, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        installed = files(dest)
        self.assertIn("usr/bin/caretd", installed)
        # dh_compress gzips the manual pages and the larger documents.
        want = installed | CONFFILES | DEBIAN_DOCS
        got = {re.sub(r"\.gz$", "", p) if p.startswith(("usr/share/man/", "usr/share/doc/"))
               and p not in DEBIAN_DOCS else p for p in self.packaged()}
        self.assertEqual(got, want)
        # and no directory of its own either (/etc/default holds the conffile)
        dirs = {os.path.normpath(l.split()[5]) for l in self.contents.splitlines()
                if l.startswith("d")} - {"."}
        self.assertEqual(dirs, (tree(dest) - installed) | {"etc", "etc/default"})
        modes = self.packaged()
        for p in ("usr/bin/caretd", "usr/bin/caretctl", "usr/bin/caret-agentctl"):
            self.assertEqual(modes[p], "-rwxr-xr-x", p)
        for line in self.contents.splitlines():
            self.assertEqual(line.split()[1], "root/root", line)
        for p, m in modes.items():
            self.assertNotIn("s", m, p)     # no setuid/setgid file
            self.assertFalse(m[8] == "w", p)  # nothing world-writable
        # The conffile is the one /etc file; everything in it is commented
        # out (the unit's own defaults stand until the admin edits it).
        x = os.path.join(self.tmp, "x")
        run(["dpkg-deb", "-x", self.deb, x], check=True)
        run(["dpkg-deb", "-e", self.deb, os.path.join(x, "DEBIAN")], check=True)
        with open(os.path.join(x, "DEBIAN/conffiles")) as f:
            self.assertEqual({l.strip().lstrip("/") for l in f if l.strip()}, CONFFILES)
        with open(os.path.join(x, "etc/default/caretd")) as f:
            self.assertEqual([l for l in f if l.strip() and not l.startswith("#")], [])
        unitdir = [p for p in layout if p.startswith("SYSTEMD_UNITDIR=")][0].split("=", 1)[1]
        with open(os.path.join(x, unitdir.lstrip("/"), "caretd.service")) as f:
            svc = f.read()
        self.assertRegex(svc, r"(?m)^ExecStart=/usr/bin/caretd ")
        self.assertRegex(svc, r"(?m)^EnvironmentFile=-/etc/default/caretd$")
        # The package's version is the programs'.
        with open(os.path.join(ROOT, "proto/caret_version.h")) as f:
            ver = re.search(r'CARETD_VERSION "([^"]+)"', f.read()).group(1)
        self.assertEqual(re.sub(r"-[^-]*$", "", deb_version()), ver)
        r = run([os.path.join(x, "usr/bin/caretd"), "--version"])
        self.assertEqual(r.stdout.strip(), "caretd " + ver, r.stderr)
        # The units verify against the packaged /usr/bin (overlaid on the
        # host's, in a private mount namespace).
        script = ("mount --make-rprivate / && mount -t overlay overlay -o "
                  "lowerdir=%s:/usr/bin /usr/bin && exec systemd-analyze verify --man=no "
                  "%s/caretd.service %s/caretd.socket" %
                  (os.path.join(x, "usr/bin"), os.path.join(x, unitdir.lstrip("/")),
                   os.path.join(x, unitdir.lstrip("/"))))
        r = run(["unshare", "-m", "sh", "-c", script])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # and `make uninstall` with that layout takes it all back
        r = run(MAKE + ["uninstall", "DESTDIR=" + dest] + layout)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(files(dest), set())

    def test_lintian_no_errors(self):
        r = run(["lintian", "--fail-on", "error", "--no-tag-display-limit", self.deb],
                timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotRegex(r.stdout, r"(?m)^E: ", r.stdout)

    def test_apt_can_install_it_here(self):
        """`apt install ./caretd_*.deb` resolves with the machine's packages
        (simulated: nothing is installed)."""
        r = run(["apt-get", "-s", "-o", "Debug::NoLocking=1", "install",
                 "--no-install-recommends", self.deb])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"(?m)^Inst caretd \(", r.stdout)
        self.assertRegex(r.stdout, r"\b1 newly installed, 0 to remove\b", r.stdout)

    # ---- the maintainer scripts, in a scratch root -------------------

    def scratch_root(self):
        root = os.path.join(self.tmp, "root")
        for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/log", "etc"):
            os.makedirs(os.path.join(root, d))
        open(os.path.join(root, "var/lib/dpkg/status"), "w").close()
        self.skeleton = tree(root)
        return root

    def dpkg(self, root, *args, path=None):
        """dpkg on root, its maintainer scripts run outside it with
        DPKG_ROOT (no chroot: the root has no shell), the host's /etc, /var
        and /usr behind overlays that catch any write."""
        env = dict(os.environ)
        if path:
            env["PATH"] = path
        guard = os.path.join(self.tmp, "guard.sh")
        with open(guard, "w") as f:
            f.write(GUARD)
        r = run(["unshare", "-m", "sh", guard, os.path.join(self.tmp, "host"), "dpkg",
                 "--root=" + root, "--log=" + os.path.join(root, "var/log/dpkg.log"),
                 "--force-script-chrootless", "--force-depends"] + list(args), env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r

    def assert_host_untouched(self):
        upper = os.path.join(self.tmp, "host", "upper")
        self.assertEqual(set(tree(upper)) - {"etc", "var", "usr"}, set())

    def status(self, root):
        return run(["dpkg-query", "--admindir=" + os.path.join(root, "var/lib/dpkg"),
                    "-W", "-f=${Status}", "caretd"]).stdout

    def group_lines(self, root):
        with open(os.path.join(root, "etc/group")) as f:
            return [l for l in f if l.startswith("caretd:")]

    def installed(self, root):
        self.assertEqual(self.status(root), "install ok installed")
        for p in self.packaged():
            self.assertTrue(os.path.lexists(os.path.join(root, p)), p)
        self.assertEqual(len(self.group_lines(root)), 1)
        # enabled (the symlinks systemctl enable makes), not started: no
        # systemd runs here, and nothing failed for it
        unitdir = os.path.dirname([p for p in self.packaged()
                                   if p.endswith("/caretd.service")][0])
        for want, unit in (("multi-user.target.wants", "caretd.service"),
                           ("sockets.target.wants", "caretd.socket")):
            link = os.path.join(root, "etc/systemd/system", want, unit)
            self.assertEqual(os.readlink(link), "/" + os.path.join(unitdir, unit))

    # State of the system, not files of the package: the group, the units'
    # enablement and debhelper's record of it, dpkg's own files.
    STATE = re.compile(r"^(etc/(group|gshadow|passwd|shadow)-?|etc/\.pwd\.lock|"
                       r"etc/systemd(/.*)?|var/lib/systemd(/.*)?|var/lib/dpkg/.*|"
                       r"var/log/dpkg\.log)$")

    def test_install_remove_purge(self):
        root = self.scratch_root()
        r = self.dpkg(root, "-i", self.deb)
        self.assertIn("Creating group 'caretd'", r.stderr)  # systemd-sysusers
        self.installed(root)
        # Again, as an upgrade to the same version: the group is kept.
        self.dpkg(root, "-i", self.deb)
        self.installed(root)

        self.dpkg(root, "-r", "caretd")
        self.assertEqual(self.status(root), "deinstall ok config-files")
        left = tree(root) - self.skeleton
        self.assertIn("etc/default/caretd", left)
        # Nothing but the configuration, and the directories holding it.
        self.assertEqual({p for p in left if not self.STATE.match(p) and
                          not os.path.isdir(os.path.join(root, p))}, CONFFILES)
        self.assertEqual({p for p in left if os.path.isdir(os.path.join(root, p)) and
                          not self.STATE.match(p)}, {"etc/default"})

        self.dpkg(root, "-P", "caretd")
        self.assertEqual(self.status(root), "")
        left = tree(root) - self.skeleton
        # The group stays (files may still belong to it); the units'
        # enablement goes with the package.
        self.assertEqual({p for p in left if not self.STATE.match(p)}, set())
        self.assertFalse(os.path.lexists(os.path.join(root, "etc/systemd/system/"
                                                            "sockets.target.wants/caretd.socket")))
        self.assertEqual(files(os.path.join(root, "var/lib/systemd"))
                         if os.path.isdir(os.path.join(root, "var/lib/systemd")) else set(),
                         set())
        self.assertEqual(len(self.group_lines(root)), 1)
        self.assert_host_untouched()

    def test_group_without_systemd_sysusers(self):
        """No systemd-sysusers on PATH (no systemd installed): postinst makes
        the group with groupadd, once."""
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        for d in ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"):
            for n in os.listdir(d) if os.path.isdir(d) else ():
                if n != "systemd-sysusers" and not os.path.lexists(os.path.join(bindir, n)):
                    os.symlink(os.path.join(d, n), os.path.join(bindir, n))
        root = self.scratch_root()
        r = self.dpkg(root, "-i", self.deb, path=bindir)
        self.assertNotIn("Creating group", r.stderr)  # not systemd-sysusers
        self.installed(root)
        self.dpkg(root, "-i", self.deb, path=bindir)
        self.installed(root)
        self.dpkg(root, "-P", "caretd", path=bindir)
        self.assertEqual(self.status(root), "")
        self.assert_host_untouched()

    # ---- the installed package works ---------------------------------

    def test_installed_package_records(self):
        """The demo with the package's programs: its caretd, its agent in
        two stand-in processes, its caretctl recording them."""
        root = self.scratch_root()
        self.dpkg(root, "-i", self.deb)
        bindir = os.path.join(root, "usr/bin")
        agent = os.path.join(root, "usr/lib/caretd/libcaret-agent.so")
        c = Ctx("deb")
        try:
            sock = os.path.join(c.tmp, "caretd.sock")
            d = c.spawn([os.path.join(bindir, "caretd"), "--socket", sock], agent=False)
            deadline = time.time() + 10
            while not os.path.exists(sock):
                self.assertIsNone(d.poll(), d.err_text())
                self.assertLess(time.time(), deadline, "caretd did not start")
                time.sleep(0.02)
            env = {"LD_PRELOAD": asan_preload() + agent}
            procs = [c.spawn([STANDIN, "--domain", c.domain, "--name", "sub0", "--pubs", "0",
                              "--subs", "2"], agent=False, extra_env=env),
                     c.spawn([STANDIN, "--domain", c.domain, "--name", "pub1", "--pubs", "2",
                              "--rate", "40"], agent=False, extra_env=env)]
            for p in procs:
                wait_line(p, r"^ready pid=%d" % p.pid)
            traces = os.path.join(c.tmp, "traces")
            r = run([os.path.join(bindir, "caretctl"), "--socket", sock, "record",
                     "--immediate", "-p", traces, "-s", "deb", "--duration", "2",
                     "--timeout", "30"], env=c.env(agent=False), stdin=subprocess.DEVNULL)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr + d.err_text())
            events = read_trace(os.path.join(traces, "deb"))
            for p in procs:
                mine = [e for e in events if e.vpid == p.pid]
                kinds = {kind_of(e) for e in mine}
                self.assertIn("caret_init", kinds, p.pid)
                self.assertIn("rcl_node_init", kinds, p.pid)
                self.assertTrue(any(e.name.startswith("ros2:") for e in mine), p.pid)
        finally:
            c.cleanup()
        self.dpkg(root, "-P", "caretd")
        self.assertEqual({p for p in tree(root) - self.skeleton
                          if not self.STATE.match(p)}, set())
        self.assert_host_untouched()


if __name__ == "__main__":
    unittest.main(verbosity=2)
