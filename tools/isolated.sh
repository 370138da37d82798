#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a command as its own "host": a private mount namespace with private
# tmpfs on /run/lttng and /dev/shm, and its own lttng-sessiond (user space
# only). Apps started inside register with that sessiond only (LTTng 2.13
# finds it through /run/lttng and /dev/shm/lttng-ust-wait-*), so tests that
# run at the same time never see each other's sessions or caches.
#   tools/isolated.sh CMD [ARGS...]   -> CMD's exit status
# Needs root (unshare --mount).
set -eu
if [ "${CARET_ISOLATED_INNER:-}" != 1 ]; then
	if [ "$#" -eq 0 ]; then
		echo "usage: tools/isolated.sh CMD [ARGS...]" >&2
		exit 2
	fi
	export CARET_ISOLATED_INNER=1
	exec unshare --mount --propagation private "$0" "$@"
fi
unset CARET_ISOLATED_INNER
mkdir -p /run/lttng
mount -t tmpfs -o mode=0755 tmpfs /run/lttng
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# Private /tmp too, so trace directories and sockets of one run stay out
# of another's way. A working directory under /tmp (a checkout there)
# stays visible: the shell's working directory still reaches the hidden
# original, and is bound back at the same path.
keep=
case "$PWD" in /tmp/*) keep=$PWD ;; esac
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	mount --no-canonicalize --bind . "$keep"
	cd "$keep"
fi
lttng-sessiond --daemonize --no-kernel --quiet
pid=$(head -n 1 /run/lttng/lttng-sessiond.pid 2>/dev/null || true)
cleanup() {
	# a test may have killed the session daemon and started another
	cur=$(head -n 1 /run/lttng/lttng-sessiond.pid 2>/dev/null || true)
	if [ -n "$cur" ] && [ "$cur" != "$pid" ]; then
		kill "$cur" 2>/dev/null || true
	fi
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
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
status=0
"$@" || status=$?
exit "$status"
