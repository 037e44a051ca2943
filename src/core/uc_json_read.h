/* SPDX-License-Identifier: Apache-2.0 */
/* The reader of JSON request bodies: jansson's values and verdicts, at a
 * few instructions a byte instead of jansson's two hundred. */
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

/* Reads the `len` bytes at `data`, which must hold one JSON object or
 * array (RFC 8259, UTF-8), as json_loadb(data, len, JSON_REJECT_DUPLICATES)
 * of jansson 2.14 does: the same verdict on every input and the same value
 * (a new reference; integers as integers, key order kept), or NULL with
 * *error told. jansson's oddity is kept: one NUL byte right after a number
 * or a literal is skipped. Real numbers are read in the C locale whatever
 * the process's is. */
json_t *uc_json_read_body(const char *data, size_t len,
                          uc_json_read_error_t *error);

#endif
