/* SPDX-License-Identifier: Apache-2.0 */
/* A reader of the Thrift compact protocol, for Parquet footers and page
 * headers. Every read is bounded by `end`; the first malformed byte sets
 * `failed`, after which reads return zeros, so parsers check once per
 * struct instead of after every field. */
#ifndef UC_THRIFT_H
#define UC_THRIFT_H

#include <apr.h>

enum {
    UC_THRIFT_STOP = 0,
    UC_THRIFT_TRUE = 1,
    UC_THRIFT_FALSE = 2,
    UC_THRIFT_I8 = 3,
    UC_THRIFT_I16 = 4,
    UC_THRIFT_I32 = 5,
    UC_THRIFT_I64 = 6,
    UC_THRIFT_DOUBLE = 7,
    UC_THRIFT_BINARY = 8,
    UC_THRIFT_LIST = 9,
    UC_THRIFT_SET = 10,
    UC_THRIFT_MAP = 11,
    UC_THRIFT_STRUCT = 12,
    UC_THRIFT_UUID = 13
};

/* Nesting that no Parquet structure reaches; deeper input is hostile. */
#define UC_THRIFT_MAX_DEPTH 32

typedef struct uc_thrift {
    const unsigned char *p;
    const unsigned char *end;
    int failed;
    int depth;
} uc_thrift_t;

/* A struct being read: the id of the last field, for delta encoding. */
typedef struct uc_thrift_struct {
    int last_id;
} uc_thrift_struct_t;

void uc_thrift_init(uc_thrift_t *t, const void *data, apr_size_t len);

/* Starts and ends a nested struct (depth accounting). */
void uc_thrift_struct_begin(uc_thrift_t *t, uc_thrift_struct_t *s);
void uc_thrift_struct_end(uc_thrift_t *t);

/* The next field: its type (UC_THRIFT_STOP at the end or on failure) and
 * id. Booleans carry their value in the type. */
int uc_thrift_field(uc_thrift_t *t, uc_thrift_struct_t *s, int *id);

apr_int64_t uc_thrift_int(uc_thrift_t *t, int type);   /* I8..I64 */
int uc_thrift_bool(int type);                          /* field type */
/* A binary/string field: points into the input. */
const char *uc_thrift_binary(uc_thrift_t *t, apr_size_t *len);
/* A list/set header: element type and count (bounded by the input left,
 * since each element takes at least one byte). */
apr_size_t uc_thrift_list(uc_thrift_t *t, int *elem_type);
/* One list element of boolean type (a byte each in lists). */
int uc_thrift_list_bool(uc_thrift_t *t);

/* Skips a value of any type, so unknown fields of newer writers pass. */
void uc_thrift_skip(uc_thrift_t *t, int type);

#endif
