# SPDX-License-Identifier: Apache-2.0
"""caretd killed (SIGKILL) during a second session's extra replay pass and
restarted (issue 21): the agents are found in RECORD, but their pass was
cut; the restarted caretd reads their records' claim words
(daemon/agents/sched_pass.c sched_pass_cut), replays again, and the second session ends
up with every cached init record of every process (copies in the first
are allowed: the analyzer ignores them)."""
import os
import re
import signal
import time
import unittest

from harness import SystemTest, wait_line
from trace_model import assert_all_init, per_pid


class RestartDuringExtraPass(SystemTest):
    def test_cut_extra_pass_is_replayed_again(self):
        d = self.c.caretd()
        procs = self.system(3, ("--pubs", "20", "--subs", "20"))
        time.sleep(0.5)
        cached = self.dumps(procs)
        a = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "first",
                            background=True)
        wait_line(a, r"processes recording", timeout=30)
        # the second session's extra pass at 20 records/s per process: seconds
        b = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", "second",
                            "-f", "20", "--timeout", "120", background=True)
        deadline = time.time() + 30
        while not any(re.search(r"replaying \d+ cached records again", l) for l in d.errs):
            self.assertLess(time.time(), deadline, "".join(d.errs))
            time.sleep(0.05)
        time.sleep(1.0)  # well into the pass, far from its end
        d.send_signal(signal.SIGKILL)
        d.wait(10)
        os.unlink(self.c.sock)
        d2 = self.c.caretd()
        deadline = time.time() + 30
        while not any("last replay pass cut" in l for l in d2.errs):
            self.assertLess(time.time(), deadline, "".join(d2.errs))
            time.sleep(0.05)
        wait_line(b, r"processes recording", timeout=120)
        self.c.caretctl("stop", "-s", "second")
        self.c.caretctl("stop", "-s", "first")
        b.finish(60)
        a.finish(60)
        trace = os.path.join(self.traces, "second")
        assert_all_init(self, per_pid(trace, procs), procs, cached, "second")


if __name__ == "__main__":
    unittest.main(verbosity=2)
