# SPDX-License-Identifier: Apache-2.0
"""What caret_analyze derives from a trace, for the tests that compare it
with what a process says it built (the stand-in matrix, the real-ROS suite)."""
import bt2


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
