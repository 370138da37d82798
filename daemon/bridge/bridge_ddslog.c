/* SPDX-License-Identifier: Apache-2.0 */
/* CycloneDDS's log through caretd's limiter (daemon/bridge/bridge_ddslog.h). */
#include <dds/ddsrt/log.h>

#include "daemon/bridge/bridge_ddsc.h"
#include "daemon/bridge/bridge_ddslog.h"
#include "daemon/base/log.h"

static int level_of(uint32_t cat)
{
	if (cat & DDS_LC_FATAL)
		return LOG_CRIT;
	if (cat & DDS_LC_ERROR)
		return LOG_ERR;
	if (cat & DDS_LC_WARNING)
		return LOG_WARNING;
	return cat & DDS_LC_INFO ? LOG_INFO : LOG_DEBUG;
}

/* On CycloneDDS's threads (its receive threads for a peer's junk):
 * bridge_rlog_ok is safe there. The message ends before its newline;
 * log_msg makes it one line of valid UTF-8 whatever the datagram held. */
static void sink(void *ptr, const dds_log_data_t *d)
{
	struct bridge *b = ptr;
	int level = level_of(d->priority);
	/* a line --log-level drops costs none of the window's lines */
	if (!log_enabled(level))
		return;
	if (b && !(d->priority & DDS_LC_FATAL) && !bridge_rlog_dds_ok(b))
		return;
	int n = d->size > 4096 ? 4096 : (int)d->size;
	log_msg(level, "bridge: CycloneDDS: %.*s", n, d->message);
}

void bridge_ddslog_attach(struct bridge *b)
{
	if (D.lib)
		D.dds_set_log_sink(sink, b);
}

void bridge_ddslog_detach(void)
{
	if (D.lib)
		D.dds_set_log_sink(sink, NULL);
}
