#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A prebuilt cache folder instead of a build: fixture.sh and rclpy.sh call this, holding their
# build lock, before they build anything. ../shared/ros2/prebuilt/NAME.tar.zst is the folder NAME
# that the same script built from the same inputs elsewhere (its name carries the key computed
# from every input archive, patch and RECIPE number), listed in MANIFEST.tsv with its size and
# sha256. Only an archive whose name equals the key just computed is ever used, and only when
# its size and sha256 are those of the manifest.
#
#   tools/ros2/prebuilt.sh PREBUILT_DIR NAME CACHE [DEST]
#
# Unpacks NAME into CACHE/DEST (DEST defaults to NAME; rclpy.sh passes another when its key,
# which names the core's path, moved with the cache), relocating the absolute paths its setup
# scripts and CMake files carry when CACHE is not where it was built, and keeps its READY line.
# Exit status: 0 unpacked (CACHE/DEST/READY exists), 3 no prebuilt of that name (build it),
# 1 one exists but is unusable (wrong size or checksum, not the folder it names): said on
# stderr; the caller builds from source then.
set -eo pipefail
PB=${1:?usage: prebuilt.sh PREBUILT_DIR NAME CACHE [DEST]}
NAME=${2:?}
CACHE=${3:?}
DEST=${4:-$NAME}
say() { echo "prebuilt[$NAME]: $*" >&2; }

manifest=$PB/MANIFEST.tsv
archive=$PB/$NAME.tar.zst
[ -f "$archive" ] && [ -f "$manifest" ] || exit 3
line=$(awk -F'\t' -v n="$NAME" '$1 == n { print; exit }' "$manifest")
[ -n "$line" ] || { say "$archive is not in $manifest: not used"; exit 1; }
want_bytes=$(cut -f2 <<<"$line")
want_sha=$(cut -f3 <<<"$line")
bytes=$(stat -L -c %s "$archive")
[ "$bytes" = "$want_bytes" ] || { say "$archive has $bytes bytes, the manifest says $want_bytes: not used"; exit 1; }
t0=$(date +%s)
sha=$(sha256sum "$archive" | cut -d' ' -f1)
[ "$sha" = "$want_sha" ] || { say "$archive's sha256 is $sha, the manifest says $want_sha: not used"; exit 1; }
command -v zstd >/dev/null || { say "zstd is not installed (make deps installs it)"; exit 1; }

mkdir -p "$CACHE"
tmp=$(mktemp -d "$CACHE/.unpack-$NAME.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Its owner and modes as unpacked by root would be the builder's: the cache is root's.
tar --zstd -xf "$archive" -C "$tmp" --no-same-owner --no-same-permissions
src=$tmp/$NAME
[ -f "$src/READY" ] && [ -f "$src/install/local_setup.sh" ] ||
	{ say "$archive does not hold $NAME/READY and $NAME/install: not used"; exit 1; }
# Where it was built: colcon writes its own install prefix into local_setup.sh.
origin=$(sed -n 's/^_colcon_prefix_sh_COLCON_CURRENT_PREFIX="\(.*\)\/install"$/\1/p' \
	"$src/install/local_setup.sh" | head -n 1)
[ "$(basename "$origin")" = "$NAME" ] ||
	{ say "its local_setup.sh names '$origin', not a folder $NAME: not used"; exit 1; }
root=$(dirname "$origin")
cache=$(readlink -f "$CACHE")
# sed's pattern and replacement, taken literally
re() { printf '%s' "$1" | sed 's/[]\/$*.^|[]/\\&/g'; }
rep() { printf '%s' "$1" | sed 's/[\/&|]/\\&/g'; }
n=0
if [ "$root/$NAME" != "$cache/$DEST" ]; then
	# Text files only (setup scripts, CMake configs, .pc, READY): the ELF files name the
	# old root only in __FILE__ strings and in RUNPATHs that LD_LIBRARY_PATH, set by
	# setup.bash, comes before.
	e1="s|$(re "$origin")\b|$(rep "$cache/$DEST")|g"
	e2="s|$(re "$root")/|$(rep "$cache")/|g"
	while IFS= read -r -d '' f; do
		sed -i -e "$e1" -e "$e2" "$f"
		n=$((n + 1))
	done < <(grep -rlIZ -- "$root/" "$src")
fi
echo "$(date -Is) unpacked from $archive (sha256 $sha) in $(($(date +%s) - t0)) s;" \
	"$n files relocated from $root to $cache" >> "$src/PROGRESS.txt"
rm -rf "${CACHE:?}/$DEST"
mv "$src" "$CACHE/$DEST"
say "unpacked into $CACHE/$DEST in $(($(date +%s) - t0)) s ($n files relocated)"
