/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the files of the Parquet reader; not an interface. */
#ifndef UC_PQ_INTERNAL_H
#define UC_PQ_INTERNAL_H

#include "uc_parquet.h"

/* Encodings (parquet.thrift Encoding). */
enum {
    UC_PQ_PLAIN = 0,
    UC_PQ_PLAIN_DICTIONARY = 2,
    UC_PQ_RLE = 3,
    UC_PQ_BIT_PACKED = 4,
    UC_PQ_DELTA_BINARY_PACKED = 5,
    UC_PQ_DELTA_LENGTH_BYTE_ARRAY = 6,
    UC_PQ_DELTA_BYTE_ARRAY = 7,
    UC_PQ_RLE_DICTIONARY = 8,
    UC_PQ_BYTE_STREAM_SPLIT = 9
};

/* A value sink: where decoded values of one physical type go. Decoders
 * append `count` values at `at` (room is reserved by the caller). */
typedef struct uc_pq_values {
    int type;
    int type_length;
    apr_int64_t *ints;
    double *reals;
    uc_pq_bytes_t *bytes;
    apr_size_t at;
} uc_pq_values_t;

uc_error_t *uc_pq_corrupt(apr_pool_t *pool, const uc_pq_file_t *file,
                          const char *what);

/* Each decoder returns NULL on success, or a static description of what is
 * wrong with the data (turned into an error naming the file and column). */
/* Levels, counting into *matches those equal to `match` (the present
 * values of definition levels, the rows of repetition levels). */
const char *uc_pq_decode_levels(const unsigned char *p, apr_size_t len,
                                int bit_width, apr_size_t count,
                                unsigned char *out, unsigned match,
                                apr_size_t *matches);
const char *uc_pq_decode_bit_packed_levels(const unsigned char *p,
                                           apr_size_t len, int bit_width,
                                           apr_size_t count,
                                           unsigned char *out,
                                           apr_size_t *used);
/* RLE/bit-packed hybrid indices (dictionary pages, RLE booleans). */
const char *uc_pq_decode_hybrid(const unsigned char *p, apr_size_t len,
                                int bit_width, apr_size_t count,
                                apr_uint32_t *out);
const char *uc_pq_decode_values(apr_pool_t *pool, int encoding,
                                const unsigned char *p, apr_size_t len,
                                apr_size_t count, uc_pq_values_t *out);
/* Dictionary indices into `dict`, copied into `out`. */
const char *uc_pq_decode_dictionary(apr_pool_t *pool, const unsigned char *p,
                                    apr_size_t len, apr_size_t count,
                                    const uc_pq_values_t *dict,
                                    apr_size_t dict_count,
                                    uc_pq_values_t *out);

/* A column chunk decoded in steps that threads may share: the headers
 * (uc_pq_chunk_begin), then each page's levels (decompressing it), then the
 * counts, then each page's values, then the end. Steps of one kind may run
 * at once on different pages, each with the pools of its own thread; the
 * strings of a kept leaf go into `keep`, as uc_pq_read_column_kept does. */
typedef struct uc_pq_chunk_decode uc_pq_chunk_decode_t;

uc_error_t *uc_pq_chunk_begin(const uc_pq_file_t *file, apr_pool_t *pool,
                              int keep, int row_group,
                              const uc_pq_node_t *leaf, uc_pq_column_t *col,
                              uc_pq_chunk_decode_t **out);
int uc_pq_chunk_pages(const uc_pq_chunk_decode_t *d);
apr_size_t uc_pq_chunk_page_bytes(const uc_pq_chunk_decode_t *d, int page);
uc_error_t *uc_pq_chunk_levels(uc_pq_chunk_decode_t *d, int page,
                               apr_pool_t *pool, apr_pool_t *keep);
uc_error_t *uc_pq_chunk_count(uc_pq_chunk_decode_t *d);
uc_error_t *uc_pq_chunk_values(uc_pq_chunk_decode_t *d, int page,
                               apr_pool_t *pool, apr_pool_t *keep);
uc_error_t *uc_pq_chunk_end(uc_pq_chunk_decode_t *d);
/* The rows of a data page (a leaf without repetition has an entry a row)
 * and the first of them; 0 for other pages. */
apr_size_t uc_pq_chunk_page_rows(const uc_pq_chunk_decode_t *d, int page,
                                  apr_size_t *first);
/* One data page of a leaf without repetition decoded on its own (with the
 * dictionary page first, once, in the pool of `d`): its levels and values
 * in `out`, strings kept in `pool` when `d` keeps them. Not with the other
 * steps on the same `d`. */
uc_error_t *uc_pq_chunk_page_alone(uc_pq_chunk_decode_t *d, int page,
                                   apr_pool_t *pool, uc_pq_column_t *out);

/* Decompresses exactly `dst_len` bytes; NULL or what went wrong. */
const char *uc_pq_decompress(int codec, const unsigned char *src,
                             apr_size_t src_len, unsigned char *dst,
                             apr_size_t dst_len);

#endif
