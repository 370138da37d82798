# SPDX-License-Identifier: Apache-2.0
"""Agent + cache against a real lttng-sessiond, CycloneDDS and babeltrace2."""
import collections
import os
import re
import signal
import subprocess
import time
import unittest

from harness import (AGENT, FORKER, INIT_KINDS, RUNTIME_ROS2, Ctx, mono_ns, parse_counts,
                     read_trace, wait_line)

# Kinds the stand-in reports in its `counts` line (rmw_implementation is
# the agent's own, one per rcl_init).
def expected_counts(counts):
    exp = {k: v for k, v in counts.items() if k in INIT_KINDS and v}
    exp["rmw_implementation"] = counts.get("rcl_init", 0)
    return exp


def by_vpid(events):
    d = collections.defaultdict(list)
    for e in events:
        d[e.vpid].append(e)
    return d


class AgentTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)

    def tearDown(self):
        self.c.cleanup()

    def start_pair(self, sub_args=(), pub_args=(), extra_env=None):
        sub = self.c.workload("--name", "sub", "--pubs", "0", "--subs", "2", "--timers", "1",
                              "--print-counts", *sub_args, extra_env=extra_env)
        pub = self.c.workload("--name", "pub", "--pubs", "2", "--subs", "0", "--timers", "1",
                              "--rate", "50", "--services", "1", "--clients", "1",
                              "--print-counts", *pub_args, extra_env=extra_env)
        counts = {}
        for p in (sub, pub):
            counts[p.pid] = parse_counts(wait_line(p, r"^counts .*").group(0))
            wait_line(p, r"^ready pid=%d" % p.pid)
        return sub, pub, counts

    def stop_procs(self, *procs):
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())

    def check_contexts(self, events):
        for e in events:
            for k in ("vpid", "vtid", "procname"):
                self.assertIn(k, e.ctx, "%s lacks context %s" % (e.name, k))

    def check_init_events(self, per_vpid, counts):
        for pid, cnt in counts.items():
            evs = per_vpid[pid]
            got = collections.Counter(e.name[len("ros2_caret:"):] for e in evs
                                      if e.name.startswith("ros2_caret:"))
            for kind, n in expected_counts(cnt).items():
                self.assertGreaterEqual(got[kind], n, "pid %d: %s" % (pid, kind))
            for e in evs:
                if e.name[len("ros2_caret:"):] in INIT_KINDS:
                    self.assertIn("init_timestamp", e.f, e)
                    self.assertGreater(e.f["init_timestamp"], 0)
            self.assertGreaterEqual(got["caret_init"], 1, "pid %d: no caret_init" % pid)
            ci = [e for e in evs if e.name == "ros2_caret:caret_init"][0]
            # The default stand-in is the Jazzy flavour (tools/standin): what
            # is loaded (ExecutorEntitiesCollector, no add_callback_group_to_map)
            # says Jazzy.
            self.assertEqual(ci.f["distribution"], "jazzy")

    def test_session_before_processes(self):
        s = self.c.session()
        s.start()
        sub, pub, counts = self.start_pair()
        time.sleep(1.5)
        self.stop_procs(pub, sub)
        s.stop()
        # the session sees every process of the host: judge only ours
        events = [e for e in read_trace(s.path) if e.vpid in (sub.pid, pub.pid)]
        per = by_vpid(events)
        self.check_contexts(events)
        self.check_init_events(per, counts)
        names = collections.Counter(e.name for e in events)
        # never both: with the agent the ros2: init variants are gone
        for k in INIT_KINDS:
            self.assertEqual(names["ros2:" + k], 0, "ros2:%s emitted" % k)
        for silent in ("rmw_publisher_init", "rmw_subscription_init", "rcl_take",
                       "rclcpp_executor_execute", "rclcpp_executor_wait_for_work"):
            self.assertEqual(names["ros2:" + silent], 0, silent)
        for rt in ("ros2:callback_start", "ros2:callback_end", "ros2:rclcpp_publish",
                   "ros2:rcl_publish", "ros2_caret:dds_write",
                   "ros2_caret:dds_bind_addr_to_stamp", "ros2:rmw_take"):
            self.assertGreater(names[rt], 0, rt)
        self.assertEqual(names["ros2:rmw_publish"], 0)
        # every delivered sample links back to its publisher
        stamps = {e.f["source_stamp"] for e in per[pub.pid]
                  if e.name == "ros2_caret:dds_bind_addr_to_stamp"}
        takes = [e for e in per[sub.pid] if e.name == "ros2:rmw_take" and e.f["taken"]]
        self.assertGreater(len(takes), 10)
        unmatched = [e for e in takes if e.f["source_timestamp"] not in stamps]
        self.assertEqual(unmatched, [], "rmw_take without a matching source stamp")
        self.check_publish_chain(per[pub.pid])

    def check_publish_chain(self, evs):
        """rclcpp_publish -> rcl_publish -> dds_write -> dds_bind_addr_to_stamp
        on one thread, same message address."""
        by_tid = collections.defaultdict(list)
        for e in evs:
            by_tid[e.ctx["vtid"]].append(e)
        chains = 0
        for tid_evs in by_tid.values():
            seq = [e for e in tid_evs if e.name in (
                "ros2:rclcpp_publish", "ros2:rcl_publish", "ros2_caret:dds_write",
                "ros2_caret:dds_bind_addr_to_stamp")]
            for i in range(len(seq) - 3):
                a, b, c, d = seq[i:i + 4]
                if a.name != "ros2:rclcpp_publish":
                    continue
                self.assertEqual([b.name, c.name, d.name],
                                 ["ros2:rcl_publish", "ros2_caret:dds_write",
                                  "ros2_caret:dds_bind_addr_to_stamp"])
                self.assertEqual(a.f["message"], b.f["message"])
                self.assertEqual(b.f["message"], c.f["message"])
                self.assertEqual(c.f["message"], d.f["addr"])
                chains += 1
        self.assertGreater(chains, 10)

    def test_late_session_replay(self):
        sub, pub, counts = self.start_pair()
        time.sleep(1.0)
        segs = self.c.segments()
        self.assertEqual(len(segs), 2, segs)
        listing = self.c.agentctl("list").stdout
        self.assertEqual(len(re.findall(r"\bWAIT\b", listing)), 2, listing)
        cached = {}
        for p in (sub, pub):
            dump = self.c.agentctl("dump", str(p.pid)).stdout.splitlines()
            cached[p.pid] = dump
            self.assertGreater(len(dump), 5)
        s = self.c.session()
        t_start = mono_ns()
        s.start()
        time.sleep(0.5)  # WAIT under an active session: runtime events dropped
        record_at = {}
        for p in (sub, pub):
            before = mono_ns()
            out = self.c.agentctl("replay", str(p.pid), "--timeout", "20").stdout
            self.assertRegex(out, r"replayed %d records" % len(cached[p.pid]))
            record_at[p.pid] = before
        time.sleep(1.0)
        s.stop()
        self.stop_procs(pub, sub)
        events = [e for e in read_trace(s.path) if e.vpid in (sub.pid, pub.pid)]
        per = by_vpid(events)
        self.check_contexts(events)
        self.check_init_events(per, counts)
        for p in (sub, pub):
            evs = per[p.pid]
            init = [e for e in evs if e.name[len("ros2_caret:"):] in INIT_KINDS]
            # every cached record is in the trace, with its original timestamp
            got = collections.Counter((e.name[len("ros2_caret:"):], e.f["init_timestamp"])
                                      for e in init)
            for line in cached[p.pid]:
                kind, ts = re.match(r"(\w+) ts=(-?\d+)", line).groups()
                self.assertGreater(got[(kind, int(ts))], 0, line)
                self.assertLess(int(ts), t_start, "init_timestamp after session start")
            # and the replayed events carry the cached field values
            node = [l for l in cached[p.pid] if l.startswith("rcl_node_init ")][0]
            name = re.search(r'node_name="([^"]*)"', node).group(1)
            self.assertIn(name, [e.f["node_name"] for e in evs
                                 if e.name == "ros2_caret:rcl_node_init"])
            rt = [e for e in evs if e.name.startswith("ros2:") or
                  e.name in ("ros2_caret:dds_write", "ros2_caret:dds_bind_addr_to_stamp")]
            self.assertGreater(len(rt), 0, "no runtime events after RECORD")
            early = [e for e in rt if e.ts < record_at[p.pid]]
            self.assertEqual(early, [], "runtime events before RECORD")
        names = collections.Counter(e.name for e in events)
        for k in INIT_KINDS:
            self.assertEqual(names["ros2:" + k], 0)

    def test_replay_paced_and_rate(self):
        """A paced replay (records/s) delivers everything too."""
        p = self.c.workload("--name", "paced", "--nodes", "2", "--pubs", "2",
                            "--extra-callbacks", "40", "--print-counts")
        wait_line(p, r"^ready")
        total = int(re.search(r"(\d+) records", self.c.agentctl("check", str(p.pid)).stdout)
                    .group(1))
        s = self.c.session(events=("ros2_caret:*",))
        s.start()
        t0 = time.time()
        self.c.agentctl("replay", str(p.pid), "--rate", str(total * 2))
        self.assertGreaterEqual(time.time() - t0, 0.4)
        s.stop()
        self.stop_procs(p)
        replayed = [e for e in read_trace(s.path)
                    if e.vpid == p.pid and e.name[len("ros2_caret:"):] in INIT_KINDS]
        self.assertEqual(len(replayed), total)

    def test_agent_inert_in_other_programs(self):
        for args, rc in ((["/bin/true"], 0), (["/bin/false"], 1),
                         (["/bin/sh", "-c", "echo hello | tr a-z A-Z | cat; exit 3"], 3)):
            plain = subprocess.run(args, env=self.c.env(agent=False), capture_output=True,
                                   text=True)
            pre = subprocess.run(args, env=self.c.env(agent=True), capture_output=True,
                                 text=True)
            self.assertEqual(pre.returncode, rc)
            self.assertEqual(pre.returncode, plain.returncode)
            self.assertEqual(pre.stdout, plain.stdout)
        self.assertEqual(self.c.segments(), [])
        # a live process: one thread, no lttng-ust, no segment
        p = self.c.spawn(["/bin/sleep", "2"])
        time.sleep(0.5)
        self.assertEqual(len(os.listdir("/proc/%d/task" % p.pid)), 1)
        with open("/proc/%d/maps" % p.pid) as f:
            maps = f.read()
        self.assertIn(os.path.basename(AGENT), maps)
        self.assertNotIn("liblttng-ust", maps)
        self.assertEqual(self.c.segments(), [])
        self.assertEqual(p.finish(10), 0)

    def test_no_sessiond_needed_and_disable(self):
        """CARET_AGENT_DISABLE=1 hands every call to the real tracetools."""
        s = self.c.session()
        s.start()
        p = self.c.workload("--name", "off", "--duration", "1", "--print-counts",
                            extra_env={"CARET_AGENT_DISABLE": "1"})
        self.assertEqual(p.finish(30), 0, p.err_text())
        s.stop()
        names = collections.Counter(e.name for e in read_trace(s.path) if e.vpid == p.pid)
        self.assertGreater(names["ros2:rcl_node_init"], 0)
        self.assertEqual(sum(v for k, v in names.items() if k.startswith("ros2_caret:")), 0)
        self.assertEqual(self.c.segments(), [])

    def test_humble_publish_path(self):
        """Humble: rmw_publish(message) and a plain dds_write; the agent
        takes the source timestamp itself."""
        env = {"ROS_DISTRO": "humble"}
        s = self.c.session()
        s.start()
        sub = self.c.workload("--name", "hsub", "--pubs", "0", "--subs", "1", extra_env=env)
        pub = self.c.workload("--name", "hpub", "--pubs", "1", "--rate", "50",
                              "--distro", "humble", extra_env=env)
        wait_line(sub, r"^ready")
        wait_line(pub, r"^ready")
        time.sleep(1.5)
        self.stop_procs(pub, sub)
        s.stop()
        per = by_vpid(read_trace(s.path))
        stamps = {e.f["source_stamp"] for e in per[pub.pid]
                  if e.name == "ros2_caret:dds_bind_addr_to_stamp"}
        takes = [e.f["source_timestamp"] for e in per[sub.pid]
                 if e.name == "ros2:rmw_take" and e.f["taken"]]
        self.assertGreater(len(takes), 10)
        self.assertTrue(all(t in stamps for t in takes))
        writes = [e for e in per[pub.pid] if e.name == "ros2_caret:dds_write"]
        self.assertGreater(len(writes), 10)
        self.assertTrue(all(w.f["message"] != 0 for w in writes))

    def test_executor_and_callback_group_links(self):
        """The rclcpp hooks tie handles to groups and groups to executors
        with the same addresses the init events use."""
        s = self.c.session(events=("ros2_caret:*",))
        s.start()
        # Humble's entry points (add_callback_group_to_map and the static
        # executor's collector); Jazzy's are checked in test_standin_matrix.
        procs = [self.c.workload("--name", "ex_" + kind, "--executor", kind, "--pubs", "1",
                                 "--subs", "1", "--timers", "2", "--services", "1",
                                 "--clients", "1", "--duration", "0", "--distro", "humble",
                                 extra_env={"ROS_DISTRO": "humble"})
                 for kind in ("single", "multi", "static")]
        for p in procs:
            self.assertEqual(p.finish(30), 0, p.err_text())
        s.stop()
        per = by_vpid(read_trace(s.path))
        for p, kind in zip(procs, ("single", "multi", "static")):
            ev = collections.defaultdict(list)
            for e in per[p.pid]:
                ev[e.name.split(":")[1]].append(e.f)
            timers = {f["timer_handle"] for f in ev["rcl_timer_init"]}
            self.assertEqual({f["timer_handle"] for f in ev["callback_group_add_timer"]}, timers)
            subs = {f["subscription_handle"] for f in ev["rcl_subscription_init"]}
            self.assertEqual({f["subscription_handle"]
                              for f in ev["callback_group_add_subscription"]}, subs)
            self.assertEqual({f["service_handle"] for f in ev["callback_group_add_service"]},
                             {f["service_handle"] for f in ev["rcl_service_init"]})
            self.assertEqual({f["client_handle"] for f in ev["callback_group_add_client"]},
                             {f["client_handle"] for f in ev["rcl_client_init"]})
            groups = {f["callback_group_addr"] for f in ev["callback_group_add_timer"]}
            if kind == "static":
                (ex,) = ev["construct_static_executor"]
                self.assertNotEqual(ex["entities_collector_addr"], 0)
                added = ev["add_callback_group_static_executor"]
                self.assertTrue(added)
                self.assertTrue(all(a["entities_collector_addr"] == ex["entities_collector_addr"]
                                    for a in added))
            else:
                (ex,) = ev["construct_executor"]
                self.assertEqual(ex["executor_type_name"], kind + "_threaded_executor")
                added = ev["add_callback_group"]
                self.assertTrue(added)
                self.assertTrue(all(a["executor_addr"] == ex["executor_addr"] for a in added))
            self.assertTrue(groups <= {a["callback_group_addr"] for a in added})
            self.assertTrue(all(a["group_type_name"] in ("mutually_exclusive", "reentrant")
                                for a in added))

    def test_fork_child_gets_own_segment(self):
        p = self.c.spawn([FORKER, "2"])
        m = wait_line(p, r"child pid=(\d+)")
        child = int(m.group(1))
        wait_line(p, r"^ready")
        time.sleep(0.5)
        segs = self.c.segments()
        pids = sorted(int(n.split(".")[1]) for n in segs)
        self.assertEqual(pids, sorted([p.pid, child]), segs)
        for pid, node in ((p.pid, "parent"), (child, "child")):
            dump = self.c.agentctl("dump", str(pid)).stdout
            self.assertIn('node_name="%s"' % node, dump)
        self.assertEqual(p.finish(30), 0, p.err_text())


if __name__ == "__main__":
    unittest.main(verbosity=2)
