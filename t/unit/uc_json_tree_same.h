/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a pool tree (core/uc_json_tree.h) holds what jansson's value
 * holds: the same kinds, keys in the same order and found by lookup, the
 * same strings byte for byte, the same integers and reals (-0.0 apart
 * from 0.0). Shared by the unit test of the reader and its fuzz target. */
#ifndef UC_JSON_TREE_SAME_H
#define UC_JSON_TREE_SAME_H

#include <string.h>
#include <jansson.h>

#include "../../src/core/uc_json_tree.h"

/* NULL when alike, else what differs first. */
static const char *uc_json_tree_differs(const json_t *want,
                                        const uc_json_tree_t *got);

static const char *uc_json_tree_object_differs(const json_t *want,
                                               const uc_json_tree_t *got)
{
    const char *key, *why;
    json_t *value;
    size_t i = 0;

    if (!uc_json_tree_is(got, UC_JSON_TREE_OBJECT) ||
        uc_json_tree_size(got) != json_object_size(want))
        return "not the same object";
    json_object_foreach((json_t *)want, key, value) {
        const uc_json_member_t *m = uc_json_tree_member_at(got, i++);

        if (m->key_length != strlen(key) || strcmp(m->key, key) != 0)
            return "keys differ or in another order";
        if (uc_json_tree_member(got, key) != m->value)
            return "a member not found by its key";
        if ((why = uc_json_tree_differs(value, m->value)))
            return why;
    }
    return NULL;
}

static const char *uc_json_tree_array_differs(const json_t *want,
                                              const uc_json_tree_t *got)
{
    const char *why;
    size_t i;

    if (!uc_json_tree_is(got, UC_JSON_TREE_ARRAY) ||
        uc_json_tree_size(got) != json_array_size(want))
        return "not the same array";
    for (i = 0; i < json_array_size(want); i++)
        if ((why = uc_json_tree_differs(json_array_get(want, i),
                                        uc_json_tree_item(got, i))))
            return why;
    return uc_json_tree_item(got, i) ? "an item past the end" : NULL;
}

static const char *uc_json_tree_differs(const json_t *want,
                                        const uc_json_tree_t *got)
{
    double real;

    switch (json_typeof(want)) {
    case JSON_OBJECT:
        return uc_json_tree_object_differs(want, got);
    case JSON_ARRAY:
        return uc_json_tree_array_differs(want, got);
    case JSON_STRING:
        return uc_json_tree_string(got) &&
               got->length == json_string_length(want) &&
               memcmp(got->u.string, json_string_value(want),
                      got->length + 1) == 0 ? NULL : "strings differ";
    case JSON_INTEGER:
        return uc_json_tree_is(got, UC_JSON_TREE_INTEGER) &&
               got->u.integer == json_integer_value(want)
               ? NULL : "integers differ";
    case JSON_REAL:
        real = json_real_value(want);
        return uc_json_tree_is(got, UC_JSON_TREE_REAL) &&
               memcmp(&got->u.real, &real, sizeof(real)) == 0
               ? NULL : "reals differ";
    case JSON_TRUE:
        return uc_json_tree_is(got, UC_JSON_TREE_TRUE) ? NULL : "not true";
    case JSON_FALSE:
        return uc_json_tree_is(got, UC_JSON_TREE_FALSE) ? NULL : "not false";
    default:
        return uc_json_tree_is(got, UC_JSON_TREE_NULL) ? NULL : "not null";
    }
}

#endif
