# SPDX-License-Identifier: Apache-2.0
"""What the CARET parity modules share (test_caret_parity.py, whose docstring
lists what is left out of the comparisons and why; test_caret_parity_filter.py):
one recording of a system (Run) and what it leaves out (OURS_ONLY, Run.steady,
Run.caret_node_objects), caret_analyze's view of a trace (oracle), the
processes' context (AppCtx: unique node names, CARET's tracer for CARET's run),
and the three recordings of each RMW's system, made once (runs)."""
import collections
import json
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import test_real_ros as trr  # noqa: E402  (the module: its test class is not collected here)
from harness import INIT_KINDS, Ctx, dds_domain, read_trace  # noqa: E402

CARET = os.environ.get("CARET_ROS2_CARET", "")
LIBCARET = os.path.join(CARET, "install", "lib", "libcaret.so")
ORACLE = os.path.join(HERE, "caret_oracle.py")
SHIM = os.path.join(HERE, "shim")
MODES = ("caret", "launch", "late")

# Our replay-pass marks: no CARET counterpart (module docstring).
OURS_ONLY = {"ros2_caret:caret_replay_begin", "ros2_caret:caret_replay_end"}

STEADY_NS = 300 * 1000 * 1000

# Node pairs whose paths caret_analyze must find, and measure (node_remaps names them).
PATHS = ["/cross_talker", "/cross_listener", "/intra_talker", "/intra_listener",
         "/ev_talker", "/ev_listener"]


def kind(name):
    return name.split(":", 1)[1]


