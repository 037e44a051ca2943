/* SPDX-License-Identifier: Apache-2.0 */
/* A Parquet reader for what Delta checkpoints hold: the footer and schema,
 * column chunks decoded leaf by leaf (data pages v1 and v2, dictionary
 * pages, PLAIN, RLE/bit-packed, dictionary and DELTA_* encodings, the
 * codecs Delta writers use), and rows assembled from the leaves of a group.
 *
 * The file is one buffer in memory that must outlive everything read from
 * it. Every length in the file is checked against that buffer: a truncated,
 * corrupt or hostile file is a 400 MALFORMED_PARQUET error (UC_E_MALFORMED_PARQUET) (a permanent
 * fault of the file, not of the server), never a crash. */
#ifndef UC_PARQUET_H
#define UC_PARQUET_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"

/* Physical types (parquet.thrift Type). */
enum {
    UC_PQ_BOOLEAN = 0,
    UC_PQ_INT32 = 1,
    UC_PQ_INT64 = 2,
    UC_PQ_INT96 = 3,
    UC_PQ_FLOAT = 4,
    UC_PQ_DOUBLE = 5,
    UC_PQ_BYTE_ARRAY = 6,
    UC_PQ_FIXED_LEN_BYTE_ARRAY = 7
};

/* How a node assembles (from converted and logical types). */
typedef enum {
    UC_PQ_LEAF,
    UC_PQ_STRUCT,
    UC_PQ_MAP,                 /* group with one repeated key/value child */
    UC_PQ_LIST                 /* group with one repeated child */
} uc_pq_kind_t;

enum { UC_PQ_REQUIRED = 0, UC_PQ_OPTIONAL = 1, UC_PQ_REPEATED = 2 };

/* How a leaf's values are spelt in JSON, the way Delta writes statistics:
 * dates and timestamps (UTC, milliseconds) as ISO-8601 strings, decimals as
 * numbers with their scale. */
typedef enum {
    UC_PQ_VALUE_PLAIN,
    UC_PQ_VALUE_DECIMAL,
    UC_PQ_VALUE_DATE,
    UC_PQ_VALUE_TIMESTAMP_MILLIS,
    UC_PQ_VALUE_TIMESTAMP_MICROS,
    UC_PQ_VALUE_TIMESTAMP_NANOS      /* and INT96 */
} uc_pq_value_kind_t;

typedef struct uc_pq_node uc_pq_node_t;
struct uc_pq_node {
    const char *name;
    const char *path;          /* dotted from the root's children */
    uc_pq_kind_t kind;
    int type;                  /* physical type of a leaf, -1 for groups */
    int type_length;           /* FIXED_LEN_BYTE_ARRAY */
    int repetition;
    int converted_type;        /* -1 when absent */
    int logical_type;          /* LogicalType union field id, 0 = none */
    uc_pq_value_kind_t value_kind;
    int scale;                 /* of decimals */
    int max_def;
    int max_rep;
    int index;                 /* depth-first, among all nodes */
    int leaf_index;            /* -1 for groups */
    int first_leaf;            /* leaves [first_leaf, end_leaf) are below */
    int end_leaf;
    int num_children;
    uc_pq_node_t **children;
    uc_pq_node_t *parent;
};

typedef struct uc_pq_chunk {
    int codec;
    apr_int64_t num_values;
    apr_int64_t data_page_offset;
    apr_int64_t dictionary_page_offset;    /* -1 when absent */
    apr_int64_t total_compressed_size;
} uc_pq_chunk_t;

typedef struct uc_pq_row_group {
    apr_int64_t num_rows;
    uc_pq_chunk_t *chunks;     /* one per leaf, in leaf order */
} uc_pq_row_group_t;

typedef struct uc_pq_file {
    const unsigned char *data;
    apr_size_t size;
    uc_pq_node_t *root;
    uc_pq_node_t **leaves;
    int num_leaves;
    int num_nodes;
    uc_pq_row_group_t *row_groups;
    int num_row_groups;
    apr_int64_t num_rows;
    const char *created_by;
    const char *name;          /* for error messages */
} uc_pq_file_t;

/* A BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96 value. */
typedef struct uc_pq_bytes {
    const char *ptr;
    apr_size_t len;
} uc_pq_bytes_t;

