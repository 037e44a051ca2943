/* SPDX-License-Identifier: Apache-2.0 */
/* One column chunk decoded: page headers walked, pages decompressed, levels
 * and values decoded into arrays sized exactly from what the pages hold. */
#include "uc_pq_internal.h"
#include "uc_thrift.h"

#include <string.h>
#include <apr_strings.h>

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICTIONARY = 2, PAGE_DATA_V2 = 3 };

/* Far beyond any checkpoint (a row per file action), small enough that a
 * hostile count cannot exhaust memory. */
#define MAX_LEVELS ((apr_size_t)1 << 27)
#define MAX_PAGE_BYTES ((apr_size_t)1 << 30)
#define MAX_PAGES 1000000
/* Values a column chunk may declare per byte of its file, beyond a first
 * million: run-length encoding lets a few bytes claim millions of nulls,
 * but no real file holds more than a handful of values per byte. More is
 * a decompression bomb. */
#define VALUES_PER_FILE_BYTE 256
#define VALUES_ANYWAY ((apr_int64_t)1 << 20)

typedef struct page {
    int type;
    apr_size_t num_levels;
    int encoding;
    int def_encoding;
    int rep_encoding;
    apr_size_t uncompressed_size;
    apr_size_t compressed_size;
    const unsigned char *body;        /* compressed body in the file */
    /* V2 */
    apr_size_t def_bytes;
    apr_size_t rep_bytes;
    int is_compressed;
    apr_size_t first_level;           /* of the column, from the headers */
    /* Filled by decoding. */
    const unsigned char *values;      /* the value section, uncompressed */
    apr_size_t values_len;
    apr_size_t num_values;            /* non-null */
    apr_size_t num_rows;
    apr_size_t first_value;           /* of the column */
    apr_size_t kept;                  /* bytes kept for its strings */
} page_t;

/* What one step of the decoding works with: the chunk, and the pools of
 * the thread that takes the step. */
typedef struct chunk_reader {
    const uc_pq_file_t *file;
    const uc_pq_node_t *leaf;
    const uc_pq_chunk_t *chunk;
    apr_pool_t *pool;
    apr_pool_t *keep;          /* where string values live, or NULL */
    apr_size_t kept;           /* bytes allocated there */
} chunk_reader_t;

struct uc_pq_chunk_decode {
    chunk_reader_t base;       /* in the pool of the column */
    int keeps;                 /* string values are kept */
    page_t *pages;
    int num_pages;
    uc_pq_column_t *col;
    uc_pq_values_t dict;
    apr_size_t dict_count;
    int have_dict;
    int dict_read;             /* by uc_pq_chunk_page_alone */
    uc_pq_values_t sink;
};

static uc_error_t *chunk_error(const chunk_reader_t *cr, const char *what)
{
    return uc_error_make(cr->pool, UC_E_MALFORMED_PARQUET,
                         "'%s' is not a readable Parquet file: column '%s': "
                         "%s.", cr->file->name, cr->leaf->path, what);
}

static void read_data_header(uc_thrift_t *t, page_t *pg, int v2)
{
    uc_thrift_struct_t s;
    int id, type;

    pg->is_compressed = 1;
    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        if (id == 1)
            pg->num_levels = (apr_size_t)uc_thrift_int(t, type);
        else if (!v2 && id == 2)
            pg->encoding = (int)uc_thrift_int(t, type);
        else if (!v2 && id == 3)
            pg->def_encoding = (int)uc_thrift_int(t, type);
        else if (!v2 && id == 4)
            pg->rep_encoding = (int)uc_thrift_int(t, type);
        else if (v2 && id == 4)
            pg->encoding = (int)uc_thrift_int(t, type);
        else if (v2 && id == 5)
            pg->def_bytes = (apr_size_t)uc_thrift_int(t, type);
        else if (v2 && id == 6)
            pg->rep_bytes = (apr_size_t)uc_thrift_int(t, type);
        else if (v2 && id == 7 && (type == UC_THRIFT_TRUE
                                   || type == UC_THRIFT_FALSE))
            pg->is_compressed = uc_thrift_bool(type);
        else
            uc_thrift_skip(t, type);
    }
    uc_thrift_struct_end(t);
}

