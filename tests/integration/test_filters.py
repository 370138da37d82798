# SPDX-License-Identifier: Apache-2.0
"""CARET's filters in the agent (caret-agent(7) FILTERS), against a real
lttng-sessiond and CycloneDDS: through the environment, and a recording's
lists in CARET's dialect (what each list keeps or drops, late and live:
test_filters_lists.py)."""
import collections
import json
import os
import re
import signal
import socket
import subprocess
import time
import unittest

from harness import (CARETCTL, INIT_KINDS, Ctx, kind_of, read_trace, release_after_restart,
                     wait_err, wait_line)


# Kinds caret_trace records whatever the filters say (no is_allowed_* in
# their record lambdas: ros_trace_points.cpp rcl_init, hooked_trace_points.cpp
# executors, the Jazzy entities collector, rmw_implementation).
CARET_UNFILTERED = {"rcl_init", "rmw_implementation", "construct_executor",
                    "construct_static_executor", "executor_entity_collector_to_executor",
                    "callback_group_to_executor_entity_collector"}


def caret_selects_nodes(records, pattern):
    """The init records caret_trace emits, of one process's records
    (all of them, as an unfiltered trace holds them), for
    CARET_SELECT_NODES=pattern (one regex, no topic lists): its
    TracingController::is_allowed_* of each record lambda, over the
    relations the records carry. A kind it does not model fails."""
    f = {k: [e.f for e in records if kind_of(e) == k] for k in INIT_KINDS}
    names = {}
    for n in f["rcl_node_init"]:
        ns = n["namespace"]
        names[n["node_handle"]] = ns + ("" if ns.endswith("/") else "/") + n["node_name"]

    def node_ok(h):  # is_allowed_node: an unknown node is allowed
        return h not in names or re.search(pattern, names[h]) is not None

    sub_node = {s["subscription_handle"]: s["node_handle"] for s in f["rcl_subscription_init"]}
    pub_node = {p["publisher_handle"]: p["node_handle"] for p in f["rcl_publisher_init"]}
    srv_node = {s["service_handle"]: s["node_handle"] for s in f["rcl_service_init"]}
    cli_node = {c["client_handle"]: c["node_handle"] for c in f["rcl_client_init"]}
    timer_node = {t["timer_handle"]: t["node_handle"] for t in f["rclcpp_timer_link_node"]}
    sub_of = {s["subscription"]: s["subscription_handle"] for s in f["rclcpp_subscription_init"]}
    cb_sub = {c["callback"]: sub_of.get(c["subscription"])
              for c in f["rclcpp_subscription_callback_added"]}

    def by(table, h):  # handles of an unknown node (or none) are allowed
        return h not in table or node_ok(table[h])

    # add_callback_group(_static_executor): caret_trace asks is_allowed_node
    # of the node the hook is given; the record does not carry it: the
    # group's node is its members' (callback_group_add_*)
    member_node = dict(timer_node)
    for table in (sub_node, srv_node, cli_node):
        member_node.update(table)
    group_node = {}
    for k, h in (("callback_group_add_timer", "timer_handle"),
                 ("callback_group_add_subscription", "subscription_handle"),
                 ("callback_group_add_service", "service_handle"),
                 ("callback_group_add_client", "client_handle")):
        for g in f[k]:
            if g[h] in member_node:
                group_node.setdefault(g["callback_group_addr"], member_node[g[h]])
    # a group without a member: caret_trace has the node from rclcpp; the
    # records do not say which, but in a process of one node it is that one
    only = list(names)[0] if len(names) == 1 else None
    for k in ("add_callback_group", "add_callback_group_static_executor"):
        for g in f[k]:
            if only is not None:
                group_node.setdefault(g["callback_group_addr"], only)

    def callback_ok(cb):  # a callback without a topic (timer, service) is kept
        sh = cb_sub.get(cb)
        return sh is None or by(sub_node, sh)

    rules = {
        "rcl_node_init": lambda a: node_ok(a["node_handle"]),
        "rcl_publisher_init": lambda a: by(pub_node, a["publisher_handle"]),
        "rcl_subscription_init": lambda a: by(sub_node, a["subscription_handle"]),
        "rclcpp_subscription_init": lambda a: by(sub_node, a["subscription_handle"]),
        "rclcpp_subscription_callback_added": lambda a: callback_ok(a["callback"]),
        "rcl_service_init": lambda a: by(srv_node, a["service_handle"]),
        "rclcpp_service_callback_added": lambda a: by(srv_node, a["service_handle"]),
        "rcl_client_init": lambda a: by(cli_node, a["client_handle"]),
        "rcl_timer_init": lambda a: by(timer_node, a["timer_handle"]),
        "rclcpp_timer_callback_added": lambda a: by(timer_node, a["timer_handle"]),
        "rclcpp_timer_link_node": lambda a: node_ok(a["node_handle"]),
        "rclcpp_callback_register": lambda a: callback_ok(a["callback"]),
        "callback_group_add_timer": lambda a: by(timer_node, a["timer_handle"]),
        "callback_group_add_subscription": lambda a: by(sub_node, a["subscription_handle"]),
        "callback_group_add_service": lambda a: by(srv_node, a["service_handle"]),
        "callback_group_add_client": lambda a: by(cli_node, a["client_handle"]),
        "add_callback_group": lambda a: by(group_node, a["callback_group_addr"]),
        "add_callback_group_static_executor": lambda a: by(group_node,
                                                           a["callback_group_addr"]),
    }
    kept = []
    for e in records:
        k = kind_of(e)
        if k in CARET_UNFILTERED or rules[k](e.f):
            kept.append(e)
    return kept


