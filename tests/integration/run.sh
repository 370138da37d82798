#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs the integration test modules against the build in $B, each in its
# own mount and network namespaces with its own lttng-sessiond
# (tools/isolated.sh): a module may kill its daemon or fill its /dev/shm
# without touching the machine's tracer or the next module.
#
#   tests/integration/run.sh [MODULE.py...]
#
# Which modules: the arguments; else, with SAN=1, those san-modules.txt
# names (what the sanitizers add: tools/coverage.py); else every test_*.py.
# CARET_IT_JOBS (default 2, one per core here) modules run at a time, each
# its own isolated host; those alone.txt names run afterwards, one at a time
# (they measure wall time or wake-ups that a neighbour would skew). Longest
# first, by times.tsv. A module's output is printed whole when it ends.
set -u
cd "$(dirname "$0")"
# The modules run make themselves (test_deb, test_isolation): not as part of the make that
# started this one, whose jobserver descriptors they do not inherit.
unset MAKEFLAGS MFLAGS MAKELEVEL
PY=/usr/bin/python3
jobs=${CARET_IT_JOBS:-2}
listed() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }
if [ "$#" -gt 0 ]; then
	mods="$*"
elif [ "${SAN:-0}" = 1 ] && [ -z "${CARET_IT_ALL:-}" ]; then
	mods=$(listed san-modules.txt)
else
	mods=$(ls test_*.py)
fi
for m in $mods; do
	[ -f "$m" ] || { echo "run.sh: no module $m" >&2; exit 2; }
done
alone=" $(listed alone.txt | tr '\n' ' ') "
# longest first (unknown ones first of all), so the last to end is short
order() {
	for m in "$@"; do
		t=$(awk -v m="$m" '$1 == m { print $2 }' times.tsv 2>/dev/null)
		echo "${t:-99999} $m"
	done | sort -rn | cut -d' ' -f2
}
pool=()
solo=()
for m in $mods; do
	case $alone in *" $m "*) solo+=("$m") ;; *) pool+=("$m") ;; esac
done
out=$(mktemp -d /tmp/caret-it-run.XXXXXX)
trap 'rm -rf "$out"' EXIT
status=0
summary=""
declare -A pid_of=() t0_of=() mod_of=()
reported=0
report() {  # module exit-status
	local m=$1 rc=$2 r dt
	cat "$out/$m.log"
	dt=$(($(date +%s) - t0_of[$m]))
	if [ "$rc" = 0 ]; then r=ok; else r="FAILED (exit $rc)"; status=1; fi
	echo "== $m: $r in $dt s"
	summary="$summary$(printf '  %-28s %-16s %5d s' "$m" "$r" "$dt")
"
	unset "mod_of[${pid_of[$m]}]" "pid_of[$m]"
	reported=$((reported + 1))
}
start() {  # module
	local m=$1
	t0_of[$m]=$(date +%s)
	(
		echo "== $m (B=${B:-build} SAN=${SAN:-0})"
		exec timeout 900 ../../tools/isolated.sh "$PY" "$m"
	) >"$out/$m.log" 2>&1 &
	pid_of[$m]=$!
	mod_of[$!]=$m
}
reap_one() {  # waits for any running module and reports it
	local done_pid rc=0
	wait -n -p done_pid "${pid_of[@]}" || rc=$?
	report "${mod_of[$done_pid]}" "$rc"
}
# shellcheck disable=SC2046
for m in $(order "${pool[@]}"); do
	while [ "${#pid_of[@]}" -ge "$jobs" ]; do reap_one; done
	start "$m"
done
while [ "${#pid_of[@]}" -gt 0 ]; do reap_one; done
for m in "${solo[@]}"; do
	start "$m"
	reap_one
done
n=$(echo $mods | wc -w)
if [ "$reported" != "$n" ]; then
	echo "run.sh: $reported of $n modules reported: this script is broken" >&2
	status=1
fi
echo "integration modules (B=${B:-build} SAN=${SAN:-0}, $jobs at a time):"
printf '%s' "$summary"
exit $status
