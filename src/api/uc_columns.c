/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_columns.h"

#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"

#define INT32_LIMIT 2147483647

const char *const uc_column_type_names[] = {
    "BOOLEAN", "BYTE", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "DATE",
    "TIMESTAMP", "STRING", "BINARY", "DECIMAL", "INTERVAL", "ARRAY",
    "STRUCT", "MAP", "CHAR", "NULL", "USER_DEFINED_TYPE", "TIMESTAMP_NTZ",
    "VARIANT", "TABLE_TYPE", NULL
};

static const char *const parameter_modes[] = { "IN", NULL };
static const char *const parameter_types[] = { "PARAM", "COLUMN", NULL };

/* Says which item of which list an error is about. */
static uc_error_t *at(apr_pool_t *pool, const char *field, size_t index,
                      uc_error_t *err)
{
    if (err)
        err->message = apr_psprintf(pool, "%s[%lu]: %s", field,
                                    (unsigned long)index, err->message);
    return err;
}

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *int_or_null(int present, apr_int64_t v)
{
    return present ? json_integer(v) : json_null();
}

static char *lowered(apr_pool_t *pool, const char *s)
{
    char *copy = apr_pstrdup(pool, s), *p;

    for (p = copy; *p; p++)
        *p = (char)apr_tolower(*p);
    return copy;
}

/* type_json, when it is a Spark StructField, must describe this field. */
static uc_error_t *check_type_json(apr_pool_t *pool, const char *name,
                                   const char *text, int nullable_given,
                                   int nullable)
{
    json_t *doc = json_loads(text, JSON_DECODE_ANY, NULL), *v;
    uc_error_t *err = NULL;

    if (!doc)
        return uc_error_invalid(pool, "Field 'type_json' must hold JSON "
                                "text.");
    if (json_is_object(doc)) {
        v = json_object_get(doc, "name");
        if (json_is_string(v) && strcmp(json_string_value(v), name) != 0)
            err = uc_error_invalid(pool, "Field 'type_json' names '%s', not "
                                   "'%s'.", json_string_value(v), name);
        v = json_object_get(doc, "nullable");
        if (!err && nullable_given && json_is_boolean(v) &&
            json_is_true(v) != nullable)
            err = uc_error_invalid(pool, "Field 'type_json' says nullable "
                                   "is %s, the field says %s.",
                                   json_is_true(v) ? "true" : "false",
                                   nullable ? "true" : "false");
    }
    json_decref(doc);
    return err;
}

/* The members columns and parameters share, written into `into` in answer
 * order; *position tells the position, -1 when none was given. */
static uc_error_t *read_typed(apr_pool_t *pool, json_t *item, json_t *into,
                              int type_json_required, int nullable_given,
                              int nullable, apr_int64_t *position)
{
    const char *name = NULL, *type_text = NULL, *type_json = NULL;
    const char *type_name = NULL, *interval = NULL;
    apr_int64_t precision = 0, scale = 0;
    int has_precision, has_scale, has_position;
    uc_error_t *err;

    if (!json_is_object(item))
        return uc_error_invalid(pool, "each entry must be an object.");
    if ((err = uc_json_string_field(pool, item, "name", 1, &name)) ||
        (err = uc_json_string_field(pool, item, "type_text", 1,
                                    &type_text)) ||
        (err = uc_json_string_field(pool, item, "type_json",
                                    type_json_required, &type_json)) ||
        (err = uc_json_enum_field(pool, item, "type_name",
                                  uc_column_type_names, 1, &type_name)) ||
        (err = uc_json_int_field(pool, item, "type_precision", 0, INT32_LIMIT,
                                 &precision, &has_precision)) ||
        (err = uc_json_int_field(pool, item, "type_scale", 0, INT32_LIMIT,
                                 &scale, &has_scale)) ||
        (err = uc_json_string_field(pool, item, "type_interval_type", 0,
                                    &interval)) ||
        (err = uc_validate_text(pool, "type_interval_type", interval,
                                UC_NAME_MAX)) ||
        (err = uc_json_int_field(pool, item, "position", 0, INT32_LIMIT,
                                 position, &has_position)))
        return err;
    if ((err = uc_validate_label(pool, "name", name, UC_NAME_MAX)))
        return err;
    if (!*type_text || strlen(type_text) > UC_COMMENT_MAX)
        return uc_error_invalid(pool, "Field 'type_text' must not be "
                                "empty.");
    if (type_json && (err = check_type_json(pool, name, type_json,
                                            nullable_given, nullable)))
        return err;
    if (strcmp(type_name, "DECIMAL") == 0 && has_precision &&
        (precision < 1 || precision > 38 || (has_scale && scale > precision)))
        return uc_error_invalid(pool, "A DECIMAL has a precision of 1 to 38 "
                                "and a scale from 0 to its precision.");
    if (!has_position)
        *position = -1;
    json_object_set_new(into, "name", json_string(name));
    /* Unity Catalog spells type texts in lower case. */
    json_object_set_new(into, "type_text",
                        json_string(lowered(pool, type_text)));
    json_object_set_new(into, "type_json", string_or_null(type_json));
    json_object_set_new(into, "type_name", json_string(type_name));
    json_object_set_new(into, "type_precision",
                        int_or_null(has_precision, precision));
    json_object_set_new(into, "type_scale", int_or_null(has_scale, scale));
    json_object_set_new(into, "type_interval_type", string_or_null(interval));
    json_object_set_new(into, "position", json_null());
    return NULL;
}

