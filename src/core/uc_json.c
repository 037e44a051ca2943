/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_json.h"
#include "uc_json_read.h"
#include "uc_json_tree.h"
#include "uc_validate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_tables.h>

static apr_status_t json_release(void *value)
{
    json_decref(value);
    return APR_SUCCESS;
}

json_t *uc_json_own(apr_pool_t *pool, json_t *value)
{
    if (value)
        apr_pool_cleanup_register(pool, value, json_release,
                                  apr_pool_cleanup_null);
    return value;
}

static uc_error_t *not_an_object(apr_pool_t *pool)
{
    return uc_error_invalid(pool, "The request body must be a JSON object.");
}

/* The reason is a fixed text: nothing of the body, which can hold a
 * secret, is quoted. */
static uc_error_t *malformed(apr_pool_t *pool, const uc_json_read_error_t *e)
{
    return uc_error_invalid(pool, "Malformed JSON in the request body at "
                            "line %d, column %d: %s", e->line, e->column,
                            e->reason);
}

uc_error_t *uc_json_parse_object(apr_pool_t *pool, const char *data,
                                 size_t len, json_t **out)
{
    uc_json_read_error_t jerr;
    json_t *value;

    if (len == 0)
        return not_an_object(pool);
    if (!(value = uc_json_own(pool, uc_json_read_body(data, len, &jerr))))
        return malformed(pool, &jerr);
    if (!json_is_object(value))
        return not_an_object(pool);
    *out = value;
    return NULL;
}

uc_error_t *uc_json_parse_tree(apr_pool_t *pool, const char *data,
                               size_t len, const uc_json_tree_t **out)
{
    uc_json_read_error_t jerr;
    const uc_json_tree_t *tree;

    if (len == 0)
        return not_an_object(pool);
    if (!(tree = uc_json_tree_read(pool, data, len, &jerr)))
        return malformed(pool, &jerr);
    if (!uc_json_tree_is(tree, UC_JSON_TREE_OBJECT))
        return not_an_object(pool);
    *out = tree;
    return NULL;
}

static json_t *present_value(json_t *obj, const char *field)
{
    json_t *v = obj ? json_object_get(obj, field) : NULL;
    return (v && !json_is_null(v)) ? v : NULL;
}

uc_error_t *uc_json_string_field(apr_pool_t *pool, json_t *obj,
                                 const char *field, int required,
                                 const char **out)
{
    json_t *v = present_value(obj, field);

    if (!v)
        return required ? uc_error_invalid(pool, "Missing required field "
                                           "'%s'.", field) : NULL;
    if (!json_is_string(v))
        return uc_error_invalid(pool, "Field '%s' must be a string.", field);
    *out = apr_pstrmemdup(pool, json_string_value(v), json_string_length(v));
    if (strlen(*out) != json_string_length(v))
        return uc_error_invalid(pool, "Field '%s' must not contain NUL "
                                "characters.", field);
    return NULL;
}

uc_error_t *uc_json_bool_field(apr_pool_t *pool, json_t *obj,
                               const char *field, int *out)
{
    json_t *v = present_value(obj, field);

    if (!v)
        return NULL;
    if (!json_is_boolean(v))
        return uc_error_invalid(pool, "Field '%s' must be a boolean.", field);
    *out = json_is_true(v);
    return NULL;
}

uc_error_t *uc_json_object_field(apr_pool_t *pool, json_t *obj,
                                 const char *field, json_t **out)
{
    json_t *v = present_value(obj, field);

    *out = NULL;
    if (v && !json_is_object(v))
        return uc_error_invalid(pool, "Field '%s' must be an object.", field);
    *out = v;
    return NULL;
}

uc_error_t *uc_json_int_field(apr_pool_t *pool, json_t *obj,
                              const char *field, apr_int64_t min,
                              apr_int64_t max, apr_int64_t *out,
                              int *present)
{
    json_t *v = present_value(obj, field);
    apr_int64_t n;

    *present = 0;
    if (!v)
        return NULL;
    if (json_is_integer(v))
        n = json_integer_value(v);
    else if (json_is_real(v)) {
        double d = json_real_value(v);

        /* A number written with a fraction or an exponent (5.0, 1e3) is
         * the integer it equals; 2^63 and beyond are none. */
        if (!(d < 9223372036854775808.0 && d >= -9223372036854775808.0) ||
            d != (double)(apr_int64_t)d)
            return uc_error_invalid(pool, "Field '%s' must be an integer.",
                                    field);
        n = (apr_int64_t)d;
    }
    else if (json_is_string(v)) {
        const char *s = json_string_value(v), *digits = s + (*s == '-');
        char *end;

        errno = 0;
        n = strtoll(s, &end, 10);
        if (!*digits || strspn(digits, "0123456789") != strlen(digits) ||
            *end || errno == ERANGE)
            return uc_error_invalid(pool, "Field '%s' must be an integer.",
                                    field);
    }
    else
        return uc_error_invalid(pool, "Field '%s' must be an integer.",
                                field);
    if (n < min || n > max)
        return uc_error_invalid(pool, "Field '%s' must be between %"
                                APR_INT64_T_FMT " and %" APR_INT64_T_FMT ".",
                                field, min, max);
    *out = n;
    *present = 1;
    return NULL;
}

