#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes sure a root lttng-sessiond (user-space tracing only) answers.
# Prints its pid (the one it started, else the oldest). Leaves an already
# running one alone.
set -eu
if lttng list >/dev/null 2>&1; then
	pgrep -o -x lttng-sessiond || true
	exit 0
fi
lttng-sessiond --daemonize --no-kernel --quiet
i=0
while ! lttng list >/dev/null 2>&1; do
	i=$((i + 1))
	if [ "$i" -gt 100 ]; then
		echo "ensure-sessiond: lttng-sessiond did not answer within 10 s" >&2
		exit 1
	fi
	sleep 0.1
done
# the one started here, from its own pid file (first line: 2.13 rewrites
# it without truncating), not the oldest of the machine's: tools/demo.sh
# stops it by this PID
if [ "$(id -u)" = 0 ]; then
	rundir=/run/lttng
else
	rundir=${LTTNG_HOME:-$HOME}/.lttng
fi
pid=$(head -n 1 "$rundir/lttng-sessiond.pid" 2>/dev/null || true)
if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ]; then
	echo "$pid"
else
	pgrep -n -x lttng-sessiond
fi
