# SPDX-License-Identifier: Apache-2.0
"""caretd's feedback pacing against a real lttng-sessiond and consumer: a
replay many times larger than the channel's buffers, with a byte budget
that alone would flood them, lands complete with nothing discarded."""
import collections
import os
import re
import unittest

from harness import INIT_KINDS, Ctx, read_trace, wait_line


class PacingTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.traces = os.path.join(self.c.tmp, "traces")

    def tearDown(self):
        self.c.cleanup()

    def test_small_channel_nothing_discarded(self):
        # 1 GB/s of budget: the fixed budget of old would grant a 4 ms
        # tick ~4 MB at once, 8x what 64 KiB x 4 sub-buffers on two CPUs
        # hold. Only the feedback from the consumer's index keeps the
        # replay within the buffers.
        d = self.c.caretd("--replay-bandwidth", "1G")
        procs = [self.c.workload("--name", "pace%d" % i, "--pubs", "0", "--subs", "0",
                                 "--timers", "1", "--extra-callbacks", "3000")
                 for i in range(6)]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid)
        cached = {}
        for p in procs:
            lines = self.c.agentctl("dump", str(p.pid)).stdout.splitlines()
            cached[p.pid] = collections.Counter(re.match(r"(\w+) ", l).group(1) for l in lines)
            self.assertGreater(sum(cached[p.pid].values()), 3000)
        r = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "pacing",
                            "--subbuffer-size-ust", "64K", "--duration", "1", "--timeout", "60")
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
        # the feedback never had to back off from a loss
        self.assertFalse(any("discarded in its buffers" in l for l in d.errs), d.errs[-5:])


if __name__ == "__main__":
    unittest.main(verbosity=2)
