/* SPDX-License-Identifier: Apache-2.0 */
/* Distribution detection (agent/distro.c) from symbol sets as each real
 * distribution exports them (ros2/ros2_tracing tracetools.h, ros2/rclcpp
 * executor.hpp at humble / iron / jazzy). */
#include <check.h>
#include <string.h>

#include "agent/distro.h"
#include "proto/rclcpp_abi.h"
#include "tests/unit/unit.h"

static const char *const *present;

static bool has(const char *sym)
{
	for (const char *const *p = present; p && *p; p++)
		if (strcmp(*p, sym) == 0)
			return true;
	return false;
}

static const char *const humble[] = { "ros_trace_rcl_init", CARET_SYM_EXEC_ADD_CBG, NULL };
static const char *const iron[] = { "ros_trace_rcl_init", "ros_trace_enabled_rcl_init",
				    CARET_SYM_EXEC_ADD_CBG, CARET_SYM_EEC_ADD_CBG, NULL };
static const char *const jazzy[] = { "ros_trace_rcl_init", "ros_trace_enabled_rcl_init",
				     CARET_SYM_EEC_ADD_CBG, NULL };
/* rclpy: tracetools only. */
static const char *const py_new[] = { "ros_trace_rcl_init", "ros_trace_enabled_rcl_init", NULL };
static const char *const py_humble[] = { "ros_trace_rcl_init", NULL };
static const char *const nothing[] = { NULL };

static struct caret_distro run(const char *const *set, const char *hint)
{
	struct caret_distro d;
	present = set;
	caret_distro_detect(has, hint, &d);
	return d;
}

START_TEST(symbols_decide)
{
	struct caret_distro d = run(humble, "jazzy");
	ck_assert_int_eq(d.family, CARET_FAMILY_HUMBLE);
	ck_assert_int_eq(d.rmw_publish_args, 1);
	ck_assert_str_eq(d.name, "humble");
	d = run(jazzy, NULL);
	ck_assert_int_eq(d.family, CARET_FAMILY_JAZZY);
	ck_assert_int_eq(d.rmw_publish_args, 3);
	ck_assert_str_eq(d.name, "jazzy");
	d = run(jazzy, "rolling");
	ck_assert_str_eq(d.name, "rolling");
	ck_assert_int_eq(d.source, CARET_DISTRO_SYMBOLS);
	d = run(iron, "humble");
	ck_assert_int_eq(d.family, CARET_FAMILY_IRON);
	ck_assert_int_eq(d.rmw_publish_args, 1);
	ck_assert_str_eq(d.name, "iron");
	d = run(py_humble, NULL);
	ck_assert_int_eq(d.family, CARET_FAMILY_HUMBLE);
	ck_assert_int_eq(d.rmw_publish_args, 1);
}
END_TEST

START_TEST(hint_only_breaks_ties)
{
	struct caret_distro d = run(py_new, "jazzy");
	ck_assert_int_eq(d.family, CARET_FAMILY_JAZZY);
	ck_assert_int_eq(d.source, CARET_DISTRO_HINT);
	ck_assert_int_eq(d.rmw_publish_args, 3);
	d = run(py_new, "iron");
	ck_assert_int_eq(d.family, CARET_FAMILY_IRON);
	ck_assert_int_eq(d.rmw_publish_args, 1);
	/* Iron or Jazzy and a hint naming neither: unknown, no fields read. */
	d = run(py_new, "humble");
	ck_assert_int_eq(d.family, CARET_FAMILY_UNKNOWN);
	ck_assert_int_eq(d.rmw_publish_args, 0);
	d = run(py_new, NULL);
	ck_assert_int_eq(d.rmw_publish_args, 0);
	/* Nothing loaded: the hint names it, but no signature is trusted. */
	d = run(nothing, "jazzy");
	ck_assert_str_eq(d.name, "jazzy");
	ck_assert_int_eq(d.rmw_publish_args, 0);
	d = run(nothing, NULL);
	ck_assert_int_eq(d.family, CARET_FAMILY_UNKNOWN);
	ck_assert_int_eq(d.rmw_publish_args, 0);
	/* Never "": caret_analyze reads its first letter. */
	ck_assert_str_eq(d.name, CARET_DISTRO_DEFAULT);
	ck_assert(d.defaulted);
	d = run(py_new, NULL);
	ck_assert_str_eq(d.name, CARET_DISTRO_DEFAULT);
	ck_assert(d.defaulted);
	d = run(nothing, "");
	ck_assert_str_eq(d.name, CARET_DISTRO_DEFAULT);
	d = run(nothing, "jazzy");
	ck_assert(!d.defaulted);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("distro");
	unit_case(s, "detect", symbols_decide, hint_only_breaks_ties);
	return unit_run(s);
}
