# SPDX-License-Identifier: Apache-2.0
"""`record`'s options of `ros2 trace` (issue 22) on a real session: -u
event selection and --context, read back with babeltrace2 (CARET's
initialization events are always kept), and kernel events (-k,
--syscall, --subbuffer-size-kernel): where the kernel tracer is missing
(the test's session daemon runs --no-kernel, as this machine has no
lttng-modules) a clear error and nothing left behind; only a user LTTng
lets trace the kernel (root, the tracing group) gets that far."""
import grp
import os
import subprocess
import unittest

from harness import CARETCTL, Ctx, lttng, read_trace, wait_line
from hostile import as_user, temp_user

CARET_CONTEXTS = {"vpid", "vtid", "procname"}


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


class ParseTest(unittest.TestCase):
    """Decided by caretctl alone (no caretd at this socket)."""

    def ctl(self, *args):
        return run([CARETCTL, "--socket", "/nonexistent-caret/s", "record"] + list(args))

    def test_list_shows_the_selection(self):
        r = self.ctl("-l", "-u", "ros2:callback_start", "ros2:callback_end",
                     "--context", "pid", "perf:thread:instructions", "vpid",
                     "-k", "sched_switch", "--syscall", "openat", "close",
                     "--subbuffer-size-kernel", "256K", "-p", "/tmp/x")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("UST events enabled (-u list):\n  ros2:callback_start\n"
                      "  ros2:callback_end\n", out)
        # CARET's init events are added and marked; ros2:* is not enabled
        self.assertRegex(out, r"(?m)^  ros2_caret:caret_init  \(added")
        self.assertRegex(out, r"(?m)^  ros2_caret:rcl_node_init  \(added")
        self.assertNotRegex(out, r"(?m)^  ros2:\*$")
        # what the analyzer reads and -u leaves out is named
        self.assertRegex(out, r"not recorded \(runtime events caret_analyze reads\):\n"
                              r"(  .*\n)*  ros2:rclcpp_publish\n")
        self.assertNotRegex(out.split("not recorded")[1].split("context")[0],
                            r"callback_start")
        ctx = out.split("context fields:\n")[1].split("kernel channel")[0]
        self.assertEqual(ctx.split("\n"), ["  vpid", "  vtid", "  procname",
                                            "  pid  (kernel events only)",
                                            "  perf:thread:instructions  (UST events only)", ""])
        self.assertIn("kernel channel kchan: global buffers, discard mode, 2 sub-buffers "
                      "of 262144 bytes", out)
        self.assertIn("kernel events enabled:\n  sched_switch\n", out)
        self.assertIn("system calls enabled:\n  openat\n  close\n", out)

    def test_forms_of_the_list_options(self):
        # --ust=NAME, -uNAME, repeated options add up, `-u` alone: init only
        r = self.ctl("-l", "--ust=ros2:rmw_take", "-uros2:callback_end", "-u", "ros2:x", "y:z")
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = r.stdout.split("UST events enabled (-u list):\n")[1].split("\n")
        self.assertEqual(ev[:4], ["  ros2:rmw_take", "  ros2:callback_end", "  ros2:x",
                                  "  y:z"])
        r = self.ctl("-l", "-u")
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = r.stdout.split("UST events enabled (-u list):\n")[1].split("not recorded")[0]
        self.assertTrue(all("(added" in line for line in ev.strip().split("\n")), ev)
        # a pattern covering init events adds none of those
        r = self.ctl("-l", "-u", "ros2_caret:*", "ros2:*")
        self.assertNotIn("(added", r.stdout)
        self.assertNotIn("not recorded (runtime events", r.stdout)
        # no -u: CARET's list, unchanged
        r = self.ctl("-l")
        self.assertIn("UST events enabled (full list):\n  ros*\n  agnocast*\n", r.stdout)
        self.assertNotIn("kernel channel", r.stdout)

    def test_usage_errors(self):
        cases = [
            (["-u", "a b"], "invalid -u/--ust 'a b'"),
            (["-u", "x" * 256], "1 to 255 bytes"),
            (["--ust=ros2:[ab]"], "invalid -u/--ust"),
            (["--context", "bogus"], "invalid --context 'bogus': not a context"),
            (["--context", "vpid", "pid"], "pid is a context of kernel events only"),
            (["-k", "sched$"], "invalid -k/--kernel"),
            (["--syscall=a/b"], "invalid --syscall"),
            (["-k", "x", "--subbuffer-size-kernel", "3000"], "power of two"),
            (["-k", "x", "--subbuffer-size-kernel", "8G"], "to 1G"),
            (["-u", "ros2:x", "--light"], "--light is a list of UST events"),
            (["-k", "x", "--snapshot"], "do not go with --snapshot or --rotate-*"),
            (["--syscall", "x", "--rotate-size", "1M", "--keep", "2"],
             "do not go with --snapshot or --rotate-*"),
            (["--set-url", "net://h", "--all-hosts", "--context", "vuid"],
             "are for one host's recording"),
        ]
        for args, msg in cases:
            r = self.ctl("--immediate", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)

    def test_one_output(self):
        """-p/--path, -o/--output and --set-url name one place the trace
        goes: two different ones are a usage error, said (the same
        directory twice is not)."""
        cases = [
            (["--set-url", "net://h", "-p", "/tmp/x"], "--set-url and --path name two outputs"),
            (["-p", "/tmp/x", "-o", "/tmp/y"], "-p/--path and -o/--output name two directories"),
        ]
        for args, msg in cases:
            r = self.ctl("--immediate", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        r = self.ctl("-l", "-p", "/tmp/x", "-o", "/tmp/x")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_help_covers_them(self):
        r = self.ctl("--help")
        for opt in ("-u, --ust", "--context", "-k, --kernel", "--syscall",
                    "--subbuffer-size-kernel"):
            self.assertIn(opt, r.stdout)

    def test_bash_completion_of_the_lists(self):
        comp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                            "caretctl", "caretctl.bash")
        script = ('source %s; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _caretctl; '
                  'echo "${COMPREPLY[*]}"; }; t caretctl record --context pid vp; '
                  't caretctl record -k sched_switch sched_w; t caretctl record -u ros2_c; '
                  't caretctl record -u x --sys' % comp)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        ctx, kern, ust, opt = r.stdout.splitlines()
        self.assertEqual(ctx.split(), ["vpid", "vppid"])
        self.assertEqual(kern.split(), ["sched_waking", "sched_wakeup"])
        self.assertIn("ros2_caret:*", ust.split())
        self.assertEqual(opt.split(), ["--syscall"])


