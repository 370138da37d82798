#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The real CARET beside the fixture, for the side-by-side tests: builds tier4/caret_trace
# (libcaret.so, CARET's LD_PRELOAD tracer) against the ROS 2 core of tools/ros2/fixture.sh, and
# tier4/caret_analyze with its C++ module (caret_analyze_cpp_impl's record_cpp_impl), all from
# the source snapshots in $CARET_ROS2_SRC/src/caret (CI cannot fetch), into caches outside the
# checkout keyed by the hash of every input. Idempotent: a second run prints the same folder.
#
#   tools/ros2/caret.sh humble|jazzy [--no-apt]
#
# Prints one folder W on stdout:
#   W/install/lib/libcaret.so    caret_trace's preload library (W/install/setup.bash adds
#                                caret_msgs, which libcaret.so links)
#   W/python                     PYTHONPATH for `import caret_analyze` (distribution-independent,
#                                a link to $CACHE/caret_analyze-<key>, shared by all distros)
# caret_analyze also imports `multimethod`, which Debian does not package: the tests bring a
# stand-in (tests/ros2/shim).
#
# caret_trace asks for Fast DDS's rmw_fastrtps_shared_cpp (it hooks Fast DDS's write path); a
# core without it (the Jazzy fixture unless CARET_ROS2_FASTDDS_JAZZY=1) gets an empty stand-in
# package, and CARET then serves CycloneDDS only. caret_trace itself is built as shipped:
# with --coverage (so every traced process writes .gcda files at exit: set GCOV_PREFIX) and
# CARET's own tracetools fork absent (upstream tracetools: the fork-only events are missing
# from CARET's trace as from ours).
set -eo pipefail
distro=${1:?usage: caret.sh humble|jazzy [--no-apt]}
shift
case $distro in humble|jazzy) ;; *) echo "caret: unknown distribution '$distro'" >&2; exit 2;; esac
HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
SRCROOT=${CARET_ROS2_SRC:-$(readlink -f "$TOP/../shared/ros2" 2>/dev/null || true)}
CACHE=${CARET_ROS2_CACHE:-/var/cache/caretd-ros2}
CSRC=$SRCROOT/src/caret
for t in caret_trace caret_analyze caret_analyze_cpp_impl; do
	[ -f "$CSRC/$t.tar.gz" ] || { echo "caret: missing $CSRC/$t.tar.gz (set CARET_ROS2_SRC)" >&2; exit 1; }
done
noapt=""
[[ " $* " == *" --no-apt "* ]] && noapt=--no-apt

if [ -z "$noapt" ]; then
	"$TOP/tools/install-deps.sh" python3-bt2 python3-pandas python3-numpy python3-yaml python3-tqdm \
		python3-packaging pybind11-dev libyaml-cpp-dev python3-dev g++ uuid-dev \
		liblttng-ust-dev lttng-tools cyclonedds-dev libfastrtps-dev >&2
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
unset AMENT_PREFIX_PATH CMAKE_PREFIX_PATH COLCON_PREFIX_PATH PYTHONPATH LD_LIBRARY_PATH RMW_IMPLEMENTATION

hash_of() { for f in "$@"; do sha256sum "$f" | cut -d' ' -f1; done | sha256sum | cut -c1-16; }
mkdir -p "$CACHE"

# caret_analyze: pure Python plus one pybind11 module; no ROS 2 needed, so one per machine.
akey=$(hash_of "$CSRC/caret_analyze.tar.gz" "$CSRC/caret_analyze_cpp_impl.tar.gz" "$HERE/caret.sh")
A=$CACHE/caret_analyze-$akey
if [ ! -f "$A/READY" ]; then
	exec 8>"$CACHE/caret_analyze.lock"
	flock 8
	if [ ! -f "$A/READY" ]; then
		t0=$(date +%s)
		echo "caret: building caret_analyze into $A" >&2
		rm -rf "$A" && mkdir -p "$A/src" "$A/python"
		tar -xzf "$CSRC/caret_analyze.tar.gz" -C "$A/src"
		tar -xzf "$CSRC/caret_analyze_cpp_impl.tar.gz" -C "$A/src"
		cp -a "$A/src/caret_analyze/src/caret_analyze" "$A/python/"
		cpp=$A/src/caret_analyze_cpp_impl/CARET_analyze_cpp_impl
		# What its CMakeLists builds into record_cpp_impl, without ament's pybind11_vendor and
		# yaml_cpp_vendor (Debian's pybind11 and yaml-cpp serve).
		srcs=()
		for s in record records_base records_vector_impl records_map_impl iterator_base \
			iterator_vector_impl iterator_map_impl column_manager file pybind; do
			srcs+=("$cpp/src/$s.cpp")
		done
		# shellcheck disable=SC2046
		g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -I"$cpp/include" \
			$(python3-config --includes) "${srcs[@]}" -lyaml-cpp \
			-o "$A/python/record_cpp_impl$(python3-config --extension-suffix)" >"$A/build.log" 2>&1 ||
			{ tail -30 "$A/build.log" >&2; exit 1; }
		rm -rf "$A/src"
		echo "$(date -Is) $(($(date +%s) - t0)) s" > "$A/READY"
		echo "caret: caret_analyze ready in $(($(date +%s) - t0)) s" >&2
	fi
	exec 8>&-