def init_set(events):
    """Init records as comparable keys: kind, init_timestamp, fields."""
    return collections.Counter(
        (kind_of(e), tuple(sorted((k, str(v)) for k, v in e.f.items())))
        for e in events if e.name.startswith("ros2_caret:") and kind_of(e) in INIT_KINDS)


class FilterTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def stop(self, *procs):
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())

    def test_ignore_processes_and_select_nodes(self):
        s = self.c.session()
        s.start()
        # caret_trace matches program_invocation_short_name (argv[0]).
        ignored = self.c.workload("--name", "ign", "--pubs", "1", "--subs", "1", "--rate", "50",
                                  extra_env={"CARET_IGNORE_PROCESSES": "^caret-stand"})
        kept = self.c.workload("--name", "flt", "--nodes", "2", "--pubs", "1", "--subs", "1",
                               "--rate", "50", extra_env={"CARET_SELECT_NODES": "/flt_0$"})
        wait_line(ignored, r"^ready")
        wait_line(kept, r"^ready")
        time.sleep(1.5)
        self.stop(ignored, kept)
        s.stop()
        events = read_trace(s.path)
        self.assertEqual([e.name for e in events if e.vpid == ignored.pid], [],
                         "an ignored process emits nothing")
        mine = [e for e in events if e.vpid == kept.pid]
        ev = collections.defaultdict(list)
        for e in mine:
            ev[e.name].append(e.f)
        nodes = ev["ros2_caret:rcl_node_init"]
        self.assertEqual([n["node_name"] for n in nodes], ["flt_0"])
        node = nodes[0]["node_handle"]
        pubs = ev["ros2_caret:rcl_publisher_init"]
        self.assertTrue(pubs)
        self.assertTrue(all(p["node_handle"] == node for p in pubs))
        subs = ev["ros2_caret:rcl_subscription_init"]
        self.assertTrue(subs)
        self.assertTrue(all(p["node_handle"] == node for p in subs))
        kept_pubs = {p["publisher_handle"] for p in pubs}
        published = {e["publisher_handle"] for e in ev["ros2:rcl_publish"]}
        self.assertTrue(published)
        self.assertLessEqual(published, kept_pubs)
        kept_rmw_subs = {p["rmw_subscription_handle"] for p in subs}
        taken = {e["rmw_subscription_handle"] for e in ev["ros2:rmw_take"]}
        self.assertTrue(taken)
        self.assertLessEqual(taken, kept_rmw_subs)
        # Only kept publishes are bound (rcl_publish decides for the thread).
        self.assertEqual(len(ev["ros2_caret:dds_write"]), len(ev["ros2:rcl_publish"]))


COSTLY = "[ab]*a[ab]{255}c"


def costly_name(n=510):
    """a's and b's at random (an LCG, as in check_filter.c), then "xc":
    COSTLY took glibc's matcher 0.7 s and 159 MB on such a name."""
    x, out = 1, []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        out.append("a" if (x >> 16) & 1 else "b")
    return "".join(out) + "xc"