/* One leaf of one row group, decoded: its levels and non-null values. */
typedef struct uc_pq_column {
    const uc_pq_node_t *leaf;
    apr_size_t num_levels;
    apr_size_t num_rows;       /* entries starting a row */
    unsigned char *def;        /* NULL when max_def == 0 */
    unsigned char *rep;        /* NULL when max_rep == 0 */
    apr_size_t num_values;
    apr_int64_t *ints;         /* BOOLEAN, INT32, INT64 */
    double *reals;             /* FLOAT, DOUBLE */
    uc_pq_bytes_t *bytes;      /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96 */
    int terminated;            /* byte values are C strings */
    apr_size_t kept_bytes;     /* what they take where they are kept */
} uc_pq_column_t;

/* A file that cannot be read (damaged, or using what this reader does not:
 * encryption, column data in other files, LZO) is a UC_E_MALFORMED_PARQUET
 * error; a caller with a vocabulary of its own (Delta) recasts it. */

/* Parses the footer of `size` bytes at `data`; `name` labels errors. */
uc_error_t *uc_pq_open(apr_pool_t *pool, const char *name, const void *data,
                       apr_size_t size, uc_pq_file_t **out);

/* The node at a dotted path ("add.deletionVector.offset"), or NULL. */
const uc_pq_node_t *uc_pq_find(const uc_pq_file_t *file, const char *path);

/* Decodes one leaf of one row group into memory from `pool`. */
uc_error_t *uc_pq_read_column(const uc_pq_file_t *file, apr_pool_t *pool,
                              int row_group, const uc_pq_node_t *leaf,
                              uc_pq_column_t *column);

/* The same, with the BYTE_ARRAY values (and the pages they lie in) in
 * `keep`, each value NUL-terminated: strings that outlive the decoding
 * without a copy. */
uc_error_t *uc_pq_read_column_kept(const uc_pq_file_t *file, apr_pool_t *pool,
                                   apr_pool_t *keep, int row_group,
                                   const uc_pq_node_t *leaf,
                                   uc_pq_column_t *column);

/* Rows of one row group, assembled from decoded leaves. Only the subtrees
 * passed to uc_pq_rows_open are decoded; a row is read through the nodes of
 * those subtrees while it is current. */
typedef struct uc_pq_rows uc_pq_rows_t;

uc_error_t *uc_pq_rows_open(const uc_pq_file_t *file, apr_pool_t *pool,
                            int row_group, const uc_pq_node_t *const *nodes,
                            int num_nodes, uc_pq_rows_t **out);

/* How rows are decoded: which leaves keep their strings (in `keep`, as
 * uc_pq_read_column_kept does), and how many threads decode leaves at once
 * when the row group is large. */
typedef struct uc_pq_rows_options {
    apr_pool_t *keep;
    const uc_pq_node_t *const *kept_leaves;
    int num_kept_leaves;
    int threads;
} uc_pq_rows_options_t;

uc_error_t *uc_pq_rows_open_ex(const uc_pq_file_t *file, apr_pool_t *pool,
                               int row_group,
                               const uc_pq_node_t *const *nodes,
                               int num_nodes,
                               const uc_pq_rows_options_t *options,
                               uc_pq_rows_t **out);
/* The non-null values of a decoded leaf in the whole row group. */
apr_size_t uc_pq_rows_values(const uc_pq_rows_t *rows,
                             const uc_pq_node_t *leaf);
/* Bytes kept for the strings of the decoded leaves. */
apr_size_t uc_pq_rows_kept_bytes(const uc_pq_rows_t *rows);
apr_int64_t uc_pq_rows_count(const uc_pq_rows_t *rows);
/* Moves to the next row; returns 0 after the last. The first call moves
 * to the first row. */
int uc_pq_rows_next(uc_pq_rows_t *rows);
/* The rows of this reader's range in which a non-repeated leaf has a
 * value. */
apr_size_t uc_pq_rows_present_count(const uc_pq_rows_t *rows,
                                    const uc_pq_node_t *leaf);
/* The current row, within the row group. */
apr_int64_t uc_pq_rows_number(const uc_pq_rows_t *rows);
/* Moves forward to `row`; returns 0 when it is not ahead or past the
 * last. */
