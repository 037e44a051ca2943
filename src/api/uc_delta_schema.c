/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_delta_schema.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "uc_columns.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

/* Types nest no deeper: a bound on the recursion over a client's JSON. */
#define DEPTH_MAX 32
#define DECIMAL_PRECISION_MAX 38

/* The Delta protocol's primitive types: the name a schema spells, the
 * catalog's type_name, and Spark's catalog string (type_text). */
static const char *const primitives[][3] = {
    { "string", "STRING", "string" }, { "long", "LONG", "bigint" },
    { "integer", "INT", "int" }, { "short", "SHORT", "smallint" },
    { "byte", "BYTE", "tinyint" }, { "float", "FLOAT", "float" },
    { "double", "DOUBLE", "double" }, { "boolean", "BOOLEAN", "boolean" },
    { "binary", "BINARY", "binary" }, { "date", "DATE", "date" },
    { "timestamp", "TIMESTAMP", "timestamp" },
    { "timestamp_ntz", "TIMESTAMP_NTZ", "timestamp_ntz" },
    { "variant", "VARIANT", "variant" },
};
#define PRIMITIVES (sizeof(primitives) / sizeof(primitives[0]))

/* The two spellings, and the members of nested types in each. */
enum { API, LOG, SPELLINGS };
enum { ELEMENT, CONTAINS_NULL, KEY, VALUE, VALUE_CONTAINS_NULL, MEMBERS };
static const char *const members[MEMBERS][SPELLINGS] = {
    { "element-type", "elementType" }, { "contains-null", "containsNull" },
    { "key-type", "keyType" }, { "value-type", "valueType" },
    { "value-contains-null", "valueContainsNull" },
};

typedef struct conversion {
    apr_pool_t *pool;
    int from, to;
} conversion_t;

/* A type converted: its JSON in the target spelling, its catalog string
 * and the catalog's name of its kind. */
typedef struct converted {
    json_t *json;
    const char *text;
    const char *type_name;
} converted_t;

static uc_error_t *convert_type(const conversion_t *c, const char *path,
                                json_t *type, int depth, converted_t *out);

static uc_error_t *not_a_type(const conversion_t *c, const char *path)
{
    return uc_error_invalid(c->pool, "%s is not a Delta data type.", path);
}

static uc_error_t *convert_primitive(const conversion_t *c, const char *path,
                                     const char *name, converted_t *out)
{
    int precision, scale, end = 0;
    size_t i;

    for (i = 0; i < PRIMITIVES; i++)
        if (!strcmp(name, primitives[i][0])) {
            out->json = uc_json_own(c->pool, json_string(name));
            out->type_name = primitives[i][1];
            out->text = primitives[i][2];
            return NULL;
        }
    if (sscanf(name, "decimal(%d,%d)%n", &precision, &scale, &end) != 2 ||
        name[end] != '\0')
        return not_a_type(c, path);
    if (precision < 0 || precision > DECIMAL_PRECISION_MAX || scale < 0 ||
        scale > precision)
        return uc_error_invalid(c->pool, "%s: a decimal has a precision of "
                                "0 to 38 and a scale from 0 to its "
                                "precision.", path);
    out->text = apr_psprintf(c->pool, "decimal(%d,%d)", precision, scale);
    out->json = uc_json_own(c->pool, json_string(out->text));
    out->type_name = "DECIMAL";
    return NULL;
}

/* A member of a nested type: a type (its catalog string in *text) or,
 * for the null flags, a boolean. */
static uc_error_t *convert_member(const conversion_t *c, const char *path,
                                  json_t *type, int member, int depth,
                                  json_t *into, const char **text)
{
    const char *name = members[member][c->from];
    json_t *value = json_object_get(type, name);
    const char *at = apr_pstrcat(c->pool, path, ".", name, NULL);
    converted_t inner;
    uc_error_t *err;

    if (member == CONTAINS_NULL || member == VALUE_CONTAINS_NULL) {
        if (!json_is_boolean(value))
            return uc_error_invalid(c->pool, "%s is required: true or "
                                    "false.", at);
        json_object_set(into, members[member][c->to], value);
        return NULL;
    }
    if (!value)
        return uc_error_invalid(c->pool, "%s is required.", at);
    if ((err = convert_type(c, at, value, depth + 1, &inner)))
        return err;
    json_object_set(into, members[member][c->to], inner.json);
    *text = inner.text;
    return NULL;
}

