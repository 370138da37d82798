#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# rclpy beside the real-ROS 2 fixture: an OVERLAY on the core of tools/ros2/fixture.sh, so the
# core's key (a cold core takes 30+ minutes) never changes for Python. Builds rclpy, rcl_action,
# rosidl_generator_py (with python_cmake_module and rpyutils) and again, now
# with the Python generator, the interface packages rclpy and tests/ros2/test_rclpy.py import,
# all from the snapshots in $CARET_ROS2_SRC (CI cannot fetch), into
# $CARET_ROS2_CACHE/rclpy-<distro>-<key>, keyed by those archives, RECIPE and the core's folder
# (whose name carries the core's key). Prints the overlay's install prefix (its setup.bash
# sources the core too); progress goes to stderr and <cache>/PROGRESS.txt.
#
#   tools/ros2/rclpy.sh humble|jazzy [--print-key|--if-built] [--no-apt] [--rebuild]
#
# --print-key prints the cache folder without building anything; --if-built prints the install
# prefix when it is already built or prebuilt (or an installed ROS 2 has rclpy) and exits 3
# otherwise, building nothing (tests/ros2/run.sh: CARET_ROS2_RCLPY unset).
# A cold cache first takes the prebuilt overlay of the same key from $CARET_ROS2_SRC/prebuilt
# (tools/ros2/prebuilt.sh); its key names the core's path as it was built there
# ($PREBUILT_ROOT), so under another CARET_ROS2_CACHE the same inputs find it too, unpacked
# under this cache's own key. --rebuild builds from source whatever the cache holds.
# An installed ROS 2 (CARET_ROS2_PREFIX_<DISTRO>) that has rclpy is used as it is.
# The overlay's interface libraries shadow the core's (same sources, every typesupport of the
# core again): a Python process loads one copy of each.
set -eo pipefail
# One compound command, read whole before it runs: editing or checking out this file while a
# build runs cannot change what the running build does.
{
distro=${1:?usage: rclpy.sh humble|jazzy [--print-key|--if-built] [--no-apt]}
shift
case $distro in humble|jazzy) ;; *) echo "rclpy: unknown distribution '$distro'" >&2; exit 2;; esac
HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
SRCROOT=${CARET_ROS2_SRC:-$(readlink -f "$TOP/../shared/ros2" 2>/dev/null || true)}
CACHE=${CARET_ROS2_CACHE:-/var/cache/caretd-ros2}
noapt=""
[[ " $* " == *" --no-apt "* ]] && noapt=--no-apt
printkey=""
[[ " $* " == *" --print-key "* ]] && printkey=1
ifbuilt=""
[[ " $* " == *" --if-built "* ]] && ifbuilt=1
rebuild=""
[[ " $* " == *" --rebuild "* ]] && rebuild=1
# Where prebuilt/ was built (../shared/ros2/README.md): the core's path in its keys.
PREBUILT_ROOT=/var/cache/caretd-ros2

var=CARET_ROS2_PREFIX_${distro^^}
if [ -n "${!var:-}" ]; then
	if compgen -G "${!var}/lib/python3*/*-packages/rclpy" >/dev/null ||
		compgen -G "${!var}/local/lib/python3*/*-packages/rclpy" >/dev/null; then
		echo "${!var}"
		exit 0
	fi
	echo "rclpy: $var=${!var} has no rclpy" >&2
	[ -n "$ifbuilt" ] && exit 3
	exit 1
fi
if [ -n "$printkey$ifbuilt" ]; then
	core=$("$TOP/tools/ros2/fixture.sh" "$distro" --print-key)
	# Jazzy unset CARET_ROS2_FASTDDS_JAZZY: --print-key names the core without Fast DDS; the
	# one with it is used when built.
	if [ "$distro" = jazzy ] && [ -z "${CARET_ROS2_FASTDDS_JAZZY:-}" ]; then
		w=$(CARET_ROS2_FASTDDS_JAZZY=1 "$TOP/tools/ros2/fixture.sh" jazzy --print-key)
		[ -f "$w/READY" ] && core=$w
	fi
	core=$core/install
else
	core=$("$TOP/tools/ros2/fixture.sh" "$distro" $noapt)
fi

IFACE_REPOS="rcl_interfaces common_interfaces example_interfaces unique_identifier_msgs"
TOOL_REPOS="python_cmake_module rpyutils rosidl_python rclpy rcl"
IFACES="builtin_interfaces unique_identifier_msgs rcl_interfaces action_msgs lifecycle_msgs
	rosgraph_msgs std_msgs example_interfaces"
[ "$distro" = jazzy ] && IFACES="service_msgs type_description_interfaces $IFACES"

