/* SPDX-License-Identifier: Apache-2.0 */
/* Leaves kept as their compressed column chunk and decoded a page at a
 * time when a value is asked for. The copied chunk is read as a file of
 * its own: the same page decoding, with nothing left pointing into the
 * file it came from. */
#include "uc_pq_internal.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_jw.h"

/* The copy starts with the file magic so that no page offset is 0. */
#define MAGIC "PAR1"
#define MAGIC_LEN 4

/* A page decoded once and kept with its leaf for every later reader, in
 * a pool of its own, its values copied out of the reader's pools. */
typedef struct kept_page {
    apr_pool_t *pool;          /* unmanaged: freed with the leaf */
    uc_pq_column_t column;
    apr_size_t bytes;          /* counted against the budget */
} kept_page_t;

struct uc_pq_page_budget {
    apr_size_t limit;
    apr_size_t used;           /* atomically */
};

struct uc_pq_lazy {
    uc_pq_file_t file;         /* the copied chunk */
    uc_pq_row_group_t row_group;
    uc_pq_chunk_t chunk;
    uc_pq_node_t leaf;
    apr_size_t *page_rows;     /* first row of each page, then the end */
    int *pages;                /* the page index of each of those */
    int num_pages;             /* data pages */
    uc_pq_text_form_t form;
    apr_size_t kept;
    /* Each data page once decoded (NULL until then), published atomically;
     * the budget their bytes count against (set by the first). */
    kept_page_t **decoded;
    uc_pq_page_budget_t *budget;
};

struct uc_pq_lazy_reader {
    apr_pool_t *pool;          /* the reader's, for errors */
    apr_pool_t *chunk_pool;    /* the chunk being read */
    apr_pool_t *page_pool;     /* its page decoded last */
    const uc_pq_lazy_t *lazy;  /* whose chunk `decode` reads */
    const uc_pq_lazy_t *page_lazy;     /* whose page `column` is */
    uc_pq_chunk_decode_t *decode;
    uc_pq_column_t levels;     /* of the chunk, filled a page at a time */
    uc_pq_column_t column;     /* the page decoded last */
    int page;                  /* among the data pages; -1 for none */
    apr_size_t first_row;
    apr_size_t row;            /* of the page, where `value` is */
    apr_size_t value;
    uc_pq_page_budget_t *budget;   /* NULL: it keeps no page */
};

uc_pq_page_budget_t *uc_pq_page_budget_make(apr_pool_t *pool,
                                            apr_size_t limit)
{
    uc_pq_page_budget_t *b = apr_pcalloc(pool, sizeof(*b));

    b->limit = limit;
    return b;
}

apr_size_t uc_pq_page_budget_used(const uc_pq_page_budget_t *b)
{
    return __atomic_load_n(&b->used, __ATOMIC_RELAXED);
}

/* Frees the pages kept with a leaf and gives their bytes back: its pool
 * goes when no reader of the leaf is left. */
static apr_status_t free_decoded(void *data)
{
    uc_pq_lazy_t *lazy = data;
    int i;

    for (i = 0; i < lazy->num_pages; i++) {
        kept_page_t *k = lazy->decoded[i];

        if (!k)
            continue;
        __atomic_sub_fetch(&lazy->budget->used, k->bytes, __ATOMIC_RELAXED);
        apr_pool_destroy(k->pool);
        lazy->decoded[i] = NULL;
    }
    return APR_SUCCESS;
}