static uc_error_t *convert_struct(const conversion_t *c, const char *path,
                                  json_t *type, int depth, converted_t *out);

static uc_error_t *convert_nested(const conversion_t *c, const char *path,
                                  json_t *type, int depth, converted_t *out)
{
    const char *kind = json_string_value(json_object_get(type, "type"));
    const char *a = NULL, *b = NULL;
    json_t *json;
    uc_error_t *err;

    if (kind && !strcmp(kind, "struct"))
        return convert_struct(c, path, type, depth, out);
    json = uc_json_own(c->pool, json_pack("{ss?}", "type", kind));
    if (kind && !strcmp(kind, "array")) {
        if ((err = convert_member(c, path, type, ELEMENT, depth, json, &a)) ||
            (err = convert_member(c, path, type, CONTAINS_NULL, depth, json,
                                  NULL)))
            return err;
        out->text = apr_pstrcat(c->pool, "array<", a, ">", NULL);
        out->type_name = "ARRAY";
    }
    else if (kind && !strcmp(kind, "map")) {
        if ((err = convert_member(c, path, type, KEY, depth, json, &a)) ||
            (err = convert_member(c, path, type, VALUE, depth, json, &b)) ||
            (err = convert_member(c, path, type, VALUE_CONTAINS_NULL, depth,
                                  json, NULL)))
            return err;
        out->text = apr_pstrcat(c->pool, "map<", a, ",", b, ">", NULL);
        out->type_name = "MAP";
    }
    else
        return not_a_type(c, path);
    out->json = json;
    return NULL;
}

static uc_error_t *convert_type(const conversion_t *c, const char *path,
                                json_t *type, int depth, converted_t *out)
{
    if (depth > DEPTH_MAX)
        return uc_error_invalid(c->pool, "%s: types nest at most %d deep.",
                                path, DEPTH_MAX);
    if (json_is_string(type))
        return convert_primitive(c, path, json_string_value(type), out);
    if (json_is_object(type))
        return convert_nested(c, path, type, depth, out);
    return not_a_type(c, path);
}

/* A field: {name, type, nullable, metadata}; the Delta log may leave the
 * metadata out. */
static uc_error_t *convert_field(const conversion_t *c, const char *path,
                                 json_t *field, int depth, converted_t *out)
{
    const char *name = json_string_value(json_object_get(field, "name"));
    json_t *nullable = json_object_get(field, "nullable");
    json_t *metadata = json_object_get(field, "metadata");
    converted_t type;
    uc_error_t *err;

    if (!json_is_object(field))
        return uc_error_invalid(c->pool, "%s must be an object.", path);
    if (!name || !*name || strlen(name) > UC_NAME_MAX)
        return uc_error_invalid(c->pool, "%s.name is required (at most %d "
                                "bytes).", path, UC_NAME_MAX);
    if (!json_is_boolean(nullable))
        return uc_error_invalid(c->pool, "%s.nullable is required: true or "
                                "false.", path);
    if (metadata ? !json_is_object(metadata) : c->from == API)
        return uc_error_invalid(c->pool, "%s.metadata is required: an "
                                "object.", path);
    if ((err = convert_type(c, apr_pstrcat(c->pool, path, ".type", NULL),
                            json_object_get(field, "type"), depth, &type)))
        return err;
    out->json = uc_json_own(c->pool, json_pack(
        "{sssOsOsO}", "name", name, "type", type.json, "nullable", nullable,
        "metadata", metadata ? metadata
                             : uc_json_own(c->pool, json_object())));
    out->text = apr_pstrcat(c->pool, name, ":", type.text, NULL);
    out->type_name = type.type_name;
    return NULL;
}

/* The fields of a struct: at least one, at most UC_COLUMNS_MAX, names
 * distinct ignoring case (Delta resolves them so). */
static uc_error_t *struct_fields(const conversion_t *c, const char *path,
                                 json_t *type, json_t **fields)
{
    json_t *kind = json_object_get(type, "type");

    *fields = json_object_get(type, "fields");
    if (!json_is_object(type) ||
        (kind && (!json_is_string(kind) ||
                  strcmp(json_string_value(kind), "struct"))))
        return uc_error_invalid(c->pool, "%s must be a struct type.", path);
    if (!json_is_array(*fields) || !json_array_size(*fields) ||
        json_array_size(*fields) > UC_COLUMNS_MAX)
        return uc_error_invalid(c->pool, "%s.fields must hold 1 to %d "
                                "fields.", path, UC_COLUMNS_MAX);
    return NULL;
}