def cpu_and_hwm(pid):
    """(user + system CPU seconds, VmHWM in KiB) of a live process."""
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    cpu = (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
    with open("/proc/%d/status" % pid) as f:
        hwm = int(next(ln for ln in f if ln.startswith("VmHWM:")).split()[1])
    return cpu, hwm


class EnvFilterDialectTest(unittest.TestCase):
    """issue 33 F3 and issue 30 H5 through the environment, as caret_trace
    reads it: ECMAScript's lookahead selects as CARET does, and a costly
    pattern forced into a process costs it a bounded time and memory."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def test_lookahead_selects_like_caret(self):
        s = self.c.session()
        s.start()
        env = {"CARET_SELECT_NODES": r"/talker_(?=s)\w+"}
        procs = [self.c.workload("--name", n, "--pubs", "1", "--rate", "50", extra_env=env)
                 for n in ("talker_static", "talker_x")]
        for p in procs:
            wait_line(p, r"^ready")
        time.sleep(1)
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())
        s.stop()
        nodes = sorted(e.f["node_name"] for e in read_trace(s.path)
                       if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["talker_static"])


    def test_costly_pattern_is_bounded_in_a_process(self):
        s = self.c.session()
        s.start()
        name = costly_name()
        # the same process without the filter: what the bounds add to
        base = self.c.workload("--name", name, "--pubs", "1", "--rate", "50")
        p = self.c.workload("--name", name, "--pubs", "1", "--rate", "50",
                            extra_env={"CARET_SELECT_NODES": COSTLY})
        wait_line(base, r"^ready", 60)
        wait_line(p, r"^ready", 60)
        time.sleep(1)
        cpu0, hwm0 = cpu_and_hwm(base.pid)
        cpu, hwm = cpu_and_hwm(p.pid)
        for q in (base, p):
            q.send_signal(signal.SIGINT)
        for q in (base, p):
            self.assertEqual(q.finish(30), 0, q.err_text())
        s.stop()
        print("costly pattern: CPU %.2f s (%.2f s without it), peak RSS %d KiB (%d KiB)"
              % (cpu, cpu0, hwm, hwm0))
        # its node's name is matched once per filter set (4 ms each here);
        # generous bounds that one glibc match (0.7 s, 159 MB) broke
        self.assertLess(cpu - cpu0, 0.3, "CPU seconds the filter added")
        self.assertLess(hwm - hwm0, 32 * 1024, "peak RSS (KiB) the filter added")
        # the verdict: no match, so the node is not selected; warned once
        nodes = {e.vpid: e.f["node_name"] for e in read_trace(s.path)
                 if e.name == "ros2_caret:rcl_node_init"}
        self.assertEqual(nodes.get(base.pid), name)
        self.assertNotIn(p.pid, nodes)
        self.assertEqual(p.err_text().count("reached its match limit"), 1, p.err_text())


class RecordFilterTest(unittest.TestCase):
    """issue 22 D7: a recording's lists in CARET's dialect (ECMAScript, as
    caret_trace's std::regex), refused with a reason when they are not."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def test_ecmascript_digit_class_selects_the_talkers(self):
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50")
                 for n in ("talker1", "talker2", "listener")]
        for p in procs:
            wait_line(p, r"^ready")
        # known to caretd first: one it finds after the Start records
        # without the recording's filter
        self.c.wait_states([p.pid for p in procs], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "sel", "-p",
                            traces, "--select-nodes", r"/talker\d")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = read_trace(os.path.join(traces, "sel"))
        nodes = sorted(e.f["node_name"] for e in events
                       if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["talker1", "talker2"])

    def test_filtered_records_count_on_no_cpu(self):
        """issue 34: a record the pass filter keeps out writes nothing, so
        the agent counts it on no CPU (caretd would count it in flight
        in that CPU's ring) but in its own word: the CPUs' sum and the
        filtered ones make `replayed`."""
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50")
                 for n in ("talker1", "listener")]
        for p in procs:
            wait_line(p, r"^ready")
        self.c.wait_states([p.pid for p in procs], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "sel", "-p",
                            traces, "--select-nodes", "/talker1")
        self.assertEqual(r.returncode, 0, r.stderr)
        for p, filtered in ((procs[0], False), (procs[1], True)):
            kv = dict(x.split("=") for x in self.c.agentctl("stats", str(p.pid)).stdout.split())
            per_cpu = sum(int(v) for k, v in kv.items() if re.fullmatch(r"cpu\d+", k))
            skipped = int(kv.get("skipped", 0))
            self.assertGreater(int(kv["replayed"]), 0, kv)
            self.assertEqual(per_cpu + skipped, int(kv["replayed"]), kv)
            if filtered:
                self.assertGreater(skipped, 0, "the listener's records counted on a CPU: %s" % kv)

    def test_select_nodes_filters_every_replay_pass(self):
        """--select-nodes /pub1 recorded late, by two paths: the processes
        in WAIT (the recording's own Start), and the processes already
        recording for an unfiltered session A (caretd's extra pass for the
        new session). Both traces hold, of each process's cache, exactly
        the init records caret_trace emits for CARET_SELECT_NODES=/pub1:
        none of another process's nodes (only what caret_trace never
        filters), all of /pub1's. Before, the extra pass replayed the
        whole cache of both processes into the filtered recording."""
        for distro in ("jazzy", "humble"):
            with self.subTest(distro=distro):
                self.select_nodes_in_every_pass(distro)
            for p in self.c.procs[1:]:
                p.send_signal(signal.SIGINT)
                p.finish(30)
            del self.c.procs[1:]

    def select_nodes_in_every_pass(self, distro):
        # services, clients, and a static executor on one: every kind
        # caret_trace filters by node or leaves alone
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50",
                                 "--services", "1", "--clients", "1", "--distro", distro,
                                 "--executor", ex, "--topic-prefix", distro)
                 for n, ex in (("pub1", "single"), ("other", "static"))]
        for p in procs:
            wait_line(p, r"^ready")
        pids = [p.pid for p in procs]
        self.c.wait_states(pids, "WAIT")
        traces = os.path.join(self.c.tmp, "traces-" + distro)
        sel = ("--select-nodes", "/pub1")
        # 1. from WAIT: the recording's Start
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "waiting", "-p",
                            traces, *sel)
        self.assertNotIn("incomplete", r.stderr)
        self.c.wait_states(pids, "WAIT")
        # 2. from RECORD: A records everything, then B starts with a filter
        a = self.c.caretctl("record", "--immediate", "--duration", "30", "-s", "A", "-p",
                            traces, background=True)
        self.c.wait_states(pids, "RECORD")
        ag = self.c.agents()
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "B", "-p", traces,
                            *sel)
        self.assertNotIn("incomplete", r.stderr)
        a.send_signal(signal.SIGINT)
        self.assertEqual(a.finish(60), 0, a.err_text())
        full = read_trace(os.path.join(traces, "A"))
        for name in ("waiting", "B"):
            # complete as check sees it: the timer's and the service's
            # callback registrations of the other process are notes
            r = subprocess.run([CARETCTL, "check", "--json", os.path.join(traces, name)],
                               capture_output=True, text=True, timeout=300)
            rep = json.loads(r.stdout)
            self.assertEqual(r.returncode, 0, (name, rep["problems"]))
            per = {p["pid"]: p for p in rep["processes"]}
            self.assertGreater(per[procs[1].pid]["filtered_registers"], 0)
            self.assertEqual(per[procs[0].pid]["filtered_registers"], 0)
            got = read_trace(os.path.join(traces, name))
            for p in procs:
                # once each: B's pass reached A too (copies, which the
                # analyzer drops)
                cache = list({k: e for e in full if e.vpid == p.pid
                              and e.name.startswith("ros2_caret:") and kind_of(e) in INIT_KINDS
                              for k in init_set([e])}.values())
                want = init_set(caret_selects_nodes(cache, "/pub1"))
                mine = init_set(e for e in got if e.vpid == p.pid)
                self.assertEqual(mine, want, "%s: pid %d (%s)" % (name, p.pid, ag[p.pid]))
                if p is procs[0]:
                    self.assertEqual(want, init_set(cache), "every record of /pub1's")
                else:
                    kinds = {k for k, _ in want}
                    self.assertLessEqual(kinds, CARET_UNFILTERED | {"rclcpp_callback_register"},
                                         "of the other process: what CARET never filters, "
                                         "and its timer's callback (no topic: always kept)")
                    self.assertIn("rcl_init", kinds)
                    self.assertIn("rclcpp_callback_register", kinds)

    def test_armed_filtered_recording(self):
        """A filtered recording waits for Enter armed like any other (issue
        24): nothing before Enter, and the passes Enter begins carry the
        filter, a process started during the armed wait included."""
        procs = [self.c.workload("--name", n, "--pubs", "1", "--subs", "1", "--rate", "50")
                 for n in ("talker1", "listener")]
        for p in procs:
            wait_line(p, r"^ready")
        self.c.wait_states([p.pid for p in procs], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        rec = self.c.arm("-p", traces, "-s", "armsel", "--select-nodes", r"/talker\d")
        late = self.c.workload("--name", "talker2", "--pubs", "1", "--subs", "1", "--rate", "50")
        wait_line(late, r"^ready")
        time.sleep(0.3)
        self.assertNotRegex(self.c.caretctl("list").stdout, r" (PREPARE|RECORD) ")
        t_enter, out = self.c.enter_then_stop(rec)
        events = read_trace(os.path.join(traces, "armsel"))
        pids = {p.pid for p in procs} | {late.pid}
        self.assertEqual([e.name for e in events if e.vpid in pids and e.ts < t_enter], [])
        nodes = sorted(e.f["node_name"] for e in events
                       if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["talker1", "talker2"])

    def test_filter_kept_across_a_restart(self):
        """A filtered recording outlives a kill -9 of caretd: the restarted
        caretd takes the recording back with its filter, so a process
        started after the restart replays only what the filter keeps (its
        node dropped). Before, it replayed its whole cache into it."""
        first = self.c.workload("--name", "pub1", "--pubs", "1", "--subs", "1", "--rate", "50")
        wait_line(first, r"^ready")
        self.c.wait_states([first.pid], "WAIT")
        traces = os.path.join(self.c.tmp, "traces")
        rec = self.c.caretctl("record", "--immediate", "--duration", "120", "-s", "kept", "-p",
                              traces, "--select-nodes", "/pub1", background=True)
        self.c.wait_states([first.pid], "RECORD")
        daemon = [p for p in self.c.procs if p.args[0].endswith("caretd")][-1]
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(10)
        os.unlink(self.c.sock)
        d = self.c.caretd()
        wait_err(d, r"recording kept of uid 0 taken over")
        late = self.c.workload("--name", "late", "--pubs", "1", "--subs", "1", "--rate", "50")
        wait_line(late, r"^ready")
        self.c.wait_states([late.pid], "RECORD", timeout=30)
        # a killed recorder's recording is stopped by caretd (issue 34: it
        # holds it, and holds it again after the restart): released first,
        # so that it runs on for the stop below, as before
        release_after_restart(self.c.sock, rec, "kept")
        rec.kill()
        rec.finish(30)
        r = self.c.caretctl("stop", "-s", "kept")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = read_trace(os.path.join(traces, "kept"))
        nodes = sorted(e.f["node_name"] for e in events
                       if e.name == "ros2_caret:rcl_node_init")
        self.assertEqual(nodes, ["pub1"], "".join(d.errs[-60:]))
        # the late process did replay into it (what CARET never filters)
        self.assertTrue(any(e.vpid == late.pid and e.name == "ros2_caret:rcl_init"
                            for e in events))

    def test_costly_pattern_is_refused_by_caretctl_and_caretd(self):
        """issue 30 H5: tried on costly names before any agent sees it."""
        traces = os.path.join(self.c.tmp, "traces")
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-p", traces,
                            "--select-nodes", COSTLY, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('regular expression "%s": too costly' % COSTLY, r.stderr)
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.c.sock)
        s.sendall((json.dumps({"v": 1, "cmd": "record", "path": traces,
                               "ignore_topics": "/ok:" + COSTLY}) + "\n").encode())
        reply = json.loads(s.makefile().readline())
        s.close()
        self.assertEqual(reply["type"], "error", reply)
        self.assertIn('ignore_topics: regular expression "%s": too costly' % COSTLY,
                      reply["error"])
        self.assertIn("100000 steps", reply["error"])
        self.assertFalse(os.path.exists(traces))

    def test_bad_pattern_is_refused_by_caretctl_and_caretd(self):
        traces = os.path.join(self.c.tmp, "traces")
        for opt in ("--select-nodes", "--ignore-topics"):
            r = self.c.caretctl("record", "--immediate", "--duration", "1", "-p", traces, opt,
                                "/ok:(", check=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("invalid %s '/ok:('" % opt, r.stderr)
            self.assertIn('regular expression "(": unmatched \'(\'', r.stderr)
        # caretd on its own (another client, or an older caretctl)
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.c.sock)
        s.sendall((json.dumps({"v": 1, "cmd": "record", "path": traces,
                               "select_nodes": "a**:[z-a]"}) + "\n").encode())
        reply = json.loads(s.makefile().readline())
        s.close()
        self.assertEqual(reply["type"], "error", reply)
        self.assertIn('select_nodes: regular expression "[z-a]": range out of order',
                      reply["error"])
        st = json.loads(self.c.caretctl("status", "--json").stdout)
        self.assertEqual(st["lttng"]["active_sessions"], [])
        self.assertFalse(os.path.exists(traces))


if __name__ == "__main__":
    unittest.main(verbosity=2)
