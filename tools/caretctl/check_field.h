/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETCTL_CHECK_FIELD_H
#define CARETCTL_CHECK_FIELD_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

/* Index of member `name` of a structure field class, or -1. */
int check_member(const bt_field_class *st, const char *name);
/* Member idx of structure st as an integer (or bool): false if absent. */
bool check_fint(const bt_field *st, int idx, uint64_t *v);
/* Member idx of structure st as a string, or NULL. */
const char *check_fstr(const bt_field *st, int idx);
/* h combined with a field's value, whatever its type (nested up to 4). */
uint64_t check_hfield(uint64_t h, const bt_field *f, int depth);

#endif
