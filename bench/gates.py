# SPDX-License-Identifier: Apache-2.0
"""The regression gate of `make bench-smoke` (part of `make check`).

Smoke sizes (3 processes x 200 records, short loops) cannot show whether a
target is met, and the check runs on shared 2-core machines where a time
moves 2-5x with the load. So each row is gated on what smoke sizes do
measure, with a margin for that noise:

- instruction counts from callgrind where the row has one (P1, P2, P3):
  repeatable to the instruction under any load, so they are held to the
  target itself, or with a few instructions of margin;
- counts that do not depend on speed (discarded events, processes that
  reached RECORD, bytes per record) exactly;
- times and rates only as ratios within one run, or with a margin of 3-60x
  over what a loaded machine gives, so only a change of kind (a syscall
  per event, a sleep, a per-process command at Enter) fails.

gate(row) -> (ok, text) for a row of bench/run.py, whose `num` holds the
raw numbers; a row without the numbers a gate needs fails it.
"""

# Margins are stated next to each gate: what the quiet machine gives, what
# the loaded one gave in smoke runs, and the threshold.


def _p1(n):
    # instructions per call, loop included: hook 17 vs direct 19 (the agent's
    # WAIT path is two relaxed loads and branches: the state word and, since
    # caretctl top, the watched word; libtracetools' function also asks
    # lttng-ust); the hook may never cost more than the direct call.
    # Time: 0.95-1.00x in the smoke runs here (load 3-9), target 1.10x: gate
    # 1.5x, for the short loops on a loaded machine.
    return (n["instr_hook"] <= n["instr_direct"] and n["ratio"] <= 1.5,
            "hook %.1f <= direct %.1f instructions per call; time %.2fx <= 1.5x" %
            (n["instr_hook"], n["instr_direct"], n["ratio"]))


def _p2(n):
    # RECORD path without a session (callgrind): 106 instructions per event
    # through the agent (78 before caretctl top's watched word and the
    # hooks' jump to their slow path), 19 of them libtracetools' own: the
    # agent's hot path
    # is held to P3's budget, 200. Time vs the bare tracepoint: 1.02-1.05x,
    # target 1.15x: gate 1.6x. Every event recorded, none discarded.
    return (n["instr_record"] <= 200 and n["ratio"] <= 1.6 and n["discarded"] == 0
            and n["counted"],
            "RECORD path %.1f <= 200 instructions per event; time %.2fx <= 1.6x; "
            "discarded %d; every event counted: %s" %
            (n["instr_record"], n["ratio"], n["discarded"], n["counted"]))


def _p3(n):
    # the cache write: the target itself (instructions do not vary with load)
    return (n["instructions"] <= 200,
            "%.1f <= 200 instructions per cached record" % n["instructions"])


def _p4(n):
    # 3 x 200 records: 0.013-0.016 s in the smoke runs here; the target for
    # 100 x 2000, 1 s, is the gate (60x): a sleep per record fails it
    return (n["total"] <= 1.0 and n["discarded"] == 0 and n["all"],
            "Enter -> RECORD %.3f s <= 1 s, discarded %s, all in RECORD: %s" %
            (n["total"], n["discarded"], n["all"]))


def _p4b(n):
    # CARET's f=100 takes 2 s for 200 records by construction; ours 0.013-
    # 0.016 s (126-160x in the smoke runs): gate 10x (ours <= 0.2 s)
    return (n["faster"] >= 10 and n["discarded"] == 0,
            "%.1fx >= 10x faster than f=100, discarded %s" % (n["faster"], n["discarded"]))


def _p4c(n):
    # armed + Enter vs the limit, both tens of ms at 3 processes: 1.1x quiet,
    # 2.3x seen; target 1.5x at full size: gate 4x
    return (n["ratio"] <= 4.0 and n["all"],
            "%.2fx <= 4x the limit, all in RECORD: %s" % (n["ratio"], n["all"]))


def _p5(n):
    # bytes per record is exact; RSS 10.5 MiB with the bridge and 3 agents:
    # gate 12 MiB (the target, 8 MiB, is for 100 agents: the full run);
    # idle CPU over the smoke's 2 s (schedstat): 0.0-0.3 %: gate 3 %
    # an lttng CLI session seen 8-20 ms after `lttng start` returned (3
    # agents, one hint each); the idle read of the list alone would be up
    # to 1 s: gate 300 ms (-1: never seen)
    seen = n.get("seen_ms", -1.0)
    return (n["density"] <= 1.5 and n["rss_mib"] <= 12 and n["cpu_pct"] <= 3.0 and
            0 <= seen <= 300,
            "%.2fx <= 1.5x bytes per record; RSS %.1f <= 12 MiB; idle CPU %.2f <= 3 %%; "
            "session seen in %.0f <= 300 ms" % (n["density"], n["rss_mib"], n["cpu_pct"], seen))