/* Parses the page header at *p and moves *p past the page. */
static uc_error_t *read_page_header(const chunk_reader_t *cr,
                                    const unsigned char **p,
                                    const unsigned char *end, page_t *pg)
{
    uc_thrift_t t;
    uc_thrift_struct_t s;
    int id, type;
    apr_int64_t uncompressed = -1, compressed = -1;

    memset(pg, 0, sizeof(*pg));
    pg->type = -1;
    uc_thrift_init(&t, *p, (apr_size_t)(end - *p));
    uc_thrift_struct_begin(&t, &s);
    while ((type = uc_thrift_field(&t, &s, &id)) != UC_THRIFT_STOP) {
        switch (id) {
        case 1: pg->type = (int)uc_thrift_int(&t, type); break;
        case 2: uncompressed = uc_thrift_int(&t, type); break;
        case 3: compressed = uc_thrift_int(&t, type); break;
        case 5:
        case 8:
            if (type != UC_THRIFT_STRUCT) {
                t.failed = 1;
                break;
            }
            read_data_header(&t, pg, id == 8);
            break;
        case 7:
            if (type != UC_THRIFT_STRUCT) {
                t.failed = 1;
                break;
            }
            read_data_header(&t, pg, 0);
            break;
        default: uc_thrift_skip(&t, type);
        }
    }
    uc_thrift_struct_end(&t);
    if (t.failed || uncompressed < 0 || compressed < 0)
        return chunk_error(cr, "bad page header");
    if ((apr_uint64_t)compressed > (apr_uint64_t)(end - t.p))
        return chunk_error(cr, "page runs past its column chunk");
    if ((apr_uint64_t)uncompressed > MAX_PAGE_BYTES)
        return chunk_error(cr, "page too large");
    pg->uncompressed_size = (apr_size_t)uncompressed;
    pg->compressed_size = (apr_size_t)compressed;
    pg->body = t.p;
    *p = t.p + compressed;
    return NULL;
}

/* The page's body uncompressed; pages stored uncompressed are used where
 * they lie in the file, unless their strings are kept: then the page is
 * copied where they are kept, with a byte to spare for the last NUL. */
static uc_error_t *inflate_section(chunk_reader_t *cr,
                                   const unsigned char *src,
                                   apr_size_t src_len, apr_size_t dst_len,
                                   int compressed,
                                   const unsigned char **out)
{
    unsigned char *dst;
    const char *why;

    if (!compressed || cr->chunk->codec == 0) {
        if (src_len != dst_len)
            return chunk_error(cr, "uncompressed page of the wrong size");
        if (!cr->keep) {
            *out = src;
            return NULL;
        }
    }
    if (cr->keep) {
        dst = apr_palloc(cr->keep, dst_len + 1);
        cr->kept += dst_len + 1;
        dst[dst_len] = '\0';
    }
    else
        dst = apr_palloc(cr->pool, dst_len ? dst_len : 1);
    if (!compressed || cr->chunk->codec == 0) {
        memcpy(dst, src, dst_len);
        *out = dst;
        return NULL;
    }
    if ((why = uc_pq_decompress(cr->chunk->codec, src, src_len, dst,
                                dst_len)))
        return chunk_error(cr, why);
    *out = dst;
    return NULL;
}

static int bit_width(int max_level)
{
    int w = 0;

    while (max_level >> w)
        w++;
    return w;
}

/* V1 level block: 4-byte length + hybrid, or the old BIT_PACKED form. */
static const char *v1_levels(const unsigned char **p, const unsigned char *end,
                             int encoding, int max_level, apr_size_t count,
                             unsigned char *out, unsigned match,
                             apr_size_t *matches)
{
    apr_size_t len, used, i;
    const char *why;

    if (encoding == UC_PQ_BIT_PACKED) {
        why = uc_pq_decode_bit_packed_levels(*p, (apr_size_t)(end - *p),
                                             bit_width(max_level), count, out,
                                             &used);
        if (!why) {
            *p += used;
            for (i = 0; i < count; i++)
                *matches += out[i] == match;
        }
        return why;
    }
    if (encoding != UC_PQ_RLE)
        return "unsupported level encoding";
    if (end - *p < 4)
        return "truncated levels";
    len = (apr_size_t)(*p)[0] | (apr_size_t)(*p)[1] << 8
          | (apr_size_t)(*p)[2] << 16 | (apr_size_t)(*p)[3] << 24;
    *p += 4;
    if (len > (apr_size_t)(end - *p))
        return "levels run past their page";
    why = uc_pq_decode_levels(*p, len, bit_width(max_level), count, out,
                              match, matches);
    *p += len;
    return why;
}