uc_error_t *uc_pq_lazy_open(const uc_pq_file_t *file, apr_pool_t *keep,
                            apr_pool_t *scratch, int row_group,
                            const uc_pq_node_t *leaf, uc_pq_text_form_t form,
                            uc_pq_lazy_t **out)
{
    uc_pq_lazy_t *lazy;
    uc_pq_chunk_decode_t *d;
    uc_pq_column_t col;
    const uc_pq_chunk_t *chunk;
    apr_int64_t start;
    unsigned char *copy;
    int i, n;
    uc_error_t *err;

    if (leaf->type != UC_PQ_BYTE_ARRAY || leaf->max_rep > 0)
        return uc_error_make(scratch, UC_E_INTERNAL,
                             "Only text leaves without repetition are read "
                             "lazily.");
    /* The headers are read now, so that a damaged chunk fails the read of
     * its file; its pages are checked when they are decoded. */
    if ((err = uc_pq_chunk_begin(file, scratch, 1, row_group, leaf, &col,
                                 &d)))
        return err;
    chunk = &file->row_groups[row_group].chunks[leaf->leaf_index];
    start = chunk->data_page_offset;
    if (chunk->dictionary_page_offset >= 4
        && chunk->dictionary_page_offset < start)
        start = chunk->dictionary_page_offset;

    lazy = apr_pcalloc(keep, sizeof(*lazy));
    lazy->form = form;
    copy = apr_palloc(keep, MAGIC_LEN
                            + (apr_size_t)chunk->total_compressed_size);
    memcpy(copy, MAGIC, MAGIC_LEN);
    memcpy(copy + MAGIC_LEN, file->data + start,
           (apr_size_t)chunk->total_compressed_size);
    lazy->kept = MAGIC_LEN + (apr_size_t)chunk->total_compressed_size;
    lazy->chunk = *chunk;
    lazy->chunk.data_page_offset = chunk->data_page_offset - start
                                   + MAGIC_LEN;
    lazy->chunk.dictionary_page_offset =
        chunk->dictionary_page_offset >= 4
        && chunk->dictionary_page_offset < chunk->data_page_offset
        ? chunk->dictionary_page_offset - start + MAGIC_LEN : -1;
    lazy->row_group.num_rows = file->row_groups[row_group].num_rows;
    lazy->row_group.chunks = &lazy->chunk;
    lazy->leaf = *leaf;
    lazy->leaf.name = apr_pstrdup(keep, leaf->name);
    lazy->leaf.path = apr_pstrdup(keep, leaf->path);
    lazy->leaf.leaf_index = 0;
    lazy->leaf.first_leaf = 0;
    lazy->leaf.end_leaf = 1;
    lazy->leaf.num_children = 0;
    lazy->leaf.children = NULL;
    lazy->leaf.parent = NULL;
    lazy->file.data = copy;
    lazy->file.size = lazy->kept;
    lazy->file.name = apr_pstrdup(keep, file->name);
    lazy->file.num_leaves = 1;
    lazy->file.num_nodes = 1;
    lazy->file.row_groups = &lazy->row_group;
    lazy->file.num_row_groups = 1;
    lazy->file.num_rows = lazy->row_group.num_rows;

    n = uc_pq_chunk_pages(d);
    lazy->page_rows = apr_palloc(keep, sizeof(apr_size_t) * (apr_size_t)(n + 1));
    lazy->pages = apr_palloc(keep, sizeof(int) * (apr_size_t)(n + 1));
    lazy->page_rows[0] = 0;
    for (i = 0; i < n; i++) {
        apr_size_t first, rows = uc_pq_chunk_page_rows(d, i, &first);

        if (rows == 0)
            continue;
        lazy->pages[lazy->num_pages] = i;
        lazy->page_rows[lazy->num_pages++] = first;
        lazy->page_rows[lazy->num_pages] = first + rows;
    }
    lazy->kept += sizeof(apr_size_t) * (apr_size_t)(n + 1)
                  + sizeof(int) * (apr_size_t)(n + 1) + sizeof(*lazy);
    lazy->decoded = apr_pcalloc(keep, sizeof(kept_page_t *)
                                      * (apr_size_t)(lazy->num_pages + 1));
    apr_pool_cleanup_register(keep, lazy, free_decoded,
                              apr_pool_cleanup_null);
    *out = lazy;
    return NULL;
}

apr_size_t uc_pq_lazy_kept_bytes(const uc_pq_lazy_t *lazy)
{
    return lazy->kept;
}

uc_pq_lazy_reader_t *uc_pq_lazy_reader_make(apr_pool_t *pool,
                                            uc_pq_page_budget_t *budget)
{
    uc_pq_lazy_reader_t *rd = apr_pcalloc(pool, sizeof(*rd));

    rd->pool = pool;
    rd->budget = budget;
    apr_pool_create(&rd->chunk_pool, pool);
    apr_pool_create(&rd->page_pool, rd->chunk_pool);
    rd->page = -1;
    return rd;
}