int uc_pq_rows_seek(uc_pq_rows_t *rows, apr_int64_t row);
/* `parts` readers of consecutive ranges of the rows of `rows`, made before
 * `rows` is read, over the same decoded leaves: each may be read by a
 * thread of its own while `rows` lives. */
uc_pq_rows_t **uc_pq_rows_split(const uc_pq_rows_t *rows, apr_pool_t *pool,
                                int parts);
/* Whether `node` (any node of a decoded subtree) is non-null in this row. */
int uc_pq_rows_present(const uc_pq_rows_t *rows, const uc_pq_node_t *node);
/* Whether a map or list node is present in this row with no elements. */
int uc_pq_rows_empty(const uc_pq_rows_t *rows, const uc_pq_node_t *node);
/* The value of a non-repeated leaf in this row; 0 when null. */
int uc_pq_rows_int(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                   apr_int64_t *value);
int uc_pq_rows_bytes(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                     uc_pq_bytes_t *value);
/* Writes `node` of this row as JSON the way a Delta commit spells it:
 * structs as objects without their null fields, maps as objects, lists as
 * arrays, strings and numbers as such; null when the node is null. */
uc_error_t *uc_pq_rows_write(const uc_pq_rows_t *rows,
                             const uc_pq_node_t *node, uc_jw_t *w);

/* A text leaf without repetition, of one row group, kept as its compressed
 * pages (copied into `keep`) and decoded a page at a time when one of its
 * values is asked for: for large text that is kept but seldom read, a
 * checkpoint's statistics. The page headers are read now (`scratch`). */
typedef struct uc_pq_lazy uc_pq_lazy_t;

/* The form a lazy leaf gives its values in: as stored, or as the body of
 * a JSON string (escaped, without its quotes; invalid UTF-8 replaced),
 * for text that is mostly written into JSON answers: each page is then
 * escaped once, when it is decoded, and kept so. */
typedef enum uc_pq_text_form {
    UC_PQ_TEXT_AS_STORED,
    UC_PQ_TEXT_JSON_ESCAPED
} uc_pq_text_form_t;

uc_error_t *uc_pq_lazy_open(const uc_pq_file_t *file, apr_pool_t *keep,
                            apr_pool_t *scratch, int row_group,
                            const uc_pq_node_t *leaf, uc_pq_text_form_t form,
                            uc_pq_lazy_t **out);
apr_size_t uc_pq_lazy_kept_bytes(const uc_pq_lazy_t *lazy);

/* What a process lets decoded pages of lazy leaves take: a page decoded
 * within it is kept with its leaf, shared by every later reader (threads
 * included) until the leaf's pool goes, so that reading a few rows of a
 * warm leaf costs those rows, not their pages. Safe to share between
 * threads. */
typedef struct uc_pq_page_budget uc_pq_page_budget_t;

uc_pq_page_budget_t *uc_pq_page_budget_make(apr_pool_t *pool,
                                            apr_size_t limit);
/* The bytes kept pages take now. */
apr_size_t uc_pq_page_budget_used(const uc_pq_page_budget_t *budget);

/* Reads lazy leaves for one thread, keeping the page it decoded last (in
 * subpools of `pool`): rows read in order decode each page once. With a
 * budget (NULL: none), the pages it decodes are kept for later readers
 * while the budget has room. */
typedef struct uc_pq_lazy_reader uc_pq_lazy_reader_t;

uc_pq_lazy_reader_t *uc_pq_lazy_reader_make(apr_pool_t *pool,
                                            uc_pq_page_budget_t *budget);
/* Where the value of `row` lies when its page is kept decoded (the
 * value's pointer and length, the pointer NULL for a null), else NULL;
 * no reader's state changes. For prefetching: a reader about to visit
 * rows far apart asks their processor caches for them ahead. */
const uc_pq_bytes_t *uc_pq_lazy_kept_slot(const uc_pq_lazy_t *lazy,
                                          apr_int64_t row);

/* The value of `row` of the row group, in the leaf's form, a C string
 * valid until the reader decodes another page; ptr NULL when the value is
 * null. */
uc_error_t *uc_pq_lazy_value(uc_pq_lazy_reader_t *reader,
                             const uc_pq_lazy_t *lazy, apr_int64_t row,
                             uc_pq_bytes_t *value);

#endif
