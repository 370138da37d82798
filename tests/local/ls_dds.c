/* SPDX-License-Identifier: Apache-2.0 */
/* A DDS library loaded only in local scope (like libddsc under
 * rmw_implementation's dlopen(RTLD_LAZY)): counts what reaches it. */
#include <stdint.h>

int ls_dds_writes, ls_dds_writes_ts;
int64_t ls_dds_last_ts;

int dds_write(int32_t writer, const void *data)
{
	(void)writer;
	(void)data;
	ls_dds_writes++;
	return 0;
}

int dds_write_ts(int32_t writer, const void *data, int64_t ts)
{
	(void)writer;
	(void)data;
	ls_dds_writes_ts++;
	ls_dds_last_ts = ts;
	return 0;
}
