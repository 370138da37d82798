# SPDX-License-Identifier: Apache-2.0
"""`caretctl record` started by a test as a user starts it (test_record_hold.py;
written for test_record_start.py's spawns too): the command, run without the
agent and with standard input closed, and one held right after it read
caretd's answer (its write to a full pipe blocks)."""
import fcntl
import os
import subprocess
import time

from harness import CARETCTL


def record_args(c, traces, name, *args, sock=None):
    """caretctl record --immediate of session name into traces, to c's
    caretd (or the socket sock)."""
    return [CARETCTL, "--socket", sock or c.sock, "record", "--immediate", "-p", traces,
            "-s", name] + list(args)


def spawn_record(c, traces, name, *args, sock=None):
    """record_args() spawned by c without the agent, standard input closed."""
    return c.spawn(record_args(c, traces, name, *args, sock=sock), agent=False,
                   stdin=subprocess.DEVNULL)


def full_pipe():
    """A pipe whose buffer is full: a write to w blocks until r is read."""
    r, w = os.pipe()
    flags = fcntl.fcntl(w, fcntl.F_GETFL)
    fcntl.fcntl(w, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    fcntl.fcntl(w, fcntl.F_SETFL, flags)
    return r, w


def wchan(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return f.read()
    except OSError:
        return ""


def record_blocked_after_answer(test, c, traces, name):
    """caretctl record of name (--timeout 30) blocked writing "recording to
    ..." to a full pipe, right after it read caretd's answer: (the process,
    the pipe's read end, for the caller to close). Killed if it never gets
    there."""
    r, w = full_pipe()
    rec = subprocess.Popen(record_args(c, traces, name, "--timeout", "30"),
                           env=c.env(agent=False), stdin=subprocess.DEVNULL, stdout=w,
                           stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        deadline = time.time() + 40
        while "pipe" not in wchan(rec.pid):
            test.assertIsNone(rec.poll(), "caretctl exited")
            test.assertLess(time.time(), deadline, "caretctl never wrote its answer")
            time.sleep(0.05)
    except BaseException:
        rec.kill()
        rec.wait()
        os.close(r)
        raise
    return rec, r
