#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Builds tests/ros2/apps against a ROS 2 prefix: build-app.sh PREFIX BUILD_DIR
# (the app is BUILD_DIR/caret_real_app; the log BUILD_DIR.cmake.log, shown on failure).
set -u
prefix=$1 bdir=$2
TOP=$(readlink -f "$(dirname "$0")/../..")
mkdir -p "$bdir"
if ! bash -c 'set -e; source "$1/setup.bash"; cmake -S "$2" -B "$3" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DPython3_EXECUTABLE=/usr/bin/python3 >"$3.cmake.log" 2>&1 && cmake --build "$3" -j2 >>"$3.cmake.log" 2>&1' \
	_ "$prefix" "$TOP/tests/ros2/apps" "$bdir"; then
	tail -40 "$bdir.cmake.log" >&2
	exit 1
fi