class Run:
    """One recording of one RMW's system: its processes and its trace."""

    def __init__(self, mode, sysm, path, stop_ns):
        self.mode = mode
        self.rmw = sysm.rmw
        self.stop_ns = stop_ns
        self.roles = {p.pid: p.role for p in sysm.procs.values()}
        self.args = {p.role: list(p.args) for p in sysm.procs.values()}
        self.events = [e for e in read_trace(path)
                       if e.vpid in self.roles and e.name not in OURS_ONLY]
        self.per = collections.defaultdict(list)
        for e in self.events:
            self.per[self.roles[e.vpid]].append(e)
        self.caret_objs = self.caret_node_objects()
        self.oracle = oracle(path)

    def caret_node_objects(self):
        """Per role, the addresses CARET's own node owns (its node, publishers,
        subscriptions, timers, callbacks, groups, executor), to leave out."""
        out = {}
        for role, evs in self.per.items():
            own = set()
            nodes = {e.f["node_handle"] for e in evs if kind(e.name) == "rcl_node_init" and
                     e.f["node_name"].startswith("caret_trace_")}
            own |= nodes
            for e in evs:
                f = e.f
                if f.get("node_handle") in nodes:
                    for k in ("publisher_handle", "subscription_handle", "service_handle",
                              "client_handle", "timer_handle", "rmw_publisher_handle",
                              "rmw_subscription_handle", "rmw_handle", "rmw_service_handle",
                              "rmw_client_handle"):
                        if k in f:
                            own.add(f[k])
            # Reached through what the node owns (init records come in creation order, but
            # one pass per link kind is enough for these chains).
            for _ in range(3):
                for e in evs:
                    f = e.f
                    k = kind(e.name)
                    if k == "rclcpp_subscription_init" and f["subscription_handle"] in own:
                        own.add(f["subscription"])
                    elif k.endswith("_callback_added") and (
                            f.get("subscription") in own or f.get("timer_handle") in own or
                            f.get("service_handle") in own):
                        own.add(f["callback"])
                    elif k.startswith("callback_group_add_") and any(
                            v in own for n, v in f.items() if n.endswith("_handle")):
                        own.add(f["callback_group_addr"])
                    elif k in ("add_callback_group", "callback_group_to_executor_entity_collector") \
                            and f["callback_group_addr"] in own:
                        own.add(f.get("executor_addr", f.get("entities_collector_addr")))
                    elif k == "executor_entity_collector_to_executor" and \
                            f["entities_collector_addr"] in own:
                        own.add(f["executor_addr"])
            out[role] = own
        return out

    def app_events(self, role):
        """The role's events, without those of CARET's own node."""
        own = self.caret_objs.get(role, set())
        return [e for e in self.per[role]
                if not any(isinstance(v, int) and v in own for v in e.f.values())]

    def startup_objects(self, role):
        """The role's /parameter_events subscriptions (their rmw handles and
        callbacks): every node publishes parameter events as it declares its
        parameters, so their takes are start-up traffic, and CARET's run has
        more of it (each process's caret_trace node declares use_sim_time,
        trace_node.cpp's rclcpp::Node). Under load a take lands after
        STEADY_NS (seen in CI: CARET's talker took one, Humble x Fast DDS;
        up to 130 ms after the last init event on a quiet machine)."""
        evs = self.per[role]
        subs = {e.f["subscription_handle"]: e.f["rmw_subscription_handle"] for e in evs
                if kind(e.name) == "rcl_subscription_init" and
                e.f["topic_name"] == "/parameter_events"}
        cpp = {e.f["subscription"] for e in evs
               if kind(e.name) == "rclcpp_subscription_init" and e.f["subscription_handle"] in subs}
        cbs = {e.f["callback"] for e in evs
               if kind(e.name) == "rclcpp_subscription_callback_added" and e.f["subscription"] in cpp}
        return set(subs.values()) | cbs

    def steady(self, role):
        """The role's init events, and its runtime events from STEADY_NS after
        the last init event of the system until the first process is told to
        stop: what happens at start-up (parameter events, lifecycle
        transitions, the RMW's discovery thread taking the others'
        announcements) is recorded by neither tracer reliably (caret_trace
        drops runtime events until its node runs: context.cpp
        is_recording_allowed, 'Prohibited to suppress DISCARDED'; the agent
        until it learns a session records, from caretd) and by no late
        recording; nor is the shutdown (the discovery thread again) by a late
        recording, which ends before it."""
        inits = [e.ts for e in self.events if kind(e.name) in INIT_KINDS]
        start = (max(inits) if inits else 0) + STEADY_NS
        startup = self.startup_objects(role)
        rcl_subs = {e.f["rmw_subscription_handle"] for e in self.per[role]
                    if kind(e.name) == "rcl_subscription_init"}
        evs = [e for e in self.app_events(role)
               if kind(e.name) in INIT_KINDS or
               (start <= e.ts < self.stop_ns and
                e.f.get("rmw_subscription_handle", e.f.get("callback")) not in startup and
                not (kind(e.name) == "rmw_take" and
                     e.f["rmw_subscription_handle"] not in rcl_subs))]
        if self.rmw != "rmw_fastrtps_cpp" and trr.DISTRO < "jazzy":
            return evs
        # Fast DDS, and CycloneDDS from Jazzy on: both tracers bind every write of a thread
        # whose last rcl_publish was recorded (caret_trace's thread-local
        # trace_filter_is_rcl_publish_recorded, hooked_trace_points.cpp; the agent's
        # caret_tls_publish_kept), services' writes included: a thread whose only publishes
        # were at start-up binds or not after them by start-up's luck. Only the binds of a
        # write published in the window are compared. (Humble's CycloneDDS hook binds every
        # write, in both.)
        out, writing = [], set()
        for e in evs:
            if e.name == "ros2_caret:dds_write":
                writing.add(e.ctx["vtid"])
            if e.name != "ros2_caret:dds_bind_addr_to_stamp" or e.ctx["vtid"] in writing:
                out.append(e)
        return out


