/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the libFuzzer targets of t/fuzz: APR set-up, a scratch table
 * directory, and a thrift compact encoder for synthesized Parquet footers. */
#ifndef UC_FUZZ_COMMON_H
#define UC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <apr_pools.h>

/* The pool every per-input pool hangs from (apr_initialize and the
 * reader's set-up, uc_delta_init, done). */
apr_pool_t *fuzz_root_pool(void);

/* With FUZZ_VERBOSE=1, prints what the reader said (checking a harness
 * reaches what it should); `err` is a uc_error_t * or NULL. */
void fuzz_report(const char *what, const void *err);

/* A fresh directory under /dev/shm (or TMPDIR) for the life of the
 * process, with `_delta_log/_sidecars/` inside; removed at exit (and,
 * after a crash, by the next process that makes one). */
const char *fuzz_table_dir(const char *tag);

/* Writes `len` bytes to `dir`/`rel` (replacing it); `data` NULL removes the
 * file instead. Aborts on I/O errors: they are the harness's, not the
 * reader's. */
void fuzz_put_file(const char *dir, const char *rel, const void *data,
                   size_t len);
/* Sets the file's mtime to `sec` seconds since the epoch (commit times). */
void fuzz_set_mtime(const char *dir, const char *rel, long sec);

/* A growing byte buffer. */
typedef struct fuzz_buf {
    unsigned char *p;
    size_t len;
    size_t cap;
} fuzz_buf_t;

void fuzz_buf_put(fuzz_buf_t *b, const void *data, size_t len);
void fuzz_buf_free(fuzz_buf_t *b);

/* Thrift compact protocol writing (just what footers need). */
typedef struct tc_writer {
    fuzz_buf_t *b;
    int last[40];              /* last field id per struct nesting */
    int depth;
} tc_writer_t;

void tc_begin(tc_writer_t *w);                 /* a top-level struct */
void tc_field(tc_writer_t *w, int type, int id); /* field header */
void tc_struct_begin(tc_writer_t *w);          /* struct value (after a
                                                  field or in a list) */
void tc_struct_end(tc_writer_t *w);            /* writes STOP */
void tc_i32(tc_writer_t *w, int id, int64_t v);
void tc_i64(tc_writer_t *w, int id, int64_t v);
void tc_binary(tc_writer_t *w, int id, const char *s);
void tc_list_header(tc_writer_t *w, int elem_type, size_t n);
void tc_varint(tc_writer_t *w, uint64_t v);
void tc_zigzag(tc_writer_t *w, int64_t v);
void tc_raw_binary(tc_writer_t *w, const char *s); /* list element */

/* Reads every leaf of every row group of an opened Parquet file (a
 * uc_pq_file_t *), touching every value, then assembles every row of all
 * top-level columns with uc_pq_rows_write, as the checkpoint reader does. */
struct uc_pq_file;
void fuzz_parquet_exercise(apr_pool_t *pool, struct uc_pq_file *file);

/* A one-column Parquet file around fuzzed column chunk bytes (the
 * pages target and its seed generator). The input starts with a header:
 *   [0] shape: bits 0-1 kind (0 plain leaf, 1 LIST, 2 MAP, 3 = 0),
 *       bits 2-3 optional groups above, bit 4 leaf optional,
 *       bit 5 LIST/MAP group optional
 *   [1] physical type (mod 8)   [2] codec (mod 8)
 *   [3] FIXED_LEN_BYTE_ARRAY length (0 = 16)
 *   [4..5] levels per chunk (LE)   [6..7] rows (LE)
 *   [8] leaf annotation: bits 0-4 converted_type + 1 (0 = none),
 *       bits 5-6 a TIMESTAMP logical type of unit MILLIS, MICROS, NANOS
 *       (0 = none), bit 7 a DECIMAL logical type
 *   [9] scale (signed) of a decimal
 *   [10..11] MAP only: bytes of the key chunk (LE), which comes first
 * and the rest is the chunk (for a MAP: key chunk, then value chunk). */
#define FUZZ_PAGES_HEADER 10
#define FUZZ_PAGES_MAP_HEADER 12

typedef struct fuzz_pages_shape {
    int kind;                  /* 0 leaf, 1 list, 2 map */
    int extra_groups;          /* optional structs above */
    int leaf_optional;
    int group_optional;
    int type;
    int codec;
    int type_length;
    unsigned num_values;
    unsigned num_rows;
    int converted_type;        /* -1 = none */
    int timestamp_unit;        /* 0 = none, 1 millis, 2 micros, 3 nanos */
    int logical_decimal;
    int scale;
} fuzz_pages_shape_t;

/* Builds the file; returns 0 when the input is too short for a header. */
int fuzz_pages_file(const uint8_t *data, size_t size, fuzz_buf_t *file);
/* Writes the header of `shape` (FUZZ_PAGES_MAP_HEADER bytes for a map
 * with a key chunk of `key_len` bytes, else FUZZ_PAGES_HEADER) into `out`;
 * returns its length. */
size_t fuzz_pages_header(const fuzz_pages_shape_t *shape, size_t key_len,
                         uint8_t out[FUZZ_PAGES_MAP_HEADER]);

#endif
