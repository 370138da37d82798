# SPDX-License-Identifier: Apache-2.0
"""caretd's feedback pacing against a real lttng-sessiond and consumer: a
replay many times larger than the channel's buffers, with a byte budget
that alone would flood them, lands complete with nothing discarded."""
import collections
import os
import re
import sys
import unittest

from harness import INIT_KINDS, SystemTest, line_past_progress, lttng, read_trace, wait_line

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from consumer_quota import ConsumerQuota, QuotaUnavailable  # noqa: E402


class PacingTest(SystemTest):

    def replay_complete(self, n_procs, records, *record_args):
        """Records with caretd's 1 GB/s byte budget, which alone would
        flood any channel here, then checks the trace: 0 discarded, and
        every cached init record of every process in it."""
        d = self.c.caretd("--replay-bandwidth", "1G")
        procs = [self.c.workload("--name", "pace%d" % i, "--pubs", "0", "--subs", "0",
                                 "--timers", "1", "--extra-callbacks", str(records))
                 for i in range(n_procs)]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        cached = {}
        for p in procs:
            lines = self.c.agentctl("dump", str(p.pid)).stdout.splitlines()
            cached[p.pid] = collections.Counter(re.match(r"(\w+) ", l).group(1) for l in lines)
            self.assertGreater(sum(cached[p.pid].values()), records)
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "pacing",
                            "--duration", "1", "--timeout", "120", *record_args)
        out = r.stdout + r.stderr
        counts = re.findall(r"channel \S+: (\S+) events discarded", out)
        self.assertTrue(counts, out)
        self.assertEqual(set(counts), {"0"}, out)
        path = re.search(r"recording to (\S+)", out).group(1)
        got = collections.defaultdict(collections.Counter)
        for e in read_trace(path):
            kind = e.name.split(":", 1)[1]
            if e.name.startswith("ros2_caret:") and kind in INIT_KINDS:
                got[e.vpid][kind] += 1
        for p in procs:
            for kind, n in cached[p.pid].items():
                self.assertGreaterEqual(got[p.pid][kind], n, "pid %d lacks %s" % (p.pid, kind))
            # every record the replay thread wrote is counted on its CPU
            # (the per-CPU windows, issue 34): the CPUs' sum is `replayed`
            kv = dict(x.split("=") for x in
                      self.c.agentctl("stats", str(p.pid)).stdout.split())
            per_cpu = sum(int(v) for k, v in kv.items() if re.fullmatch(r"cpu\d+", k))
            self.assertGreater(int(kv["replayed"]), 0, kv)
            self.assertEqual(per_cpu, int(kv["replayed"]), kv)
        # the feedback read the recording's own index (the directory
        # created for it, opened once) ...
        self.assertTrue(any("pacing pacing: granted" in l for l in d.errs), d.errs[-5:])
        self.assertFalse(any("trace directory not read" in l for l in d.errs), d.errs[-5:])
        # ... and never had to back off from a loss
        self.assertFalse(any("discarded in its buffers" in l for l in d.errs), d.errs[-5:])

    def test_small_channel_nothing_discarded(self):
        # 1 GB/s of budget: the fixed budget of old would grant a 4 ms
        # tick ~4 MB at once, 8x what 64 KiB x 4 sub-buffers on two CPUs
        # hold. Only the feedback from the consumer's index keeps the
        # replay within the buffers.
        self.replay_complete(6, 3000, "--subbuffer-size-ust", "64K")

    def test_slow_consumer_nothing_discarded(self):
        """The consumer daemons limited to 2 % of a CPU (a cgroup quota,
        tools/consumer_quota.py) while 6 processes replay ~12 MB into the
        default channel (512 KiB x 4 per CPU): the replay follows the slow
        drain and loses nothing."""
        # the session daemon starts its consumers with the first user
        # space channel, and keeps them
        name = self.c.tag + "-spawn"
        lttng("create", name, "--output=" + os.path.join(self.c.tmp, "spawn"))
        try:
            lttng("enable-channel", "--userspace", "--session=" + name, "spawn")
        finally:
            lttng("destroy", name)
        try:
            self.enterContext(ConsumerQuota(percent=2))
        except QuotaUnavailable as e:
            self.skipTest("no CPU cgroup to slow the consumer: %s" % e)
        self.replay_complete(6, 20000)

    def test_armed_before_enter(self):
        """caretctl record arms the session while it waits for Enter: the
        session exists and is started, but records nothing and counts as
        no active session (the processes stay in WAIT); Enter starts the
        recording and the replay lands complete."""
        import time
        self.c.caretd()
        p = self.c.workload("--name", "armed", "--pubs", "0", "--subs", "0", "--timers", "1",
                            "--extra-callbacks", "500")
        wait_line(p, r"^ready pid=%d" % p.pid)
        rec = self.c.arm("-p", self.traces, "-s", "armed")
        self.assertIn("armed", lttng("list"))
        time.sleep(0.5)
        ag = self.c.caretctl("list").stdout
        self.assertRegex(ag, r"armed +WAIT ", ag)
        self.assertNotRegex(ag, r" (PREPARE|RECORD) ", ag)
        _, out = self.c.enter_then_stop(rec)
        counts = re.findall(r"channel \S+: (\S+) events discarded", out)
        self.assertEqual(set(counts), {"0"}, out)
        path = re.search(r"recording to (\S+)", out).group(1)
        n = sum(1 for e in read_trace(path)
                if e.vpid == p.pid and e.name.startswith("ros2_caret:") and
                e.name.split(":", 1)[1] in INIT_KINDS)
        self.assertGreater(n, 500)

    def test_armed_orphan_reaped(self):
        """A caretctl killed (SIGKILL: no chance to disarm) while it waits
        for Enter leaves no armed session behind: caretd destroys it."""
        import subprocess
        import time
        from harness import CARETCTL
        self.c.caretd()
        p = self.c.workload("--name", "orphan", "--pubs", "0", "--subs", "0", "--timers", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        rec = subprocess.Popen([CARETCTL, "--socket", self.c.sock, "record", "-p", self.traces,
                                "-s", "orphaned"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=self.c.env(agent=False))
        try:
            self.assertIn("press Enter to start recording", line_past_progress(rec.stdout))
            self.assertIn("orphaned", lttng("list"))
        finally:
            rec.kill()
            rec.wait()
            rec.stdin.close()
            rec.stdout.close()
        deadline = time.time() + 10
        while "orphaned" in lttng("list"):
            self.assertLess(time.time(), deadline, "the orphaned armed session stayed")
            time.sleep(0.1)
        # nothing was ever recorded: the process never left WAIT
        self.assertRegex(self.c.caretctl("list").stdout, r"orphan +WAIT ")
        # issue 22 D8: and no empty trace tree is left (caretd removes it
        # right after destroying the session, in the same poll)
        deadline = time.time() + 5
        while os.path.exists(os.path.join(self.traces, "orphaned")):
            self.assertLess(time.time(), deadline, os.listdir(self.traces))
            time.sleep(0.05)


if __name__ == "__main__":
    unittest.main(verbosity=2)