class RecordTest(unittest.TestCase):
    def setUp(self):
        self.c = Ctx(self._testMethodName)
        self.traces = os.path.join(self.c.tmp, "traces")

    def tearDown(self):
        self.c.cleanup()

    def sessions(self):
        return lttng("list")

    def test_ust_selection_and_context_in_the_trace(self):
        self.c.caretd()
        p = self.c.workload("--name", "picky", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "picky",
                            "-p", self.traces, "-u", "ros2:callback_start",
                            "ros2:callback_start", "--context", "pthread_id", "vpid", "vuid",
                            "pthread_id")
        # what -u leaves out that the analyzer reads is said
        self.assertIn("-u leaves out", r.stderr)
        self.assertIn("ros2:callback_end", r.stderr)
        evs = [e for e in read_trace(os.path.join(self.traces, "picky")) if e.vpid == p.pid]
        names = {e.name for e in evs}
        # CARET's initialization events came (replayed), the selected
        # runtime event, and nothing else
        self.assertIn("ros2_caret:caret_init", names)
        self.assertIn("ros2_caret:rcl_node_init", names)
        self.assertIn("ros2:callback_start", names)
        self.assertEqual({n for n in names if not n.startswith("ros2_caret:")},
                         {"ros2:callback_start"}, names)
        self.assertNotIn("ros2_caret:dds_write", names)
        for e in evs:
            self.assertTrue(CARET_CONTEXTS | {"pthread_id", "vuid"} <= set(e.ctx), e)
            self.assertEqual(e.ctx["vuid"], os.getuid())

    def test_ros2_star_gets_one_variant_of_each_init_event(self):
        # -u ros2:* (ros2 trace's way) with CARET's init events added: like
        # CARET's own list, never both ros2:X and ros2_caret:X of one
        # object (the analyzer would see two)
        self.c.caretd()
        p = self.c.workload("--name", "both", "--pubs", "1", "--subs", "1")
        wait_line(p, r"^ready pid=%d" % p.pid)
        self.c.caretctl("record", "--immediate", "--duration", "0.5", "-s", "star",
                        "-p", self.traces, "-u", "ros2:*")
        names = {e.name for e in read_trace(os.path.join(self.traces, "star"))
                 if e.vpid == p.pid}
        self.assertIn("ros2_caret:rcl_node_init", names)
        self.assertIn("ros2:callback_start", names)
        for n in names:
            if n.startswith("ros2_caret:"):
                self.assertNotIn("ros2:" + n.split(":", 1)[1], names, n)

    def test_kernel_without_kernel_tracer_is_a_clear_error_and_leaves_nothing(self):
        self.c.caretd()
        before = self.sessions()
        for args in (["-k", "sched_switch"], ["--syscall", "openat"],
                     ["-k", "sched_switch", "--subbuffer-size-kernel", "1M"]):
            r = self.c.caretctl("record", "--immediate", "--duration", "1", "-s", "kern",
                                "-p", self.traces, *args, check=False)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("kernel tracer not available", r.stderr)
            self.assertIn("lttng-modules", r.stderr)
            self.assertNotIn("kern", self.sessions().replace(before, ""))
            self.assertFalse(os.path.exists(self.traces), os.listdir(self.c.tmp))

    def test_kernel_recording_is_not_armed_before_enter(self):
        # its kernel channel would record from the arming on: nothing is
        # created until Enter, so stdin ending leaves nothing either
        d = self.c.caretd()
        r = self.c.caretctl("record", "-s", "karm", "-p", self.traces, "-k", "sched_switch",
                            check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("standard input ended before Enter", r.stderr)
        self.assertFalse(os.path.exists(self.traces))
        self.assertNotIn("armed", d.err_text())
        self.assertNotIn("karm", self.sessions())

    def test_kernel_right_is_the_users_not_caretds(self):
        """A member of caretd's group who may not trace the kernel (not in
        LTTng's tracing group) is refused before LTTng is asked; one in it
        gets as far as LTTng lets them (here: no kernel tracer)."""
        tracing = grp.getgrnam("tracing").gr_gid
        with temp_user() as pw:
            self.c.caretd("--group", pw.pw_name)
            os.chmod(self.c.tmp, 0o755)
            out = os.path.join(self.c.tmp, "u")
            os.mkdir(out)
            os.chown(out, pw.pw_uid, pw.pw_gid)
            ctl = [CARETCTL, "--socket", self.c.sock, "record", "--immediate", "--duration",
                   "1", "-p", out, "-s", "k", "-k", "sched_switch"]
            r = as_user(pw, ctl)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("uid %d may not record kernel events" % pw.pw_uid, r.stderr)
            self.assertIn("tracing", r.stderr)
            self.assertEqual(os.listdir(out), [])
            # the same user in LTTng's group: the right is theirs
            r = subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                                "--groups=%d" % tracing] + ctl, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertNotIn("may not record kernel events", r.stderr)
            self.assertIn("kernel tracer not available", r.stderr)
            self.assertEqual(os.listdir(out), [])


