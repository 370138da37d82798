#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The real-ROS 2 fixture: builds a ROS 2 core (Humble or Jazzy) from the upstream source
# snapshots in $CARET_ROS2_SRC (../shared/ros2 beside the checkout; CI cannot fetch) into a
# cache outside the checkout, keyed by the hash of every input, so a machine builds it once and
# every later run (CI included) reuses it. Prints the install prefix on stdout; progress goes to
# stderr and to <cache>/PROGRESS.txt.
#
#   tools/ros2/fixture.sh humble|jazzy [--print-key] [--no-apt] [--rebuild]
#
# A cold cache first takes the prebuilt folder of the same key from $CARET_ROS2_SRC/prebuilt
# (tools/ros2/prebuilt.sh: checked against its MANIFEST.tsv, unpacked in a few seconds);
# --rebuild builds from source whatever the cache or prebuilt/ hold.
#
# CARET_ROS2_PREFIX_<DISTRO> (e.g. CARET_ROS2_PREFIX_HUMBLE=/opt/ros/humble) skips the build
# and uses an installed ROS 2 instead. The cache root is $CARET_ROS2_CACHE
# (default /var/cache/caretd-ros2).
#
# What is built (colcon, Debian 12's colcon and, for Humble, Debian's ament): rcutils ... rclcpp,
# tracetools with LTTng, rclcpp_lifecycle, std_msgs, example_interfaces, rmw_cyclonedds_cpp
# (Debian's CycloneDDS 0.10) and rmw_fastrtps_cpp: Humble against Debian's Fast DDS 2.9.1 (its
# version check accepts it); Jazzy needs Fast DDS >= 2.13, so the bundled 2.14 is built first
# when CARET_ROS2_FASTDDS_JAZZY=1 (another 30 to 50 minutes on 2 cores); unset, a Jazzy fixture
# with it is used when this machine already has one.
# Every typesupport package is in the workspace from the start, so colcon's group dependencies
# order rosidl_typesupport_fastrtps_* before the interface packages (built the other way round,
# rmw_fastrtps_cpp cannot create publishers: shared/ros2/README.md).
set -eo pipefail
distro=${1:?usage: fixture.sh humble|jazzy [--print-key] [--no-apt] [--rebuild]}
shift
case $distro in humble|jazzy) ;; *) echo "fixture: unknown distribution '$distro'" >&2; exit 2;; esac
HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
SRCROOT=${CARET_ROS2_SRC:-$(readlink -f "$TOP/../shared/ros2" 2>/dev/null || true)}
CACHE=${CARET_ROS2_CACHE:-/var/cache/caretd-ros2}
# Jazzy's Fast DDS 2.14: 1 builds it, 0 never; unset (auto) uses a Jazzy fixture that has it
# when one is already built on this machine, and builds the one without it otherwise (a cold
# CI stays within its time; a machine that built it once keeps testing it).
fastdds_jazzy=${CARET_ROS2_FASTDDS_JAZZY:-auto}
if [ "$distro" = jazzy ] && [ "$fastdds_jazzy" = auto ]; then
	w=$(CARET_ROS2_FASTDDS_JAZZY=1 "$0" jazzy --print-key)
	if [[ " $* " != *" --print-key "* ]] &&
		{ [ -f "$w/READY" ] || [ -f "$SRCROOT/prebuilt/$(basename "$w").tar.zst" ]; }; then
		# built here, or prebuilt: then it costs seconds, not 30 to 50 minutes
		CARET_ROS2_FASTDDS_JAZZY=1 exec "$0" jazzy "$@"
	fi
	fastdds_jazzy=0
fi
[ "$fastdds_jazzy" = auto ] && fastdds_jazzy=0

var=CARET_ROS2_PREFIX_${distro^^}
if [ -n "${!var:-}" ]; then
	[ -f "${!var}/setup.bash" ] || { echo "fixture: $var=${!var} has no setup.bash" >&2; exit 1; }
	echo "${!var}"
	exit 0
fi
[ -d "$SRCROOT/src/$distro" ] || {
	echo "fixture: no ROS 2 sources at $SRCROOT/src/$distro (set CARET_ROS2_SRC, or $var to an installed ROS 2)" >&2
	exit 1
}

COMMON_PKGS="rcutils rcpputils rosidl rosidl_typesupport rosidl_defaults rmw rmw_implementation
	rmw_dds_common rmw_cyclonedds rmw_fastrtps rosidl_typesupport_fastrtps rcl_interfaces
	unique_identifier_msgs rcl rcl_logging ros2_tracing libstatistics_collector rclcpp
	common_interfaces example_interfaces libyaml_vendor"
if [ "$distro" = jazzy ]; then
	PKGS="ament_package ament_cmake ament_index ament_cmake_ros rosidl_core rosidl_dynamic_typesupport
		rosidl_dynamic_typesupport_fastrtps $COMMON_PKGS"
	DEPS=""
	[ "$fastdds_jazzy" = 1 ] && DEPS="foonathan_memory_vendor memory Fast-CDR Fast-DDS"
