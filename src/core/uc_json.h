/* SPDX-License-Identifier: Apache-2.0 */
/* jansson values owned by APR pools, and strict readers for request fields. */
#ifndef UC_JSON_H
#define UC_JSON_H

#include <apr_pools.h>
#include <jansson.h>

#include "uc_error.h"

/* Hands one reference of `value` to `pool`: it is released when the pool is
 * cleared or destroyed. Returns `value` so constructors can be wrapped. */
json_t *uc_json_own(apr_pool_t *pool, json_t *value);

/* Parses a request body that must be a JSON object. */
uc_error_t *uc_json_parse_object(apr_pool_t *pool, const char *data,
                                 size_t len, json_t **out);
/* The same, read into a tree allocated from `pool` (uc_json_tree.h): the
 * same verdicts and errors. */
struct uc_json_tree;
uc_error_t *uc_json_parse_tree(apr_pool_t *pool, const char *data,
                               size_t len, const struct uc_json_tree **out);

/* Field readers. A missing field or a JSON null leaves *out untouched and
 * succeeds unless `required`; a value of the wrong type is a 400 naming the
 * field. */
uc_error_t *uc_json_string_field(apr_pool_t *pool, json_t *obj,
                                 const char *field, int required,
                                 const char **out);
uc_error_t *uc_json_bool_field(apr_pool_t *pool, json_t *obj,
                               const char *field, int *out);
/* An object member, borrowed from `obj`; *out NULL when missing or
 * null. */
uc_error_t *uc_json_object_field(apr_pool_t *pool, json_t *obj,
                                 const char *field, json_t **out);
/* An integer from min to max, given as a JSON number that is one (5,
 * 5.0, 5e0) or as a string of digits with an optional '-' (protobuf's
 * JSON form of int64); anything else is a 400 naming the field. *present
 * tells whether it was there. */
uc_error_t *uc_json_int_field(apr_pool_t *pool, json_t *obj,
                              const char *field, apr_int64_t min,
                              apr_int64_t max, apr_int64_t *out,
                              int *present);
/* The same for an integer that must be there: missing (or null) is a 400
 * naming the field. */
uc_error_t *uc_json_required_int(apr_pool_t *pool, json_t *obj,
                                 const char *field, apr_int64_t min,
                                 apr_int64_t max, apr_int64_t *out);
/* A string that must be one of `values` (NULL-ended). */
uc_error_t *uc_json_enum_field(apr_pool_t *pool, json_t *obj,
                               const char *field, const char *const *values,
                               int required, const char **out);
/* An array of at most `max_items` strings of 1 to `max_len` bytes; *out is
 * a new reference owned by `pool`. */
uc_error_t *uc_json_string_array_field(apr_pool_t *pool, json_t *obj,
                                       const char *field, size_t max_items,
                                       size_t max_len, json_t **out);
/* An object whose values are all strings, within the limits of a
 * properties map (uc_json_check_string_map); *out is a new reference owned
 * by `pool`. */
uc_error_t *uc_json_string_map_field(apr_pool_t *pool, json_t *obj,
                                     const char *field, json_t **out);
/* At most UC_PROPERTIES_MAX entries, each key a label (uc_validate_label)
 * of up to UC_PROPERTY_KEY_MAX bytes, each value a string of up to
 * UC_PROPERTY_VALUE_MAX bytes. */
uc_error_t *uc_json_check_string_map(apr_pool_t *pool, const char *field,
                                     json_t *map);

/* Length of the valid UTF-8 sequence starting at s, or 0 when invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
size_t uc_utf8_sequence(const unsigned char *s);
/* The same, with the code point it encodes in *code_point (untouched when
 * the sequence is invalid). */
size_t uc_utf8_decode(const unsigned char *s, unsigned *code_point);
/* Writes the UTF-8 encoding of `code_point` (at most U+10FFFF, no
 * surrogate) at `out`, 1 to 4 bytes; returns how many. */
size_t uc_utf8_encode(unsigned code_point, char *out);

/* Text that may hold bytes from the client (error messages quote input):
 * invalid UTF-8 becomes U+FFFD so the value always renders. */
json_t *uc_json_text(apr_pool_t *pool, const char *s);

/* Output helpers: a C string or SQL NULL becomes a JSON string or null. */
json_t *uc_json_string_or_null(const char *s);
/* Parses stored JSON text (properties) back into a value; empty object when
 * the text is missing or unreadable. */
json_t *uc_json_stored_object(const char *text);
/* Scanning compact JSON the module wrote itself (stored details) without
 * parsing it: the closing quote of the string opening at p, and the end of
 * the value starting at p (just past it). Both stop at the final NUL. */
const char *uc_json_string_end(const char *p);
const char *uc_json_value_end(const char *p);
/* The string member `key` of such an object, without escapes (NULL when
 * absent, not a string, or escaped). */
const char *uc_json_stored_string(apr_pool_t *pool, const char *object,
                                  const char *key);

/* Serialises compactly into pool memory. */
const char *uc_json_dump(apr_pool_t *pool, const json_t *value);

#endif
