/* SPDX-License-Identifier: Apache-2.0 */
/* The reader of JSON request bodies: jansson's verdicts, at a few
 * instructions a byte instead of jansson's two hundred, building either
 * jansson's values or any other tree through a table of builders. */
#ifndef UC_JSON_READ_H
#define UC_JSON_READ_H

#include <stddef.h>
#include <jansson.h>

/* Nesting as deep as jansson's parser takes (its JSON_PARSER_MAX_DEPTH):
 * every value counts, scalars too, so 2048 nested arrays may be empty but
 * hold nothing more. */
#define UC_JSON_READ_MAX_DEPTH 2048

/* Why and where a text was refused. The reason is one of a few fixed
 * texts: nothing of the input is ever quoted (a body can carry secrets). */
typedef struct uc_json_read_error {
    int line;                  /* from 1 */
    int column;                /* characters on the line, from 1 */
    const char *reason;
} uc_json_read_error_t;

typedef enum uc_json_literal {
    UC_JSON_LITERAL_TRUE, UC_JSON_LITERAL_FALSE, UC_JSON_LITERAL_NULL
} uc_json_literal_t;

/* What adding a member to an object came to. */
typedef enum uc_json_set {
    UC_JSON_SET_DONE, UC_JSON_SET_DUPLICATE, UC_JSON_SET_NO_MEMORY
} uc_json_set_t;

/* How the reader makes its values: each maker returns a new value, NULL
 * when out of memory. Strings come checked (valid UTF-8, no NUL) but are
 * the reader's: a builder that keeps one copies it. `append` and `set`
 * take the value whatever they answer; `release` (NULL when values need no
 * releasing) gives up a value the reader will not return. */
typedef struct uc_json_builder {
    void *(*string)(void *baton, const char *s, size_t len);
    void *(*integer)(void *baton, long long v);
    void *(*real)(void *baton, double d);
    void *(*literal)(void *baton, uc_json_literal_t which);
    void *(*object)(void *baton);
    void *(*array)(void *baton);
    int (*append)(void *baton, void *array, void *value);  /* 0 or -1 */
    uc_json_set_t (*set)(void *baton, void *object, const char *key,
                         size_t len, void *value);
    void (*release)(void *value);
} uc_json_builder_t;

/* Reads the `len` bytes at `data`, which must hold one JSON object or
 * array (RFC 8259, UTF-8), as json_loadb(data, len, JSON_REJECT_DUPLICATES)
 * of jansson 2.14 does: the same verdict on every input, the value built
 * by `builder` (integers as integers, key order kept), or NULL with
 * *error told. jansson's oddity is kept: one NUL byte right after a number
 * or a literal is skipped. Real numbers are read in the C locale whatever
 * the process's is. */
void *uc_json_read_with(const char *data, size_t len,
                        const uc_json_builder_t *builder, void *baton,
                        uc_json_read_error_t *error);

/* uc_json_read_with building jansson's values: a new reference, the very
 * value json_loadb gives. */
json_t *uc_json_read_body(const char *data, size_t len,
                          uc_json_read_error_t *error);

#endif
