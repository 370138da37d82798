#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tools/ros2/prebuilt.sh and its callers (issue 31): a cold cache takes the prebuilt folder whose
# name is the key just computed, checked against MANIFEST.tsv, relocated when the cache is
# elsewhere, and nothing else: not one with a wrong checksum or size, not one of another key.
# Needs ../shared/ros2/prebuilt (CARET_ROS2_SRC); writes only under a temporary folder.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${CARET_ROS2_SRC:-$(readlink -f "$TOP/../shared/ros2" 2>/dev/null || true)}
PB=$SRC/prebuilt
[ -f "$PB/MANIFEST.tsv" ] || { echo "check_prebuilt: no $PB/MANIFEST.tsv (set CARET_ROS2_SRC)" >&2; exit 1; }
T=$(mktemp -d /tmp/check_prebuilt.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

humble=$(CARET_ROS2_CACHE=/var/cache/caretd-ros2 "$TOP/tools/ros2/fixture.sh" humble --print-key)
hname=$(basename "$humble")
grep -q "^$hname	" "$PB/MANIFEST.tsv" ||
	{ echo "check_prebuilt: $hname (fixture.sh's key) is not in $PB/MANIFEST.tsv: prebuilt/ is stale" >&2; exit 1; }

# 1. The fixture in a cache elsewhere: unpacked, marked ready, every text file relocated.
export CARET_ROS2_CACHE=$T/cache CARET_ROS2_SRC=$SRC
prefix=$("$TOP/tools/ros2/fixture.sh" humble --no-apt 2>"$T/err1")
[ "$prefix" = "$T/cache/$hname/install" ] && ok "fixture.sh prints $prefix" ||
	bad "fixture.sh printed '$prefix' ($(cat "$T/err1"))"
[ -f "$T/cache/$hname/READY" ] && ok "READY" || bad "no READY in $T/cache/$hname"
grep -q "unpacked from $PB/$hname.tar.zst" "$T/cache/$hname/PROGRESS.txt" && ok "PROGRESS.txt says unpacked" ||
	bad "PROGRESS.txt does not say where it came from"
left=$(grep -rlI --exclude=PROGRESS.txt /var/cache/caretd-ros2/ "$T/cache/$hname" | head -3 || true)
[ -z "$left" ] && ok "no text file names the old root" || bad "still names /var/cache/caretd-ros2: $left"
grep -q "$T/cache/$hname/install" "$T/cache/$hname/install/local_setup.sh" && ok "local_setup.sh relocated" ||
	bad "local_setup.sh not relocated"
# a second call finds it ready: no unpacking again
"$TOP/tools/ros2/fixture.sh" humble --no-apt >/dev/null 2>"$T/err2"
grep -q prebuilt "$T/err2" && bad "unpacked twice: $(cat "$T/err2")" || ok "second call reuses the cache"

# 2. rclpy's overlay over the relocated core: found under this cache's own key, importable.
if py=$("$TOP/tools/ros2/rclpy.sh" humble --if-built 2>"$T/err3"); then
	ok "rclpy.sh --if-built: $py"
	case $py in "$T/cache/rclpy-humble-"*) ;; *) bad "rclpy not in the cache: $py" ;; esac
	out=$(env -i PATH=/usr/bin:/bin HOME="$T" bash -c "source '$py/setup.bash' && /usr/bin/python3 -c \
		'import rclpy, std_msgs.msg; print(rclpy.__file__)'" 2>&1) || true
	case $out in "$(dirname "$py")"/install/*rclpy/__init__.py) ok "import rclpy from the relocated overlay" ;;
	*) bad "import rclpy: $out" ;; esac
else
	bad "rclpy.sh --if-built found no prebuilt: $(cat "$T/err3")"
fi

# 3. A wrong checksum or size, or a name of no key: never used (exit 1 and 3), nothing unpacked.
mkdir -p "$T/pb"
ln -s "$PB/$hname.tar.zst" "$T/pb/$hname.tar.zst"
awk -F'\t' -v OFS='\t' -v n="$hname" '$1 == n { $3 = "0" $3; $3 = substr($3, 1, 64) } 1' \
	"$PB/MANIFEST.tsv" > "$T/pb/MANIFEST.tsv"
rc=0; "$TOP/tools/ros2/prebuilt.sh" "$T/pb" "$hname" "$T/c2" 2>"$T/err4" || rc=$?
[ "$rc" = 1 ] && grep -q sha256 "$T/err4" && [ ! -e "$T/c2/$hname" ] && ok "wrong sha256 refused" ||
	bad "wrong sha256: rc $rc, $(cat "$T/err4")"
awk -F'\t' -v OFS='\t' -v n="$hname" '$1 == n { $2 = $2 + 1 } 1' "$PB/MANIFEST.tsv" > "$T/pb/MANIFEST.tsv"
rc=0; "$TOP/tools/ros2/prebuilt.sh" "$T/pb" "$hname" "$T/c2" 2>"$T/err5" || rc=$?
[ "$rc" = 1 ] && grep -q bytes "$T/err5" && [ ! -e "$T/c2/$hname" ] && ok "wrong size refused" ||
	bad "wrong size: rc $rc, $(cat "$T/err5")"
other=humble-0123456789abcdef
ln -s "$PB/$hname.tar.zst" "$T/pb/$other.tar.zst"
sed "s/^$hname	/$other	/" "$PB/MANIFEST.tsv" > "$T/pb/MANIFEST.tsv"
rc=0; "$TOP/tools/ros2/prebuilt.sh" "$T/pb" "$other" "$T/c2" 2>"$T/err6" || rc=$?
[ "$rc" = 1 ] && [ ! -e "$T/c2/$other" ] && ok "an archive holding another key's folder refused" ||
	bad "another key's folder: rc $rc, $(cat "$T/err6")"
rc=0; "$TOP/tools/ros2/prebuilt.sh" "$T/pb" humble-ffffffffffffffff "$T/c2" 2>/dev/null || rc=$?
[ "$rc" = 3 ] && ok "no prebuilt of that key: 3 (build)" || bad "no prebuilt: rc $rc"

[ "$fails" = 0 ] || { echo "check_prebuilt: $fails failed" >&2; exit 1; }
echo "check_prebuilt: all passed"