/* Levels above their maximum (which a bit width can spell unless the
 * maximum is all ones) would read as present where no value is. */
static const char *check_levels(const unsigned char *lv, apr_size_t n,
                                int max_level)
{
    apr_size_t i;

    if (max_level == (1 << bit_width(max_level)) - 1)
        return NULL;
    for (i = 0; i < n; i++)
        if (lv[i] > max_level)
            return "level above its maximum";
    return NULL;
}

/* Decodes a data page's levels into the column at `at` and finds its
 * value section. */
static uc_error_t *decode_page_levels(chunk_reader_t *cr, page_t *pg,
                                      uc_pq_column_t *col)
{
    const uc_pq_node_t *leaf = cr->leaf;
    unsigned char *def = col->def ? col->def + pg->first_level : NULL;
    unsigned char *rep = col->rep ? col->rep + pg->first_level : NULL;
    const unsigned char *data, *end;
    const char *why = NULL;
    apr_size_t present = 0, rows = 0;
    uc_error_t *err;

    if (pg->type == PAGE_DATA) {
        if ((err = inflate_section(cr, pg->body, pg->compressed_size,
                                   pg->uncompressed_size, 1, &data)))
            return err;
        end = data + pg->uncompressed_size;
        if (rep)
            why = v1_levels(&data, end, pg->rep_encoding, leaf->max_rep,
                            pg->num_levels, rep, 0, &rows);
        if (!why && def)
            why = v1_levels(&data, end, pg->def_encoding, leaf->max_def,
                            pg->num_levels, def, (unsigned)leaf->max_def,
                            &present);
        if (why)
            return chunk_error(cr, why);
        pg->values = data;
        pg->values_len = (apr_size_t)(end - data);
    }
    else {
        apr_size_t levels = pg->rep_bytes + pg->def_bytes;

        if (pg->rep_bytes > pg->compressed_size
            || pg->def_bytes > pg->compressed_size - pg->rep_bytes
            || levels > pg->uncompressed_size)
            return chunk_error(cr, "V2 levels larger than their page");
        if (rep)
            why = uc_pq_decode_levels(pg->body, pg->rep_bytes,
                                      bit_width(leaf->max_rep),
                                      pg->num_levels, rep, 0, &rows);
        if (!why && def)
            why = uc_pq_decode_levels(pg->body + pg->rep_bytes, pg->def_bytes,
                                      bit_width(leaf->max_def),
                                      pg->num_levels, def,
                                      (unsigned)leaf->max_def, &present);
        if (why)
            return chunk_error(cr, why);
        if ((err = inflate_section(cr, pg->body + levels,
                                   pg->compressed_size - levels,
                                   pg->uncompressed_size - levels,
                                   pg->is_compressed, &data)))
            return err;
        pg->values = data;
        pg->values_len = pg->uncompressed_size - levels;
    }
    if ((rep && (why = check_levels(rep, pg->num_levels, leaf->max_rep)))
        || (def && (why = check_levels(def, pg->num_levels, leaf->max_def))))
        return chunk_error(cr, why);
    pg->num_values = def ? present : pg->num_levels;
    pg->num_rows = rep ? rows : pg->num_levels;
    return NULL;
}

static void values_sink(uc_pq_values_t *v, const uc_pq_node_t *leaf)
{
    memset(v, 0, sizeof(*v));
    v->type = leaf->type;
    v->type_length = leaf->type_length;
}

static void allocate_values(apr_pool_t *pool, uc_pq_values_t *v,
                            apr_size_t n)
{
    apr_size_t room = n ? n : 1;

    switch (v->type) {
    case UC_PQ_BOOLEAN: case UC_PQ_INT32: case UC_PQ_INT64:
        v->ints = apr_palloc(pool, sizeof(apr_int64_t) * room);
        break;
    case UC_PQ_FLOAT: case UC_PQ_DOUBLE:
        v->reals = apr_palloc(pool, sizeof(double) * room);
        break;
    default:
        v->bytes = apr_palloc(pool, sizeof(uc_pq_bytes_t) * room);
    }
}

