/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/recording/recordings.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl.h"
#include "shm/caret_shm.h"

void config_builtin(struct daemon_cfg *c)
{
	*c = (struct daemon_cfg){
		.sched = { .pacing = PACING_ADAPTIVE, .frequency = CARET_CTL_DEFAULT_FREQUENCY,
			   .bandwidth = 64ULL << 20 },
		.arm_timeout_s = RECORDINGS_ARM_TIMEOUT_S,
	};
}

/* Decimal digits only: no sign, blank or suffix. */
static int digits(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* The limits are caretctl's too (proto/caret_ctl_limits.h): one rule for
 * a recording's options and the daemon's defaults. */
int config_set(struct daemon_cfg *c, const char *key, const char *value, unsigned *set,
	       char *err, size_t errlen)
{
	uint64_t v;
	const char *rule = NULL;
	if (!strcmp(key, "pacing")) {
		rule = "must be adaptive or frequency";
		if (pacing_parse(value, &c->sched.pacing) < 0)
			goto bad;
		*set |= CFG_PACING;
	} else if (!strcmp(key, "recording-frequency")) {
		rule = caret_ctl_rule_frequency();
		if (digits(value, &v) < 0 || caret_ctl_check_frequency(v, NULL, 0) < 0)
			goto bad;
		c->sched.frequency = (uint32_t)v;
		*set |= CFG_FREQUENCY;
	} else if (!strcmp(key, "replay-bandwidth")) {
		rule = "must be 1 to 1T bytes per second (K/M/G suffixes allowed)";
		if (caret_parse_size(value, 1ULL << 40, &c->sched.bandwidth) < 0)
			goto bad;
		*set |= CFG_BANDWIDTH;
	} else if (!strcmp(key, "subbuffer-size")) {
		rule = caret_ctl_rule_subbuf_size();
		if (caret_parse_size(value, UINT64_MAX, &v) < 0 ||
		    caret_ctl_check_subbuf_size(v, NULL, 0) < 0)
			goto bad;
		c->subbuf_size = v;
		*set |= CFG_SUBBUF_SIZE;
	} else if (!strcmp(key, "subbuffer-count")) {
		rule = caret_ctl_rule_subbuf_count();
		if (digits(value, &v) < 0 || caret_ctl_check_subbuf_count(v, NULL, 0) < 0)
			goto bad;
		c->subbuf_count = (uint32_t)v;
		*set |= CFG_SUBBUF_COUNT;
	} else if (!strcmp(key, "arm-timeout")) {
		rule = "must be 1 to 604800 seconds";
		if (digits(value, &v) < 0 || v < 1 || v > CONFIG_ARM_TIMEOUT_MAX)
			goto bad;
		c->arm_timeout_s = (uint32_t)v;
		*set |= CFG_ARM_TIMEOUT;
	} else {
		snprintf(err, errlen, "unknown setting \"%.64s\"", key);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s '%.64s': %s", key, value, rule);
	return -EINVAL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int config_load(const char *path, struct daemon_cfg *c, unsigned *set, char *err,
		size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct daemon_cfg tmp = *c;
	unsigned got = 0;
	char line[1024], why[256];
	int n = 0, rc = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path, n);
			rc = -EINVAL;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = trim(line);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected \"key = value\"", path, n);
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		if (config_set(&tmp, trim(s), trim(eq + 1), &got, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s:%d: %s", path, n, why);
			rc = -EINVAL;
			break;
		}
	}
	fclose(f);
	if (rc == 0) {
		*c = tmp;
		*set |= got;
	}
	return rc;
}

void config_overlay(struct daemon_cfg *dst, const struct daemon_cfg *src, unsigned mask)
{
	if (mask & CFG_PACING)
		dst->sched.pacing = src->sched.pacing;
	if (mask & CFG_FREQUENCY)
		dst->sched.frequency = src->sched.frequency;
	if (mask & CFG_BANDWIDTH)
		dst->sched.bandwidth = src->sched.bandwidth;
	if (mask & CFG_SUBBUF_SIZE)
		dst->subbuf_size = src->subbuf_size;
	if (mask & CFG_SUBBUF_COUNT)
		dst->subbuf_count = src->subbuf_count;
	if (mask & CFG_ARM_TIMEOUT)
		dst->arm_timeout_s = src->arm_timeout_s;
}
