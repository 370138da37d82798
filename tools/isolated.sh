#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a command as its own "host", so a test never touches a tracer, a
# trace or a DDS domain it did not start:
#   - a private mount namespace with private tmpfs on /run/lttng, /dev/shm,
#     /tmp and /run/netns, and LTTNG_HOME in that /tmp: apps started inside
#     register with the session daemon started here only (LTTng 2.13 finds
#     it through /run/lttng, $LTTNG_HOME/.lttng and
#     /dev/shm/lttng-ust-wait-*), and `lttng` commands reach it only; a
#     checkout under /tmp and ../shared beside it stay visible;
#   - a private network namespace with only the loopback (multicast on):
#     DDS discovery stays inside, so tests running at the same time (or a
#     real ROS 2 system on the machine) never share a domain with it;
#   - its own lttng-sessiond (user space only), stopped by its PID at exit.
#   tools/isolated.sh CMD [ARGS...]   -> CMD's exit status
# Exports CARET_ISOLATED_MNTNS / CARET_ISOLATED_NETNS (the namespaces, as
# /proc/self/ns/* reads them) and CARET_ISOLATED_SESSIOND (the daemon's
# PID), which tests/integration/harness.py checks before it runs anything.
# Needs root (unshare --mount --net): without it, it refuses and says why.
set -eu
if [ "${CARET_ISOLATED_INNER:-}" != 1 ]; then
	if [ "$#" -eq 0 ]; then
		echo "usage: tools/isolated.sh CMD [ARGS...]" >&2
		exit 2
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "isolated: the tests need root: they run in private mount and network" >&2
		echo "isolated: namespaces with their own lttng-sessiond, and never use the" >&2
		echo "isolated: machine's own; refusing to run $1" >&2
		exit 1
	fi
	export CARET_ISOLATED_INNER=1
	exec unshare --mount --net --propagation private "$0" "$@"
fi
unset CARET_ISOLATED_INNER
# Only the loopback; DDS (CycloneDDS, Fast DDS) discovers over multicast.
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo
mkdir -p /run/lttng /run/netns
mount -t tmpfs -o mode=0755 tmpfs /run/lttng
mount -t tmpfs -o mode=0755 tmpfs /run/netns
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# Private /tmp too, so trace directories and sockets of one run stay out
# of another's way. A working directory under /tmp (a checkout there)
# stays visible: the shell's working directory still reaches the hidden
# original, and is bound back at the same path.
# The whole checkout is kept (a test module's directory alone would hide
# build/ from it), else the working directory.
here=$PWD
top=$(cd "$(dirname "$0")/.." && pwd)
keep=
case "$here" in /tmp/*) keep=$here ;; esac
case "$top" in /tmp/*) case "$here" in "$top"|"$top"/*) keep=$top ;; esac ;; esac
# So are the ROS 2 sources and prebuilt fixtures beside a checkout there (../shared, or
# $CARET_ROS2_SRC): held open across the mount, then bound back from the descriptor.
# (The path as named: a link there to elsewhere is hidden too.)
shared=$(dirname "$top")/shared
case "$shared" in /tmp/*) [ -d "$shared" ] && exec 7<"$shared" || shared= ;; *) shared= ;; esac
src=${CARET_ROS2_SRC:-}
case "$src" in "$shared"|"$shared"/*|"") src= ;; /tmp/*) [ -d "$src" ] && exec 8<"$src" || src= ;; *) src= ;; esac
[ -z "$keep" ] || cd "$keep"
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	mount --no-canonicalize --bind . "$keep"
	cd "$here"
fi
if [ -n "$shared" ]; then
	mkdir -p "$shared"
	mount --no-canonicalize --bind /proc/self/fd/7 "$shared"
	exec 7<&-
fi
if [ -n "$src" ]; then
	mkdir -p "$src"
	mount --no-canonicalize --bind /proc/self/fd/8 "$src"
	exec 8<&-
fi
# Root's per-user daemon and ~/.lttngrc would be $HOME/.lttng: not ours.
LTTNG_HOME=$(mktemp -d /tmp/lttng-home.XXXXXX)
export LTTNG_HOME
CARET_ISOLATED_MNTNS=$(readlink /proc/self/ns/mnt)
CARET_ISOLATED_NETNS=$(readlink /proc/self/ns/net)
export CARET_ISOLATED_MNTNS CARET_ISOLATED_NETNS

if [ -n "${CARET_SESSIOND_DEBUG:-}" ]; then
	# to see why it exits (bench N = 1,000, bench/NOTES.md): its verbose
	# log, the consumer's, and a core file if it crashes
	mkdir -p "$CARET_SESSIOND_DEBUG"
	ulimit -c unlimited
	(cd "$CARET_SESSIOND_DEBUG" && lttng-sessiond --background --no-kernel -vvv \
		--verbose-consumer >>sessiond.log 2>&1)
else
	lttng-sessiond --daemonize --no-kernel --quiet
fi
# first line only: lttng-sessiond 2.13 rewrites the file without truncating
pid=$(head -n 1 /run/lttng/lttng-sessiond.pid 2>/dev/null || true)

# A pid is stopped only if it is a session daemon in this namespace.
ours() {
	[ -n "$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = lttng-sessiond ] &&
		[ "$(readlink "/proc/$1/ns/mnt" 2>/dev/null)" = "$CARET_ISOLATED_MNTNS" ]
}
stop() {
	ours "$1" || return 0
	kill "$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ "$i" -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
cleanup() {
	# a test may have killed the session daemon and started another
	cur=$(head -n 1 /run/lttng/lttng-sessiond.pid 2>/dev/null || true)
	[ "$cur" = "$pid" ] || stop "$cur"
	stop "$pid"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
i=0
while ! lttng list >/dev/null 2>&1; do
	i=$((i + 1))
	if [ "$i" -gt 100 ]; then
		echo "isolated: lttng-sessiond did not answer within 10 s" >&2
		exit 1
	fi
	sleep 0.1
done
[ -n "$pid" ] || pid=$(head -n 1 /run/lttng/lttng-sessiond.pid 2>/dev/null || true)
if ! ours "$pid"; then
	echo "isolated: no session daemon of our own answered (pid '$pid')" >&2
	exit 1
fi
CARET_ISOLATED_SESSIOND=$pid
export CARET_ISOLATED_SESSIOND
# In the background, so a TERM (timeout(1)) reaches the command now and
# not when it exits; stdin stays the caller's.
exec 3<&0
"$@" <&3 3<&- &
child=$!
exec 3<&-
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM
trap 'kill -INT "$child" 2>/dev/null; wait "$child"; exit 130' INT
status=0
wait "$child" || status=$?
exit "$status"
