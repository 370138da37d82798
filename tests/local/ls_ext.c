/* SPDX-License-Identifier: Apache-2.0 */
/* An extension module: calls tracetools, which it links, from local scope. */
#include <stdbool.h>

void ros_trace_rcl_init(const void *context);
void ros_trace_callback_start(const void *callback, const bool intra);

void ls_ext_init(void)
{
	static int ctx;
	ros_trace_rcl_init(&ctx);
}

void ls_ext_runtime(void)
{
	static int cb;
	ros_trace_callback_start(&cb, false);
}
