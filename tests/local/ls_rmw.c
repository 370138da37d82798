/* SPDX-License-Identifier: Apache-2.0 */
/* An RMW-like library: linked against the DDS library, loaded RTLD_LOCAL. */
#include <stdint.h>

int dds_write(int32_t writer, const void *data);

int ls_publish(void)
{
	static int msg;
	return dds_write(7, &msg);
}