/* Makes the string values [from, v->at) C strings where they are kept.
 * PLAIN values are followed by the next value's length, already read, or
 * by the spare byte at the end of their page: their NUL goes there. Other
 * encodings pack values back to back, so those are copied. */
static void terminate(chunk_reader_t *cr, uc_pq_values_t *v, apr_size_t from,
                      int encoding)
{
    apr_size_t i, total = 0;
    char *buf;

    if (encoding == UC_PQ_PLAIN) {
        for (i = from; i < v->at; i++)
            ((char *)v->bytes[i].ptr)[v->bytes[i].len] = '\0';
        return;
    }
    for (i = from; i < v->at; i++)
        total += v->bytes[i].len + 1;
    buf = apr_palloc(cr->keep, total ? total : 1);
    cr->kept += total;
    for (i = from; i < v->at; i++) {
        memcpy(buf, v->bytes[i].ptr, v->bytes[i].len);
        buf[v->bytes[i].len] = '\0';
        v->bytes[i].ptr = buf;
        buf += v->bytes[i].len + 1;
    }
}

static uc_error_t *read_dictionary(chunk_reader_t *cr, page_t *pg,
                                   uc_pq_values_t *dict, apr_size_t *count)
{
    const unsigned char *data;
    const char *why;
    uc_error_t *err;

    if (pg->encoding != UC_PQ_PLAIN && pg->encoding != UC_PQ_PLAIN_DICTIONARY)
        return chunk_error(cr, "dictionary page not PLAIN encoded");
    if (cr->leaf->type == UC_PQ_BOOLEAN)
        return chunk_error(cr, "dictionary on a boolean column");
    if (pg->num_levels > pg->uncompressed_size * 8 + 8)
        return chunk_error(cr, "dictionary count larger than its page");
    if ((err = inflate_section(cr, pg->body, pg->compressed_size,
                               pg->uncompressed_size, 1, &data)))
        return err;
    values_sink(dict, cr->leaf);
    allocate_values(cr->pool, dict, pg->num_levels);
    if ((why = uc_pq_decode_values(cr->pool, UC_PQ_PLAIN, data,
                                   pg->uncompressed_size, pg->num_levels,
                                   dict)))
        return chunk_error(cr, why);
    if (cr->keep)
        terminate(cr, dict, 0, UC_PQ_PLAIN);
    *count = pg->num_levels;
    return NULL;
}

uc_error_t *uc_pq_chunk_begin(const uc_pq_file_t *file, apr_pool_t *pool,
                              int keep, int row_group,
                              const uc_pq_node_t *leaf, uc_pq_column_t *col,
                              uc_pq_chunk_decode_t **out)
{
    uc_pq_chunk_decode_t *d;
    chunk_reader_t *cr;
    const uc_pq_chunk_t *chunk;
    apr_int64_t start;
    const unsigned char *p, *end;
    apr_array_header_t *pages;
    apr_size_t levels = 0;
    int i;
    uc_error_t *err;

    if (row_group < 0 || row_group >= file->num_row_groups
        || leaf->leaf_index < 0)
        return uc_error_make(pool, UC_E_INTERNAL,
                             "No such Parquet column chunk.");
    chunk = &file->row_groups[row_group].chunks[leaf->leaf_index];
    d = apr_pcalloc(pool, sizeof(*d));
    cr = &d->base;
    cr->file = file;
    cr->leaf = leaf;
    cr->chunk = chunk;
    cr->pool = pool;
    d->keeps = keep && leaf->type == UC_PQ_BYTE_ARRAY;
    d->col = col;
    start = chunk->data_page_offset;
    if (chunk->dictionary_page_offset >= 4
        && chunk->dictionary_page_offset < start)
        start = chunk->dictionary_page_offset;
    if ((apr_uint64_t)start >= file->size
        || (apr_uint64_t)chunk->total_compressed_size
           > file->size - (apr_size_t)start)
        return chunk_error(cr, "column chunk outside the file");
    if (chunk->num_values > VALUES_ANYWAY
        + (apr_int64_t)file->size * VALUES_PER_FILE_BYTE)
        return chunk_error(cr, "more values than the file could hold");
    p = file->data + start;
    end = p + chunk->total_compressed_size;

    /* The page headers first, so that the level arrays are allocated once
     * and each page knows where its levels go. */
    pages = apr_array_make(pool, 4, sizeof(page_t));
    while (p < end && levels < (apr_size_t)chunk->num_values) {
        page_t *pg = apr_array_push(pages);

        if (pages->nelts > MAX_PAGES)
            return chunk_error(cr, "too many pages");
        if ((err = read_page_header(cr, &p, end, pg)))
            return err;
        if (pg->type == PAGE_DICTIONARY && pages->nelts != 1)
            return chunk_error(cr, "dictionary page out of place");
        if (pg->type == PAGE_DATA || pg->type == PAGE_DATA_V2) {
            if (pg->num_levels > MAX_LEVELS - levels)
                return chunk_error(cr, "too many values");
            pg->first_level = levels;
            levels += pg->num_levels;
        }
    }
    if (levels != (apr_size_t)chunk->num_values)
        return chunk_error(cr, "pages hold another number of values than "
                           "the column chunk");
    d->pages = (page_t *)pages->elts;
    d->num_pages = pages->nelts;
    for (i = 0; i < d->num_pages; i++)
        if (d->pages[i].type == PAGE_DICTIONARY)
            d->have_dict = 1;

    memset(col, 0, sizeof(*col));
    col->leaf = leaf;
    col->num_levels = levels;
    if (leaf->max_def > 0)
        col->def = apr_palloc(pool, levels ? levels : 1);
    if (leaf->max_rep > 0)
        col->rep = apr_palloc(pool, levels ? levels : 1);
    *out = d;
    return NULL;
}

