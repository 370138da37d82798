/* SPDX-License-Identifier: Apache-2.0 */
/* Reading babeltrace2 fields for check_model.c, whatever their integer
 * type; a field that is absent or of another type reads as nothing. */
#include <string.h>

#include "check_field.h"
#include "check_map.h"

int check_member(const bt_field_class *st, const char *name)
{
	if (!st || bt_field_class_get_type(st) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	uint64_t n = bt_field_class_structure_get_member_count(st);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *mb =
			bt_field_class_structure_borrow_member_by_index_const(st, i);
		if (strcmp(bt_field_class_structure_member_get_name(mb), name) == 0)
			return (int)i;
	}
	return -1;
}

static const bt_field *fld(const bt_field *st, int idx)
{
	return st && idx >= 0 ? bt_field_structure_borrow_member_field_by_index_const(st, (uint64_t)idx)
			      : NULL;
}

bool check_fint(const bt_field *st, int idx, uint64_t *v)
{
	const bt_field *f = fld(st, idx);
	if (!f)
		return false;
	bt_field_class_type t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		*v = bt_field_integer_unsigned_get_value(f);
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*v = (uint64_t)bt_field_integer_signed_get_value(f);
	else if (t == BT_FIELD_CLASS_TYPE_BOOL)
		*v = bt_field_bool_get_value(f);
	else
		return false;
	return true;
}

const char *check_fstr(const bt_field *st, int idx)
{
	const bt_field *f = fld(st, idx);
	return f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING
		       ? bt_field_string_get_value(f)
		       : NULL;
}

/* A field's value, whatever its type (tracetools payloads are flat, but a
 * CARET trace may carry arrays, e.g. gids). */
uint64_t check_hfield(uint64_t h, const bt_field *f, int depth)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return check_hcomb(h, bt_field_integer_unsigned_get_value(f));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return check_hcomb(h, (uint64_t)bt_field_integer_signed_get_value(f));
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return check_hstr(h, bt_field_string_get_value(f));
	if (t == BT_FIELD_CLASS_TYPE_BOOL)
		return check_hcomb(h, bt_field_bool_get_value(f));
	if (depth < 4 && bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
		uint64_t n = bt_field_array_get_length(f);
		h = check_hcomb(h, n);
		for (uint64_t i = 0; i < n; i++)
			h = check_hfield(h, bt_field_array_borrow_element_field_by_index_const(f, i),
				   depth + 1);
		return h;
	}
	if (depth < 4 && t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		uint64_t n = bt_field_class_structure_get_member_count(bt_field_borrow_class_const(f));
		for (uint64_t i = 0; i < n; i++)
			h = check_hfield(h, bt_field_structure_borrow_member_field_by_index_const(f, i),
				   depth + 1);
		return h;
	}
	return check_hcomb(h, t);
}