class NothingRecordedTest(unittest.TestCase):
    """Issue 22 D8: `record` stopped before Enter (stdin ended, Ctrl-C)
    removes what it created, parents included, and nothing else, with the
    requester's rights."""

    def setUp(self):
        self.c = Ctx(self._testMethodName)
        if "users" not in self._testMethodName:
            self.c.caretd()

    def tearDown(self):
        self.c.cleanup()

    def armed(self, argv, before_eof, user=None):
        """record without --immediate, its stdin a pipe: once it asks for
        Enter, before_eof() runs, then stdin ends."""
        pre = [] if user is None else ["setpriv", "--reuid=%d" % user.pw_uid,
                                       "--regid=%d" % user.pw_gid, "--clear-groups"]
        p = subprocess.Popen(pre + [CARETCTL, "--socket", self.c.sock, "record"] + argv,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=self.c.env(agent=False))
        line = p.stdout.readline()
        self.assertIn("press Enter", line, p.stderr.read() if not line else line)
        before_eof()
        p.stdin.close()
        err = p.stderr.read()
        p.stdout.close()
        p.stderr.close()
        self.assertEqual(p.wait(30), 2, err)
        self.assertIn("standard input ended before Enter", err)

    def test_parents_made_go_and_what_was_there_stays(self):
        kept = os.path.join(self.c.tmp, "kept")
        os.mkdir(kept)
        deep = os.path.join(kept, "a", "b", "c")
        self.armed(["-s", "never", "-p", deep], lambda: self.assertTrue(
            os.path.isdir(os.path.join(deep, "never"))))
        # a, b, c and the trace tree went; the directory that was there stays
        self.assertEqual(os.listdir(kept), [])

    def test_a_parent_that_got_something_meanwhile_stays(self):
        deep = os.path.join(self.c.tmp, "x", "y")
        other = os.path.join(self.c.tmp, "x", "other")
        self.armed(["-s", "never", "-p", deep], lambda: os.mkdir(other))
        # y (made, empty) went; x holds another's directory: kept
        self.assertEqual(os.listdir(os.path.join(self.c.tmp, "x")), ["other"])

    def test_ctrl_c_removes_the_parents_too(self):
        deep = os.path.join(self.c.tmp, "p", "q")
        p = subprocess.Popen([CARETCTL, "--socket", self.c.sock, "record", "-s", "never",
                              "-p", deep], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=self.c.env(agent=False))
        self.assertIn("press Enter", p.stdout.readline())
        p.send_signal(2)
        err = p.stderr.read()
        for f in (p.stdin, p.stdout, p.stderr):
            f.close()
        self.assertEqual(p.wait(30), 130, err)
        self.assertIn("nothing was recorded", err)
        self.assertFalse(os.path.exists(os.path.join(self.c.tmp, "p")))

    def test_removal_is_the_users_never_roots(self):
        """The user swaps a parent caretd made for a symlink to a root-owned
        empty directory while the recording waits for Enter: the removal,
        as the user, cannot take root's directory."""
        victim = os.path.join(self.c.tmp, "victim")
        os.makedirs(os.path.join(victim, "b"))
        os.chmod(self.c.tmp, 0o755)
        with temp_user() as pw:
            home = os.path.join(self.c.tmp, "home")
            os.mkdir(home)
            os.chown(home, pw.pw_uid, pw.pw_gid)
            deep = os.path.join(home, "a", "b")

            def swap():
                # the user's own moves: a aside, a symlink to root's dir
                as_user(pw, ["mv", os.path.join(home, "a"), os.path.join(home, "moved")],
                        check=True)
                as_user(pw, ["ln", "-s", victim, os.path.join(home, "a")], check=True)

            self.c.caretd("--group", pw.pw_name)
            self.armed(["-s", "never", "-p", deep], swap, user=pw)
            self.assertTrue(os.path.isdir(os.path.join(victim, "b")))
            # the moved tree (the trace directory is followed by its inode
            # only: it stays, nothing of root's was touched)
            self.assertTrue(os.path.islink(os.path.join(home, "a")))


if __name__ == "__main__":
    unittest.main()
