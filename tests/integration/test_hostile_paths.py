# SPDX-License-Identifier: Apache-2.0
"""Issue 30 H1 and H6, the rule "root touches only what root alone
controls" on the paths a group member names or can write:

- H1: at stop, caretd (root) gave every file below the member's trace
  directory to the member (chown -R as root): a root file or another
  user's 0600 file they moved in, or a whole tree reached through a
  parent directory they swapped for a symbolic link, became theirs. Now
  nothing is chowned: LTTng writes the trace as the member already.
- H6: `snapshot -o DIR` was judged with access() (the real uid, root's)
  in the requester's helper: every directory passed and a host-wide
  replay pass started before LTTng refused. Now a DIR the member cannot
  write is refused before any pass."""
import errno
import grp
import json
import os
import subprocess
import time
import unittest

from harness import CARETCTL, Session, lttng, wait_line
from hostile import HostileBase, as_user, temp_user


# A snapshot request as caretctl would send it, but with the output path
# as given (caretctl resolves symbolic links first): prints caretd's
# answer, exits 1 on an error.
RAW_SNAPSHOT = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall((json.dumps({"v": 1, "cmd": "snapshot", "session": sys.argv[2],
                       "output": sys.argv[3]}) + "\\n").encode())
line = s.makefile().readline()
print(line)
sys.exit(1 if json.loads(line).get("type") == "error" else 0)
"""

# Any request, as given: prints caretd's answer, exits 1 on an error.
RAW_REQUEST = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\\n").encode())
line = s.makefile().readline()
print(line)
sys.exit(1 if json.loads(line).get("type") == "error" else 0)
"""


def setpriv_groups(pw, group):
    """Runs as pw with group as its only supplementary group."""
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
            "--groups=%d" % grp.getgrnam(group).gr_gid]