def oracle(path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(CARET, "python") + ":" + SHIM
    r = subprocess.run(["/usr/bin/python3", ORACLE, path] + PATHS, env=env, capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        return {"error": r.stderr[-4000:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def node_remaps(args):
    """caret_analyze knows a node by its name alone: the same name in two
    processes (test_real_ros's System runs /talker and /listener in several)
    makes one node of two, whichever it meets last. Each node gets its
    process's topic prefix (rclcpp's node-targeted remapping; topics and
    services keep their names)."""
    prefix = args[args.index("--topic-prefix") + 1]
    out = ["--ros-args"]
    for n in ("talker", "listener", "managed"):
        out += ["-r", "%s:__node:=%s_%s" % (n, prefix, n)]
    return out


class AppCtx:
    """A Ctx that names each process's nodes uniquely and, for CARET's run,
    puts its processes under CARET's tracer instead of the agent."""

    def __init__(self, ctx, caret=False):
        self.ctx, self.caret = ctx, caret
        self.gcov = os.path.join(ctx.tmp, "gcov")
        self.stop_ns = None

    def __getattr__(self, name):
        return getattr(self.ctx, name)

    def spawn(self, args, agent=True, extra_env=None, **kw):
        args = list(args) + node_remaps(args)
        if not self.caret:
            return self.stamped(self.ctx.spawn(args, agent, extra_env, **kw))
        env = dict(extra_env or {})
        env["LD_PRELOAD"] = LIBCARET
        env["LD_LIBRARY_PATH"] = os.path.join(CARET, "install", "lib") + ":" + \
            env.get("LD_LIBRARY_PATH", "")
        # caret_trace is built --coverage as shipped: its .gcda files go here, not to the cache.
        env["GCOV_PREFIX"] = self.gcov
        return self.stamped(self.ctx.spawn(args, agent=False, extra_env=env, **kw))

    def stamped(self, p):
        """p, whose terminate() notes when the first process was told to
        stop (CLOCK_MONOTONIC, LTTng's clock)."""
        term = p.terminate

        def terminate():
            if self.stop_ns is None:
                self.stop_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            term()
        p.terminate = terminate
        return p


def caret_run(c, ac, rmw, domain):
    """CARET's own run, as `ros2 caret record` and CARET's docs do: c's session
    started before launch, rmw's system under ac (CARET's tracer) for RUN_S.
    The system and the trace's path."""
    s = c.session()
    s.start()
    sysm = trr.System(ac, rmw, domain)
    sysm.wait_ready()
    time.sleep(trr.RUN_S)
    sysm.stop()
    s.stop()
    return sysm, s.path


_runs = {}


def runs(rmw):
    """The three recordings of rmw's system, made once for all the tests."""
    if rmw in _runs:
        return _runs[rmw]
    keep = os.environ.get("CARET_PARITY_KEEP")
    if keep and os.path.exists(os.path.join(keep, rmw + ".pickle")):
        import pickle
        with open(os.path.join(keep, rmw + ".pickle"), "rb") as fh:
            _runs[rmw] = pickle.load(fh)
        return _runs[rmw]
    out = {}
    for mode in MODES:
        c = Ctx("parity-%s-%s" % (mode, rmw))
        try:
            if mode == "caret":
                domain = dds_domain(int(c.domain) + trr.RMWS.index(rmw) * 7)
                ac = AppCtx(c, caret=True)
                sysm, path = caret_run(c, ac, rmw, domain)
            else:
                c.caretd()
                runner = trr.RealRosTest("run_system")
                ac = runner.c = AppCtx(c)
                sysm, path, _ = runner.run_system(rmw, mode == "late")
            out[mode] = Run(mode, sysm, path, ac.stop_ns)
        finally:
            c.cleanup()
    _runs[rmw] = out
    if keep:
        # CARET_PARITY_KEEP=DIR keeps the recordings for the next run (to work on the checks).
        import pickle
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, rmw + ".pickle"), "wb") as fh:
            pickle.dump(out, fh)
    return out


def main(name):
    """The calling module's tests (unittest.main), once its environment is set."""
    if not (trr.DISTRO and trr.PREFIX and trr.APP and CARET):
        sys.exit("%s: set CARET_ROS2_DISTRO, CARET_ROS2_PREFIX, CARET_ROS2_APP "
                 "and CARET_ROS2_CARET (tests/ros2/run.sh does)" % name)
    if not os.path.exists(LIBCARET):
        sys.exit("%s: no %s (tools/ros2/caret.sh builds it)" % (name, LIBCARET))
    unittest.main(module="__main__", verbosity=2)
