# SPDX-License-Identifier: Apache-2.0
"""`make check` leaves the machine's tracer alone (issue 20). This test
plays the machine: a mount and network namespace of its own with a "host"
lttng-sessiond recording a session, a marker in the host's /dev/shm and the
host's loopback counters. In it, the suite's pieces run as `make check`
runs them (the unit tests that need a session daemon, tests/local, an
integration test that SIGKILLs its session daemon, run by hand without
run.sh); afterwards the host's daemon is the same live process with the
same session, active, and /run/lttng, /dev/shm and the loopback saw
nothing. The other stages' recipes are read from `make -n`."""
import os
import re
import subprocess
import unittest

from harness import B, ROOT, SAN

HOST_SETUP = r"""
set -e
ip link set lo up
mount -t tmpfs -o mode=0755 tmpfs /run/lttng
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mkdir -p -m 0700 /tmp/host-lttng-home
export LTTNG_HOME=/tmp/host-lttng-home
lttng-sessiond --daemonize --no-kernel --quiet
i=0
while ! lttng list >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -lt 100 ] || { echo "no sessiond" >&2; exit 1; }
    sleep 0.1
done
lttng create hostsess --output=/tmp/host-trace >/dev/null
lttng enable-event --userspace --session=hostsess 'host_app:*' >/dev/null
lttng start hostsess >/dev/null
echo "host data" > /dev/shm/host-marker
echo ready
exec sleep 100000
"""

