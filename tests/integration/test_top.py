# SPDX-License-Identifier: Apache-2.0
"""caretctl top (issue 35) against live stand-in processes whose rates and
durations are known: a 10 Hz timer whose callback takes 5 ms (the
stand-in's --timer-work-ms: the user callback between callback_start and
callback_end, as rclcpp's GenericTimer::execute_callback), a 20 Hz
publisher; the watch lapses after the lease; another user's processes are
neither shown nor watched; the refreshed view in a real terminal (tmux)."""
import glob
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import CARETCTL, STANDIN, SystemTest, wait_line
from seg_layout import seg_field
import test_sessions_users as users

RATE_TOL, DUR_TOL = 0.05, 0.10


def one_json(out):
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    assert len(lines) == 1, out
    o = lines[0]
    assert (o["v"], o["type"], o["cmd"]) == (1, "result", "top"), o
    return o["top"]


class TopTest(SystemTest):
    def setUp(self):
        super().setUp()
        self.c.caretd()

    def ticker(self, name="ticker"):
        p = self.c.workload("--name", name, "--pubs", "0", "--timers", "1",
                            "--period-ms", "100", "--timer-work-ms", "5")
        wait_line(p, r"^ready pid=%d" % p.pid)
        return p

    def watched(self, pid):
        [seg] = glob.glob("/dev/shm/%s.%d.*" % (self.c.prefix, pid))
        with open(seg, "rb") as f:
            return seg_field(f.read(4096), "watched")

    def assert_ticker_row(self, top, pid, node="/ticker"):
        rows = [r for r in top["callbacks"] if r["pid"] == pid]
        self.assertEqual(len(rows), 1, top)
        r = rows[0]
        self.assertEqual((r["kind"], r["node"], r["topic"]), ("timer", node, None), r)
        self.assertIn("on_timer_0", r["symbol"])
        self.assertAlmostEqual(r["rate_hz"], 10.0, delta=10.0 * RATE_TOL, msg=r)
        self.assertAlmostEqual(r["mean_ns"], 5e6, delta=5e6 * DUR_TOL, msg=r)
        # p99 in the histogram's bucket of 5 ms ([2^22, 2^23) ns), never above the max
        self.assertGreaterEqual(r["p99_ns"], 1 << 22, r)
        self.assertLessEqual(r["p99_ns"], r["max_ns"], r)
        self.assertGreaterEqual(r["max_ns"], 5e6, r)
        self.assertAlmostEqual(r["cpu"], 0.05, delta=0.05 * (RATE_TOL + DUR_TOL), msg=r)
        return r

    def test_once_json_reads_known_rates_and_durations(self):
        t = self.ticker()
        talker = self.c.workload("--name", "talker", "--pubs", "1", "--rate", "20")
        wait_line(talker, r"^ready pid=%d" % talker.pid)
        self.assertEqual(self.watched(t.pid), 0)
        # 4 s: 40 calls, one more or less is 2.5 %
        r = self.c.caretctl("top", "--once", "--json", "--delay", "4s")
        top = one_json(r.stdout)
        self.assertGreaterEqual(top["interval_ms"], 3900, top)
        self.assertEqual(top["processes"], 2, top)
        self.assert_ticker_row(top, t.pid)
        pubs = [p for p in top["topics"] if p["pid"] == talker.pid]
        self.assertEqual([(p["dir"], p["topic"], p["node"]) for p in pubs],
                         [("pub", "/standin/topic_0", "/talker")], top)
        self.assertAlmostEqual(pubs[0]["rate_hz"], 20.0, delta=20.0 * RATE_TOL)
        # filters: the node pattern keeps the ticker's rows only
        r = self.c.caretctl("top", "--once", "--json", "--node", "^/tick")
        top = one_json(r.stdout)
        self.assertEqual({x["pid"] for x in top["callbacks"]}, {t.pid}, top)
        self.assertEqual(top["topics"], [], top)
        r = self.c.caretctl("top", "--once", "--json", "--topic", "topic_0$")
        top = one_json(r.stdout)
        self.assertEqual(top["callbacks"], [], top)
        self.assertEqual({x["pid"] for x in top["topics"]}, {talker.pid}, top)
        # caretctl gone: the lease (--delay + 5 s) lapses and the hooks stop counting
        self.assertNotEqual(self.watched(t.pid), 0)
        deadline = time.time() + 20
        while self.watched(t.pid) and time.time() < deadline:
            time.sleep(0.2)
        self.assertEqual(self.watched(t.pid), 0)

    def test_take_latency_on_this_host(self):
        """A listener whose single-threaded executor runs a 100 ms timer that
        sleeps W = 60 ms: a message arriving while it sleeps waits for its
        end, so over a 23 Hz talker (a rate whose phase sweeps the timer's)
        the latency's max is W (plus delivery), its mean about 0.6 x W/2.
        Its DDS discovers this host only (ROS_LOCALHOST_ONLY=1, as the
        stand-in's loopback-only CycloneDDS does anyway): shown. The same
        listener without it: null, its writers might be elsewhere."""
        w_ms = 60
        talker = self.c.workload("--name", "talker", "--pubs", "1", "--rate", "23")
        near = self.c.workload("--name", "near", "--pubs", "0", "--subs", "1", "--timers", "1",
                               "--period-ms", "100", "--timer-work-ms", str(w_ms),
                               extra_env={"ROS_LOCALHOST_ONLY": "1"})
        far = self.c.workload("--name", "far", "--pubs", "0", "--subs", "1")
        for p in (talker, near, far):
            wait_line(p, r"^ready pid=%d" % p.pid)
        r = self.c.caretctl("top", "--once", "--json", "--delay", "4s",
                            "--topic", "topic_0$")
        top = one_json(r.stdout)
        rows = {x["pid"]: x for x in top["topics"]}
        self.assertEqual(rows[talker.pid]["dir"], "pub", top)
        self.assertNotIn("latency", rows[talker.pid], top)
        self.assertEqual(rows[far.pid]["dir"], "sub", top)
        self.assertIsNone(rows[far.pid]["latency"], top)
        row = rows[near.pid]
        lat = row["latency"]
        self.assertIsNotNone(lat, row)
        print("latency over %d takes: mean %.1f ms, p99 %.1f ms, max %.1f ms, %d apart" %
              (row["count"], lat["mean_ns"] / 1e6, lat["p99_ns"] / 1e6, lat["max_ns"] / 1e6,
               lat["apart"]))
        # every take stamped by a writer on this host's clock: none apart
        self.assertGreaterEqual(row["count"], 80, row)
        self.assertEqual(lat["apart"], 0, row)
        self.assertEqual(lat["n"], row["count"], row)
        w = w_ms * 1e6
        # max: the whole sleep, give or take delivery (+20 ms) and the sweep's
        # coarseness (-20 %)
        self.assertGreaterEqual(lat["max_ns"], 0.8 * w, row)
        self.assertLessEqual(lat["max_ns"], w + 20e6, row)
        # mean: 0.6 of the arrivals wait W/2 on average (0.3 W), +- half of it
        self.assertGreaterEqual(lat["mean_ns"], 0.15 * w, row)
        self.assertLessEqual(lat["mean_ns"], 0.45 * w, row)
        # p99: in the max's power-of-two bucket [2^25, 2^26) ns, never above it
        self.assertGreaterEqual(lat["p99_ns"], 1 << 25, row)
        self.assertLessEqual(lat["p99_ns"], lat["max_ns"], row)
        # the terminal's topic view: LAT, LAT P99, LAT MAX, APART columns
        r = self.c.caretctl("top", "--once", "--topic", "topic_0$")

        def sub_line(pid):
            [line] = [l for l in r.stdout.splitlines() if l.split()[:3:2] == [str(pid), "sub"]]
            return line.split()
        f = sub_line(near.pid)
        self.assertEqual((f[4][-2:], f[5][-2:], f[6][-2:], f[7]), ("ms", "ms", "ms", "0"), f)
        self.assertTrue(0.8 * w_ms <= float(f[6][:-2]) <= w_ms + 20, f)
        self.assertEqual(sub_line(far.pid)[4:8], ["-", "-", "-", "-"], r.stdout)
        # and says why the far listener's columns are dashes
        self.assertIn("ROS_LOCALHOST_ONLY=1 lets top measure it", r.stdout)

    def test_usage_errors(self):
        for args in (["--sort", "bogus"], ["--node", "("], ["--delay", "0.5s"],
                     ["--iterations", "0"], ["extra"]):
            r = self.c.caretctl("top", *args, check=False)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
        r = self.c.caretctl("top", "--help")
        self.assertIn("--once", r.stdout)

    def test_bash_completion(self):
        comp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                            "caretctl", "caretctl.bash")
        script = ('source %s; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _caretctl; '
                  'echo "${COMPREPLY[*]}"; }; t caretctl to; t caretctl top --so; '
                  't caretctl top --sort p' % comp)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        cmd, opt, key = r.stdout.splitlines()
        self.assertEqual((sorted(cmd.split()), sorted(opt.split()), key.split()),
                         (["top", "topic-summary", "topics"], ["--socket", "--sort"], ["p99"]))

    @unittest.skipUnless(shutil.which("tmux"), "tmux is not installed (make deps)")
    def test_terminal_view_in_tmux(self):
        t = self.ticker()
        env = self.c.env(agent=False)
        sess = "caret-top-%d" % os.getpid()
        cmd = "%s --socket %s top --sort rate" % (CARETCTL, self.c.sock)
        subprocess.run(["tmux", "-L", sess, "new-session", "-d", "-s", sess, "-x", "160",
                        "-y", "40", "env", "CARET_SHM_PREFIX=" + env["CARET_SHM_PREFIX"],
                        "sh", "-c", cmd + "; sleep 30"], check=True, env=env)
        try:
            screen, deadline = "", time.time() + 20
            while time.time() < deadline:
                screen = subprocess.run(["tmux", "-L", sess, "capture-pane", "-p", "-t", sess],
                                        capture_output=True, text=True).stdout
                if "on_timer_0" in screen and "interval 1" in screen:
                    break
                time.sleep(0.3)
            self.assertIn("sorted by rate", screen)
            row = [l for l in screen.splitlines() if "on_timer_0" in l]
            self.assertEqual(len(row), 1, screen)
            f = row[0].split()
            self.assertEqual((int(f[0]), f[1], f[2]), (t.pid, "/ticker", "timer"), row)
            # a 1 s window holds 9 to 11 calls of a 10 Hz timer
            self.assertTrue(8.5 <= float(f[3]) <= 11.5, row)
            self.assertTrue(f[4].endswith("ms") and 4.5 <= float(f[4][:-2]) <= 5.5, row)
            self.assertIn("keys: c cpu", screen)
            # a key sorts at once, without Enter
            subprocess.run(["tmux", "-L", sess, "send-keys", "-t", sess, "p"], check=True)
            deadline = time.time() + 5
            while time.time() < deadline and "sorted by p99" not in screen:
                time.sleep(0.1)
                screen = subprocess.run(["tmux", "-L", sess, "capture-pane", "-p", "-t", sess],
                                        capture_output=True, text=True).stdout
            self.assertIn("sorted by p99", screen)
            # q ends it, the terminal as it was (echo back on)
            subprocess.run(["tmux", "-L", sess, "send-keys", "-t", sess, "q"], check=True)
            deadline = time.time() + 10
            while time.time() < deadline:
                # caretctl's own command line, not the shell's around it
                ps = subprocess.run(["pgrep", "-f", "^%s .*top --sort rate" % CARETCTL],
                                    capture_output=True)
                if ps.returncode != 0:
                    break
                time.sleep(0.2)
            self.assertNotEqual(ps.returncode, 0, "caretctl top still runs after q")
            subprocess.run(["tmux", "-L", sess, "send-keys", "-t", sess, "echoed"], check=True)
            time.sleep(0.3)
            screen = subprocess.run(["tmux", "-L", sess, "capture-pane", "-p", "-t", sess],
                                    capture_output=True, text=True).stdout
            self.assertIn("echoed", screen)
        finally:
            subprocess.run(["tmux", "-L", sess, "kill-server"], capture_output=True)


