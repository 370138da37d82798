#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The real-ROS 2 suite: for each distribution in $CARET_ROS2_DISTROS (default: humble jazzy),
# builds or reuses the fixture (tools/ros2/fixture.sh; CARET_ROS2_PREFIX_<DISTRO> points at an
# installed ROS 2 instead), builds tests/ros2/apps against it into build/ros2/<distro>, and runs
# test_real_ros.py with the agent of $B, then test_caret_parity.py and
# test_caret_parity_filter.py (CARET's filter variables) against the real CARET
# (tools/ros2/caret.sh), and test_rclpy.py on the rclpy overlay (tools/ros2/rclpy.sh) with
# test_record_clock_real.py (record -c, rclpy's /clock, caret_analyze's sim time), and
# test_scale.py (a generated system of 6 processes x 4 nodes recorded late):
# CARET_ROS2_RCLPY=1 builds it, 0 never runs it, unset runs it when this machine already built
# it. Prints one result line per distribution; exits non-zero if any failed. With SAN=1
# (B=build-san), the agent built with ASan and UBSan runs in the real processes
# (test_real_ros.py, test_rclpy.py); the CARET parity runs only without it.
set -u
cd "$(dirname "$0")"
# The modules run make themselves (test_deb, test_isolation): not as part of the make that
# started this one, whose jobserver descriptors they do not inherit.
unset MAKEFLAGS MFLAGS MAKELEVEL
TOP=$(readlink -f ../..)
B=${B:-build}
status=0
summary=""
# One module of the distribution's: run with its environment (VAR=value arguments), its
# result line in the summary, timed from the caller's t0.
run_module() {
	local label=$1 limit=$2 module=$3
	shift 3
	if env CARET_ROS2_DISTRO="$distro" "$@" B="$B" timeout "$limit" /usr/bin/python3 "$module"; then
		summary="$summary\n  $label: ok in $(($(date +%s) - t0)) s"
	else
		summary="$summary\n  $label: FAILED in $(($(date +%s) - t0)) s"
		status=1
	fi
}
for distro in ${CARET_ROS2_DISTROS:-humble jazzy}; do
	t0=$(date +%s)
	echo "== real ROS 2 $distro (B=$B SAN=${SAN:-0})"
	if ! prefix=$("$TOP/tools/ros2/fixture.sh" "$distro"); then
		summary="$summary\n  $distro: FAILED (fixture did not build)"
		status=1
		continue
	fi
	# The apps are not ours to sanitize: one build serves both stages.
	bdir="$TOP/build/ros2/$distro"
	if ! ./build-app.sh "$prefix" "$bdir"; then
		summary="$summary\n  $distro: FAILED (apps did not build: $bdir.cmake.log)"
		status=1
		continue
	fi
	rmws=rmw_cyclonedds_cpp
	[ -e "$prefix/lib/librmw_fastrtps_cpp.so" ] && rmws="$rmws rmw_fastrtps_cpp"
	run_module "$distro ($rmws)" 1200 test_real_ros.py CARET_ROS2_PREFIX="$prefix" \
		CARET_ROS2_APP="$bdir/caret_real_app" CARET_ROS2_RMWS="$rmws"
	# The real CARET side by side (tools/ros2/caret.sh builds or reuses it), caret_analyze as
	# the oracle. Under SAN=1 only our agent changes: the parity of the plain stage stands.
	t0=$(date +%s)
	if [ "${SAN:-0}" = 1 ]; then
		summary="$summary\n  $distro CARET parity: runs in the stage without SAN"
	elif ! caret=$("$TOP/tools/ros2/caret.sh" "$distro"); then
		summary="$summary\n  $distro CARET parity: FAILED (CARET did not build)"
		status=1
	else
		run_module "$distro CARET parity ($rmws)" 1800 test_caret_parity.py \
			CARET_ROS2_PREFIX="$prefix" CARET_ROS2_APP="$bdir/caret_real_app" \
			CARET_ROS2_RMWS="$rmws" CARET_ROS2_CARET="$caret"
		t0=$(date +%s)
		run_module "$distro CARET filter parity ($rmws)" 900 test_caret_parity_filter.py \
			CARET_ROS2_PREFIX="$prefix" CARET_ROS2_APP="$bdir/caret_real_app" \
			CARET_ROS2_RMWS="$rmws" CARET_ROS2_CARET="$caret"
	fi
	# A generated system of some size (6 processes x 4 nodes) recorded late, judged by the real
	# caret_analyze, and the scale row's gate (bench/ros2_scale_gate.py): with each RMW, in the
	# stage without SAN (CARET's analyzer).
	if [ "${SAN:-0}" != 1 ] && [ -n "${caret:-}" ]; then
		t0=$(date +%s)
		run_module "$distro scale 6x4 ($rmws)" 600 test_scale.py CARET_ROS2_PREFIX="$prefix" \
			CARET_ROS2_SCALE_APP="$bdir/caret_scale_app" CARET_ROS2_RMWS="$rmws" \
			CARET_ROS2_CARET="$caret"
	fi
	# A Python node: rclpy, an overlay on the core (a cold build adds minutes, so CI builds it
	# only when asked).
	t0=$(date +%s)
	case ${CARET_ROS2_RCLPY:-auto} in
	0) continue ;;
	1) py=$("$TOP/tools/ros2/rclpy.sh" "$distro") || py="" ;;
	*)
		py=$("$TOP/tools/ros2/rclpy.sh" "$distro" --if-built)
		case $? in
		0) ;;
		3) summary="$summary\n  $distro rclpy: not built (CARET_ROS2_RCLPY=1 builds it)"; continue ;;
		*) py="" ;;
		esac
		;;
	esac
	if [ -z "$py" ]; then
		summary="$summary\n  $distro rclpy: FAILED (the rclpy overlay did not build)"
		status=1
	else
		run_module "$distro rclpy ($rmws)" 900 test_rclpy.py CARET_ROS2_PREFIX="$py" \
			CARET_ROS2_RMWS="$rmws"
	fi
	# record -c: a real /clock publisher (rclpy, each RMW), the real caret_analyze's
	# sim-time converter on the trace (CARET's, hence not under SAN).
	t0=$(date +%s)
	if [ -z "$py" ]; then
		:
	elif [ "${SAN:-0}" = 1 ] || [ -z "${caret:-}" ]; then
		summary="$summary\n  $distro record -c: runs in the stage without SAN, with CARET"
	else
		run_module "$distro record -c ($rmws)" 900 test_record_clock_real.py \
			CARET_ROS2_PREFIX="$py" CARET_ROS2_RMWS="$rmws" CARET_ROS2_CARET="$caret"
	fi
done
printf "real ROS 2:$summary\n"
exit $status
