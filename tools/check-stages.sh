#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make check`: runs every stage even when an earlier one failed, prints
# each stage's result and time as it ends and a table of all of them at the
# end, and exits 1 if any stage failed.
#   tools/check-stages.sh MAKE      (the Makefile passes "$(MAKE)")
# CHECK_STAGES="unit integration" runs only those stages.
set -u
MK=${1:-make}
only=${CHECK_STAGES:-}
summary=
failed=0
t_start=$(date +%s)

stage() {
	name=$1
	shift
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) return 0 ;; esac
	fi
	echo "=== stage $name: $*"
	t0=$(date +%s)
	# $MK may carry options (make -j2): split on purpose
	# shellcheck disable=SC2086
	if $MK "$@"; then
		result=pass
	else
		result=FAIL
		failed=1
	fi
	dt=$(($(date +%s) - t0))
	echo "=== stage $name: $result ($dt s)"
	summary="$summary$(printf '%-18s %-5s %6d s' "$name" "$result" "$dt")
"
}

stage unit all unit-check
stage unit-san SAN=1 all unit-check
stage fuzz-smoke-san SAN=1 fuzz-smoke
stage integration integration-check
stage integration-san SAN=1 integration-check
stage ros2 ros2-check
stage ros2-san SAN=1 ros2-check
stage bench-smoke bench-smoke

total=$(($(date +%s) - t_start))
echo
echo "make check summary"
printf '%-18s %-5s %8s\n' stage result time
printf '%s' "$summary"
printf '%-18s %-5s %6d s\n' total "$([ "$failed" = 0 ] && echo pass || echo FAIL)" "$total"
exit "$failed"
