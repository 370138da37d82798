/* SPDX-License-Identifier: Apache-2.0 */
/* caret_ctl_sel_enc() and caret_ctl_sel_dec() (proto/caret_ctl_sel.h):
 * apart from the lists, which the LTTng door links without cJSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_sel.h"

static bool enc_list(cJSON *o, const char *k, const char *const *v, int n, bool always)
{
	if (!n && !always)
		return true;
	cJSON *a = cJSON_AddArrayToObject(o, k);
	for (int i = 0; a && i < n; i++) {
		cJSON *x = cJSON_CreateString(v[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			return false;
		}
	}
	return a != NULL;
}

bool caret_ctl_sel_enc(cJSON *o, const struct caret_ctl_sel *s)
{
	bool ok = enc_list(o, CARET_CTL_K_UST, s->ust, s->n_ust, s->ust_given) &&
		  enc_list(o, CARET_CTL_K_CONTEXT, s->context, s->n_context, false) &&
		  enc_list(o, CARET_CTL_K_KERNEL, s->kernel, s->n_kernel, false) &&
		  enc_list(o, CARET_CTL_K_SYSCALL, s->syscall, s->n_syscall, false);
	if (ok && s->subbuf_size_kernel)
		ok = cJSON_AddNumberToObject(o, CARET_CTL_K_SUBBUF_SIZE_KERNEL,
					     (double)s->subbuf_size_kernel) != NULL;
	return ok;
}

static int dec_list(const cJSON *o, const char *k, const char **v, int *n, bool *given,
		    int (*check)(const char *, char *, size_t), struct ctl_why *why)
{
	*n = 0;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
	if (given)
		*given = a != NULL;
	if (!a)
		return 0;
	if (!cJSON_IsArray(a)) {
		ctl_why_set(why, "%s must be an array of names", k);
		return -EINVAL;
	}
	const cJSON *x;
	cJSON_ArrayForEach(x, a) {
		if (*n >= CARET_CTL_SEL_MAX) {
			ctl_why_set(why, "%s holds more than %d names", k, CARET_CTL_SEL_MAX);
			return -EINVAL;
		}
		char w[128];
		if (!cJSON_IsString(x) || !x->valuestring) {
			ctl_why_set(why, "%s[%d] must be a string", k, *n);
			return -EINVAL;
		}
		if (check(x->valuestring, w, sizeof(w)) < 0) {
			/* the name itself is not echoed: it may be anything */
			ctl_why_set(why, "%s[%d] %s", k, *n, w);
			return -EINVAL;
		}
		v[(*n)++] = x->valuestring;
	}
	return 0;
}

int caret_ctl_sel_dec(const cJSON *o, struct caret_ctl_sel *s, struct ctl_why *why)
{
	memset(s, 0, sizeof(*s));
	if (dec_list(o, CARET_CTL_K_UST, s->ust, &s->n_ust, &s->ust_given,
		     caret_ctl_sel_check_event, why) < 0 ||
	    dec_list(o, CARET_CTL_K_CONTEXT, s->context, &s->n_context, NULL,
		     caret_ctl_sel_check_context, why) < 0 ||
	    dec_list(o, CARET_CTL_K_KERNEL, s->kernel, &s->n_kernel, NULL,
		     caret_ctl_sel_check_event, why) < 0 ||
	    dec_list(o, CARET_CTL_K_SYSCALL, s->syscall, &s->n_syscall, NULL,
		     caret_ctl_sel_check_event, why) < 0)
		return -EINVAL;
	char w[160];
	if (caret_ctl_sel_check_domains(s, w, sizeof(w)) < 0) {
		ctl_why_set(why, "%s %s", CARET_CTL_K_CONTEXT, w);
		return -EINVAL;
	}
	const cJSON *sz = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_SUBBUF_SIZE_KERNEL);
	if (sz) {
		char lim[160];
		if (!cJSON_IsNumber(sz) || sz->valuedouble < 1 || sz->valuedouble > 9.0e15 ||
		    sz->valuedouble != (double)(uint64_t)sz->valuedouble) {
			ctl_why_set(why, "%s must be a whole number of bytes",
				    CARET_CTL_K_SUBBUF_SIZE_KERNEL);
			return -EINVAL;
		}
		s->subbuf_size_kernel = (uint64_t)sz->valuedouble;
		if (caret_ctl_check_subbuf_size(s->subbuf_size_kernel, lim, sizeof(lim)) < 0) {
			ctl_why_set(why, "%s %llu %s", CARET_CTL_K_SUBBUF_SIZE_KERNEL,
				    (unsigned long long)s->subbuf_size_kernel, lim);
			return -EINVAL;
		}
		if (!caret_ctl_sel_kernel(s)) {
			ctl_why_set(why, "%s needs kernel events (%s or %s)",
				    CARET_CTL_K_SUBBUF_SIZE_KERNEL, CARET_CTL_K_KERNEL,
				    CARET_CTL_K_SYSCALL);
			return -EINVAL;
		}
	}
	return 0;
}