# Change RECIPE with any step below that changes what is installed.
RECIPE=1
keyof() {  # the core's install path
	(for p in $IFACE_REPOS $TOOL_REPOS; do
		f=$SRCROOT/src/$distro/$p.tar.gz
		[ -f "$f" ] || { echo "rclpy: missing input $f (set CARET_ROS2_SRC)" >&2; exit 1; }
		sha256sum "$f" | cut -d' ' -f1
	done; echo "recipe=$RECIPE core=$1") | sha256sum | cut -c1-16
}
core_path=$(readlink -f "$core")
key=$(keyof "$core_path")
W=$CACHE/rclpy-$distro-$key
if [ -n "$printkey" ]; then echo "$W"; exit 0; fi
if [ -z "$rebuild" ] && [ -f "$W/READY" ]; then echo "$W/install"; exit 0; fi
# The name it has in prebuilt/: its key names the core's folder (hence the core's own key) under
# the root it was built in.
pname=rclpy-$distro-$(keyof "$PREBUILT_ROOT/$(basename "$(dirname "$core_path")")/install")
prebuilt() {  # 0 unpacked, else why not (prebuilt.sh's status)
	local rc=0
	[ -z "$rebuild" ] || return 3
	"$HERE/prebuilt.sh" "$SRCROOT/prebuilt" "$pname" "$CACHE" "$(basename "$W")" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || echo "rclpy: the prebuilt $pname is unusable: not used" >&2
	return "$rc"
}
if [ -n "$ifbuilt" ]; then
	[ -d "$core_path" ] && [ -f "$SRCROOT/prebuilt/$pname.tar.zst" ] || exit 3
	mkdir -p "$CACHE"
	exec 9>"$CACHE/rclpy-$distro.lock"
	flock 9
	[ -f "$W/READY" ] || prebuilt || exit 3
	echo "$W/install"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/rclpy-$distro.lock"
if ! flock -n 9; then
	echo "rclpy: another build of rclpy for $distro is running ($CACHE/rclpy-$distro.lock); waiting" >&2
	flock 9
fi
if [ -z "$rebuild" ] && [ -f "$W/READY" ]; then echo "$W/install"; exit 0; fi
if prebuilt; then echo "$W/install"; exit 0; fi
[ -z "$rebuild" ] || rm -rf "$W"
mkdir -p "$W"
# An interrupted build resumes: colcon skips the packages it finished (same key, same inputs).
rm -rf "$W/src" && mkdir -p "$W/src"
log() { echo "$(date -Is) rclpy[$distro]: $*" | tee -a "$W/PROGRESS.txt" >&2; }
t_all=$(date +%s)
log "building into $W over $core (cold: 18 min for Humble, 39 for Jazzy on 2 loaded cores)"

if [ -z "$noapt" ]; then
	"$TOP/tools/install-deps.sh" pybind11-dev python3-dev python3-numpy python3-yaml \
		python3-colcon-python-setup-py python3-setuptools >&2
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
unset RMW_IMPLEMENTATION AMENT_PREFIX_PATH CMAKE_PREFIX_PATH COLCON_PREFIX_PATH PYTHONPATH LD_LIBRARY_PATH
export MAKEFLAGS=-j${CARET_ROS2_JOBS:-$(nproc)}

for p in $IFACE_REPOS $TOOL_REPOS; do tar -xzf "$SRCROOT/src/$distro/$p.tar.gz" -C "$W/src"; done
# colcon follows test dependencies too (rcl_action's test_msgs), and nothing here is tested.
touch "$W/src/rcl_interfaces/test_msgs/COLCON_IGNORE"
# rclpy asks CMake for pybind11_vendor, which only vendors pybind11: Debian's pybind11-dev serves.
mkdir -p "$W/pybind11_vendor"
cat > "$W/pybind11_vendor/pybind11_vendorConfig.cmake" <<'EOC'
# Empty: Debian's pybind11-dev serves (written by caretd's tools/ros2/rclpy.sh).
set(pybind11_vendor_FOUND TRUE)
EOC

stage() {  # name, colcon args...
	local st=$1 t0
	shift
	t0=$(date +%s)
	log "$st begin"
	# The core's setup.bash: its ament index lists the typesupports every interface package
	# is generated for, and the overlay's own index adds rosidl_generator_py once stage
	# "generator" installed it.
	if ! bash -c 'set -e; source "$1/setup.bash"; [ ! -f "$2/install/setup.bash" ] || source "$2/install/setup.bash"
		shift 2; exec colcon "$@"' _ "$core" "$W" --log-base "$W/log" build \
		--base-paths "$W/src" --packages-skip-build-finished --merge-install --install-base "$W/install" --build-base "$W/build" \
		--parallel-workers 1 --event-handlers console_direct- console_start_end+ "$@" \
		--cmake-args -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DPython3_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3 \
		-Dpybind11_vendor_DIR="$W/pybind11_vendor" --no-warn-unused-cli > "$W/$st.log" 2>&1; then
		log "$st FAILED: see $W/$st.log"
		tail -30 "$W/$st.log" >&2
		exit 1
	fi
	log "$st done in $(($(date +%s) - t0)) s"
}
# The generator first, installed: interface packages find it through the ament index only (no
# package.xml names it), so colcon cannot order them after it within one invocation.
stage generator --packages-select python_cmake_module rpyutils rosidl_generator_py
# shellcheck disable=SC2086
stage interfaces --packages-select $IFACES
stage rclpy --packages-select rcl_action rclpy
for m in rclpy std_msgs example_interfaces; do
	# Debian's ament_cmake_python installs into lib/python3/dist-packages, Jazzy's own into
	# lib/python3.11/site-packages.
	compgen -G "$W/install/lib/python3*/*-packages/$m" >/dev/null ||
		{ log "no Python module $m installed"; exit 1; }
done
du -sh "$W/install" | tee -a "$W/PROGRESS.txt" >&2
rm -rf "$W/build" "$W/src"
echo "$(date -Is) $(($(date +%s) - t_all)) s core=$core" > "$W/READY"
log "ready in $(($(date +%s) - t_all)) s"
echo "$W/install"
exit
}