def _p6(n):
    # smoke curve N = 6 and 48 x 2000 records: Enter -> RECORD 0.014 s and
    # 0.075-0.13 s (8x the processes, 9x the time; target 1.1x linear):
    # gate twice linear; armed + Enter vs the limit 1.1-1.7x seen: gate 3x
    lin = 2 * n["nratio"]
    # the replay proper (after the last agent's tracepoints came on) at
    # each N against its bytes / drain: a few ms at smoke size, where the
    # split's 0.5 ms (bench/replay_split.py) and the tick's 1 ms count;
    # gate 3x + 50 ms, so that a pass
    # stalled on a timeout or a pacing of a few windows a second fails,
    # and a missing split (caretd's log line changed) too
    proper = [(p, 3 * d + 0.05) for p, d in zip(n["proper_s"], n["drain_each_s"])]
    pok = bool(proper) and all(p is not None and p <= cap for p, cap in proper)
    return (n["ratio"] <= lin and n["worst"] <= 3.0 and n["discarded"] == 0 and n["all"] and
            pok,
            "N ratio %.2fx <= %.1fx, worst vs limit %.2fx <= 3x, replay proper %s, "
            "discarded %d, all in RECORD: %s" %
            (n["ratio"], lin, n["worst"],
             ", ".join("?" if p is None else "%.3f <= %.3f s" % (p, cap) for p, cap in proper),
             n["discarded"], n["all"]))


def _p6b(n):
    # the curve's largest N (48 in the smoke run, 1,000 in make bench): as
    # P6, and Enter -> RECORD against the replayed bytes / the drain rate
    # measured in the same run (0.063 s at N = 48): 0.075-0.13 s, 2.07 s
    # with a pacing stalled on partial packets (pacer per-stream horizon,
    # 843c1c5): gate 8x + 0.1 s, so a loaded machine passes and a stall not
    lin = 2 * n["nratio"]
    cap = 8 * n["drain_s"] + 0.1
    return (n["ratio"] <= lin and n["vs_limit"] <= 3.0 and n["enter_s"] <= cap and
            n["discarded"] == 0 and n["all"],
            "vs the smallest N %.2fx <= %.1fx, vs its limit %.2fx <= 3x, Enter -> RECORD "
            "%.3f s <= %.3f s (8 x bytes / drain + 0.1 s), discarded %s, all in RECORD: %s" %
            (n["ratio"], lin, n["vs_limit"], n["enter_s"], cap, n["discarded"], n["all"]))


P7_QUOTA_SLACK_S = 0.25


def _p7(n):
    # each condition vs its own limit, 1.1-1.8x seen in smoke runs on the
    # loaded machine (target 1.5x each since issue 34, 2x before): gate
    # each at 3x, twice the target as the 4x gate was for 2x; none
    # discarded. (c) alone may instead be at most P7_QUOTA_SLACK_S over its
    # limit: its consumer runs under a CPU quota of 100 ms periods, and at
    # smoke size both its session start and its limit's are a few ms or
    # cross into the next period (0.02 s or 0.1-0.2 s on either side: 5-6x
    # seen with 0-11 ms of replay); the full run's row holds it to 1.5x.
    ratios, over = n["ratios"] or [], n.get("over_s") or []
    bad = [i for i, x in enumerate(ratios)
           if x > 3.0 and not (i == 2 and len(over) == 3 and over[2] <= P7_QUOTA_SLACK_S)]
    worst = max(ratios) if ratios else float("inf")
    return (not bad and n["discarded"] == 0 and n["all"] and len(ratios) == 3,
            "each of %d conditions <= 3x its limit (worst %.2fx%s), discarded %d, all in "
            "RECORD: %s" % (len(ratios), worst,
                            "; (c) %.3f s over its limit, <= %.2f s" % (over[2], P7_QUOTA_SLACK_S)
                            if len(over) == 3 else "", n["discarded"], n["all"]))


def _p8(n):
    # 22-35 M records/s in the smoke runs; target 10 M: gate 3 M (600
    # records are read in microseconds, so one preemption moves it)
    return (n["rate"] >= 3e6, "%.1f >= 3 M records/s" % (n["rate"] / 1e6))


def _p9(n):
    # p99 0.12-0.19 us in the smoke runs; target 20 us, which an O(n) search
    # would still pass at 600 records: gate 5 us
    return (n["p99_us"] <= 5.0, "p99 %.3f <= 5 us" % n["p99_us"])


