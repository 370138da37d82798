#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every integration test module against the build in $B, each in its
# own mount and network namespaces with its own lttng-sessiond
# (tools/isolated.sh): a module may kill its daemon or fill its /dev/shm
# without touching the machine's tracer or the next module.
set -eu
cd "$(dirname "$0")"
PY=/usr/bin/python3
status=0
for t in test_*.py; do
	echo "== $t (B=${B:-build} SAN=${SAN:-0})"
	timeout 900 ../../tools/isolated.sh "$PY" "$t" || status=1
done
exit $status