# What the pieces must not inherit: they have to find their own isolation.
STRIP = ("CARET_ISOLATED_MNTNS", "CARET_ISOLATED_NETNS", "CARET_ISOLATED_SESSIOND",
         "LTTNG_HOME", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")


class Host:
    def __init__(self):
        self.holder = subprocess.Popen(
            ["unshare", "--mount", "--net", "--propagation", "private", "sh", "-c", HOST_SETUP],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.holder.stdout.readline()
        if line.strip() != "ready":
            self.holder.kill()
            raise AssertionError("host did not come up: %r %s" %
                                 (line, self.holder.stderr.read()))

    def env(self):
        env = {k: v for k, v in os.environ.items() if k not in STRIP}
        env["LTTNG_HOME"] = "/tmp/host-lttng-home"
        env["B"] = os.path.basename(B)
        env["SAN"] = "1" if SAN else ""
        return env

    def run(self, argv, timeout=300, check=True):
        # entering a mount namespace moves to its /: --wd comes back
        r = subprocess.run(["nsenter", "-t", str(self.holder.pid), "-m", "-n", "--wd=" + ROOT,
                            "--"] + argv,
                           env=self.env(), cwd=ROOT, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError("%s failed (%d): %s%s" % (" ".join(argv), r.returncode,
                                                            r.stdout[-3000:], r.stderr[-3000:]))
        return r

    def state(self):
        """Everything of the host a test could have touched."""
        sh = ("pid=$(head -n 1 /run/lttng/lttng-sessiond.pid); echo pid=$pid; "
              "echo comm=$(cat /proc/$pid/comm); lttng list; lttng list hostsess; "
              "echo run:; ls -A /run/lttng; echo shm:; ls -A /dev/shm; cat /dev/shm/host-marker; "
              "echo lo:; grep -E '^ *lo:' /proc/net/dev")
        return self.run(["sh", "-c", sh]).stdout

    def close(self):
        if self.holder.poll() is None:
            # the host's daemon is ours: stopped by its PID, then the holder
            r = self.run(["head", "-n", "1", "/run/lttng/lttng-sessiond.pid"], check=False)
            if r.stdout.strip().isdigit():
                # only if that pid is still an lttng-sessiond of this
                # namespace (a stale file's pid may be anyone's by now)
                self.run(["sh", "-c", "p=%s; [ \"$(cat /proc/$p/comm)\" = lttng-sessiond ] && "
                          "[ \"$(readlink /proc/$p/ns/mnt)\" = \"$(readlink /proc/self/ns/mnt)\" ] "
                          "|| exit 0; kill $p; i=0; while kill -0 $p 2>/dev/null && "
                          "[ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done" % r.stdout.strip()],
                         check=False)
            self.holder.kill()
        self.holder.wait()
        self.holder.stdout.close()
        self.holder.stderr.close()


class HostUntouchedTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.host = Host()
        self.addCleanup(self.host.close)
        self.before = self.host.state()
        self.assertRegex(self.before, r"comm=lttng-sessiond\n")
        self.assertRegex(self.before, r"hostsess .*\[active\]")

    def assertHostUntouched(self, what):
        self.assertEqual(self.host.state(), self.before, "%s touched the host" % what)

    def test_suite_pieces_leave_the_host_alone(self):
        mk = ["make", "-s", "--no-print-directory", "B=" + os.path.basename(B)]
        if SAN:
            mk.append("SAN=1")
        # the unit test that needs a session daemon, as unit-check runs it
        # (and tests/local after it)
        # (named as the Makefile's rule names it, relative: an absolute
        # path has no rule, and is only found when unit-check built it)
        self.host.run(mk + ["unit-check",
                            "UNIT_TESTS=%s/tests/check_lttng" % os.path.basename(B)])
        self.assertHostUntouched("unit-check")
        # a test that SIGKILLs its session daemon, run by hand
        r = self.host.run(["/usr/bin/python3", "tests/integration/test_sessions.py",
                           "SessionsTest.test_sessiond_killed_mid_recording"])
        self.assertRegex(r.stderr, r"\nOK\n")
        self.assertHostUntouched("test_sessiond_killed_mid_recording")

    def test_the_check_stays_sensitive(self):
        """The comparison sees a session a piece would have left, and a
        packet on the host's loopback."""
        self.host.run(["lttng", "create", "leaked", "--output=/tmp/leaked"])
        self.assertNotEqual(self.host.state(), self.before)
        self.host.run(["lttng", "destroy", "leaked"])
        self.assertEqual(self.host.state(), self.before)
        self.host.run(["/usr/bin/python3", "-c",
                       "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                       "s.sendto(b'x', ('127.0.0.1', 9))"])
        self.assertNotEqual(self.host.state(), self.before)

    def test_every_stage_recipe_is_isolated(self):
        """Every command of make check's stages that reaches LTTng or DDS
        goes through tools/isolated.sh (make -n: the recipes, not run)."""
        r = subprocess.run(["make", "-n", "--no-print-directory", "B=" + os.path.basename(B),
                            "unit-check", "local-check", "fuzz-smoke", "bench-smoke",
                            "integration-check"],
                           cwd=ROOT, env={k: v for k, v in os.environ.items() if k not in STRIP},
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        text = r.stdout.replace("\\\n", " ")
        runs = [l for l in text.splitlines()
                if re.search(r"check_lttng|check_prebuilt|tests/local/run\.sh|fuzz-\w+-driver tests|"
                             r"bench/run\.py|tests/integration/run\.sh", l)
                and not re.match(r"\s*(cc|c\+\+|g\+\+|clang|mkdir)\b", l)]
        self.assertTrue(runs, r.stdout)
        for l in runs:
            if "tests/integration/run.sh" in l:
                continue  # isolates each module: checked below
            self.assertIn("tools/isolated.sh", l)
        with open(os.path.join(ROOT, "tests", "integration", "run.sh")) as f:
            run_sh = f.read()
        # every module it starts, two at a time or alone, through the one start()
        self.assertRegex(run_sh, r'exec timeout \d+ \.\./\.\./tools/isolated\.sh "\$PY" "\$m"')
        self.assertEqual(len(re.findall(r'"\$PY"', run_sh)), 1, "a module started outside start()")
        self.assertNotIn("ensure-sessiond", text)

    def test_refusals(self):
        """Without root tools/isolated.sh refuses and says why; a harness
        told it is isolated when it is not refuses too."""
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            os.path.join(ROOT, "tools", "isolated.sh"), "true"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("need root", r.stderr)
        env = dict(os.environ, CARET_ISOLATED_MNTNS="mnt:[1]")
        r = subprocess.run(["/usr/bin/python3", "test_sessions.py", "-l"], env=env,
                           cwd=os.path.dirname(os.path.abspath(__file__)),
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("refusing to run", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