static uc_error_t *check_unique(const conversion_t *c, const char *path,
                                apr_hash_t *seen, const char *name)
{
    char *lower = apr_pstrdup(c->pool, name), *p;

    for (p = lower; *p; p++)
        *p = (char)apr_tolower(*p);
    if (apr_hash_get(seen, lower, APR_HASH_KEY_STRING))
        return uc_error_invalid(c->pool, "Duplicate field name (case-"
                                "insensitive) in %s: %s", path, name);
    apr_hash_set(seen, lower, APR_HASH_KEY_STRING, "");
    return NULL;
}

static uc_error_t *convert_struct(const conversion_t *c, const char *path,
                                  json_t *type, int depth, converted_t *out)
{
    apr_hash_t *seen = apr_hash_make(c->pool);
    json_t *fields, *into = uc_json_own(c->pool, json_array());
    const char *text = "struct<";
    size_t i;
    uc_error_t *err = struct_fields(c, path, type, &fields);

    for (i = 0; !err && i < json_array_size(fields); i++) {
        const char *at = apr_psprintf(c->pool, "%s.fields[%lu]", path,
                                      (unsigned long)i);
        converted_t field;

        if (!(err = convert_field(c, at, json_array_get(fields, i), depth + 1,
                                  &field)) &&
            !(err = check_unique(c, path, seen, json_string_value(
                json_object_get(field.json, "name"))))) {
            text = apr_pstrcat(c->pool, text, i ? "," : "", field.text,
                               NULL);
            json_array_append(into, field.json);
        }
    }
    if (err)
        return err;
    out->json = uc_json_own(c->pool, json_pack("{sssO}", "type", "struct",
                                               "fields", into));
    out->text = apr_pstrcat(c->pool, text, ">", NULL);
    out->type_name = "STRUCT";
    return NULL;
}

/* A top-level field as the catalog's column at `position`. */
static json_t *column_of(apr_pool_t *pool, const converted_t *field,
                         apr_size_t position)
{
    json_t *json = field->json;
    json_t *comment = json_object_get(json_object_get(json, "metadata"),
                                      "comment");
    const char *type = strchr(field->text, ':') + 1;

    return uc_json_own(pool, json_pack(
        "{sOsssssssIsOso}", "name", json_object_get(json, "name"),
        "type_text", type, "type_json", uc_json_dump(pool, json),
        "type_name", field->type_name, "position", (json_int_t)position,
        "nullable", json_object_get(json, "nullable"),
        "comment", json_is_string(comment) ? json_incref(comment)
                                           : json_null()));
}

uc_error_t *uc_delta_schema_read(apr_pool_t *pool, const char *field,
                                 json_t *struct_type, json_t *partitions,
                                 json_t **out)
{
    conversion_t c = { pool, API, LOG };
    json_t *fields, *list = uc_json_own(pool, json_array());
    size_t i;
    uc_error_t *err;

    if (!struct_type)
        return uc_error_invalid(pool, "%s is required.", field);
    if ((err = struct_fields(&c, field, struct_type, &fields)))
        return err;
    for (i = 0; i < json_array_size(fields); i++) {
        converted_t f;
        if ((err = convert_field(&c, apr_psprintf(pool, "%s.fields[%lu]",
                                                  field, (unsigned long)i),
                                 json_array_get(fields, i), 1, &f)))
            return err;
        json_array_append(list, column_of(pool, &f, i));
    }
    if ((err = uc_columns_read(pool, field, list, out)))
        return err;
    return uc_delta_schema_partition(pool, *out, partitions);
}

/* The column of `columns` named `name` in any case, NULL for none. */
static json_t *column_named(json_t *columns, const char *name)
{
    json_t *column;
    size_t i;

    json_array_foreach(columns, i, column) {
        const char *own = json_string_value(json_object_get(column, "name"));
        if (name && own && !strcasecmp(name, own))
            return column;
    }
    return NULL;
}

