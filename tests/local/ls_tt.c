/* SPDX-License-Identifier: Apache-2.0 */
/* A tracetools-like library reached only through a local-scope extension
 * (as rclpy's _rclpy_pybind11 reaches rcl and tracetools). */
#include <stdbool.h>

int ls_tt_rcl_init, ls_tt_callback_start;

void ros_trace_rcl_init(const void *context)
{
	(void)context;
	ls_tt_rcl_init++;
}

void ros_trace_callback_start(const void *callback, const bool intra)
{
	(void)callback;
	(void)intra;
	ls_tt_callback_start++;
}