typedef struct entry {
    json_t *value;
    apr_int64_t position;
} entry_t;

static int by_position(const void *a, const void *b)
{
    apr_int64_t x = ((const entry_t *)a)->position;
    apr_int64_t y = ((const entry_t *)b)->position;

    return x < y ? -1 : x > y;
}

/* Positions are all given, each once from 0 to n-1, or none is (then the
 * list order counts); the result is sorted by them. */
static uc_error_t *place(apr_pool_t *pool, const char *field,
                         entry_t *entries, size_t n, json_t **out)
{
    size_t i, given = 0;
    char *seen = apr_pcalloc(pool, n + 1);

    for (i = 0; i < n; i++)
        given += entries[i].position >= 0;
    if (given && given != n)
        return uc_error_invalid(pool, "Field '%s': give every entry a "
                                "position or none.", field);
    for (i = 0; i < n; i++) {
        if (!given)
            entries[i].position = (apr_int64_t)i;
        else if ((size_t)entries[i].position >= n ||
                 seen[entries[i].position]++)
            return uc_error_invalid(pool, "Field '%s': positions must be 0 "
                                    "to %lu, each once.", field,
                                    (unsigned long)(n ? n - 1 : 0));
        json_object_set_new(entries[i].value, "position",
                            json_integer(entries[i].position));
    }
    qsort(entries, n, sizeof(*entries), by_position);
    *out = uc_json_own(pool, json_array());
    for (i = 0; i < n; i++)
        json_array_append(*out, entries[i].value);
    return NULL;
}

static uc_error_t *list_of(apr_pool_t *pool, const char *field, json_t *list,
                           size_t *n)
{
    if (!json_is_array(list))
        return uc_error_invalid(pool, "Field '%s' must be an array.", field);
    *n = json_array_size(list);
    if (*n > UC_COLUMNS_MAX)
        return uc_error_invalid(pool, "Field '%s' takes at most %d entries.",
                                field, UC_COLUMNS_MAX);
    return NULL;
}

/* Names must differ, ignoring case (engines resolve them so). */
static uc_error_t *unique_names(apr_pool_t *pool, const char *field,
                                entry_t *entries, size_t n)
{
    apr_hash_t *names = apr_hash_make(pool);
    size_t i;

    for (i = 0; i < n; i++) {
        const char *name = lowered(pool, json_string_value(
            json_object_get(entries[i].value, "name")));
        if (apr_hash_get(names, name, APR_HASH_KEY_STRING))
            return uc_error_invalid(pool, "Field '%s': the name '%s' is "
                                    "used twice.", field, name);
        apr_hash_set(names, name, APR_HASH_KEY_STRING, "");
    }
    return NULL;
}

uc_error_t *uc_columns_read(apr_pool_t *pool, const char *field,
                            json_t *list, json_t **out)
{
    entry_t *entries;
    char *partitions;
    size_t n, i, npartitions = 0;
    uc_error_t *err;

    if (!list || json_is_null(list)) {
        *out = uc_json_own(pool, json_array());
        return NULL;
    }
    if ((err = list_of(pool, field, list, &n)))
        return err;
    entries = apr_pcalloc(pool, sizeof(*entries) * (n + 1));
    partitions = apr_pcalloc(pool, n + 1);
    for (i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        json_t *column = uc_json_own(pool, json_object());
        const char *comment = NULL;
        apr_int64_t partition = 0;
        int nullable = 1, nullable_given, has_partition;

        nullable_given = json_is_boolean(json_object_get(item, "nullable"));
        if ((err = at(pool, field, i, uc_json_bool_field(
                 pool, item, "nullable", &nullable))) ||
            (err = at(pool, field, i, read_typed(pool, item, column, 1,
                                                 nullable_given, nullable,
                                                 &entries[i].position))) ||
            (err = at(pool, field, i, uc_json_string_field(
                 pool, item, "comment", 0, &comment))) ||
            (err = at(pool, field, i, uc_validate_text(
                 pool, "comment", comment, UC_COMMENT_MAX))) ||
            (err = at(pool, field, i, uc_json_int_field(
                 pool, item, "partition_index", 0, INT32_LIMIT, &partition,
                 &has_partition))))
            return err;
        if (has_partition) {
            if ((size_t)partition >= n || partitions[partition]++)
                return uc_error_invalid(pool, "Field '%s': partition "
                                        "indexes must be distinct and "
                                        "below the number of columns.",
                                        field);
            npartitions++;
        }
        json_object_set_new(column, "comment", string_or_null(comment));
        json_object_set_new(column, "nullable", json_boolean(nullable));
        json_object_set_new(column, "partition_index",
                            int_or_null(has_partition, partition));
        json_object_set_new(column, "column_id", json_null());
        entries[i].value = column;
    }
    /* Partition columns are numbered 0 to k-1 without gaps. */
    for (i = 0; i < npartitions; i++)
        if (!partitions[i])
            return uc_error_invalid(pool, "Field '%s': partition indexes "
                                    "must run from 0 to %lu without gaps.",
                                    field, (unsigned long)(npartitions - 1));
    if ((err = unique_names(pool, field, entries, n)))
        return err;
    return place(pool, field, entries, n, out);
}

