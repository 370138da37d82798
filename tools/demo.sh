#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The main job, end to end on one machine: lttng-sessiond and caretd
# running, a ROS 2 stand-in system (publishers and a subscriber over
# CycloneDDS, agent preloaded) started first, then `caretctl record` a few
# seconds later, and a summary of the trace it produced. What it starts
# (the stand-in, and caretd and lttng-sessiond where none answered) it
# stops at its end, by PID; what already ran it leaves alone.
set -eu
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/$B/bin
LIB=$ROOT/$B/lib
SECS=${DEMO_SECONDS:-3}
OUT=${DEMO_OUTPUT:-$ROOT/traces}
SOCK=${CARETD_SOCKET:-/run/caretd/caretd.sock}
export CARETD_SOCKET=$SOCK

CARETD="" SESSIOND="" PIDS=""
cleanup() {
	# shellcheck disable=SC2086
	kill $PIDS 2>/dev/null || true
	if [ -n "$CARETD" ]; then
		kill "$CARETD" 2>/dev/null || true
		wait "$CARETD" 2>/dev/null || true
	fi
	# after caretd, its client: a root daemon the demo started does not
	# outlive it (issue 33 L10)
	if [ -n "$SESSIOND" ] && kill "$SESSIOND" 2>/dev/null; then
		echo "demo: stopped the lttng-sessiond it started (pid $SESSIOND)"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if lttng list >/dev/null 2>&1; then
	"$ROOT/tools/ensure-sessiond.sh" >/dev/null
else
	SESSIOND=$("$ROOT/tools/ensure-sessiond.sh")
fi
if ! "$BIN/caretctl" status >/dev/null 2>&1; then
	"$BIN/caretd" --socket "$SOCK" 2>"$ROOT/$B/caretd-demo.log" &
	CARETD=$!
	i=0
	until "$BIN/caretctl" status >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "demo: caretd did not start, see $ROOT/$B/caretd-demo.log" >&2; exit 1; }
		sleep 0.1
	done
fi

DOMAIN=$((100 + $$ % 100))
export LD_PRELOAD="$LIB/libcaret-agent.so" ROS_DISTRO=${ROS_DISTRO:-jazzy}
"$BIN/caret-standin" --name listener --pubs 0 --subs 2 --domain "$DOMAIN" >/dev/null &
PIDS="$PIDS $!"
for i in 1 2 3; do
	"$BIN/caret-standin" --name "talker$i" --pubs 2 --rate 20 --extra-callbacks 20 \
		--domain "$DOMAIN" >/dev/null &
	PIDS="$PIDS $!"
done
unset LD_PRELOAD
echo "demo: ROS 2 stand-in running (pids$PIDS); recording starts in 2 s"
sleep 2

LOG=$ROOT/$B/caretctl-demo.log
"$BIN/caretctl" record --immediate --duration "$SECS" -p "$OUT" | tee "$LOG"
TRACE=$(sed -n 's/^recording to \([^ ]*\).*/\1/p' "$LOG" | head -n 1)

echo "demo: events per kind:"
babeltrace2 "$TRACE" | sed -n 's/^[^ ]* [^ ]* [^ ]* \([a-z0-9_]*:[a-z0-9_]*\): .*/\1/p' |
	sort | uniq -c | sort -rn
echo "demo: processes in the trace:"
babeltrace2 "$TRACE" | sed -n 's/.*procname = "\([^"]*\)".*vpid = \([0-9]*\).*/  \2 \1/p;s/.*vpid = \([0-9]*\).*procname = "\([^"]*\)".*/  \1 \2/p' |
	sort -u
echo "demo: trace written to $TRACE"