int uc_pq_chunk_pages(const uc_pq_chunk_decode_t *d)
{
    return d->num_pages;
}

apr_size_t uc_pq_chunk_page_bytes(const uc_pq_chunk_decode_t *d, int page)
{
    return d->pages[page].uncompressed_size;
}

/* The reader of one step, in the pools of the thread taking it. */
static chunk_reader_t step_reader(const uc_pq_chunk_decode_t *d,
                                  apr_pool_t *pool, apr_pool_t *keep)
{
    chunk_reader_t cr = d->base;

    cr.pool = pool;
    cr.keep = d->keeps ? keep : NULL;
    cr.kept = 0;
    return cr;
}

uc_error_t *uc_pq_chunk_levels(uc_pq_chunk_decode_t *d, int page,
                               apr_pool_t *pool, apr_pool_t *keep)
{
    chunk_reader_t cr = step_reader(d, pool, keep);
    page_t *pg = &d->pages[page];
    uc_error_t *err = NULL;

    if (pg->type == PAGE_DICTIONARY)
        err = read_dictionary(&cr, pg, &d->dict, &d->dict_count);
    else if (pg->type == PAGE_DATA || pg->type == PAGE_DATA_V2)
        err = decode_page_levels(&cr, pg, d->col);
    pg->kept += cr.kept;
    return err;
}

uc_error_t *uc_pq_chunk_count(uc_pq_chunk_decode_t *d)
{
    apr_size_t values = 0;
    int i;

    for (i = 0; i < d->num_pages; i++) {
        page_t *pg = &d->pages[i];

        if (pg->type != PAGE_DATA && pg->type != PAGE_DATA_V2)
            continue;
        if (!d->have_dict && (pg->encoding == UC_PQ_PLAIN_DICTIONARY
                              || pg->encoding == UC_PQ_RLE_DICTIONARY))
            return chunk_error(&d->base, "dictionary indices without a "
                               "dictionary page");
        pg->first_value = values;
        values += pg->num_values;
        d->col->num_rows += pg->num_rows;
    }
    d->col->num_values = values;
    values_sink(&d->sink, d->base.leaf);
    allocate_values(d->base.pool, &d->sink, values);
    return NULL;
}

uc_error_t *uc_pq_chunk_values(uc_pq_chunk_decode_t *d, int page,
                               apr_pool_t *pool, apr_pool_t *keep)
{
    chunk_reader_t cr = step_reader(d, pool, keep);
    page_t *pg = &d->pages[page];
    uc_pq_values_t sink = d->sink;
    const char *why;
    int dictionary = pg->encoding == UC_PQ_PLAIN_DICTIONARY
                     || pg->encoding == UC_PQ_RLE_DICTIONARY;

    if (pg->type != PAGE_DATA && pg->type != PAGE_DATA_V2)
        return NULL;
    sink.at = pg->first_value;
    why = dictionary
        ? uc_pq_decode_dictionary(pool, pg->values, pg->values_len,
                                  pg->num_values, &d->dict, d->dict_count,
                                  &sink)
        : uc_pq_decode_values(pool, pg->encoding, pg->values, pg->values_len,
                              pg->num_values, &sink);
    if (why)
        return chunk_error(&cr, why);
    if (cr.keep && !dictionary)
        terminate(&cr, &sink, pg->first_value, pg->encoding);
    pg->kept += cr.kept;
    return NULL;
}