uc_error_t *uc_parameters_read(apr_pool_t *pool, const char *field,
                               json_t *value, json_t **out)
{
    json_t *list;
    entry_t *entries;
    size_t n, i;
    uc_error_t *err;

    if (!json_is_object(value))
        return uc_error_invalid(pool, "Field '%s' must be an object with "
                                "'parameters'.", field);
    list = json_object_get(value, "parameters");
    if (!list || json_is_null(list))
        list = uc_json_own(pool, json_array());
    if ((err = list_of(pool, field, list, &n)))
        return err;
    entries = apr_pcalloc(pool, sizeof(*entries) * (n + 1));
    for (i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        json_t *param = uc_json_own(pool, json_object());
        const char *mode = NULL, *type = NULL, *dflt = NULL, *comment = NULL;

        if ((err = at(pool, field, i, read_typed(pool, item, param, 0, 0, 0,
                                                 &entries[i].position))) ||
            (err = at(pool, field, i, uc_json_enum_field(
                 pool, item, "parameter_mode", parameter_modes, 0, &mode))) ||
            (err = at(pool, field, i, uc_json_enum_field(
                 pool, item, "parameter_type", parameter_types, 0, &type))) ||
            (err = at(pool, field, i, uc_json_string_field(
                 pool, item, "parameter_default", 0, &dflt))) ||
            (err = at(pool, field, i, uc_validate_text(
                 pool, "parameter_default", dflt, UC_COMMENT_MAX))) ||
            (err = at(pool, field, i, uc_json_string_field(
                 pool, item, "comment", 0, &comment))) ||
            (err = at(pool, field, i, uc_validate_text(
                 pool, "comment", comment, UC_COMMENT_MAX))))
            return err;
        json_object_set_new(param, "parameter_mode",
                            json_string(mode ? mode : "IN"));
        json_object_set_new(param, "parameter_type",
                            json_string(type ? type : "PARAM"));
        json_object_set_new(param, "parameter_default", string_or_null(dflt));
        json_object_set_new(param, "comment", string_or_null(comment));
        entries[i].value = param;
    }
    if ((err = unique_names(pool, field, entries, n)) ||
        (err = place(pool, field, entries, n, &list)))
        return err;
    *out = uc_json_own(pool, json_pack("{sO}", "parameters", list));
    return NULL;
}

uc_error_t *uc_dependencies_read(apr_pool_t *pool, const char *field,
                                 json_t *value, json_t **out)
{
    json_t *list, *item, *normal;
    size_t i;

    if (!json_is_object(value))
        return uc_error_invalid(pool, "Field '%s' must be an object with "
                                "'dependencies'.", field);
    list = json_object_get(value, "dependencies");
    if (!list || json_is_null(list))
        list = uc_json_own(pool, json_array());
    if (!json_is_array(list) || json_array_size(list) > UC_DEPENDENCIES_MAX)
        return uc_error_invalid(pool, "Field '%s.dependencies' must be an "
                                "array of at most %d entries.", field,
                                UC_DEPENDENCIES_MAX);
    normal = uc_json_own(pool, json_array());
    json_array_foreach(list, i, item) {
        json_t *table = json_object_get(item, "table");
        json_t *function = json_object_get(item, "function");
        const char *kind = table && !json_is_null(table) ? "table"
                                                         : "function";
        json_t *ref = table && !json_is_null(table) ? table : function;
        const char *key = table && !json_is_null(table)
                          ? "table_full_name" : "function_full_name";
        const char *name = NULL, *names[3];
        uc_error_t *err;

        if (!json_is_object(item) ||
            (table && !json_is_null(table)) ==
            (function && !json_is_null(function)))
            return at(pool, field, i, uc_error_invalid(
                pool, "a dependency names exactly one of 'table' and "
                "'function'."));
        if (!json_is_object(ref))
            return at(pool, field, i, uc_error_invalid(
                pool, "'%s' must be an object.", kind));
        if ((err = at(pool, field, i, uc_json_string_field(
                 pool, ref, key, 1, &name))) ||
            (err = at(pool, field, i, uc_validate_full_name(
                 pool, key, name, 3, names))))
            return err;
        json_array_append_new(normal, json_pack(
            "{s{ss}}", kind, key, apr_pstrcat(pool, names[0], ".", names[1],
                                               ".", names[2], NULL)));
    }
    *out = uc_json_own(pool, json_pack("{sO}", "dependencies", normal));
    return NULL;
}