/* The data page holding `row`, by bisection of the pages' first rows. */
static int page_of(const uc_pq_lazy_t *lazy, apr_size_t row)
{
    int lo = 0, hi = lazy->num_pages;

    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;

        if (lazy->page_rows[mid] <= row)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A copy of the decoded page `col` of `leaf` in a pool of its own, its
 * values in one block (C strings, as decoded), one per row (NULL for a
 * null row, so that a row's value is found without counting); NULL when
 * the budget has no room left. */
static kept_page_t *copy_page(uc_pq_page_budget_t *budget,
                              const uc_pq_node_t *leaf,
                              const uc_pq_column_t *col)
{
    unsigned char max = (unsigned char)leaf->max_def;
    apr_size_t text = 0, i, v = 0, bytes;
    apr_pool_t *pool;
    kept_page_t *k;
    char *at;

    for (i = 0; i < col->num_values; i++)
        text += col->bytes[i].len + 1;
    bytes = sizeof(*k) + text + col->num_levels * sizeof(uc_pq_bytes_t);
    if (__atomic_add_fetch(&budget->used, bytes, __ATOMIC_RELAXED)
        > budget->limit ||
        apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
        __atomic_sub_fetch(&budget->used, bytes, __ATOMIC_RELAXED);
        return NULL;
    }
    k = apr_pcalloc(pool, sizeof(*k));
    k->pool = pool;
    k->bytes = bytes;
    k->column = *col;
    k->column.def = NULL;
    k->column.rep = NULL;
    k->column.bytes = apr_pcalloc(pool, (col->num_levels + 1)
                                        * sizeof(uc_pq_bytes_t));
    k->column.num_values = col->num_levels;
    at = apr_palloc(pool, text + 1);
    for (i = 0; i < col->num_levels; i++) {
        const uc_pq_bytes_t *b;

        if (col->def && col->def[i] != max)
            continue;
        b = &col->bytes[v++];
        memcpy(at, b->ptr, b->len);
        at[b->len] = '\0';
        k->column.bytes[i].ptr = at;
        k->column.bytes[i].len = b->len;
        at += b->len + 1;
    }
    k->column.terminated = 1;
    return k;
}

/* The values of a decoded page as the bodies of JSON strings, written
 * quoted into one buffer from `pool`; each closing quote becomes the NUL
 * that ends the value. */
static void escape_values(apr_pool_t *pool, uc_pq_column_t *col)
{
    apr_size_t i, text = 0, n = col->num_values;
    uc_pq_bytes_t *escaped = apr_palloc(pool, (n + 1) * sizeof(*escaped));
    apr_size_t *starts = apr_palloc(pool, (n + 1) * sizeof(*starts));
    uc_jw_t *jw;

    for (i = 0; i < n; i++)
        text += col->bytes[i].len + 2;
    /* JSON text (statistics) has a quote in every few bytes. */
    jw = uc_jw_make(pool, text + text / 4);
    for (i = 0; i < n; i++) {
        starts[i] = jw->len;
        uc_jw_escaped_n(jw, col->bytes[i].ptr, col->bytes[i].len);
    }
    starts[n] = jw->len;
    for (i = 0; i < n; i++) {
        char *at = jw->buf + starts[i] + 1;

        escaped[i].ptr = at;
        escaped[i].len = starts[i + 1] - starts[i] - 2;
        at[escaped[i].len] = '\0';
    }
    col->bytes = escaped;
    col->terminated = 1;
}

/* Offers the page the reader decoded to every later reader of the leaf;
 * a page another reader kept first stays. */
static void keep_page(uc_pq_lazy_reader_t *rd, const uc_pq_lazy_t *lazy,
                      int page)
{
    uc_pq_lazy_t *shared = (uc_pq_lazy_t *)lazy;
    kept_page_t *k, *none = NULL;
    uc_pq_page_budget_t *counted = NULL;

    if (!rd->column.terminated ||
        !(k = copy_page(rd->budget, &lazy->leaf, &rd->column)))
        return;
    /* The pages of a leaf count against one budget: its first keeper's. */
    if (__atomic_compare_exchange_n(&shared->budget, &counted, rd->budget, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        counted = rd->budget;
    if (counted != rd->budget ||
        !__atomic_compare_exchange_n(&shared->decoded[page], &none, k, 0,
                                     __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
        __atomic_sub_fetch(&rd->budget->used, k->bytes, __ATOMIC_RELAXED);
        apr_pool_destroy(k->pool);
    }
}

/* Decodes a page, or takes the one kept decoded; an error is copied out
 * of the pools the next page clears. */
static uc_error_t *load_page(uc_pq_lazy_reader_t *rd,
                             const uc_pq_lazy_t *lazy, int page)
{
    const kept_page_t *kept = __atomic_load_n(&lazy->decoded[page],
                                              __ATOMIC_ACQUIRE);
    uc_error_t *err = NULL;

    if (kept) {
        rd->column = kept->column;
        rd->page_lazy = lazy;
        rd->page = page;
        rd->first_row = lazy->page_rows[page];
        rd->row = 0;
        rd->value = 0;
        return NULL;
    }

    if (rd->lazy != lazy) {
        apr_pool_clear(rd->chunk_pool);
        apr_pool_create(&rd->page_pool, rd->chunk_pool);
        rd->lazy = NULL;
        rd->page = -1;
        if (!(err = uc_pq_chunk_begin(&lazy->file, rd->chunk_pool, 1, 0,
                                      &lazy->leaf, &rd->levels,
                                      &rd->decode)))
            rd->lazy = lazy;
    }
    if (!err) {
        apr_pool_clear(rd->page_pool);
        rd->page = -1;
        err = uc_pq_chunk_page_alone(rd->decode, lazy->pages[page],
                                     rd->page_pool, &rd->column);
        if (!err && lazy->form == UC_PQ_TEXT_JSON_ESCAPED)
            escape_values(rd->page_pool, &rd->column);
    }
    if (err) {
        rd->page_lazy = NULL;
        return uc_error_copy(rd->pool, err);
    }
    rd->page_lazy = lazy;
    rd->page = page;
    rd->first_row = lazy->page_rows[page];
    rd->row = 0;
    rd->value = 0;
    if (rd->budget)
        keep_page(rd, lazy, page);
    return NULL;
}

const uc_pq_bytes_t *uc_pq_lazy_kept_slot(const uc_pq_lazy_t *lazy,
                                          apr_int64_t row)
{
    const kept_page_t *kept;
    int page;

    if (row < 0 || lazy->num_pages == 0
        || (apr_size_t)row >= lazy->page_rows[lazy->num_pages])
        return NULL;
    page = page_of(lazy, (apr_size_t)row);
    kept = __atomic_load_n(&lazy->decoded[page], __ATOMIC_ACQUIRE);
    return kept ? &kept->column.bytes[(apr_size_t)row
                                      - lazy->page_rows[page]]
                : NULL;
}

uc_error_t *uc_pq_lazy_value(uc_pq_lazy_reader_t *rd,
                             const uc_pq_lazy_t *lazy, apr_int64_t row,
                             uc_pq_bytes_t *value)
{
    const uc_pq_column_t *c = &rd->column;
    unsigned char max = (unsigned char)lazy->leaf.max_def;
    apr_size_t r, at;
    uc_error_t *err;

    value->ptr = NULL;
    value->len = 0;
    if (row < 0 || lazy->num_pages == 0
        || (apr_size_t)row >= lazy->page_rows[lazy->num_pages])
        return uc_error_make(rd->pool, UC_E_INTERNAL,
                             "No such row in a Parquet column.");
    r = (apr_size_t)row;
    if (rd->page_lazy != lazy || rd->page < 0 || r < rd->first_row
        || r >= lazy->page_rows[rd->page + 1]) {
        if ((err = load_page(rd, lazy, page_of(lazy, r))))
            return err;
    }
    at = r - rd->first_row;
    /* Without nulls, or in a kept page (a slot per row), the row's value
     * is at the row; else values are counted from the row read last, as
     * rows are mostly read in order. */
    if (!c->def) {
        *value = c->bytes[at];
        return NULL;
    }
    if (at < rd->row) {
        rd->row = 0;
        rd->value = 0;
    }
    for (; rd->row < at; rd->row++)
        rd->value += !c->def || c->def[rd->row] == max;
    if (c->def && c->def[at] != max)
        return NULL;
    *value = c->bytes[rd->value];
    return NULL;
}
