/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What rotating recordings say in replies (daemon/recording/rotation.h): a stopped
 * recording's report, and every rotating recording in `status`, as
 * proto/caret_ctl_rotation.h has them.
 */
#ifndef CARETD_ROTATION_REPORT_H
#define CARETD_ROTATION_REPORT_H

#include <cjson/cJSON.h>

#include "daemon/recording/rotation_state.h"

/* What a rotating recording was when it stopped: its chunks, their
 * verdicts, its bound (the stop result carries it; the dispatch encodes it
 * with rotation_report_enc and frees it). */
struct rotation_report;

/* t's report; its listing goes with it (freed when out of memory: logged,
 * NULL). */
struct rotation_report *rotation_report_take(struct rotation *t);
/* Why a kept chunk may not be complete, NULL when it is; buf holds what
 * needs a number. */
const char *rotation_chunk_why(const struct rotation *t, const struct chunk_info *c, char *buf,
			  size_t len);

/* The reply's "rotation" object (proto/caret_ctl_rotation.h); NULL when
 * out of memory. */
cJSON *rotation_report_enc(const struct rotation_report *r);
void rotation_report_free(struct rotation_report *r);

/* t's entry in a status result's "rotations" (nothing when the result
 * has none: list). 0 or -ENOMEM. */
int rotation_report_add_status(const struct rotation *t, cJSON *result);

#endif
