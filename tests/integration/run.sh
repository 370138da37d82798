#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every integration test module against the build in $B.
set -eu
cd "$(dirname "$0")"
PY=/usr/bin/python3
status=0
for t in test_*.py; do
	echo "== $t (B=${B:-build} SAN=${SAN:-0})"
	timeout 900 "$PY" "$t" || status=1
done
exit $status
