#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make check`: runs every stage even when an earlier one failed, prints
# each stage's result and time as it ends and a table of all of them at the
# end, and exits 1 if any stage failed.
#   tools/check-stages.sh MAKE      (the Makefile passes "$(MAKE)")
# CHECK_STAGES="unit integration" runs only those stages.
# Each stage's time is compared with the one tests/stage-times.tsv records
# (a warm fixture, 2 cores): one that grew by more than 20 % says so.
set -u
MK=${1:-make}
# the builds inside each stage use every core; the tests pace themselves
JOBS=-j$(nproc)
TIMES=$(dirname "$0")/../tests/stage-times.tsv
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
	if $MK $JOBS "$@"; then
		result=pass
	else
		result=FAIL
		failed=1
	fi
	dt=$(($(date +%s) - t0))
	was=$(awk -v n="$name" '$1 == n { print $2 }' "$TIMES" 2>/dev/null)
	grew=
	if [ -n "$was" ] && [ "$((dt * 100))" -gt "$((was * 120))" ]; then
		grew=$(printf 'grew %d %% over the %d s recorded' "$(((dt - was) * 100 / was))" "$was")
	fi
	echo "=== stage $name: $result ($dt s)${grew:+: $grew}"
	summary="$summary$(printf '%-18s %-5s %6d s %8s  %s' "$name" "$result" "$dt" "${was:+$was s}" "$grew")
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
printf '%-18s %-5s %8s %8s\n' stage result time recorded
printf '%s' "$summary"
was=$(awk '$1 == "total" { print $2 }' "$TIMES" 2>/dev/null)
grew=
if [ -n "$was" ] && [ "$((total * 100))" -gt "$((was * 120))" ]; then
	grew=$(printf 'grew %d %% over the %d s recorded' "$(((total - was) * 100 / was))" "$was")
fi
printf '%-18s %-5s %6d s %8s  %s\n' total "$([ "$failed" = 0 ] && echo pass || echo FAIL)" "$total" \
	"${was:+$was s}" "$grew"
exit "$failed"