def _p10(n):
    # same trace, one after the other: 0.78-1.00x in the smoke runs; target
    # 1.5x: gate 2x
    return (n["ratio"] <= 2.0, "%.2fx <= 2x babeltrace2" % n["ratio"])


def _p11(n):
    # a rotation at smoke size replays 0.15 MB: its limit (bytes / drain)
    # is under a millisecond. Since issue 34 the next chunk's pass begins
    # at the close (LTTng's rotation started), while LTTng archives the
    # closed chunk (0.49-0.51 s here, quiet or not): close -> pass complete
    # took 8 ms. caretd's pass, from its start: 8x the limit + 0.25 s, so a
    # pass that waits for a timeout or paces itself slower fails; the whole
    # from the close: 8x the limit + 0.35 s, so a pass that waits for the
    # archive again fails (it was 0.50-0.52 s then).
    # Exact: none discarded, every chunk complete by caretctl check and by
    # caretd's verdicts, the 3 rotations measured, and the pacer never
    # unable to read the consumer's progress for a second (a pass into a
    # chunk it does not find).
    pcap = 8 * n["drain_s"] + 0.25
    cap = 8 * n["drain_s"] + 0.35
    return (n["pass_s"] <= pcap and n["slowest_s"] <= cap and n["discarded"] == 0 and
            n["incomplete"] == 0 and n["all"] and n["checked"] == n["chunks"] and
            n["chunks"] > n["rotations"] >= 3 and n["blind"] == 0,
            "caretd's pass %.3f s <= %.3f s (8 x bytes / drain + 0.25 s); close -> pass "
            "complete %.3f s <= %.3f s (8 x bytes / drain + 0.35 s), %.0f %% of a chunk; "
            "discarded %s; %d of %d chunks complete, %d incomplete; %d rotations; pacing "
            "blind %d times" %
            (n["pass_s"], pcap, n["slowest_s"], cap, 100 * n["share"], n["discarded"],
             n["checked"], n["chunks"], n["incomplete"], n["rotations"], n["blind"]))


def _p12(n):
    # a snapshot at smoke size (6 processes x 200 records) writes 0.3 MB:
    # its limit (bytes / drain) is about a millisecond. Measured: 14 ms
    # from the request to the reply, of which 10 ms caretd's pass (the
    # pacer's ticks). caretd's pass: 8x the limit + 0.25 s (a pass that
    # waits for a timeout fails); the whole, with LTTng writing the
    # snapshot on a loaded machine: 8x the limit + 1 s. Exact: none
    # discarded, every snapshot complete (caretd's verdict and caretctl
    # check), at least 2 measured.
    pcap = 8 * n["drain_s"] + 0.25
    cap = 8 * n["drain_s"] + 1.0
    return (n["pass_s"] <= pcap and n["took_s"] <= cap and n["discarded"] == 0 and
            n["complete"] and n["snapshots"] >= 2,
            "caretd's pass %.3f s <= %.3f s (8 x bytes / drain + 0.25 s); request -> "
            "snapshot closed %.3f s <= %.3f s (8 x bytes / drain + 1 s); discarded %s; "
            "complete %s; %d snapshots" %
            (n["pass_s"], pcap, n["took_s"], cap, n["discarded"], n["complete"],
             n["snapshots"]))


def _p13(n):
    # caretctl top's counting (callgrind): a watched pair of hooks is the
    # unwatched one plus two clock reads and the slot's updates; 231 vs 30
    # instructions per pair here (loop included): gate 400, so a syscall,
    # a lock or a walk of the whole table per event fails. Time: the
    # watched hook vs P2's RECORD hook, 0.37x here, target 1.3x; in smoke
    # runs (short loops, loaded machine) gate 3x.
    return (n["instr_watched"] <= 400 and n["ratio"] <= 3.0,
            "watched pair %.1f <= 400 instructions; time %.2fx <= 3x the RECORD hook" %
            (n["instr_watched"], n["ratio"]))


GATES = {"P1": _p1, "P2": _p2, "P3": _p3, "P4": _p4, "P4b": _p4b, "P4c": _p4c, "P5": _p5,
         "P6": _p6, "P6b": _p6b, "P7": _p7, "P8": _p8, "P9": _p9, "P10": _p10,
         "P11": _p11, "P12": _p12, "P13": _p13}


def gate(r):
    """(ok, text) for one row: a row without its numbers fails."""
    g = GATES.get(r["id"])
    if g is None:
        return False, "no gate for this row"
    if not r.get("measured", True):
        return False, "not measured"
    try:
        return g(r.get("num") or {})
    except (KeyError, TypeError, ValueError) as e:
        return False, "numbers missing (%s)" % e