else
	PKGS=$COMMON_PKGS
	DEPS=""
fi

# The key: every archive and patch, and RECIPE, which names the build steps below: change it
# with any step that changes what is installed (comments and messages do not rebuild).
RECIPE=1
FASTDDS_RECIPE=2  # the steps only the Jazzy + Fast DDS 2.14 build takes
inputs() {
	for p in $PKGS; do echo "$SRCROOT/src/$distro/$p.tar.gz"; done
	for d in $DEPS; do echo "$SRCROOT/src/deps/$d.tar.gz"; done
	ls "$SRCROOT"/patches/*.patch
}
key=$( (inputs | while read -r f; do
	[ -f "$f" ] || { echo "fixture: missing input $f" >&2; exit 1; }
	sha256sum "$f" | cut -d' ' -f1
done; echo "recipe=$RECIPE fastdds_jazzy=$fastdds_jazzy"
	if [ "$fastdds_jazzy" = 1 ]; then echo "fastdds_recipe=$FASTDDS_RECIPE"; fi) |
	sha256sum | cut -c1-16)
W=$CACHE/$distro-$key
if [[ " $* " == *" --print-key "* ]]; then echo "$W"; exit 0; fi
rebuild=""
[[ " $* " == *" --rebuild "* ]] && rebuild=1
if [ -z "$rebuild" ] && [ -f "$W/READY" ]; then echo "$W/install"; exit 0; fi

mkdir -p "$CACHE"
exec 9>"$CACHE/$distro.lock"
if ! flock -n 9; then
	echo "fixture: another build of $distro is running ($CACHE/$distro.lock); waiting" >&2
	flock 9
fi
if [ -z "$rebuild" ] && [ -f "$W/READY" ]; then echo "$W/install"; exit 0; fi
# Before a prebuilt too: the core links and its CMake configs find these at run and app build
# time. pybind11-dev, python3-dev, numpy and yaml: for rclpy's overlay (tools/ros2/rclpy.sh), installed
# here too so that a later build of it inside the isolated host (no network) finds them.
if [[ " $* " != *" --no-apt "* ]]; then
	"$TOP/tools/install-deps.sh" colcon python3-colcon-cmake python3-colcon-ros \
		python3-colcon-package-selection python3-colcon-parallel-executor \
		python3-colcon-library-path python3-colcon-defaults python3-colcon-output \
		python3-colcon-recursive-crawl python3-colcon-metadata python3-colcon-package-information \
		python3-colcon-python-setup-py python3-colcon-pkg-config python3-colcon-bash ament-cmake \
		ament-cmake-ros libament-index-cpp-dev python3-ament-index python3-ament-package \
		python3-empy python3-lark python3-catkin-pkg python3-setuptools python3-argcomplete \
		pkg-config cmake g++ cyclonedds-dev libyaml-dev liblttng-ust-dev lttng-tools babeltrace2 \
		libfastrtps-dev libfastcdr-dev fastddsgen libasio-dev libtinyxml2-dev libssl-dev \
		uuid-dev pybind11-dev python3-dev python3-numpy python3-yaml zstd >&2
fi

if [ -z "$rebuild" ]; then
	rc=0
	"$HERE/prebuilt.sh" "$SRCROOT/prebuilt" "$(basename "$W")" "$CACHE" || rc=$?
	if [ "$rc" = 0 ]; then echo "$W/install"; exit 0; fi
	[ "$rc" = 3 ] || echo "fixture: the prebuilt $(basename "$W") is unusable: building from source" >&2
fi
[ -z "$rebuild" ] || rm -rf "$W"
mkdir -p "$W"
log() { echo "$(date -Is) fixture[$distro]: $*" | tee -a "$W/PROGRESS.txt" >&2; }
t_all=$(date +%s)
log "building into $W (cold cache; Humble ~20 min, Jazzy ~25 min on 2 cores)"

# Debian's /usr/bin/python3 has empy/lark/catkin_pkg; keep pyenv shims out of the way.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Not set at build time: rmw_implementation would pin it and disable run-time selection.
unset RMW_IMPLEMENTATION AMENT_PREFIX_PATH CMAKE_PREFIX_PATH COLCON_PREFIX_PATH PYTHONPATH LD_LIBRARY_PATH
export MAKEFLAGS=-j$(nproc)

rm -rf "$W/src" && mkdir -p "$W/src"
for p in $PKGS; do tar -xzf "$SRCROOT/src/$distro/$p.tar.gz" -C "$W/src"; done
if [ "$distro" = jazzy ]; then
	patch -s -p1 -d "$W/src/libyaml_vendor" < "$SRCROOT/patches/libyaml_vendor-jazzy-use-system-libyaml.patch"
else
	patch -s -p1 -d "$W/src/libyaml_vendor" < "$SRCROOT/patches/libyaml_vendor-use-system-libyaml.patch"
fi
# Not built: the spdlog logging backend (needs spdlog_vendor), test-only and Python-only
# packages (colcon --packages-up-to follows test dependencies too), the Connext/dynamic RMWs.
for d in rcl_logging/rcl_logging_spdlog rcl_interfaces/test_msgs \
	rmw_implementation/test_rmw_implementation rosidl/rosidl_generator_tests \
	rosidl/rosidl_typesupport_introspection_tests rosidl_typesupport/rosidl_typesupport_tests \
	ros2_tracing/lttngpy ros2_tracing/ros2trace ros2_tracing/test_ros2trace \
	ros2_tracing/test_tracetools ros2_tracing/test_tracetools_launch ros2_tracing/tracetools_launch \
	ros2_tracing/tracetools_read ros2_tracing/tracetools_test ros2_tracing/tracetools_trace \
	ament_cmake/ament_cmake_google_benchmark rmw_fastrtps/rmw_fastrtps_dynamic_cpp \
	rclcpp/rclcpp_components rclcpp/rclcpp_action rcl/rcl_action; do
	[ -d "$W/src/$d" ] && touch "$W/src/$d/COLCON_IGNORE"
done
if [ -n "$DEPS" ]; then
	mkdir -p "$W/src/deps"
	for d in $DEPS; do tar -xzf "$SRCROOT/src/deps/$d.tar.gz" -C "$W/src/deps"; done
fi

COMMON=(--base-paths "$W/src" --packages-skip-build-finished --merge-install --install-base "$W/install"
	--build-base "$W/build" --parallel-workers 1 --event-handlers console_direct- console_start_end+
	--cmake-args -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	-DPython3_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3
	-DRCL_LOGGING_IMPLEMENTATION=rcl_logging_noop -DRMW_IMPLEMENTATION_DISABLE_RUNTIME_SELECTION=OFF
	-DSQLITE3_SUPPORT=OFF -DCOMPILE_EXAMPLES=OFF -DFOONATHAN_MEMORY_BUILD_TESTS=OFF
	--no-warn-unused-cli)
[ "$distro" = jazzy ] && COMMON+=(-DCMAKE_PREFIX_PATH="$W/install")

stage() {  # name, colcon args...
	local st=$1 t0
	shift
	t0=$(date +%s)
	log "$st begin"
	if ! colcon --log-base "$W/log" build "${COMMON[@]}" "$@" > "$W/$st.log" 2>&1; then
		log "$st FAILED: see $W/$st.log"
		tail -30 "$W/$st.log" >&2
		exit 1
	fi
	log "$st done in $(($(date +%s) - t0)) s"
}

if [ "$distro" = jazzy ]; then
	stage stage0 --packages-up-to ament_package ament_cmake ament_cmake_ros ament_index_cpp \
		ament_index_python ament_cmake_vendor_package ament_cmake_gen_version_h ament_cmake_python \
		ament_cmake_gtest ament_cmake_gmock ament_cmake_pytest ament_cmake_auto ament_cmake_version
fi
if [ -n "$DEPS" ]; then
	# foonathan/memory first, without its tests (they download doctest): then
	# foonathan_memory_vendor finds it installed and downloads nothing.
	stage memory --packages-select FOONATHAN_MEMORY --cmake-args -DFOONATHAN_MEMORY_BUILD_TESTS=OFF \
		-DFOONATHAN_MEMORY_BUILD_EXAMPLES=OFF
fi
FAST=rmw_fastrtps_cpp
if [ "$distro" = jazzy ] && [ "$fastdds_jazzy" != 1 ]; then
	FAST=""
	touch "$W/src/rmw_fastrtps/COLCON_IGNORE" "$W/src/rosidl_typesupport_fastrtps/COLCON_IGNORE" \
		"$W/src/rosidl_dynamic_typesupport_fastrtps/COLCON_IGNORE"
fi
stage core --packages-up-to rclcpp rclcpp_lifecycle std_msgs example_interfaces rmw_implementation \
	rmw_cyclonedds_cpp rcl_logging_noop tracetools $FAST
# Humble's tracetools builds without LTTng when it is not found (Jazzy's needs it): either
# way, a tracetools with tracepoints links lttng-ust.
readelf -d "$W/install/lib/libtracetools.so" | grep -q "liblttng-ust" ||
	{ log "tracetools was built without LTTng (liblttng-ust-dev missing?)"; exit 1; }
du -sh "$W/install" | tee -a "$W/PROGRESS.txt" >&2
rm -rf "$W/build" "$W/src"
echo "$(date -Is) $(($(date +%s) - t_all)) s" > "$W/READY"
log "ready in $(($(date +%s) - t_all)) s"
echo "$W/install"