def owners(top):
    """path -> (uid, gid, mode) of top and everything below it (no link
    followed)."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in [""] + dirs + files:
            p = os.path.join(d, n) if n else d
            st = os.lstat(p)
            out[p] = (st.st_uid, st.st_gid, st.st_mode & 0o7777)
    return out


class Paths(HostileBase):
    def home(self, pw, name="home"):
        """A directory of the member's (0755) in the test's tmp."""
        h = os.path.join(self.c.tmp, name)
        os.mkdir(h, 0o755)
        os.chown(h, pw.pw_uid, pw.pw_gid)
        return h

    def ctl(self):
        return [CARETCTL, "--socket", self.c.sock]

    def record_as(self, pw, path, name, *args):
        """`caretctl record --immediate` as pw, running until stopped."""
        rec = self.c.spawn(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                            "--clear-groups"] + self.ctl() +
                           ["record", "--immediate", "-p", path, "-s", name] + list(args),
                           agent=False)
        wait_line(rec, r"processes recording", timeout=60)
        self.assertTrue(os.path.isdir(os.path.join(path, name)))
        return rec

    def stop_as(self, pw, name, rec):
        r = as_user(pw, self.ctl() + ["stop", "-s", name])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(rec.wait(60), 0, rec.out_text() + rec.err_text())

    def test_h1a_root_file_moved_into_the_trace_stays_roots(self):
        """H1: a root file in the member's own directory (an
        authorized_keys, say) that they rename into their trace directory
        while recording is still root's (and 0644) after the stop; the
        trace LTTng wrote is the member's without any chown."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            keys = os.path.join(home, "authorized_keys")
            with open(keys, "w") as f:
                f.write("ssh-ed25519 AAAA root@host\n")
            os.chmod(keys, 0o644)
            app = self.c.workload("--name", "rootapp", "--pubs", "1", "--rate", "20")
            rec = self.record_as(pw, home, "ak")
            trace = os.path.join(home, "ak")
            moved = os.path.join(trace, "authorized_keys")
            as_user(pw, ["mv", keys, moved], check=True)
            time.sleep(0.5)  # some packets from the root process
            self.stop_as(pw, "ak", rec)
            app.kill()
            st = os.lstat(moved)
            self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o777), (0, 0, 0o644),
                             "root's file moved into the trace became uid %d's" % st.st_uid)
            # what LTTng wrote is theirs already: nothing needed a chown
            # (root's process is not in it: a member's recording sees only
            # their own processes, issue 30 H7, test_hostile_events)
            tree = owners(trace)
            del tree[moved]
            self.assertFalse(any("/ust/uid/0/" in p for p in tree), sorted(tree))
            for p, (uid, gid, _) in tree.items():
                self.assertEqual((uid, gid), (pw.pw_uid, pw.pw_gid), p)
            self.assertNotIn("cannot give", d.err_text())
        d.send_signal(15)
        d.finish(10)

    def test_h1b_other_users_secret_moved_in_stays_theirs(self):
        """H1: another user's 0600 file in a directory the member's group
        may write (no sticky bit) is renamed into the trace directory
        while recording: after the stop it is still that user's, 0600,
        and the member cannot read it."""
        with temp_user() as pw, temp_user() as victim:
            d = self.group_caretd(pw)
            home = self.home(pw)
            shared = os.path.join(self.c.tmp, "shared")
            os.mkdir(shared)
            os.chown(shared, victim.pw_uid, pw.pw_gid)
            os.chmod(shared, 0o2770)  # group-writable, not sticky
            secret = os.path.join(shared, "secret")
            with open(secret, "w") as f:
                f.write("the victim's secret\n")
            os.chown(secret, victim.pw_uid, victim.pw_gid)
            os.chmod(secret, 0o600)
            rec = self.record_as(pw, home, "sec")
            moved = os.path.join(home, "sec", "secret")
            as_user(pw, ["mv", secret, moved], check=True)
            self.stop_as(pw, "sec", rec)
            st = os.lstat(moved)
            self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o777),
                             (victim.pw_uid, victim.pw_gid, 0o600),
                             "the victim's file moved into the trace became uid %d's" %
                             st.st_uid)
            r = as_user(pw, ["cat", moved])
            self.assertNotEqual(r.returncode, 0, r.stdout)
        d.send_signal(15)
        d.finish(10)

    def test_h1c_parent_swapped_for_a_symlink_before_stop(self):
        """H1: just before the stop the member renames a parent of their
        trace directory away and puts a symbolic link in its place, to a
        directory holding a directory of theirs named as the session
        (the top check passes) with root's 0700 tree and
        .ssh-root/authorized_keys in it: nothing there changes owner."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            par = os.path.join(home, "p")
            as_user(pw, ["mkdir", par], check=True)
            # the target: a directory of theirs named like the session,
            # holding root's things (root put them in their directory)
            target = os.path.join(self.c.tmp, "victim")
            os.mkdir(target, 0o755)
            top = os.path.join(target, "swp")
            os.mkdir(top, 0o755)
            os.chown(top, pw.pw_uid, pw.pw_gid)
            os.makedirs(os.path.join(top, "rootonly", "deep"), 0o700)
            with open(os.path.join(top, "rootonly", "deep", "f"), "w") as f:
                f.write("root's\n")
            ssh = os.path.join(top, ".ssh-root")
            os.mkdir(ssh, 0o700)
            with open(os.path.join(ssh, "authorized_keys"), "w") as f:
                f.write("ssh-ed25519 AAAA root@host\n")
            before = owners(top)
            rec = self.record_as(pw, par, "swp")
            as_user(pw, ["mv", par, par + ".old"], check=True)
            as_user(pw, ["ln", "-s", target, par], check=True)
            self.stop_as(pw, "swp", rec)
            self.assertEqual(owners(top), before)
            self.assertEqual(os.lstat(os.path.join(ssh, "authorized_keys")).st_uid, 0)
        d.send_signal(15)
        d.finish(10)

    def test_h6_snapshot_output_judged_with_the_requesters_rights(self):
        """H6: `caretctl snapshot -o DIR` by a member for a DIR of root's
        (0755) they cannot write, named or reached through a symbolic
        link of theirs: refused at once with EACCES and the directory
        named, and no replay pass starts for it; one of theirs is
        accepted."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            rootdir = os.path.join(self.c.tmp, "rootdir")
            os.mkdir(rootdir, 0o755)
            link = os.path.join(home, "link")
            as_user(pw, ["ln", "-s", rootdir, link], check=True)
            rec = self.record_as(pw, home, "fr", "--snapshot", "--snapshot-size", "256K")
            # caretctl resolves -o itself: the link goes as a raw request
            for out, raw in ((rootdir, False), (link, True)):
                t0 = time.time()
                if raw:
                    r = as_user(pw, ["/usr/bin/python3", "-c", RAW_SNAPSHOT, self.c.sock,
                                     "fr", out])
                else:
                    r = as_user(pw, self.ctl() + ["snapshot", "--json", "-o", out, "fr"])
                took = time.time() - t0
                self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("cannot write in %s" % out, r.stdout + r.stderr)
                self.assertIn(os.strerror(errno.EACCES), r.stdout + r.stderr)
                self.assertLess(took, 5, "the refusal took %.1f s" % took)
                self.assertNotIn("before a snapshot into %s" % out, d.err_text())
                self.assertEqual(os.listdir(rootdir), [])
            # their own directory is fine
            mine = os.path.join(home, "snaps")
            r = as_user(pw, self.ctl() + ["snapshot", "--json", "-o", mine, "fr"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            path = json.loads(r.stdout.strip().splitlines()[-1])["path"]
            self.assertTrue(path.startswith(mine + "/snapshot-1-"), path)
            self.stop_as(pw, "fr", rec)
        d.send_signal(15)
        d.finish(10)

    def test_stop_owner_not_judged_by_a_path_they_can_swap(self):
        """A session caretd did not start (root's, with the lttng CLI)
        writes below a directory the member's group may write (no sticky
        bit). caretd judged whose it is by lstat() of its output path, as
        root: the member renamed the parent away and put a directory of
        theirs of the same name in its place, and caretd stopped and
        destroyed root's session for them. Now LTTng says whose it is
        (the sessions it lists to the member as its client)."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            shared = os.path.join(self.c.tmp, "shared")
            os.mkdir(shared)
            os.chown(shared, 0, pw.pw_gid)
            os.chmod(shared, 0o2770)  # group-writable, not sticky
            run = os.path.join(shared, "run")
            os.mkdir(run, 0o755)
            s = Session("rootcli-" + self.c.tag[-6:], os.path.join(run, "rs"), ("ros2:*",))
            self.c.sessions.append(s)
            s.start()
            as_user(pw, ["mv", run, run + ".old"], check=True)
            as_user(pw, ["mkdir", "-p", os.path.join(run, "rs")], check=True)
            r = as_user(pw, self.ctl() + ["stop", "-s", s.name])
            self.assertNotEqual(r.returncode, 0, "the member stopped root's session: " +
                                r.stdout + r.stderr)
            self.assertIn("only root may stop it", r.stdout + r.stderr)
            self.assertIn(s.name, lttng("list"))
            # root still may
            self.assertEqual(self.c.caretctl("stop", "-s", s.name, check=False).returncode, 0)
            s.alive = False
        d.send_signal(15)
        d.finish(10)

    def test_stop_owner_of_a_forgotten_recording_is_lttngs_word(self):
        """A member's recording caretd forgot (killed, its file of
        recordings gone): the session daemon still counts the session as
        the member's, so they may stop it, and another member may not."""
        with temp_user() as pw, temp_user() as other:
            gname = "caret-g%s" % self.c.tag[-6:]
            subprocess.run(["groupadd", gname], check=True, capture_output=True)
            try:
                for u in (pw, other):
                    subprocess.run(["usermod", "-aG", gname, u.pw_name], check=True)
                d = self.c.caretd("--group", gname)
                home = self.home(pw)
                rec = self.c.spawn(setpriv_groups(pw, gname) + self.ctl() +
                                   ["record", "--immediate", "-p", home, "-s", "lost"],
                                   agent=False)
                wait_line(rec, r"processes recording", timeout=60)
                d.kill()
                d.wait()
                os.unlink(self.c.sock)
                os.unlink(self.c.sock + ".recordings")
                d = self.c.caretd("--group", gname)
                r = subprocess.run(setpriv_groups(other, gname) + self.ctl() +
                                   ["stop", "-s", "lost"], capture_output=True, text=True,
                                   timeout=60)
                self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("only root may stop it", r.stdout + r.stderr)
                r = subprocess.run(setpriv_groups(pw, gname) + self.ctl() +
                                   ["stop", "-s", "lost"], capture_output=True, text=True,
                                   timeout=60)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("stopped session lost", r.stdout)
                rec.kill()
                d.send_signal(15)
                d.finish(10)
            finally:
                subprocess.run(["groupdel", gname], capture_output=True)

    def test_walk_record_trace_directory(self):
        """The rule's walk, creating the trace directory (record -p, and
        the default path caretctl makes from $HOME): a symbolic link the
        member plants to root's directory, at the default path's .ros or
        inside -p, leads to a refusal as the member (EACCES) with nothing
        created there; root's empty directory moved in under the session's
        name is refused as not theirs (EPERM) and stays empty and root's;
        a symbolic link to an empty directory named like the session is
        refused (never followed). Swapping a parent while record runs:
        test_hostile_users b15."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            rootdir = os.path.join(self.c.tmp, "rootdir")
            os.mkdir(rootdir, 0o755)
            ctl = self.ctl() + ["record", "--immediate", "--duration", "0.1", "--timeout", "5"]
            env = dict(os.environ, HOME=home)
            env.pop("ROS_TRACE_DIR", None)
            env.pop("ROS_HOME", None)
            # the default path, ~/.ros/tracing, through a planted .ros
            as_user(pw, ["ln", "-s", rootdir, os.path.join(home, ".ros")], check=True)
            r = as_user(pw, ctl + ["-s", "dflt"], env=env)
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(os.strerror(errno.EACCES), r.stdout + r.stderr)
            # -p through a link inside it
            as_user(pw, ["ln", "-s", rootdir, os.path.join(home, "lnk")], check=True)
            r = as_user(pw, ctl + ["-p", os.path.join(home, "lnk", "deep"), "-s", "viap"])
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(os.strerror(errno.EACCES), r.stdout + r.stderr)
            self.assertEqual(os.listdir(rootdir), [])
            # root's empty directory moved in as the trace directory
            shared = os.path.join(self.c.tmp, "shared")
            os.mkdir(shared)
            os.chown(shared, 0, pw.pw_gid)
            os.chmod(shared, 0o2770)  # group-writable, not sticky
            rempty = os.path.join(shared, "rempty")
            os.mkdir(rempty, 0o777)  # even one anybody may write
            os.chmod(rempty, 0o777)
            as_user(pw, ["mv", rempty, os.path.join(home, "moved")], check=True)
            r = as_user(pw, ctl + ["-p", home, "-s", "moved"])
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("is not yours", r.stdout + r.stderr)
            st = os.lstat(os.path.join(home, "moved"))
            self.assertEqual((st.st_uid, os.listdir(os.path.join(home, "moved"))), (0, []))
            # a link named like the session, to an empty directory
            as_user(pw, ["ln", "-s", rootdir, os.path.join(home, "linked")], check=True)
            r = as_user(pw, ctl + ["-p", home, "-s", "linked"])
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(os.listdir(rootdir), [])
            self.assertTrue(os.path.islink(os.path.join(home, "linked")))
            self.assertIsNone(d.poll(), d.err_text())
        d.send_signal(15)
        d.finish(10)

    def test_walk_check_reads_as_the_caller(self):
        """The rule's walk, reading a trace for check: caretctl reads it
        itself, as whoever runs it; caretd has no request that reads a
        trace. A member's check of root's 0700 trace is refused
        (EACCES), through a link of theirs too, and caretd saw nothing."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            root_trace = os.path.join(self.c.tmp, "roottrace")
            os.mkdir(root_trace, 0o700)
            with open(os.path.join(root_trace, "metadata"), "w") as f:
                f.write("/* CTF 1.8 */\n")
            link = os.path.join(home, "t")
            as_user(pw, ["ln", "-s", root_trace, link], check=True)
            before = len(d.err_text())
            r = as_user(pw, [CARETCTL, "check", root_trace])
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(os.strerror(errno.EACCES), r.stdout + r.stderr)
            # a link at the top is not followed ("no 'metadata' file")
            r = as_user(pw, [CARETCTL, "check", link])
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("CTF 1.8", r.stdout + r.stderr)
            # no command of caretd's reads a trace
            r = as_user(pw, ["/usr/bin/python3", "-c", RAW_REQUEST, self.c.sock,
                             json.dumps({"v": 1, "cmd": "check", "path": root_trace})])
            self.assertNotEqual(r.returncode, 0, r.stdout)
            self.assertNotIn(root_trace, d.err_text()[before:])
        d.send_signal(15)
        d.finish(10)

    def test_walk_snapshot_output_listed_as_the_requester(self):
        """The rule's walk, a snapshot's output: after LTTng wrote the
        snapshot (as the member), caretd listed the output directory as
        root to say which one it was. In root's drop box (0733: anyone
        may write in it, only root list it), holding an entry of root's
        named like a later snapshot, caretd answered that entry's name: a
        name only root could read. Now the listing is the member's own:
        refused (EACCES), root's name never said."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            box = os.path.join(self.c.tmp, "dropbox")
            os.mkdir(box)
            os.chmod(box, 0o733)
            secret = "snapshot-1-20991231-235959-99"
            os.mkdir(os.path.join(box, secret), 0o700)
            rec = self.record_as(pw, home, "fr", "--snapshot", "--snapshot-size", "256K")
            r = as_user(pw, self.ctl() + ["snapshot", "--json", "-o", box, "fr"])
            self.assertNotIn(secret, r.stdout + r.stderr,
                             "caretd listed root's drop box for the member")
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(os.strerror(errno.EACCES), r.stdout + r.stderr)
            self.stop_as(pw, "fr", rec)
        d.send_signal(15)
        d.finish(10)

    def test_walk_rotation_chunks(self):
        """The rule's walk, a rotating recording's chunks (listed,
        measured and removed for --keep as the member, by descriptor):
        root's sticky directory (1777, named like the oldest chunk,
        holding root's file) moved into archives/, a link to root's
        chunk-named directory planted there, and the trace directory's
        parent swapped for a link to a tree of root's with a chunk of
        its own: after several rotations every file of root's is there,
        root's; the prunes that could not remove root's file (EPERM) or
        found another directory at the path (ESTALE) say so, and only the
        member's own bound suffers."""
        with temp_user() as pw:
            d = self.group_caretd(pw)
            home = self.home(pw)
            par = os.path.join(home, "p")
            as_user(pw, ["mkdir", par], check=True)
            old = "19990101T000000+0000-19990101T000001+0000-%d"
            # root's things: a sticky directory they may move, a tree
            shared = os.path.join(self.c.tmp, "shared")
            os.mkdir(shared)
            os.chown(shared, 0, pw.pw_gid)
            os.chmod(shared, 0o2770)
            sticky = os.path.join(shared, old % 0)
            os.mkdir(sticky)
            os.chmod(sticky, 0o1777)
            with open(os.path.join(sticky, "roots"), "w") as f:
                f.write("root's\n")
            target = os.path.join(self.c.tmp, "target")
            tchunk = os.path.join(target, "rot", "archives", old % 2)
            os.makedirs(tchunk)
            with open(os.path.join(tchunk, "roots"), "w") as f:
                f.write("root's\n")
            before = owners(target)
            app = self.c.workload("--name", "rootapp", "--pubs", "1", "--rate", "50")
            rec = self.record_as(pw, par, "rot", "--rotate-every", "1s", "--keep", "1")
            arch = os.path.join(par, "rot", "archives")
            deadline = time.time() + 20
            while not os.path.isdir(arch):
                self.assertLess(time.time(), deadline, d.err_text()[-2000:])
                time.sleep(0.1)
            as_user(pw, ["mv", sticky, os.path.join(arch, old % 0)], check=True)
            as_user(pw, ["ln", "-s", tchunk, os.path.join(arch, old % 1)], check=True)
            time.sleep(2.5)  # prunes with the moved-in directory and the link
            as_user(pw, ["mv", par, par + ".old"], check=True)
            as_user(pw, ["ln", "-s", target, par], check=True)
            time.sleep(2.5)  # and through the swapped parent
            self.stop_as(pw, "rot", rec)
            app.kill()
            moved = os.path.join(par + ".old", "rot", "archives", old % 0, "roots")
            st = os.lstat(moved)
            self.assertEqual((st.st_uid, st.st_mode & 0o777), (0, 0o644))
            self.assertEqual(owners(target), before)
            # the member may only break their own bound: caretd says so
            self.assertIn("cannot remove chunk %s: %s" % (old % 0, os.strerror(errno.EPERM)),
                          d.err_text())
            self.assertIn("is no longer the recording's trace directory", d.err_text())
        d.send_signal(15)
        d.finish(10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
