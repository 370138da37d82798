#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make deb`: builds the Debian package (debian/) with
# `dpkg-buildpackage -us -uc -b` in a copy of the tree under OUTDIR, so
# neither the tree (its build/, debian/) nor its parent directory is
# written; the .deb files, .buildinfo and .changes end in OUTDIR.
#   tools/build-deb.sh OUTDIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/src/caretd-$ver
rm -rf "$out/src" "$out"/caretd*.deb "$out"/caretd*.buildinfo "$out"/caretd*.changes
mkdir -p "$src"
cd "$top"
# The working tree as it is (edits and new files included), without what
# .gitignore leaves out (builds, traces).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done | tar -cf - -T - | tar -xf - -C "$src"
else
	tar --exclude=./build --exclude='./build-*' --exclude=./debian/build \
		--exclude=./debian/caretd -cf - . | tar -xf - -C "$src"
fi
cd "$src"
# Two jobs at most: the machine is shared.
DEB_BUILD_OPTIONS="parallel=${DEB_JOBS:-2} ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
mv "$out"/src/caretd*.deb "$out"/src/caretd*.buildinfo "$out"/src/caretd*.changes "$out"/
rm -rf "$out/src"
ls -l "$out"/caretd*.deb
