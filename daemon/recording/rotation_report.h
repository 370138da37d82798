/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What rotating recordings say in replies (daemon/recording/rotation.h): a stopped
 * recording's report, and every rotating recording in `status`, filled
 * into proto's struct (proto/caret_ctl_recordings.h), which the reply
 * layer encodes.
 */
#ifndef CARETD_ROTATION_REPORT_H
#define CARETD_ROTATION_REPORT_H

#include "daemon/recording/rotation_state.h"
#include "proto/caret_ctl_recordings.h"

/* What a rotating recording was when it stopped: its chunks, their
 * verdicts, its bound (the stop's struct recording_end holds it until its
 * reply is encoded: recording_end_free frees it). */
struct rotation_report;

/* t's report; its listing goes with it (freed when out of memory: logged,
 * NULL). */
struct rotation_report *rotation_report_take(struct rotation *t);
/* Why a kept chunk may not be complete, NULL when it is; buf holds what
 * needs a number. */
const char *rotation_chunk_why(const struct rotation *t, const struct chunk_info *c, char *buf,
			  size_t len);

/* The stop's "rotation" of rep, into out->rep.rotation (out->rotation
 * takes rep, whose strings it names; out->err is -ENOMEM when it could
 * not be made). */
void rotation_report_end(struct rotation_report *rep, struct recording_end *out);
void rotation_report_free(struct rotation_report *r);

/* t's entry in a status result's rotations (nothing when the result has
 * none: list), its strings in t. 0 or -ENOMEM. */
int rotation_report_add_status(const struct rotation *t, struct caret_ctl_recordings *result);

#endif