class TopUsersTest(users.UsersTest):
    """An unprivileged member of caretd's group (UsersTest's user and
    caretd): sees and watches only their own processes; root sees all."""

    def test_top_shows_no_other_users_process(self):
        mine = self.c.spawn([STANDIN, "--domain", self.c.domain, "--name", "theirs",
                             "--pubs", "1", "--rate", "10"], preexec_fn=self.drop)
        wait_line(mine, r"^ready pid=%d" % mine.pid)
        roots = self.c.workload("--name", "roots", "--pubs", "1", "--rate", "10")
        wait_line(roots, r"^ready pid=%d" % roots.pid)
        top = one_json(self.as_user("top", "--once", "--json").stdout)
        self.assertEqual(top["processes"], 1, top)
        pids = {r["pid"] for r in top["callbacks"] + top["topics"]}
        self.assertEqual(pids, {mine.pid}, top)
        [seg] = glob.glob("/dev/shm/%s.%d.*" % (self.c.prefix, roots.pid))
        with open(seg, "rb") as f:
            self.assertEqual(seg_field(f.read(4096), "watched"), 0)
        top = one_json(self.c.caretctl("top", "--once", "--json").stdout)
        self.assertEqual(top["processes"], 2, top)
        self.assertEqual({r["pid"] for r in top["callbacks"]}, {mine.pid, roots.pid}, top)


# UsersTest's own tests run in test_sessions_users.py, not again here
for _name in dir(users.UsersTest):
    if _name.startswith("test_") and _name not in vars(TopUsersTest):
        setattr(TopUsersTest, _name, None)


if __name__ == "__main__":
    unittest.main()
