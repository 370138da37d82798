# SPDX-License-Identifier: Apache-2.0
"""What caret_analyze derives from a trace, for the tests that compare it
with what a process says it built (the stand-in matrix, the real-ROS suite),
and what every recording test asks of a trace: each process's cache whole,
replayed before its runtime events."""
import collections
import re

import bt2

from harness import INIT_KINDS, kind_of, read_trace

# Runtime events: a process emits them only in RECORD, after its replay.
RUNTIME = ("ros2:callback_start", "ros2:callback_end", "ros2:rclcpp_publish",
           "ros2:rcl_publish", "ros2:rmw_take", "ros2_caret:dds_write",
           "ros2_caret:dds_bind_addr_to_stamp")


def parse_groups(line):
    """`executor 0x.. groups 0x..:type ...` -> (executor, {group: type})."""
    m = re.match(r"executor (0x[0-9a-f]+) groups (.*)", line)
    groups = {}
    for tok in m.group(2).split():
        addr, kind = tok.split(":")
        groups[int(addr, 16)] = kind
    return int(m.group(1), 16), groups


def per_pid(trace, procs):
    """The trace's events of procs, {pid: [event]}."""
    pids = {p.pid for p in procs}
    per = collections.defaultdict(list)
    for e in read_trace(trace):
        if e.vpid in pids:
            per[e.vpid].append(e)
    return per


def assert_all_init(tc, per, procs, cached, label, t_start=None):
    """Every cached record of every process is in the trace with its
    original init_timestamp (before t_start, the session's start, if
    given), and caret_init too. cached: {pid: Counter((kind, ts))}."""
    for p in procs:
        evs = per[p.pid]
        got = collections.Counter(
            (kind_of(e), str(e.f["init_timestamp"])) for e in evs
            if e.name.startswith("ros2_caret:") and kind_of(e) in INIT_KINDS)
        for key, n in cached[p.pid].items():
            tc.assertGreaterEqual(got[key], n, "%s: pid %d lacks %s" % (label, p.pid, key))
            if t_start is not None:
                tc.assertLess(int(key[1]), t_start)
        tc.assertTrue(any(e.name == "ros2_caret:caret_init" for e in evs),
                      "%s: pid %d has no caret_init" % (label, p.pid))


def check_complete(tc, trace, procs, cached, t_start=None, runtime=False):
    """assert_all_init, and no runtime event of a process precedes the end
    of its replay; with runtime, every process has runtime events. Returns
    per_pid."""
    per = per_pid(trace, procs)
    assert_all_init(tc, per, procs, cached, trace, t_start)
    for p in procs:
        evs = per[p.pid]
        init = [e for e in evs if e.name.startswith("ros2_caret:") and kind_of(e) in INIT_KINDS]
        rt = [e for e in evs if e.name in RUNTIME]
        if runtime:
            tc.assertTrue(rt, "%s: pid %d has no runtime event" % (trace, p.pid))
        if init and rt:
            tc.assertLess(max(e.ts for e in init), min(e.ts for e in rt),
                          "pid %d: runtime event before its replay ended" % p.pid)
        for e in evs:
            tc.assertTrue({"vpid", "vtid", "procname"} <= set(e.ctx))
    return per


def group_links(distro, evs):
    """{callback_group_addr: (executor_addr, group_type_name)}, joined as
    caret_analyze does (lttng_info.py _build_cbg): on Jazzy only from the two
    entity-collector events; before, from add_callback_group plus
    add_callback_group_static_executor joined to construct_static_executor on
    the collector address."""
    ev = {}
    for e in evs:
        if e.name.startswith("ros2_caret:"):
            ev.setdefault(e.name.split(":")[1], []).append(e.f)
    links = []
    if distro >= "jazzy":
        collector_to_exec = {f["entities_collector_addr"]: f["executor_addr"]
                             for f in ev.get("executor_entity_collector_to_executor", [])}
        for f in ev.get("callback_group_to_executor_entity_collector", []):
            links.append((collector_to_exec.get(f["entities_collector_addr"]),
                          f["callback_group_addr"], f["group_type_name"]))
    else:
        for f in ev.get("add_callback_group", []):
            links.append((f["executor_addr"], f["callback_group_addr"], f["group_type_name"]))
        static = {f["entities_collector_addr"]: f["executor_addr"]
                  for f in ev.get("construct_static_executor", [])}
        for f in ev.get("add_callback_group_static_executor", []):
            links.append((static.get(f["entities_collector_addr"]),
                          f["callback_group_addr"], f["group_type_name"]))
    return {g: (x, t) for x, g, t in links}


def discarded(path):
    """Events the tracer discarded, as babeltrace2 reports them (None when a
    stream cannot say how many)."""
    n = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            if msg.count is None:
                return None
            n += msg.count
    return n
