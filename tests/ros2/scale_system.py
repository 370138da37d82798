# SPDX-License-Identifier: Apache-2.0
"""The generated system of a given size (apps/caret_scale_app.cpp), shared by
test_scale.py and bench/ros2_scale.py: PROCS processes of NODES nodes, their
readiness, their memory and CPU, and caret_analyze's view of a trace of it
(caret_scale_oracle.py)."""
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import ros_env, wait_line  # noqa: E402

ORACLE = os.path.join(HERE, "caret_scale_oracle.py")
SHIM = os.path.join(HERE, "shim")

# CycloneDDS gives each participant on a host a port index up to MaxAutoParticipantIndex
# (9 by default): past 10 processes per host the next one fails to create its participant.
CYCLONE_URI = ("<CycloneDDS><Domain id=\"any\"><Discovery><ParticipantIndex>auto"
               "</ParticipantIndex><MaxAutoParticipantIndex>%d</MaxAutoParticipantIndex>"
               "</Discovery></Domain></CycloneDDS>")


def proc_stat(pid):
    """(CPU seconds used so far, VmRSS KiB) of pid, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/%d/status" % pid) as f:
            rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
    except (OSError, AttributeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), rss


class ScaleSystem:
    """PROCS x NODES of caret_scale_app, spawned through ctx (the harness's
    Ctx): with the agent (tracer="agent"), CARET's libcaret.so
    (tracer=LIBCARET's path), or nothing (tracer=None)."""

    def __init__(self, ctx, app, prefix, distro, rmw, domain, procs, nodes, rate, tracer="agent"):
        self.procs_n, self.nodes_n = procs, nodes
        env = dict(ros_env(prefix))
        env.update(RMW_IMPLEMENTATION=rmw, ROS_DOMAIN_ID=str(domain), ROS_DISTRO=distro,
                   CYCLONEDDS_URI=CYCLONE_URI % (procs + 20))
        self.ros_env = dict(env)  # what a ROS 2 tool beside the system runs with
        agent = tracer == "agent"
        if tracer and not agent:
            lib = os.path.dirname(tracer)
            env["LD_PRELOAD"] = tracer
            env["LD_LIBRARY_PATH"] = lib + ":" + env.get("LD_LIBRARY_PATH", "")
            # caret_trace is built --coverage as shipped: its .gcda files go to the test's folder
            env["GCOV_PREFIX"] = os.path.join(ctx.tmp, "gcov")
        self.procs = [ctx.spawn([app, "--proc", str(i), "--nodes", str(nodes), "--rate", str(rate)],
                                agent=agent, extra_env=env, cwd=ctx.tmp)  # caret_trace's caret.log
                      for i in range(procs)]
        self.cpu0 = None

    def pids(self):
        return [p.pid for p in self.procs]

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        for p in self.procs:
            wait_line(p, r"^ready pid=%d" % p.pid, timeout=max(1.0, deadline - time.time()))

    def usage(self):
        """(CPU seconds of all the processes so far, their VmRSS KiB summed)."""
        st = [s for s in (proc_stat(p) for p in self.pids()) if s]
        return sum(s[0] for s in st), sum(s[1] for s in st)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            p.finish(60)
        out = {}
        for p in self.procs:
            m = re.search(r"published=(\d+) taken=(\d+)", p.out_text())
            out[p.pid] = tuple(int(x) for x in m.groups()) if m else None
        return out


def oracle(caret, path, procs, nodes, timeout=1800):
    """caret_scale_oracle.py's JSON for path, or {"error": ...}."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(caret, "python") + ":" + SHIM
    # caret_analyze's logging writes caret.log to the working directory: beside the trace.
    r = subprocess.run(["/usr/bin/python3", ORACLE, path, str(procs), str(nodes)], env=env,
                       capture_output=True, text=True, timeout=timeout,
                       cwd=os.path.dirname(os.path.abspath(path)))
    if r.returncode != 0:
        return {"error": r.stderr[-4000:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def want_nodes(procs, nodes):
    return sorted("/p%d_n%d" % (i, j) for i in range(procs) for j in range(nodes))
