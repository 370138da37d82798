# SPDX-License-Identifier: Apache-2.0
"""What the real caret_analyze makes of a trace of the generated system
(apps/caret_scale_app.cpp: PROCS x NODES nodes, NODES pipelines across the
processes), as JSON on the last line of stdout. Run in its own interpreter
with caret_analyze's PYTHONPATH, as caret_oracle.py is.

    caret_scale_oracle.py TRACE PROCS NODES

Prints {"nodes": [names], "timers": {node: N}, "paths": {"/p0_nJ -> /pLAST_nJ":
{"nodes": [...], "rows": N, "complete": N}}, "comms": N, "comms_with_rows": N}:
"timers" counts the timer callbacks caret_analyze puts in each node, which it
ties to their node only through rclcpp_timer_link_node (a timer without one
is in no node, and no check of ours asks for it: rclpy's timers have none,
which is why it is asked here and not by `caretctl check`); each node's
path from its subscription to its timer's publish is declared
use_latest_message (what the app does), so a path's rows are messages that
crossed every process while recorded; search_paths is given the pipeline's
depth (its default stops at 15 nodes)."""
import contextlib
import io
import json
import sys


def main():
    path, procs, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    noise = io.StringIO()
    with contextlib.redirect_stdout(noise):
        from caret_analyze import Application, Architecture, Lttng
        lttng = Lttng(path, force_conversion=True)
        arch = Architecture("lttng", path)
        names = sorted(n for n in arch.node_names if not n.startswith("/caret_trace_"))
        for i in range(1, procs):
            for j in range(nodes):
                try:
                    arch.update_message_context("/p%d_n%d" % (i, j), "use_latest_message",
                                                "/s%d_%d" % (j, i - 1), "/s%d_%d" % (j, i))
                except Exception:  # a node missing from the trace: the test says which
                    pass
        found = {}
        for j in range(nodes):
            start, end = "/p0_n%d" % j, "/p%d_n%d" % (procs - 1, j)
            key = "%s -> %s" % (start, end)
            if not {start, end} <= set(names):
                continue
            ps = arch.search_paths(start, end, max_node_depth=procs + 1)
            for k, p in enumerate(ps):
                name = "pipe%d_%d" % (j, k)
                arch.add_path(name, p)
                found.setdefault(key, []).append(name)
        app = Application(arch, lttng)
        out = {"nodes": names, "paths": {}, "comms": 0, "comms_with_rows": 0,
               "timers": {n.node_name: sum(1 for cb in n.callbacks or ()
                                           if cb.callback_type_name == "timer_callback")
                          for n in arch.nodes if n.node_name in names}}
        for c in app.communications:
            out["comms"] += 1
            df = c.to_dataframe()
            out["comms_with_rows"] += int(len(df) > 0 and bool(df.notna().all(axis=1).any()))
        for key, lst in found.items():
            for name in lst:
                p = app.get_path(name)
                df = p.to_dataframe()
                out["paths"].setdefault(key, []).append({
                    "nodes": [c.node_name for c in p.child if hasattr(c, "node_name")],
                    "rows": len(df), "complete": int(df.notna().all(axis=1).sum())})
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
