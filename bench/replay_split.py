# SPDX-License-Identifier: Apache-2.0
"""Where a replay's time goes (issue 34 item 1, P6): from Enter to every
agent's ros2_caret tracepoints enabled, LTTng's own enabling in each
process (the provider registered on the pass's first need, then the
session daemon enabling the session's events in it), which no pacing of
caretd's shortens; and from then to all in RECORD, the replay proper that
the pacer answers for against the trace's bytes / the consumer's drain.

Read from caretd's log: each agent's "recording: R records replayed in A
ms, tracepoints on after B ms" line, logged at the tick that saw its pass
complete (time T; B is when caretd's tick first saw its tracepoints on,
counted from its pass's start like A). A and B are written to 0.01 ms
(1 ms before: both formats are read). T is the log's timestamp, cut to
the ms it falls in: read at the middle of that ms, so each instant from
the log is within 0.5 ms, and the replay proper (the bench's own end
minus the last agent's tracepoints on) too."""
import re
import time

_DONE = re.compile(r"^(\d+):(\d+):(\d+\.\d+) caretd info: pid (\d+) \(.*\) recording: "
                   r"(\d+) records replayed in (\d+(?:\.\d+)?) ms, tracepoints on after "
                   r"(\d+(?:\.\d+)?) ms")
# the log's timestamps are cut (not rounded) to the ms: the instant is
# anywhere in the next ms, its middle the unbiased reading
_CUT_S = 0.0005
# what the split can tell apart: T's half ms (A and B are at 0.01 ms)
RESOLUTION_S = 0.0005


def _sod(wall):
    """Seconds of the day of a wall-clock instant, as caretd's log writes
    them (local time)."""
    tm = time.localtime(wall)
    return tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec + (wall % 1.0)


def _since(sod, enter_sod):
    """sod - enter_sod, across midnight."""
    return (sod - enter_sod + 43200.0) % 86400.0 - 43200.0


def parse(lines, enter_wall):
    """Per agent that completed its pass in these log lines: the seconds
    from Enter (a time.time()) to its tracepoints on and to its pass seen
    done. Returns {pid: (tp_on_s, done_s)}."""
    e = _sod(enter_wall)
    out = {}
    for line in lines:
        m = _DONE.match(line)
        if not m:
            continue
        t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3)) + _CUT_S
        began = t - float(m.group(6)) / 1000.0
        out[int(m.group(4))] = (_since(began + float(m.group(7)) / 1000.0, e), _since(t, e))
    return out


def split(logpath, offset, enter_wall, total_s):
    """From caretd's log past offset (its size before Enter): Enter -> the
    last agent's tracepoints on (tp_on_s), the first's (tp_first_s), the
    replay proper, from the last one on to all in RECORD (total_s after
    Enter), and of it the part after caretd's tick saw the last pass done
    (seen_after_s: the observation of the end, by caretd and the
    requester). None when no agent's line was found."""
    with open(logpath, errors="replace") as fh:
        fh.seek(offset)
        per = parse(fh, enter_wall)
    if not per:
        return None
    # never past the end the bench measured itself (the log is at 0.5 ms)
    last = min(total_s, max(max(0.0, on) for on, _ in per.values()))
    first = min(max(0.0, on) for on, _ in per.values())
    done = min(total_s, max(d for _, d in per.values()))
    return {"tp_on_s": last, "tp_first_s": first, "replay_proper_s": total_s - last,
            "seen_after_s": max(0.0, total_s - done), "agents": len(per)}


def enabling_reason(lo, hi, lo_total, hi_total, target):
    """Why a row comparing Enter -> all in RECORD at two N misses its
    target `target` (a ratio): LTTng's enabling of the agents' tracepoints,
    Enter -> the last agent's tracepoints on, which no pacing of caretd's
    shortens. lo and hi are split()'s results (None: unknown). Says "out
    of reach here" only when the enabling alone grows past the target;
    "" when nothing is known or the row is met."""
    if not lo or not hi or hi_total / lo_total <= target:
        return ""
    grow = hi["tp_on_s"] / max(1e-6, lo["tp_on_s"])
    return ("; %sEnter -> every agent's tracepoints on (LTTng's enabling) %.3f -> %.3f s "
            "(%.2fx) of Enter -> RECORD %.3f -> %.3f s" %
            ("out of reach here: " if grow > target else "", lo["tp_on_s"], hi["tp_on_s"],
             grow, lo_total, hi_total))
