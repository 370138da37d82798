#!/bin/sh
# The main job, end to end on one machine: a running ROS 2 stand-in system
# (publisher + subscriber over CycloneDDS, agent preloaded), an LTTng
# session started afterwards, the cached init records replayed into it, a
# few seconds of runtime events, and a summary of the trace.
set -eu
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/$B/bin
LIB=$ROOT/$B/lib
SECS=${DEMO_SECONDS:-3}
OUT=${DEMO_OUTPUT:-$ROOT/traces/demo-$(date +%Y%m%d-%H%M%S)}
SESSION=caret-demo-$$

"$ROOT/tools/ensure-sessiond.sh" >/dev/null
export LD_PRELOAD="$LIB/libcaret-agent.so" ROS_DISTRO=${ROS_DISTRO:-jazzy}
DOMAIN=$((100 + $$ % 100))
"$BIN/caret-standin" --name listener --pubs 0 --subs 2 --domain "$DOMAIN" >/dev/null &
SUB=$!
"$BIN/caret-standin" --name talker --pubs 2 --rate 20 --domain "$DOMAIN" >/dev/null &
PUB=$!
unset LD_PRELOAD
cleanup() {
	kill "$PUB" "$SUB" 2>/dev/null || true
	lttng destroy "$SESSION" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM
echo "demo: workload running (talker pid $PUB, listener pid $SUB); recording starts later"
sleep 2

lttng create "$SESSION" --output="$OUT" >/dev/null
lttng enable-event -u -s "$SESSION" 'ros2:*' >/dev/null
lttng enable-event -u -s "$SESSION" 'ros2_caret:*' >/dev/null
lttng add-context -u -s "$SESSION" -t vpid -t vtid -t procname >/dev/null
lttng start "$SESSION" >/dev/null
for p in "$PUB" "$SUB"; do
	"$BIN/caret-agentctl" replay "$p" --timeout 20
done
echo "demo: recording runtime events for $SECS s"
sleep "$SECS"
lttng stop "$SESSION" >/dev/null
lttng destroy "$SESSION" >/dev/null
kill "$PUB" "$SUB"
wait "$PUB" "$SUB" 2>/dev/null || true
trap - EXIT INT TERM

echo "demo: events per kind:"
babeltrace2 "$OUT" | sed -n 's/^[^ ]* [^ ]* [^ ]* \([a-z0-9_]*:[a-z0-9_]*\): .*/\1/p' |
	sort | uniq -c | sort -rn
echo "demo: trace written to $OUT"
