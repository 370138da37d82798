# SPDX-License-Identifier: Apache-2.0
"""What test_sessions.py and test_sessions_users.py share."""
import re
import subprocess

from harness import CARETCTL, SystemTest, wait_line


class Base(SystemTest):
    def trace_path(self, out):
        m = re.search(r"recording to (\S+)", out)
        self.assertTrue(m, out)
        return m.group(1)

    def recorder(self, name):
        """A caretctl record without --duration and with standard input
        closed, as from a script or a service."""
        p = self.c.spawn([CARETCTL, "--socket", self.c.sock, "record",
                          "--immediate", "-p", self.traces, "-s", name, "--timeout", "30"],
                         agent=False, stdin=subprocess.DEVNULL)
        wait_line(p, r"processes recording", timeout=40)
        wait_line(p, r"standard input closed", timeout=10)
        return p