uc_error_t *uc_delta_schema_partition(apr_pool_t *pool, json_t *columns,
                                      json_t *partitions)
{
    json_t *column;
    size_t i;

    if (partitions && !json_is_array(partitions))
        return uc_error_invalid(pool, "partition-columns must be an array "
                                "of column names.");
    json_array_foreach(columns, i, column)
        json_object_set_new(column, "partition_index", json_null());
    for (i = 0; i < json_array_size(partitions); i++) {
        const char *name = json_string_value(json_array_get(partitions, i));

        if (!(column = column_named(columns, name)))
            return uc_error_invalid(pool, "partition-columns references "
                                    "unknown column: %s",
                                    name ? name : "(not a string)");
        if (!json_is_null(json_object_get(column, "partition_index")))
            return uc_error_invalid(pool, "partition-columns names %s "
                                    "twice.", name);
        json_object_set_new(column, "partition_index", json_integer(i));
    }
    return NULL;
}

/* A column kept without its Delta type: described from a primitive
 * type_name, NULL when that cannot be done. */
static json_t *field_from_type_name(apr_pool_t *pool, json_t *column)
{
    const char *type_name = json_string_value(json_object_get(column,
                                                              "type_name"));
    json_t *comment = json_object_get(column, "comment");
    const char *type = NULL;
    size_t i;

    for (i = 0; type_name && i < PRIMITIVES; i++)
        if (!strcmp(type_name, primitives[i][1]))
            type = primitives[i][0];
    if (type_name && !strcmp(type_name, "DECIMAL"))
        type = apr_psprintf(pool, "decimal(%d,%d)", (int)json_integer_value(
            json_object_get(column, "type_precision")),
            (int)json_integer_value(json_object_get(column, "type_scale")));
    if (!type)
        return NULL;
    return uc_json_own(pool, json_pack(
        "{sOsssOs{sO*}}", "name", json_object_get(column, "name"),
        "type", type, "nullable", json_object_get(column, "nullable"),
        "metadata", "comment", json_is_string(comment) ? comment : NULL));
}

/* One column as a DeltaStructField, NULL when it cannot be. */
static json_t *field_of(apr_pool_t *pool, json_t *column)
{
    conversion_t c = { pool, LOG, API };
    const char *text = json_string_value(json_object_get(column,
                                                         "type_json"));
    json_t *log;
    converted_t f;

    if (!text)
        return field_from_type_name(pool, column);
    log = uc_json_own(pool, json_loads(text, 0, NULL));
    if (!log || convert_field(&c, "type_json", log, 1, &f))
        return NULL;
    return f.json;
}

/* The partition index of a column, -1 for none. */
static json_int_t partition_of(json_t *column)
{
    json_t *index = json_object_get(column, "partition_index");

    return json_is_integer(index) ? json_integer_value(index) : -1;
}

/* The names of the partition columns by their index, NULL when the
 * indexes do not run from 0 without gaps. */
static json_t *partition_names(apr_pool_t *pool, json_t *columns)
{
    size_t n = json_array_size(columns), i;
    json_t **by_index = apr_pcalloc(pool, sizeof(*by_index) * (n + 1));
    json_t *names = uc_json_own(pool, json_array()), *column;
    json_int_t count = 0;

    json_array_foreach(columns, i, column) {
        json_int_t at = partition_of(column);
        if (at >= (json_int_t)n || (at >= 0 && by_index[at]))
            return NULL;
        if (at >= 0) {
            by_index[at] = column;
            count++;
        }
    }
    for (i = 0; i < (size_t)count; i++) {
        if (!by_index[i])
            return NULL;
        json_array_append(names, json_object_get(by_index[i], "name"));
    }
    return names;
}

json_t *uc_delta_schema_partitions(apr_pool_t *pool, json_t *columns)
{
    json_t *names = partition_names(pool, columns);

    return names ? names : uc_json_own(pool, json_array());
}

json_t *uc_delta_schema_write(apr_pool_t *pool, json_t *columns,
                              json_t **partitions)
{
    json_t *fields = uc_json_own(pool, json_array()), *column;
    size_t i;

    *partitions = partition_names(pool, columns);
    json_array_foreach(columns, i, column) {
        json_t *field = field_of(pool, column);
        if (!field) {
            fields = uc_json_own(pool, json_array());
            *partitions = NULL;
            break;
        }
        json_array_append(fields, field);
    }
    if (!*partitions)
        *partitions = uc_json_own(pool, json_array());
    return uc_json_own(pool, json_pack("{sssO}", "type", "struct", "fields",
                                       fields));
}