apr_size_t uc_pq_chunk_page_rows(const uc_pq_chunk_decode_t *d, int page,
                                  apr_size_t *first)
{
    const page_t *pg = &d->pages[page];

    if (pg->type != PAGE_DATA && pg->type != PAGE_DATA_V2)
        return 0;
    *first = pg->first_level;
    return pg->num_levels;
}

uc_error_t *uc_pq_chunk_page_alone(uc_pq_chunk_decode_t *d, int page,
                                   apr_pool_t *pool, uc_pq_column_t *out)
{
    page_t *pg = &d->pages[page];
    chunk_reader_t cr = step_reader(d, pool, pool);
    uc_pq_values_t sink;
    uc_error_t *err;

    if (d->base.leaf->max_rep > 0
        || (pg->type != PAGE_DATA && pg->type != PAGE_DATA_V2))
        return uc_error_make(pool, UC_E_INTERNAL,
                             "No such Parquet page.");
    if (d->have_dict && !d->dict_read) {
        if ((err = uc_pq_chunk_levels(d, 0, d->base.pool, d->base.pool)))
            return err;
        d->dict_read = 1;
    }
    if ((err = uc_pq_chunk_levels(d, page, pool, pool)))
        return err;
    if (!d->have_dict && (pg->encoding == UC_PQ_PLAIN_DICTIONARY
                          || pg->encoding == UC_PQ_RLE_DICTIONARY))
        return chunk_error(&cr, "dictionary indices without a dictionary "
                           "page");
    values_sink(&sink, d->base.leaf);
    allocate_values(pool, &sink, pg->num_values);
    d->sink = sink;
    pg->first_value = 0;
    if ((err = uc_pq_chunk_values(d, page, pool, pool)))
        return err;
    memset(out, 0, sizeof(*out));
    out->leaf = d->base.leaf;
    out->num_levels = pg->num_levels;
    out->num_rows = pg->num_levels;
    out->def = d->col->def ? d->col->def + pg->first_level : NULL;
    out->num_values = pg->num_values;
    out->ints = sink.ints;
    out->reals = sink.reals;
    out->bytes = sink.bytes;
    out->terminated = d->keeps;
    return NULL;
}

uc_error_t *uc_pq_chunk_end(uc_pq_chunk_decode_t *d)
{
    uc_pq_column_t *col = d->col;
    int i;

    col->terminated = d->keeps;
    col->ints = d->sink.ints;
    col->reals = d->sink.reals;
    col->bytes = d->sink.bytes;
    for (i = 0; i < d->num_pages; i++)
        col->kept_bytes += d->pages[i].kept;
    if (col->rep && col->num_levels > 0 && col->rep[0] != 0)
        return chunk_error(&d->base, "column chunk starts inside a row");
    return NULL;
}

uc_error_t *uc_pq_read_column(const uc_pq_file_t *file, apr_pool_t *pool,
                              int row_group, const uc_pq_node_t *leaf,
                              uc_pq_column_t *col)
{
    return uc_pq_read_column_kept(file, pool, NULL, row_group, leaf, col);
}

uc_error_t *uc_pq_read_column_kept(const uc_pq_file_t *file, apr_pool_t *pool,
                                   apr_pool_t *keep, int row_group,
                                   const uc_pq_node_t *leaf,
                                   uc_pq_column_t *col)
{
    uc_pq_chunk_decode_t *d;
    uc_error_t *err;
    int i;

    if ((err = uc_pq_chunk_begin(file, pool, keep != NULL, row_group, leaf,
                                 col, &d)))
        return err;
    for (i = 0; i < d->num_pages; i++)
        if ((err = uc_pq_chunk_levels(d, i, pool, keep)))
            return err;
    if ((err = uc_pq_chunk_count(d)))
        return err;
    for (i = 0; i < d->num_pages; i++)
        if ((err = uc_pq_chunk_values(d, i, pool, keep)))
            return err;
    return uc_pq_chunk_end(d);
}