uc_error_t *uc_json_required_int(apr_pool_t *pool, json_t *obj,
                                 const char *field, apr_int64_t min,
                                 apr_int64_t max, apr_int64_t *out)
{
    int present;
    uc_error_t *err = uc_json_int_field(pool, obj, field, min, max, out,
                                        &present);

    if (!err && !present)
        return uc_error_invalid(pool, "Field '%s' is required.", field);
    return err;
}

uc_error_t *uc_json_enum_field(apr_pool_t *pool, json_t *obj,
                               const char *field, const char *const *values,
                               int required, const char **out)
{
    const char *value = NULL, *const *v;
    uc_error_t *err = uc_json_string_field(pool, obj, field, required,
                                           &value);
    apr_array_header_t *names;

    if (err || !value)
        return err;
    for (v = values; *v; v++)
        if (strcmp(*v, value) == 0) {
            *out = *v;
            return NULL;
        }
    names = apr_array_make(pool, 8, sizeof(const char *));
    for (v = values; *v; v++)
        APR_ARRAY_PUSH(names, const char *) = *v;
    return uc_error_invalid(pool, "Field '%s' is '%s'; expected one of %s.",
                            field, value, apr_array_pstrcat(pool, names,
                                                            ','));
}

uc_error_t *uc_json_string_array_field(apr_pool_t *pool, json_t *obj,
                                       const char *field, size_t max_items,
                                       size_t max_len, json_t **out)
{
    json_t *v = present_value(obj, field), *item;
    size_t i;

    if (!v)
        return NULL;
    if (!json_is_array(v))
        return uc_error_invalid(pool, "Field '%s' must be an array of "
                                "strings.", field);
    if (json_array_size(v) > max_items)
        return uc_error_invalid(pool, "Field '%s' takes at most %lu items.",
                                field, (unsigned long)max_items);
    json_array_foreach(v, i, item) {
        size_t len = json_is_string(item) ? json_string_length(item) : 0;
        if (!json_is_string(item) || len == 0 || len > max_len ||
            strlen(json_string_value(item)) != len)
            return uc_error_invalid(pool, "Field '%s': item %lu must be a "
                                    "string of 1 to %lu bytes.", field,
                                    (unsigned long)i,
                                    (unsigned long)max_len);
    }
    *out = uc_json_own(pool, json_incref(v));
    return NULL;
}

uc_error_t *uc_json_check_string_map(apr_pool_t *pool, const char *field,
                                     json_t *map)
{
    const char *key, *key_field = apr_pstrcat(pool, field, " key", NULL);
    json_t *item;
    uc_error_t *err;

    if (!json_is_object(map))
        return uc_error_invalid(pool, "Field '%s' must be an object of "
                                "strings.", field);
    if (json_object_size(map) > UC_PROPERTIES_MAX)
        return uc_error_invalid(pool, "Field '%s' takes at most %d entries.",
                                field, UC_PROPERTIES_MAX);
    json_object_foreach(map, key, item) {
        if ((err = uc_validate_label(pool, key_field, key,
                                     UC_PROPERTY_KEY_MAX)))
            return err;
        if (!json_is_string(item))
            return uc_error_invalid(pool, "Field '%s' must be an object of "
                                    "strings; key '%s' is not a string.",
                                    field, key);
        if (json_string_length(item) > UC_PROPERTY_VALUE_MAX)
            return uc_error_invalid(pool, "Field '%s': the value of '%s' is "
                                    "longer than %d bytes.", field, key,
                                    UC_PROPERTY_VALUE_MAX);
    }
    return NULL;
}

