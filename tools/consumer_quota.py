# SPDX-License-Identifier: Apache-2.0
"""A slow LTTng consumer for the pacing test and `make bench`: the session
daemon's consumer daemons moved into a CPU cgroup with a quota, so they
drain a fraction of what they could. A trace on a slow device is the
other slow consumer the pacing must survive; this kernel has no
device-mapper (no dm-delay) and cgroup v1's blkio throttle does not slow
buffered writes, so a CPU quota is the slow consumer available here.

    with ConsumerQuota(percent=2):
        ...  # the consumer daemons get 2 % of one CPU

Works with cgroup v1 (cpu controller) and v2 (cpu.max); raises
QuotaUnavailable when neither can be used."""
import os
import time

V1 = "/sys/fs/cgroup/cpu"
V2 = "/sys/fs/cgroup"
PERIOD_US = 100000


class QuotaUnavailable(Exception):
    pass


def _mnt(pid):
    try:
        return os.readlink("/proc/%s/ns/mnt" % pid)
    except OSError:
        return None


def sessiond_pid(rundir="/run/lttng"):
    """The session daemon whose consumers get the quota: only one of this
    private mount namespace (tools/isolated.sh), never the machine's own."""
    with open(os.path.join(rundir, "lttng-sessiond.pid")) as f:
        # lttng-sessiond 2.13 rewrites this file without truncating it
        pid = int(f.readline())
    try:
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().strip()
    except OSError:
        comm = None
    if comm != "lttng-sessiond" or _mnt(pid) != _mnt("self") or _mnt("self") == _mnt(1):
        raise QuotaUnavailable("pid %d (%s) is not a session daemon of this private mount "
                               "namespace: no quota on the machine's own consumers" % (pid, comm))
    return pid


def consumer_pids(sessiond):
    """The session daemon's lttng-consumerd children."""
    out = []
    for tid in os.listdir("/proc/%d/task" % sessiond):
        try:
            with open("/proc/%d/task/%s/children" % (sessiond, tid)) as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            continue
        for k in kids:
            try:
                with open("/proc/%d/comm" % k) as f:
                    if f.read().strip() == "lttng-consumerd":
                        out.append(k)
            except OSError:
                pass
    return out


def _cgroup_of(pid, v1):
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            if (v1 and "cpu" in ctrls.split(",")) or (not v1 and ctrls == ""):
                return path
    raise QuotaUnavailable("pid %d has no %s cpu cgroup" % (pid, "v1" if v1 else "v2"))


class ConsumerQuota:
    def __init__(self, percent, rundir="/run/lttng"):
        self.percent = percent
        self.rundir = rundir
        self.moved = []  # (pid, original cgroup directory)
        self.dir = None

    def __enter__(self):
        pids = consumer_pids(sessiond_pid(self.rundir))
        if not pids:
            raise QuotaUnavailable("no lttng-consumerd child of the session daemon "
                                   "(the consumers start with the first session)")
        quota = int(PERIOD_US * self.percent / 100)
        name = "caret-consumer-quota-%d" % os.getpid()
        if os.path.isfile(os.path.join(V1, "cpu.cfs_quota_us")):
            self.v1, root = True, V1
        elif os.path.isfile(os.path.join(V2, "cgroup.controllers")):
            with open(os.path.join(V2, "cgroup.controllers")) as f:
                if "cpu" not in f.read().split():
                    raise QuotaUnavailable("cgroup v2 without the cpu controller")
            self.v1, root = False, V2
        else:
            raise QuotaUnavailable("no cpu cgroup controller mounted")
        self.dir = os.path.join(root, name)
        os.mkdir(self.dir)
        try:
            if self.v1:
                with open(os.path.join(self.dir, "cpu.cfs_period_us"), "w") as f:
                    f.write(str(PERIOD_US))
                with open(os.path.join(self.dir, "cpu.cfs_quota_us"), "w") as f:
                    f.write(str(quota))
            else:
                with open(os.path.join(self.dir, "cpu.max"), "w") as f:
                    f.write("%d %d" % (quota, PERIOD_US))
            for p in pids:
                orig = os.path.join(root, _cgroup_of(p, self.v1).lstrip("/"))
                with open(os.path.join(self.dir, "cgroup.procs"), "w") as f:
                    f.write(str(p))
                self.moved.append((p, orig))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for p, orig in self.moved:
            try:
                with open(os.path.join(orig, "cgroup.procs"), "w") as f:
                    f.write(str(p))
            except OSError:
                pass  # the consumer died meanwhile
        self.moved = []
        if self.dir:
            for _ in range(50):
                try:
                    os.rmdir(self.dir)
                    break
                except OSError:
                    time.sleep(0.05)
            self.dir = None
        return False
