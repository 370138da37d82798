#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes sure a root lttng-sessiond (user-space tracing only) answers.
# Prints its pid. Leaves an already running one alone.
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
pgrep -o -x lttng-sessiond
