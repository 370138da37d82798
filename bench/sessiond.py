# SPDX-License-Identifier: Apache-2.0
"""What the bench asks of the session daemon besides its sessions: which of
its processes have registered with it, and whether it is still there.

Why the fleet waits for registration (bench/NOTES.md, N = 1,000): caretd
lists a stand-in in WAIT as soon as its segment is made, but lttng-ust
registers the process with the session daemon in a thread of its own,
which gives up waiting after LTTNG_UST_REGISTER_TIMEOUT (3 s) and keeps
trying; with 1,000 processes on 2 loaded cores the daemon had registered
742 of them 25 s after the fleet was ready. A session measured then is
made and destroyed while registrations go on, and lttng-sessiond 2.13.9
aborts on it (`session.c:1068: session_put: Assertion
pthread_mutex_trylock(&ltt_session_list.lock) failed`, in its UST
registration dispatch thread, right after a destroy's last rotation);
the bench saw only "recvmsg: Connection reset by peer". A measurement
with processes still registering would not be the one the row describes
anyway: its session start pays for the late ones."""
import os
import re
import subprocess
import time

_PID = re.compile(r"^PID: (\d+) - Name: ", re.M)


def registered_pids(timeout=120):
    """The PIDs the session daemon lists as registered user-space
    applications (`lttng list -u`), None when it did not answer."""
    try:
        out = subprocess.run(["lttng", "list", "-u"], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return None
    return {int(m) for m in _PID.findall(out.stdout)}


def wait_registered(pids, seconds, poll_s=1.0):
    """Waits until every PID in pids is registered with the session daemon.
    Returns (missing PIDs, seconds waited); missing is empty when all are."""
    t0 = time.monotonic()
    want = set(pids)
    missing = want
    while True:
        got = registered_pids()
        if got is not None:
            missing = want - got
            if not missing:
                break
        if time.monotonic() - t0 > seconds:
            break
        time.sleep(poll_s)
    return missing, time.monotonic() - t0


def alive():
    """Whether the session daemon this bench runs under is still running:
    tools/isolated.sh's (CARET_ISOLATED_SESSIOND), else any that answers."""
    pid = os.environ.get("CARET_ISOLATED_SESSIOND")
    if pid:
        try:
            with open("/proc/%s/comm" % pid) as f:
                return f.read().strip() == "lttng-sessiond"
        except OSError:
            return False
    return subprocess.run(["lttng", "list"], capture_output=True).returncode == 0
