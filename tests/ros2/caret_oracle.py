# SPDX-License-Identifier: Apache-2.0
"""What the real caret_analyze makes of one trace, as JSON on the last line
of stdout: run by test_caret_parity.py in its own interpreter (caret_analyze
prints progress bars, configures logging and needs its own PYTHONPATH: the
folder tools/ros2/caret.sh prints, /python, and tests/ros2/shim for
`multimethod`).

    caret_oracle.py TRACE [START_NODE END_NODE]...

Prints {"arch": ..., "comms": ..., "callbacks": ..., "paths": ...}:
- arch: the Architecture as caret_analyze exports it (Architecture.export's
  YAML), with what naturally differs between two runs of the same
  application taken out: executors by type and callback group names (not
  by their numbering, which follows process ids), nodes sorted by name;
  CARET's own per-process node (/caret_trace_<uuid>, caret_trace
  trace_node.cpp) and everything it owns are left out, with their count.
- comms: {topic: [rows, complete rows]} of each communication's latency table.
- callbacks: {callback name: rows} of each callback's latency table.
- paths: for each START END pair, the paths search_paths finds (node and
  topic names) and the rows of each one's latency table.
Callbacks and callback groups are named by what they are, not by
caret_analyze's numbering (canonical_names).
"""
import contextlib
import io
import json
import os
import sys
import tempfile


def caret_node(name):
    return name.startswith("/caret_trace_")


def canonical_names(exported):
    """{caret_analyze's name: a name of what it is}: caret_analyze numbers
    callbacks and callback groups (/node/callback_0, /node/callback_group_1)
    in an order that follows their addresses, which differ between runs.
    A callback is named by its type, symbol, topic and period; a group by
    its type and its callbacks."""
    ren = {}
    for n in exported.get("nodes", []):
        for cb in n.get("callbacks", []):
            ren[cb["callback_name"]] = "%s/callback[%s %s %s %s]" % (
                n["node_name"], cb.get("callback_type"), cb.get("symbol"),
                cb.get("topic_name", ""), cb.get("period_ns", ""))
        for g in n.get("callback_groups", []):
            ren[g["callback_group_name"]] = "%s/callback_group[%s: %s]" % (
                n["node_name"], g.get("callback_group_type"),
                ", ".join(sorted(ren.get(c, c) for c in g.get("callback_names", []))))
    return ren


def renamed(x, ren):
    """x with every name of ren replaced, every list sorted (all lists of
    an exported architecture are sets)."""
    if isinstance(x, str):
        return ren.get(x, x)
    if isinstance(x, dict):
        return {k: renamed(v, ren) for k, v in x.items()}
    if isinstance(x, list):
        return sorted((renamed(v, ren) for v in x), key=lambda v: json.dumps(v, sort_keys=True))
    return x


def normalise(exported, ren):
    nodes = [n for n in exported.get("nodes", []) if not caret_node(n["node_name"])]
    caret_nodes = [n["node_name"] for n in exported.get("nodes", []) if caret_node(n["node_name"])]
    execs = []
    for e in exported.get("executors", []):
        groups = [g for g in e.get("callback_group_names", []) if not caret_node(g)]
        if e.get("callback_group_names") and not groups:
            continue  # the executor of CARET's own node
        execs.append({"executor_type": e["executor_type"], "callback_group_names": groups})
    return renamed({"executors": execs, "nodes": nodes, "caret_nodes": len(caret_nodes)}, ren)


def main():
    path = sys.argv[1]
    pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
    noise = io.StringIO()
    with contextlib.redirect_stdout(noise):
        import yaml
        from caret_analyze import Application, Architecture, Lttng
        lttng = Lttng(path, force_conversion=True)
        arch = Architecture("lttng", path)
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "arch.yaml")
            arch.export(f, force=True)
            with open(f) as fh:
                exported = yaml.safe_load(fh)
        ren = canonical_names(exported)
        out = {"arch": normalise(exported, ren), "paths": {}}
        found = {}
        for start, end in pairs:
            paths = arch.search_paths(start, end) if {start, end} <= set(arch.node_names) else []
            key = "%s -> %s" % (start, end)
            found[key] = []
            for i, p in enumerate(paths):
                name = "p%d_%s_%s" % (i, start.strip("/"), end.strip("/"))
                arch.add_path(name, p)
                found[key].append((name, [c.node_name if hasattr(c, "node_name") else c.topic_name
                                          for c in p.child]))
        app = Application(arch, lttng)
        comms = {}
        for c in app.communications:
            df = c.to_dataframe()
            key = "%s %s -> %s" % (c.topic_name, c.publish_node_name, c.subscribe_node_name)
            comms[key] = [len(df), int(df.notna().all(axis=1).sum())]
        cbs = {}
        for cb in app.callbacks:
            if caret_node(cb.node_name):
                continue
            cbs[ren.get(cb.callback_name, cb.callback_name)] = len(cb.to_dataframe())
        for key, lst in found.items():
            out["paths"][key] = []
            for name, children in lst:
                df = app.get_path(name).to_dataframe()
                out["paths"][key].append({"children": children, "rows": len(df),
                                          "complete": int(df.notna().all(axis=1).sum())})
        out["comms"] = comms
        out["callbacks"] = cbs
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
