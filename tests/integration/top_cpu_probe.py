# SPDX-License-Identifier: Apache-2.0
"""Not a test: caretd's CPU while `caretctl top` watches N stand-in
processes (issue 35's cost: <= 1 % of a core at N = 100). Prints one line."""
import os
import sys
import time

from harness import Ctx, wait_line


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def main(n, secs):
    c = Ctx("top_cpu")
    try:
        d = c.caretd()
        procs = [c.workload("--name", "w%d" % i, "--pubs", "1", "--subs", "1", "--rate", "10")
                 for i in range(n)]
        for p in procs:
            wait_line(p, r"^ready pid=%d" % p.pid, timeout=120)
        time.sleep(2)
        top = c.caretctl("top", "--json", "--iterations", str(secs + 2), background=True)
        time.sleep(2)
        a0, t0 = cpu_s(d.pid), time.time()
        time.sleep(secs)
        a1, t1 = cpu_s(d.pid), time.time()
        top.wait(timeout=30)
        idle0 = cpu_s(d.pid)
        time.sleep(secs)
        idle1 = cpu_s(d.pid)
        print("caretd CPU with %d watched processes: %.2f %% of a core (unwatched: %.2f %%)"
              % (n, 100 * (a1 - a0) / (t1 - t0), 100 * (idle1 - idle0) / secs))
    finally:
        c.cleanup()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100, 10)
