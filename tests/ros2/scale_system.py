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
import threading
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

# Fast DDS has no participant index to raise: each process numbers its participants from 0
# (RTPSDomainImpl::getNewId counts within the process), so every process of a host first
# tries the same unicast ports (7410 + 250 * domain, +1 for user data) and, finding them
# bound, adds participantIDGain (2) and tries again, builtin.mutation_tries times (100 by
# default: RTPSParticipantImpl::createReceiverResources). Past that many processes on a host
# in one domain the next one opens no unicast locator and is never discovered. Raised like
# CycloneDDS's index, through the default profile rmw_fastrtps_cpp's participant takes.
FASTDDS_XML = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><dds xmlns=\"http://www.eprosima.com/"
               "XMLSchemas/fastRTPS_Profiles\"><profiles>%s<participant profile_name=\"caret_scale\""
               " is_default_profile=\"true\"><rtps>%s<builtin><mutation_tries>%d</mutation_tries>"
               "</builtin></rtps></participant></profiles></dds>\n")

# Fast DDS 2.14's shared memory transport (a default transport, beside UDPv4) hangs past
# ~40 processes on a saturated host: a listener too slow for the port watchdog gets its port
# marked not OK, and a writer regenerating that port blocks in
# SharedMemManager::Port::recover_blocked_processing() on the port's mutex (eProsima/Fast-DDS
# issue 6485, open for 2.14.x; the fixture has 2.14.6). Seen here at 50 x 8: 8 processes still
# creating their publishers after 7 min, 4 CPU ticks in 3 min. UDPv4 alone (eProsima's usual
# workaround) brings such a system up.
FASTDDS_UDP_ONLY = ("<transport_descriptors><transport_descriptor><transport_id>caret_udp"
                    "</transport_id><type>UDPv4</type></transport_descriptor>"
                    "</transport_descriptors>",
                    "<userTransports><transport_id>caret_udp</transport_id></userTransports>"
                    "<useBuiltinTransports>false</useBuiltinTransports>")


def fastdds_profile(folder, procs, tries=None, shm=True):
    """A Fast DDS profiles file in folder for procs processes per host (shm=False: UDPv4
    alone): its path."""
    path = os.path.join(folder, "fastdds_scale.xml")
    with open(path, "w") as f:
        f.write(FASTDDS_XML % ((("", "") if shm else FASTDDS_UDP_ONLY) +
                               (procs + 20 if tries is None else tries,)))
    return path


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


def lttng_usage():
    """(CPU seconds, VmRSS KiB) of this host's lttng-sessiond (tools/isolated.sh's,
    CARET_ISOLATED_SESSIOND) and its consumer daemons, summed, or None outside it."""
    top = os.environ.get("CARET_ISOLATED_SESSIOND", "")
    if not top.isdigit():
        return None
    pids, todo = [], [int(top)]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for task in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                    todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    st = [s for s in (proc_stat(p) for p in pids) if s]
    return sum(s[0] for s in st), sum(s[1] for s in st)


class ScaleSystem:
    """PROCS x NODES of caret_scale_app, spawned through ctx (the harness's
    Ctx): with the agent (tracer="agent"), CARET's libcaret.so
    (tracer=LIBCARET's path), or nothing (tracer=None)."""

    def __init__(self, ctx, app, prefix, distro, rmw, domain, procs, nodes, rate, tracer="agent",
                 fastdds_tries=None, fastdds_shm=True):
        self.procs_n, self.nodes_n = procs, nodes
        env = dict(ros_env(prefix))
        env.update(RMW_IMPLEMENTATION=rmw, ROS_DOMAIN_ID=str(domain), ROS_DISTRO=distro,
                   CYCLONEDDS_URI=CYCLONE_URI % (procs + 20),
                   FASTRTPS_DEFAULT_PROFILES_FILE=fastdds_profile(ctx.tmp, procs, fastdds_tries,
                                                                  fastdds_shm))
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

    def stop(self, timeout=None):
        """Ends every process: SIGTERM, then SIGKILL past timeout seconds for them all (by
        default 60 + 2 per process: 50 Fast DDS processes on a saturated host took over 60 s
        to end). {pid: (published, taken), or None for one killed}; self.killed, self.stop_s."""
        t0 = time.monotonic()
        deadline = t0 + (60 + 2 * len(self.procs) if timeout is None else timeout)
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        self.killed = 0
        for p in self.procs:
            try:
                p.finish(max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.killed += 1
                p.kill()
                p.finish(60)
        self.stop_s = time.monotonic() - t0
        out = {}
        for p in self.procs:
            m = re.search(r"published=(\d+) taken=(\d+)", p.out_text())
            out[p.pid] = tuple(int(x) for x in m.groups()) if m else None
        return out


def record_timed(ctx, args, timeout=300):
    """`caretctl record ARGS` to its end: (exit status, its output, the monotonic time its
    "recording to" line came: caretd's answer, which comes once LTTng has started the
    session, before the replay that follows; None if it never came)."""
    from harness import CARETCTL
    rec = subprocess.Popen([CARETCTL, "--socket", ctx.sock, "record"] + list(args),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=ctx.env(agent=False))
    lines, answered = [], None
    killer = threading.Timer(timeout, rec.kill)  # a silent hang ends too
    killer.start()
    try:
        for line in rec.stdout:
            lines.append(line)
            if answered is None and line.startswith("recording to "):
                answered = time.monotonic()
        return rec.wait(), "".join(lines), answered
    finally:
        killer.cancel()


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