fi

# caret_trace: against the fixture's (or an installed) ROS 2 of this distribution.
prefix=$("$TOP/tools/ros2/fixture.sh" "$distro" $noapt)
tkey=$( (hash_of "$CSRC/caret_trace.tar.gz" "$HERE/caret.sh"; echo "$akey"; readlink -f "$prefix") | sha256sum | cut -c1-16)
W=$CACHE/caret-$distro-$tkey
if [ -f "$W/READY" ]; then echo "$W"; exit 0; fi
exec 9>"$CACHE/caret-$distro.lock"
flock 9
if [ -f "$W/READY" ]; then echo "$W"; exit 0; fi
t0=$(date +%s)
echo "caret: building caret_trace for $distro into $W" >&2
rm -rf "$W" && mkdir -p "$W/src"
tar -xzf "$CSRC/caret_trace.tar.gz" -C "$W/src"
extra=()
if [ ! -e "$prefix/lib/librmw_fastrtps_shared_cpp.so" ]; then
	# A core without Fast DDS's RMW (the Jazzy fixture unless CARET_ROS2_FASTDDS_JAZZY=1):
	# caret_trace asks CMake for rmw_fastrtps_shared_cpp but uses nothing of it (its Fast DDS
	# hook needs only Fast DDS's headers, Debian's here, and is never called without that
	# RMW). An empty package stands in, so CARET serves the other RMWs.
	mkdir -p "$W/no_fastrtps_rmw"
	cat > "$W/no_fastrtps_rmw/rmw_fastrtps_shared_cppConfig.cmake" <<'EOC'
# Empty: this ROS 2 core has no rmw_fastrtps (written by caretd's tools/ros2/caret.sh).
set(rmw_fastrtps_shared_cpp_FOUND TRUE)
set(rmw_fastrtps_shared_cpp_INCLUDE_DIRS "")
set(rmw_fastrtps_shared_cpp_LIBRARIES "")
set(rmw_fastrtps_shared_cpp_DEFINITIONS "")
EOC
	extra+=(-Drmw_fastrtps_shared_cpp_DIR="$W/no_fastrtps_rmw")
	echo "caret: $prefix has no rmw_fastrtps_shared_cpp: caret_trace built without it" \
		"(its Fast DDS hook unused)" >&2
fi
# caret_trace's CMakeLists picks its Jazzy code on ROS_DISTRO=jazzy; nothing else reads it.
if ! bash -c 'set -e; source "$1/setup.bash"; cd "$2"; ROS_DISTRO=$3 MAKEFLAGS=-j$(nproc) colcon --log-base log build \
	--base-paths src --packages-select caret_msgs caret_trace --merge-install \
	--install-base install --build-base build --parallel-workers 1 --event-handlers console_direct- \
	--cmake-args -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3 \
	--no-warn-unused-cli "${@:4}"' _ "$prefix" "$W" "$distro" "${extra[@]}" >"$W/build.log" 2>&1; then
	tail -40 "$W/build.log" >&2
	echo "caret: caret_trace did not build: $W/build.log" >&2
	exit 1
fi
[ -f "$W/install/lib/libcaret.so" ] || { echo "caret: no libcaret.so in $W/install/lib" >&2; exit 1; }
rm -rf "$W/build" "$W/src" "$W/log"
ln -sfn "$A/python" "$W/python"
echo "$(date -Is) $(($(date +%s) - t0)) s fixture=$prefix" > "$W/READY"
echo "caret: caret_trace ready in $(($(date +%s) - t0)) s" >&2
echo "$W"
