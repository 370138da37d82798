# SPDX-License-Identifier: Apache-2.0
"""Several "hosts" on one machine for the multi-host tests (DESIGN.md §6):
each host is a network namespace (ip netns) joined to the others by a veth
pair, plus a private mount and UTS namespace with its own tmpfs on
/run/lttng, /dev/shm and /tmp, its own hostname and its own
lttng-sessiond. A host is held by one `sleep` process; every command runs
in its namespaces through nsenter, as a child of the test, so the test
knows (and kills) exactly the processes it started. Everything is removed
by Net.close(), also after a failure."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest
import uuid

from harness import (AGENT, B, CARETCTL, CARETD, ROOT, STANDIN, Proc, _ns, asan_preload,
                     stop_proc, wait_line)

# A plain CycloneDDS peer speaking CARET's topics (tests/integration/ddspeer.c).
PEER = os.path.join(B, "tests", "caret-ddspeer")

# Outside every host's private /tmp, so the test can read traces.
SHARED = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                      os.environ.get("B", "build"), "multihost"))

# The tree the hosts run binaries and write traces from: the checkout, or
# the build directory when it lies elsewhere.
KEEP = ROOT if os.path.commonpath([ROOT, os.path.abspath(B)]) == ROOT else os.path.abspath(B)

HOST_SETUP = r"""
set -e
export LTTNG_HOME=/tmp/lttng-home
mkdir -p /run/lttng
mount -t tmpfs -o mode=0755 tmpfs /run/lttng
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# A checkout under /tmp (CI may clone there) stays visible on the private
# /tmp: the shell's working directory still reaches the hidden original,
# and is bound back at the same path.
keep=
case "$2" in /tmp/*) keep=$2; cd "$keep" ;; esac
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    mount --no-canonicalize --bind . "$keep"
    cd /
fi
mkdir -m 0700 /tmp/lttng-home
hostname "$1"
ip link set lo up
lttng-sessiond --daemonize --no-kernel --quiet
i=0
while ! lttng list >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -lt 100 ] || { echo "no sessiond" >&2; exit 1; }
    sleep 0.1
done
echo ready
exec sleep 100000
"""


def run(argv, check=True, timeout=30):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError("%s failed (%d): %s%s" % (" ".join(argv), r.returncode, r.stdout,
                                                        r.stderr))
    return r



def _comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None

class Host:
    def __init__(self, net, name, ns, ifname, addr):
        self.net, self.name, self.ns, self.ifname, self.addr = net, name, ns, ifname, addr
        self.dir = os.path.join(net.dir, name)
        os.makedirs(self.dir)
        self.sock = os.path.join(self.dir, "caretd.sock")
        self.procs = []
        self.holder = subprocess.Popen(
            ["ip", "netns", "exec", ns, "unshare", "--mount", "--uts", "--propagation",
             "private", "sh", "-c", HOST_SETUP, "host-setup", name, KEEP],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.holder.stdout.readline()
        if line.strip() != "ready":
            raise AssertionError("host %s did not come up: %s %s" %
                                 (name, line, self.holder.stderr.read()))
        self.pid = self.holder.pid

    def argv(self, args):
        return ["nsenter", "-t", str(self.pid), "-m", "-u", "-n", "--"] + list(args)

    def env(self, agent=False, extra=None):
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
        env["ROS_DISTRO"] = env.get("ROS_DISTRO", "jazzy")
        env["ROS_DOMAIN_ID"] = self.net.domain
        # the host's own (~/.lttngrc, per-user daemons), on its private /tmp
        env["LTTNG_HOME"] = "/tmp/lttng-home"
        # CycloneDDS on this host's veth only (multicast discovery works there)
        env["CYCLONEDDS_URI"] = ("<CycloneDDS><Domain id=\"any\"><General><Interfaces>"
                                 "<NetworkInterface name=\"%s\"/></Interfaces></General>"
                                 "</Domain></CycloneDDS>" % self.ifname)
        env.pop("LD_PRELOAD", None)
        if agent:
            env["LD_PRELOAD"] = asan_preload() + AGENT
            # ROS processes keep their own DDS traffic on the host
            env.pop("CYCLONEDDS_URI")
        if extra:
            env.update(extra)
        return env

    def spawn(self, args, agent=False, extra=None):
        p = Proc(self.argv(args), self.env(agent, extra))
        self.procs.append(p)
        return p

    def run(self, args, check=True, timeout=60, extra=None):
        r = subprocess.run(self.argv(args), env=self.env(False, extra), capture_output=True,
                           text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError("[%s] %s failed (%d): %s%s" % (
                self.name, " ".join(args), r.returncode, r.stdout, r.stderr))
        return r

    # -- what the multi-host tests run on a host -----------------------------

    def caretd(self, *args, prefix=(), extra=None):
        """This host's caretd (its socket in the host's directory), once it
        listens."""
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        d = self.spawn(list(prefix) + [CARETD, "--socket", self.sock, "--log-level", "debug"] +
                       list(args), extra=extra)
        deadline = time.time() + 10
        while not os.path.exists(self.sock):
            if d.poll() is not None or time.time() > deadline:
                raise AssertionError("caretd on %s did not start: %s" % (self.name, d.err_text()))
            time.sleep(0.02)
        return d

    def relayd(self, out):
        """An lttng-relayd writing under out."""
        p = self.spawn(["lttng-relayd", "-o", out])
        time.sleep(0.3)
        if p.poll() is not None:
            raise AssertionError("lttng-relayd: " + p.err_text())
        return p

    def standin(self, name, *args):
        """A stand-in process with the agent, on DDS domain 7, once ready."""
        p = self.spawn([STANDIN, "--name", name, "--domain", "7"] + list(args), agent=True)
        wait_line(p, r"^ready pid=%d" % p.pid)
        return p

    def ctl(self, *args, check=True, timeout=90):
        return self.run([CARETCTL, "--socket", self.sock] + list(args), check=check,
                        timeout=timeout)

    def hosts(self):
        """`status --all-hosts --json` (4: some host did not answer)."""
        r = self.ctl("status", "--all-hosts", "--timeout", "0.3", "--json", check=False)
        if r.returncode not in (0, 4):
            raise AssertionError("[%s] status --all-hosts failed (%d): %s%s" %
                                 (self.name, r.returncode, r.stdout, r.stderr))
        return json.loads(r.stdout)

    def wait_sees(self, other, timeout=30):
        """Until this host's caretd heard host `other` within 2 s, and its
        bridge has settled (one woken by this query holds its broadcasts
        for 2 s, caretd(8) MULTI-HOST: a test's "sent to every host"
        would read "held")."""
        deadline = time.time() + timeout
        while True:
            r = self.hosts()
            if (any(x["host"] == other and x["age_ms"] < 2000 for x in r["hosts"]) and
                    not r.get("bridge_waking")):
                return r
            if time.time() > deadline:
                raise AssertionError("%s never heard of %s: %r" % (self.name, other, r))
            time.sleep(0.2)

    def close(self):
        for p in reversed(self.procs):
            stop_proc(p, 10)
        if self.holder.poll() is None:
            # the sessiond we started (it daemonized: its pid is in its file)
            r = subprocess.run(self.argv(["cat", "/run/lttng/lttng-sessiond.pid"]),
                               capture_output=True, text=True, timeout=10)
            # first line only: the file is rewritten without truncation
            first = r.stdout.split("\n", 1)[0].strip()
            pid = int(first) if r.returncode == 0 and first.isdigit() else 0
            # only an lttng-sessiond in this host's own mount namespace: a stale or
            # rewritten file must never make the test signal another process
            if pid and (_comm(pid) != "lttng-sessiond" or
                        _ns("mnt", pid) != _ns("mnt", self.holder.pid)):
                pid = 0
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                    for _ in range(50):
                        os.kill(pid, 0)
                        time.sleep(0.1)
                except ProcessLookupError:
                    pass
            self.holder.kill()
        self.holder.wait()
        self.holder.stdout.close()
        self.holder.stderr.close()


class Net:
    """n hosts named h0, h1, ... on 10.213.<k>.0/24 (two hosts: one veth pair)."""

    def __init__(self, n=2):
        assert n == 2, "one veth pair joins two hosts"
        self.tag = uuid.uuid4().hex[:6]
        # below 100: ports under the ephemeral range (see harness.py)
        self.domain = str(10 + int(self.tag, 16) % 90)
        self.dir = os.path.join(SHARED, self.tag)
        os.makedirs(self.dir)
        self.hosts, self.netns, self.links = [], [], []
        k = int(self.tag, 16) % 200 + 20
        try:
            ifs = ["cv%s%d" % (self.tag, i) for i in range(n)]
            for i in range(n):
                ns = "caret-%s-h%d" % (self.tag, i)
                run(["ip", "netns", "add", ns])
                self.netns.append(ns)
            run(["ip", "link", "add", ifs[0], "type", "veth", "peer", "name", ifs[1]])
            self.links.append(ifs[0])
            for i in range(n):
                addr = "10.213.%d.%d" % (k, i + 1)
                run(["ip", "link", "set", ifs[i], "netns", self.netns[i]])
                run(["ip", "-n", self.netns[i], "addr", "add", addr + "/24", "dev", ifs[i]])
                run(["ip", "-n", self.netns[i], "link", "set", ifs[i], "up", "multicast", "on"])
            for i in range(n):
                self.hosts.append(Host(self, "h%d-%s" % (i, self.tag), self.netns[i], ifs[i],
                                       "10.213.%d.%d" % (k, i + 1)))
        except BaseException:
            self.close()
            raise

    def close(self):
        for h in self.hosts:
            try:
                h.close()
            except Exception as e:  # go on tearing down the rest
                print("teardown of %s: %s" % (h.name, e))
        for ns in self.netns:  # deleting a netns removes its veth end and the pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        for l in self.links:
            subprocess.run(["ip", "link", "del", l], capture_output=True, timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


class NetTest(unittest.TestCase):
    """Tests on two hosts a and b (one Net for the class) with an
    lttng-relayd on host a writing to relay_dir: set_up_hosts() starts the
    rest; everything goes with the Net, also when set-up fails."""
    label = "multihost"

    @classmethod
    def setUpClass(cls):
        cls.t_begin = time.time()
        cls.net = Net(2)
        try:
            cls.a, cls.b = cls.net.hosts
            cls.relay_dir = os.path.join(cls.a.dir, "relay")
            cls.relayd = cls.a.relayd(cls.relay_dir)
            cls.set_up_hosts()
        except BaseException:
            cls.net.close()
            raise

    @classmethod
    def set_up_hosts(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        cls.net.close()
        print("%s: %.1f s" % (cls.label, time.time() - cls.t_begin), file=sys.stderr)
