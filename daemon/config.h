/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's defaults: built in, then the configuration file, then the
 * command line (which wins). SIGHUP reads the file again.
 */
#ifndef CARETD_CONFIG_H
#define CARETD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/agents/scheduler.h"

#define CARETD_DEFAULT_CONFIG "/etc/caret/caretd.conf"

struct daemon_cfg {
	struct sched_cfg sched; /* pacing, recording frequency, bandwidth */
	uint64_t subbuf_size;   /* bytes, power of two; 0: LTTng's default */
	uint32_t subbuf_count;  /* power of two; 0: LTTng's default */
	uint32_t arm_timeout_s; /* an armed recording nobody starts goes after it */
};

/* Which settings a source set (so the command line can win over a
 * reloaded file). */
enum config_key {
	CFG_PACING = 1u << 0,
	CFG_FREQUENCY = 1u << 1,
	CFG_BANDWIDTH = 1u << 2,
	CFG_SUBBUF_SIZE = 1u << 3,
	CFG_SUBBUF_COUNT = 1u << 4,
	CFG_ARM_TIMEOUT = 1u << 5,
};

/* Bounds of arm-timeout, in seconds. */
#define CONFIG_ARM_TIMEOUT_MAX (7 * 24 * 3600)

void config_builtin(struct daemon_cfg *c);

/*
 * One setting by its name (the long option's, without "--"): 0 and the
 * key's bit in *set, or -EINVAL with why in err.
 */
int config_set(struct daemon_cfg *c, const char *key, const char *value, unsigned *set,
	       char *err, size_t errlen);

/*
 * Applies the file's "key = value" lines (blank lines and '#' comments
 * allowed) onto *c. 0; -ENOENT when the file does not exist; another
 * -errno or -EINVAL with "FILE:LINE: why" in err (then *c is untouched).
 */
int config_load(const char *path, struct daemon_cfg *c, unsigned *set, char *err,
		size_t errlen);

/* Copies the settings named in `mask` from src into dst. */
void config_overlay(struct daemon_cfg *dst, const struct daemon_cfg *src, unsigned mask);

#endif
