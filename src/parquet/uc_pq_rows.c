/* SPDX-License-Identifier: Apache-2.0 */
/* Rows assembled from decoded leaves (the record-shredding of Dremel run
 * backwards), restricted to one level of repetition inside each repeated
 * node: the maps and lists of Delta actions. Each decoded leaf has a
 * cursor that is brought to the current row only when the leaf is read,
 * so rows where a group is null cost nothing for the group's leaves. */
#include "uc_pq_internal.h"

#include <stdio.h>
#include <string.h>
#include <apr_atomic.h>
#include <apr_strings.h>

#include "../core/uc_memory.h"
#include "../core/uc_threads.h"
#include "../core/uc_time.h"

typedef struct cursor {
    uc_pq_column_t col;
    apr_int64_t row;           /* the row pos is in */
    apr_size_t pos;            /* level entry */
    apr_size_t vpos;           /* value of that entry, when non-null */
    int decoded;
} cursor_t;

struct uc_pq_rows {
    const uc_pq_file_t *file;
    apr_pool_t *pool;
    cursor_t *cursors;         /* by leaf index */
    int *decoded;              /* leaf indexes that were decoded */
    int num_decoded;
    apr_int64_t num_rows;
    apr_int64_t begin;         /* the first row read */
    apr_int64_t end;           /* the row after the last one read */
    apr_int64_t row;           /* -1 before the first */
    apr_size_t kept_bytes;
    int *witness;              /* by node index: a decoded leaf below */
};

static void advance(cursor_t *c)
{
    if (!c->col.def || c->col.def[c->pos] == c->col.leaf->max_def)
        c->vpos++;
    c->pos++;
}

/* Row groups smaller than this are decoded by the calling thread alone:
 * starting threads would cost more than they save. */
#define PARALLEL_BYTES ((apr_int64_t)1 << 20)
#define MAX_THREADS 8

/* The pages of the wanted leaves, decoded by threads in parallel: first
 * every page's levels (which decompresses it), then, once the counts are
 * known, every page's values. Pages are taken largest first, so that the
 * threads finish together. */
typedef struct decode_step {
    uc_pq_chunk_decode_t *chunk;
    int page;
    apr_size_t bytes;
} decode_step_t;

typedef struct decode_job {
    decode_step_t *steps;
    int num_steps;
    int values;                     /* the second round */
    volatile apr_uint32_t next;
} decode_job_t;

typedef struct worker {
    decode_job_t *job;
    apr_pool_t *pool;               /* this thread's pages and values */
    apr_pool_t *keep;               /* this thread's kept strings */
    uc_error_t *err;
} worker_t;

static void decode_steps(void *item)
{
    worker_t *w = item;
    decode_job_t *job = w->job;
    apr_uint32_t k;

    while (!w->err && (k = apr_atomic_inc32(&job->next))
                      < (apr_uint32_t)job->num_steps) {
        decode_step_t *step = &job->steps[k];

        w->err = job->values
            ? uc_pq_chunk_values(step->chunk, step->page, w->pool, w->keep)
            : uc_pq_chunk_levels(step->chunk, step->page, w->pool, w->keep);
    }
}

/* One round of steps; the calling thread is the first worker. */
static uc_error_t *decode_round(decode_job_t *job, worker_t *workers,
                                int threads, apr_pool_t *pool)
{
    int i;

    job->next = 0;
    for (i = 0; i < threads; i++)
        workers[i].job = job;
    uc_threads_run(pool, workers, threads, sizeof(*workers),
                         decode_steps);
    for (i = 0; i < threads; i++)
        if (workers[i].err)
            return uc_error_copy(pool, workers[i].err);
    return NULL;
}