uc_error_t *uc_json_string_map_field(apr_pool_t *pool, json_t *obj,
                                     const char *field, json_t **out)
{
    json_t *v = present_value(obj, field);
    uc_error_t *err;

    if (!v)
        return NULL;
    if ((err = uc_json_check_string_map(pool, field, v)))
        return err;
    *out = json_incref(v);
    uc_json_own(pool, *out);
    return NULL;
}

size_t uc_utf8_decode(const unsigned char *s, unsigned *code_point)
{
    size_t n, i;
    unsigned cp;

    if (s[0] < 0x80) { *code_point = s[0]; return 1; }
    if ((s[0] & 0xe0) == 0xc0) { n = 2; cp = s[0] & 0x1f; }
    else if ((s[0] & 0xf0) == 0xe0) { n = 3; cp = s[0] & 0x0f; }
    else if ((s[0] & 0xf8) == 0xf0) { n = 4; cp = s[0] & 0x07; }
    else return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
        (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *code_point = cp;
    return n;
}

size_t uc_utf8_encode(unsigned c, char *o)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

size_t uc_utf8_sequence(const unsigned char *s)
{
    unsigned cp;

    return uc_utf8_decode(s, &cp);
}

json_t *uc_json_text(apr_pool_t *pool, const char *s)
{
    size_t len = strlen(s), i = 0, n;
    char *out, *o;

    while (i < len && (n = uc_utf8_sequence((const unsigned char *)s + i)))
        i += n;
    if (i == len)
        return json_stringn(s, len);
    o = out = apr_palloc(pool, len * 3 + 1);
    for (i = 0; i < len; i += n ? n : 1) {
        n = uc_utf8_sequence((const unsigned char *)s + i);
        if (n) {
            memcpy(o, s + i, n);
            o += n;
        }
        else {
            memcpy(o, "\xef\xbf\xbd", 3);   /* U+FFFD */
            o += 3;
        }
    }
    return json_stringn(out, (size_t)(o - out));
}

json_t *uc_json_string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* The core's reader, not jansson's: a stored text is read on every call
 * that uses its row (a credential's details on every vend), and jansson
 * spends some two hundred instructions a byte. The module wrote the text
 * itself, from an object, so no key repeats. */
json_t *uc_json_stored_object(const char *text)
{
    uc_json_read_error_t error;
    json_t *v = text ? uc_json_read_body(text, strlen(text), &error) : NULL;

    if (v && json_is_object(v))
        return v;
    json_decref(v);
    return json_object();
}

const char *uc_json_string_end(const char *p)
{
    const char *q;

    for (p++; (q = strpbrk(p, "\"\\")) && *q == '\\'; p = q + (q[1] ? 2 : 1))
        ;
    return q ? q : p + strlen(p);
}

/* strpbrk jumps over the runs between structural characters. */
const char *uc_json_value_end(const char *p)
{
    const char *q;
    int depth = 0;

    for (; (q = strpbrk(p, "\"{}[],")); p = q + 1) {
        if (*q == '"') {
            q = uc_json_string_end(q);
            if (!*q)
                return q;
            if (depth == 0)
                return q + 1;
        }
        else if (*q == '{' || *q == '[')
            depth++;
        else if (*q == '}' || *q == ']') {
            if (depth == 0)
                return q;
            if (--depth == 0)
                return q + 1;
        }
        else if (depth == 0)
            return q;
    }
    return p + strlen(p);
}

const char *uc_json_stored_string(apr_pool_t *pool, const char *object,
                                  const char *key)
{
    size_t n = strlen(key);
    const char *p = object;

    if (!p || *p != '{')
        return NULL;
    for (p++; *p == '"'; p++) {
        const char *key_end = uc_json_string_end(p), *value, *end;

        if (*key_end != '"' || key_end[1] != ':')
            return NULL;
        value = key_end + 2;
        end = uc_json_value_end(value);
        if ((size_t)(key_end - p - 1) == n && memcmp(p + 1, key, n) == 0) {
            if (*value != '"' || end - value < 2 ||
                memchr(value, '\\', (size_t)(end - value)))
                return NULL;
            return apr_pstrmemdup(pool, value + 1,
                                  (size_t)(end - value - 2));
        }
        if (*end != ',')
            return NULL;
        p = end;
    }
    return NULL;
}

const char *uc_json_dump(apr_pool_t *pool, const json_t *value)
{
    size_t len = json_dumpb(value, NULL, 0, JSON_COMPACT);
    char *buf = apr_palloc(pool, len + 1);

    json_dumpb(value, buf, len, JSON_COMPACT);
    buf[len] = '\0';
    return buf;
}