static int larger_step_first(const void *a, const void *b)
{
    const decode_step_t *x = a, *y = b;

    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static uc_error_t *decode_leaves(uc_pq_rows_t *rows, int row_group,
                                 const int *leaves, int num_leaves,
                                 const unsigned char *kept, int threads,
                                 apr_pool_t *keep)
{
    apr_pool_t *pool = rows->pool;
    uc_pq_chunk_decode_t **chunks = apr_palloc(pool, sizeof(*chunks)
                                               * (apr_size_t)(num_leaves + 1));
    worker_t workers[MAX_THREADS];
    decode_job_t job = { NULL, 0, 0, 0 };
    int i, j, k = 0;
    uc_error_t *err;

    for (i = 0; i < num_leaves; i++) {
        if ((err = uc_pq_chunk_begin(rows->file, pool, kept[leaves[i]],
                                     row_group, rows->file->leaves[leaves[i]],
                                     &rows->cursors[leaves[i]].col,
                                     &chunks[i])))
            return err;
        job.num_steps += uc_pq_chunk_pages(chunks[i]);
    }
    job.steps = apr_palloc(pool, sizeof(decode_step_t)
                           * (apr_size_t)(job.num_steps + 1));
    for (i = 0; i < num_leaves; i++)
        for (j = 0; j < uc_pq_chunk_pages(chunks[i]); j++, k++) {
            job.steps[k].chunk = chunks[i];
            job.steps[k].page = j;
            job.steps[k].bytes = uc_pq_chunk_page_bytes(chunks[i], j);
        }
    if (threads > job.num_steps)
        threads = job.num_steps;
    if (threads < 1)
        threads = 1;
    if (threads > 1)
        qsort(job.steps, (apr_size_t)job.num_steps, sizeof(decode_step_t),
              larger_step_first);
    for (i = 0; i < threads; i++) {
        workers[i].err = NULL;
        workers[i].pool = threads > 1 ? uc_memory_pool_owned(pool) : pool;
        workers[i].keep = keep && threads > 1 ? uc_memory_pool_owned(keep)
                                              : keep;
    }
    if ((err = decode_round(&job, workers, threads, pool)))
        return err;
    for (i = 0; i < num_leaves; i++)
        if ((err = uc_pq_chunk_count(chunks[i])))
            return err;
    job.values = 1;
    if ((err = decode_round(&job, workers, threads, pool)))
        return err;
    for (i = 0; i < num_leaves; i++)
        if ((err = uc_pq_chunk_end(chunks[i])))
            return err;
    return NULL;
}

/* For each node, the first decoded leaf below it, whose levels also tell
 * whether the node is present. */
static int find_witnesses(uc_pq_rows_t *rows, const uc_pq_node_t *node)
{
    int i, first = -1;

    if (node->leaf_index >= 0)
        first = rows->cursors[node->leaf_index].decoded ? node->leaf_index
                                                         : -1;
    for (i = 0; i < node->num_children; i++) {
        int w = find_witnesses(rows, node->children[i]);

        if (first < 0)
            first = w;
    }
    rows->witness[node->index] = first;
    return first;
}

uc_error_t *uc_pq_rows_open_ex(const uc_pq_file_t *file, apr_pool_t *pool,
                               int row_group,
                               const uc_pq_node_t *const *nodes,
                               int num_nodes,
                               const uc_pq_rows_options_t *options,
                               uc_pq_rows_t **out)
{
    uc_pq_rows_t *rows = apr_pcalloc(pool, sizeof(*rows));
    unsigned char *wanted = apr_pcalloc(pool, (apr_size_t)file->num_leaves
                                        + 1);
    unsigned char *kept = apr_pcalloc(pool, (apr_size_t)file->num_leaves + 1);
    int *leaves = apr_palloc(pool, sizeof(int)
                             * (apr_size_t)(file->num_leaves + 1));
    int num_leaves = 0;
    apr_int64_t bytes = 0;
    int i, j, threads = options ? options->threads : 1;
    apr_pool_t *keep = options ? options->keep : NULL;
    uc_error_t *err;

    if (row_group < 0 || row_group >= file->num_row_groups)
        return uc_error_make(pool, UC_E_INTERNAL,
                             "No such Parquet row group.");
    rows->file = file;
    rows->pool = pool;
    rows->cursors = apr_pcalloc(pool, sizeof(cursor_t)
                                * (apr_size_t)(file->num_leaves + 1));
    rows->decoded = apr_palloc(pool, sizeof(int)
                               * (apr_size_t)(file->num_leaves + 1));
    rows->witness = apr_palloc(pool, sizeof(int)
                               * (apr_size_t)(file->num_nodes + 1));
    rows->num_rows = file->row_groups[row_group].num_rows;
    rows->end = rows->num_rows;
    rows->row = -1;
    for (i = 0; i < num_nodes; i++)
        if (nodes[i])
            for (j = nodes[i]->first_leaf; j < nodes[i]->end_leaf; j++)
                wanted[j] = 1;
    for (i = 0; keep && i < options->num_kept_leaves; i++)
        if (options->kept_leaves[i]
            && options->kept_leaves[i]->leaf_index >= 0)
            kept[options->kept_leaves[i]->leaf_index] = 1;
    for (i = 0; i < file->num_leaves; i++)
        if (wanted[i]) {
            leaves[num_leaves++] = i;
            bytes += file->row_groups[row_group].chunks[i]
                     .total_compressed_size;
        }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (bytes < PARALLEL_BYTES)
        threads = 1;
    if ((err = decode_leaves(rows, row_group, leaves, num_leaves, kept,
                             threads, keep)))
        return err;
    for (i = 0; i < num_leaves; i++) {
        cursor_t *c = &rows->cursors[leaves[i]];

        if ((apr_int64_t)c->col.num_rows != rows->num_rows)
            return uc_pq_corrupt(pool, file, apr_psprintf(pool,
                "column '%s' has another number of rows than its row group",
                file->leaves[leaves[i]]->path));
        c->decoded = 1;
        rows->decoded[rows->num_decoded++] = leaves[i];
        rows->kept_bytes += c->col.kept_bytes;
    }
    find_witnesses(rows, file->root);
    *out = rows;
    return NULL;
}

uc_error_t *uc_pq_rows_open(const uc_pq_file_t *file, apr_pool_t *pool,
                            int row_group, const uc_pq_node_t *const *nodes,
                            int num_nodes, uc_pq_rows_t **out)
{
    return uc_pq_rows_open_ex(file, pool, row_group, nodes, num_nodes, NULL,
                              out);
}

apr_size_t uc_pq_rows_values(const uc_pq_rows_t *rows,
                             const uc_pq_node_t *leaf)
{
    if (!leaf || leaf->leaf_index < 0
        || !rows->cursors[leaf->leaf_index].decoded)
        return 0;
    return rows->cursors[leaf->leaf_index].col.num_values;
}

apr_size_t uc_pq_rows_kept_bytes(const uc_pq_rows_t *rows)
{
    return rows->kept_bytes;
}

apr_int64_t uc_pq_rows_count(const uc_pq_rows_t *rows)
{
    return rows->num_rows;
}

int uc_pq_rows_next(uc_pq_rows_t *rows)
{
    if (rows->row >= rows->end)
        return 0;
    return ++rows->row < rows->end;
}

apr_size_t uc_pq_rows_present_count(const uc_pq_rows_t *rows,
                                    const uc_pq_node_t *leaf)
{
    const cursor_t *c;
    apr_size_t n = 0, i;

    if (!leaf || leaf->leaf_index < 0)
        return 0;
    c = &rows->cursors[leaf->leaf_index];
    if (!c->decoded || c->col.rep)
        return 0;
    if (!c->col.def)
        return (apr_size_t)(rows->end - rows->begin);
    for (i = (apr_size_t)rows->begin; i < (apr_size_t)rows->end; i++)
        n += c->col.def[i] == leaf->max_def;
    return n;
}

apr_int64_t uc_pq_rows_number(const uc_pq_rows_t *rows)
{
    return rows->row;
}

int uc_pq_rows_seek(uc_pq_rows_t *rows, apr_int64_t row)
{
    if (row <= rows->row || row >= rows->end)
        return 0;
    rows->row = row;
    return 1;
}

uc_pq_rows_t **uc_pq_rows_split(const uc_pq_rows_t *rows, apr_pool_t *pool,
                                int parts)
{
    uc_pq_rows_t **out = apr_palloc(pool, sizeof(*out) * (apr_size_t)parts);
    apr_size_t size = sizeof(cursor_t)
                      * (apr_size_t)(rows->file->num_leaves + 1);
    int k;

    /* Cursors start at the first row, and a cursor catches up with its
     * reader's row when its leaf is first read: leaves a share never reads
     * cost it nothing. */
    for (k = 0; k < parts; k++) {
        uc_pq_rows_t *part = apr_palloc(pool, sizeof(*part));

        *part = *rows;
        part->cursors = apr_palloc(pool, size);
        memcpy(part->cursors, rows->cursors, size);
        part->begin = rows->num_rows * k / parts;
        part->row = part->begin - 1;
        part->end = rows->num_rows * (k + 1) / parts;
        out[k] = part;
    }
    return out;
}

/* A cursor more than a row behind, or of a repeated leaf, moved to the
 * first entry of the current row. */
static cursor_t *__attribute__((noinline))
catch_up(const uc_pq_rows_t *rows, cursor_t *c)
{
    apr_int64_t behind = rows->row - c->row;

    if (!c->col.rep) {
        apr_size_t k = (apr_size_t)behind, i, present = 0;
        const unsigned char *def = c->col.def;
        unsigned char max = (unsigned char)c->col.leaf->max_def;

        if (def) {
            for (i = c->pos; i < c->pos + k; i++)
                present += def[i] == max;
        }
        else
            present = k;
        c->vpos += present;
        c->pos += k;
    }
    else
        while (behind--) {
            advance(c);
            while (c->pos < c->col.num_levels && c->col.rep[c->pos] > 0)
                advance(c);
        }
    c->row = rows->row;
    return c;
}

/* The cursor of a leaf, moved to the first entry of the current row; the
 * common steps (a leaf read row after row) without a call. */
static inline cursor_t *synced(const uc_pq_rows_t *rows, int leaf_index)
{
    cursor_t *c = &rows->cursors[leaf_index];
    apr_int64_t behind = rows->row - c->row;

    if (behind <= 0)
        return c;
    if (behind == 1 && !c->col.rep) {
        c->vpos += !c->col.def
                   || c->col.def[c->pos] == c->col.leaf->max_def;
        c->pos++;
        c->row = rows->row;
        return c;
    }
    return catch_up(rows, c);
}

/* The cursor of a decoded leaf below `node`, at the current row. */
static cursor_t *witness(const uc_pq_rows_t *rows, const uc_pq_node_t *node)
{
    int leaf = rows->witness[node->index];

    return leaf < 0 ? NULL : synced(rows, leaf);
}

static int current_def(const cursor_t *c)
{
    return c->col.def ? c->col.def[c->pos] : 0;
}

int uc_pq_rows_present(const uc_pq_rows_t *rows, const uc_pq_node_t *node)
{
    const cursor_t *c;

    if (!node || rows->row < 0 || rows->row >= rows->num_rows
        || !(c = witness(rows, node)))
        return 0;
    return current_def(c) >= node->max_def;
}

int uc_pq_rows_empty(const uc_pq_rows_t *rows, const uc_pq_node_t *node)
{
    return (node->kind == UC_PQ_MAP || node->kind == UC_PQ_LIST)
           && uc_pq_rows_present(rows, node)
           && !uc_pq_rows_present(rows, node->children[0]);
}

/* The cursor of a decoded leaf whose value is there in this row. */
static const cursor_t *leaf_value(const uc_pq_rows_t *rows,
                                  const uc_pq_node_t *leaf)
{
    const cursor_t *c;

    if (!leaf || leaf->leaf_index < 0 || rows->row < 0
        || rows->row >= rows->num_rows
        || !rows->cursors[leaf->leaf_index].decoded)
        return NULL;
    c = synced(rows, leaf->leaf_index);
    return current_def(c) >= leaf->max_def ? c : NULL;
}

int uc_pq_rows_int(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                   apr_int64_t *value)
{
    const cursor_t *c = leaf_value(rows, leaf);

    if (!c || !c->col.ints)
        return 0;
    *value = c->col.ints[c->vpos];
    return 1;
}

int uc_pq_rows_bytes(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                     uc_pq_bytes_t *value)
{
    const cursor_t *c = leaf_value(rows, leaf);

    if (!c || !c->col.bytes)
        return 0;
    *value = c->col.bytes[c->vpos];
    return 1;
}

/* Julian day of 1970-01-01, for INT96 timestamps (nanoseconds of the day,
 * then the Julian day, little-endian). */
#define JULIAN_EPOCH 2440588

/* A time no calendar spells is written as the number it is. */
static void write_time(uc_jw_t *w, apr_int64_t ms)
{
    char text[UC_TIME_TEXT];

    if (uc_time_format_iso8601(ms, text))
        uc_jw_string(w, text);
    else
        uc_jw_int(w, ms);
}

static apr_int64_t int96_ms(const uc_pq_bytes_t *b)
{
    apr_uint64_t nanos = 0;
    apr_uint32_t day = 0;
    int i;

    for (i = 0; i < 8; i++)
        nanos |= (apr_uint64_t)(unsigned char)b->ptr[i] << (8 * i);
    for (i = 0; i < 4; i++)
        day |= (apr_uint32_t)(unsigned char)b->ptr[8 + i] << (8 * i);
    /* A day count of 32 bits and nanoseconds of 64 stay far from
     * overflow here. */
    return ((apr_int64_t)day - JULIAN_EPOCH) * 86400000
           + (apr_int64_t)(nanos / 1000000);
}

/* An unscaled decimal: an int, or big-endian two's complement bytes. */
static int decimal_value(const cursor_t *c, __int128 *v)
{
    const uc_pq_bytes_t *b;
    apr_size_t i;

    if (c->col.ints) {
        *v = c->col.ints[c->vpos];
        return 1;
    }
    b = &c->col.bytes[c->vpos];
    if (b->len == 0 || b->len > 16)
        return 0;
    *v = (signed char)b->ptr[0];
    for (i = 1; i < b->len; i++)
        *v = *v * 256 + (unsigned char)b->ptr[i];
    return 1;
}

static void write_decimal(uc_jw_t *w, __int128 v, int scale)
{
    char digits[48], text[52];
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    int n = 0, i, o = 0;

    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        digits[n++] = '0';
    if (v < 0)
        text[o++] = '-';
    for (i = n - 1; i >= 0; i--) {
        text[o++] = digits[i];
        if (i == scale && scale > 0)
            text[o++] = '.';
    }
    text[o] = '\0';
    uc_jw_raw(w, text);
}

static void write_leaf(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                       uc_jw_t *w)
{
    const cursor_t *c = synced(rows, leaf->leaf_index);
    apr_int64_t i = c->col.ints ? c->col.ints[c->vpos] : 0;
    char text[UC_TIME_TEXT];
    __int128 d;

    switch (leaf->value_kind) {
    case UC_PQ_VALUE_DATE:
        if (uc_time_format_date(i, text))
            uc_jw_string(w, text);
        else
            uc_jw_int(w, i);
        return;
    case UC_PQ_VALUE_TIMESTAMP_MILLIS:
        write_time(w, i);
        return;
    case UC_PQ_VALUE_TIMESTAMP_MICROS:
        write_time(w, i / 1000 - (i % 1000 < 0));
        return;
    case UC_PQ_VALUE_TIMESTAMP_NANOS:
        if (c->col.bytes && c->col.bytes[c->vpos].len == 12)
            write_time(w, int96_ms(&c->col.bytes[c->vpos]));
        else if (c->col.ints)
            write_time(w, i / 1000000 - (i % 1000000 < 0));
        else
            uc_jw_null(w);
        return;
    case UC_PQ_VALUE_DECIMAL:
        if (leaf->scale >= 0 && leaf->scale <= 38 && decimal_value(c, &d))
            write_decimal(w, d, leaf->scale);
        else
            uc_jw_null(w);
        return;
    default:
        break;
    }
    switch (leaf->type) {
    case UC_PQ_BOOLEAN:
        uc_jw_bool(w, (int)i);
        break;
    case UC_PQ_INT32:
    case UC_PQ_INT64:
        uc_jw_int(w, i);
        break;
    case UC_PQ_FLOAT:
    case UC_PQ_DOUBLE:
        uc_jw_real(w, c->col.reals[c->vpos]);
        break;
    default:
        uc_jw_string_n(w, c->col.bytes[c->vpos].ptr,
                       c->col.bytes[c->vpos].len);
    }
}

static void write_key(const uc_pq_rows_t *rows, const uc_pq_node_t *leaf,
                      uc_jw_t *w)
{
    const cursor_t *c = synced(rows, leaf->leaf_index);
    char text[24];

    if (c->col.bytes) {
        uc_jw_key_n(w, c->col.bytes[c->vpos].ptr, c->col.bytes[c->vpos].len);
        return;
    }
    if (c->col.ints)
        apr_snprintf(text, sizeof(text), "%" APR_INT64_T_FMT,
                     c->col.ints[c->vpos]);
    else
        snprintf(text, sizeof(text), "%.17g", c->col.reals[c->vpos]);
    uc_jw_key_n(w, text, strlen(text));
}

static uc_error_t *write_node(const uc_pq_rows_t *rows,
                              const uc_pq_node_t *node, uc_jw_t *w);

/* Whether the repeated node has another element in this row. */
static int has_next_element(const uc_pq_rows_t *rows,
                            const uc_pq_node_t *repeated)
{
    const cursor_t *c = witness(rows, repeated);

    return c->pos + 1 < c->col.num_levels
           && c->col.rep[c->pos + 1] == repeated->max_rep;
}

/* Moves the decoded leaves below the repeated node to its next element;
 * 0 when one of them has none there (its levels disagree with the
 * witness's), which would move it past its row or its levels. */
static int next_element(const uc_pq_rows_t *rows,
                        const uc_pq_node_t *repeated)
{
    int i;

    for (i = repeated->first_leaf; i < repeated->end_leaf; i++) {
        const cursor_t *c = &rows->cursors[i];

        if (c->decoded && (c->pos + 1 >= c->col.num_levels
                           || c->col.rep[c->pos + 1] != repeated->max_rep))
            return 0;
    }
    for (i = repeated->first_leaf; i < repeated->end_leaf; i++)
        if (rows->cursors[i].decoded)
            advance(&rows->cursors[i]);
    return 1;
}

/* The elements of a repeated node, each written by `element`; the cursors
 * are put back afterwards so a row can be read again. */
static uc_error_t *write_repeated(const uc_pq_rows_t *rows,
                                  const uc_pq_node_t *repeated,
                                  const uc_pq_node_t *key,
                                  const uc_pq_node_t *value, uc_jw_t *w)
{
    apr_size_t saved[2 * 64];
    int i, n = repeated->end_leaf - repeated->first_leaf;
    uc_error_t *err = NULL;

    if (!uc_pq_rows_present(rows, repeated))
        return NULL;
    for (i = repeated->first_leaf; i < repeated->end_leaf; i++)
        if (rows->cursors[i].decoded
            && rows->file->leaves[i]->max_rep != repeated->max_rep)
            return uc_pq_corrupt(rows->pool, rows->file, apr_psprintf(
                rows->pool, "'%s' nests repeated fields, which is not "
                "supported", repeated->path));
    if (n > 64)
        return uc_pq_corrupt(rows->pool, rows->file, "too many fields in a "
                             "repeated group");
    for (i = 0; i < n; i++) {
        const cursor_t *c = rows->cursors[repeated->first_leaf + i].decoded
                            ? synced(rows, repeated->first_leaf + i)
                            : &rows->cursors[repeated->first_leaf + i];

        saved[2 * i] = c->pos;
        saved[2 * i + 1] = c->vpos;
    }
    for (;;) {
        if (key) {
            if (!uc_pq_rows_present(rows, key)) {
                err = uc_pq_corrupt(rows->pool, rows->file,
                                    "a map entry without a key");
                break;
            }
            write_key(rows, key, w);
            if (value)
                err = write_node(rows, value, w);
            else
                uc_jw_null(w);
        }
        else
            err = write_node(rows, value, w);
        if (err || !has_next_element(rows, repeated))
            break;
        if (!next_element(rows, repeated)) {
            err = uc_pq_corrupt(rows->pool, rows->file, apr_psprintf(
                rows->pool, "the columns of '%s' disagree on its elements",
                repeated->path));
            break;
        }
    }
    for (i = 0; i < n; i++) {
        rows->cursors[repeated->first_leaf + i].pos = saved[2 * i];
        rows->cursors[repeated->first_leaf + i].vpos = saved[2 * i + 1];
    }
    return err;
}

static uc_error_t *write_node(const uc_pq_rows_t *rows,
                              const uc_pq_node_t *node, uc_jw_t *w)
{
    const uc_pq_node_t *repeated, *element;
    uc_error_t *err;
    int i;

    if (!witness(rows, node) || !uc_pq_rows_present(rows, node)) {
        uc_jw_null(w);
        return NULL;
    }
    switch (node->kind) {
    case UC_PQ_LEAF:
        write_leaf(rows, node, w);
        return NULL;
    case UC_PQ_MAP:
        repeated = node->children[0];
        uc_jw_begin_object(w);
        err = write_repeated(rows, repeated, repeated->children[0],
                             repeated->num_children > 1
                             ? repeated->children[1] : NULL, w);
        uc_jw_end_object(w);
        return err;
    case UC_PQ_LIST:
        repeated = node->children[0];
        /* Legacy two-level lists repeat the element itself. */
        element = repeated->kind == UC_PQ_LEAF || repeated->num_children > 1
                  ? repeated : repeated->children[0];
        uc_jw_begin_array(w);
        err = write_repeated(rows, repeated, NULL, element, w);
        uc_jw_end_array(w);
        return err;
    default:
        uc_jw_begin_object(w);
        for (i = 0; i < node->num_children; i++) {
            const uc_pq_node_t *child = node->children[i];

            if (!witness(rows, child) || !uc_pq_rows_present(rows, child))
                continue;
            if (child->repetition == UC_PQ_REPEATED)
                return uc_pq_corrupt(rows->pool, rows->file,
                                     "repeated fields outside of a map or "
                                     "list are not supported");
            uc_jw_key_n(w, child->name, strlen(child->name));
            if ((err = write_node(rows, child, w)))
                return err;
        }
        uc_jw_end_object(w);
        return NULL;
    }
}

uc_error_t *uc_pq_rows_write(const uc_pq_rows_t *rows,
                             const uc_pq_node_t *node, uc_jw_t *w)
{
    return write_node(rows, node, w);
}
