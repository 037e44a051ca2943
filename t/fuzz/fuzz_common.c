/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the libFuzzer targets of t/fuzz.
 *
 * Pools hide overflows from AddressSanitizer: apr_palloc carves small
 * blocks out of large ones, so reading past an array lands in its
 * neighbour, not in a redzone. Unless FUZZ_REAL_POOLS=1, this file
 * interposes apr_palloc (every caller's, libapr's own included) with one
 * malloc per allocation, freed by a cleanup of the pool, so each block has
 * exact bounds; the blocks of a pool that is never destroyed stay
 * reachable, not leaks (see `live`). apr_pcalloc is a macro over
 * apr_palloc; apr_psprintf and the pool's bookkeeping keep using pool
 * memory, as they must. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz_common.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <apr_general.h>
#include <apr_file_io.h>
#include <apr_strings.h>

#include "core/uc_error.h"
#include "core/uc_jw.h"
#include "delta/uc_delta.h"
#include "parquet/uc_parquet.h"

typedef void *(*palloc_fn)(apr_pool_t *, apr_size_t);

static palloc_fn real_palloc;
static int exact_allocations = -1;
static __thread int in_palloc;

/* Every block is also on a global list: APR's allocator maps its nodes
 * with mmap, which LeakSanitizer does not scan, so a block whose only
 * reference is in a long-lived pool (a process-wide allocator's owner, a
 * cache) would look leaked. Blocks of destroyed pools are freed; what the
 * list keeps alive is what live pools hold. The list node is allocated
 * apart so the block keeps redzones on both sides. */
typedef struct tracked {
    struct tracked *prev, *next;
    void *block;
} tracked_t;

static tracked_t live = { &live, &live, NULL };
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static apr_status_t free_block(void *data)
{
    tracked_t *t = data;

    pthread_mutex_lock(&live_lock);
    t->prev->next = t->next;
    t->next->prev = t->prev;
    pthread_mutex_unlock(&live_lock);
    free(t->block);
    free(t);
    return APR_SUCCESS;
}

void *apr_palloc(apr_pool_t *pool, apr_size_t size)
{
    tracked_t *t;

    if (!real_palloc) {
        real_palloc = (palloc_fn)dlsym(RTLD_NEXT, "apr_palloc");
        if (!real_palloc)
            abort();
    }
    if (exact_allocations < 0) {
        const char *env = getenv("FUZZ_REAL_POOLS");

        exact_allocations = !(env && *env == '1');
    }
    if (in_palloc || !exact_allocations)
        return real_palloc(pool, size);
    if (!(t = malloc(sizeof(*t))) || !(t->block = malloc(size ? size : 1)))
        abort();
    pthread_mutex_lock(&live_lock);
    t->prev = &live;
    t->next = live.next;
    live.next->prev = t;
    live.next = t;
    pthread_mutex_unlock(&live_lock);
    in_palloc = 1;
    apr_pool_cleanup_register(pool, t, free_block, apr_pool_cleanup_null);
    in_palloc = 0;
    return t->block;
}

static apr_pool_t *root;

apr_pool_t *fuzz_root_pool(void)
{
    if (!root) {
        uc_delta_settings_t settings;

        if (apr_initialize() != APR_SUCCESS
            || apr_pool_create(&root, NULL) != APR_SUCCESS)
            abort();
        atexit(apr_terminate);
        uc_delta_settings_default(&settings);
        if (uc_delta_init(root, &settings))
            abort();
    }
    return root;
}

void fuzz_report(const char *what, const void *error)
{
    static int verbose = -1;
    const uc_error_t *err = error;

    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") && *getenv("FUZZ_VERBOSE") == '1';
    if (!verbose)
        return;
    if (err)
        fprintf(stderr, "%s: %d %s: %s\n", what, err->status, err->code,
                err->message);
    else
        fprintf(stderr, "%s: ok\n", what);
}

/* --- scratch table directory ---------------------------------------- */

#define MAX_DIRS 4
static char *dirs[MAX_DIRS];
static int num_dirs;

static void remove_tree(const char *path)
{
    apr_pool_t *pool;
    apr_dir_t *dir;
    apr_finfo_t info;

    if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS)
        return;
    if (apr_dir_open(&dir, path, pool) == APR_SUCCESS) {
        while (apr_dir_read(&info, APR_FINFO_NAME | APR_FINFO_TYPE, dir)
               == APR_SUCCESS) {
            const char *child;

            if (!strcmp(info.name, ".") || !strcmp(info.name, ".."))
                continue;
            child = apr_pstrcat(pool, path, "/", info.name, NULL);
            if (info.filetype == APR_DIR)
                remove_tree(child);
            else
                unlink(child);
        }
        apr_dir_close(dir);
    }
    rmdir(path);
    apr_pool_destroy(pool);
}

static void remove_dirs(void)
{
    int i;

    for (i = 0; i < num_dirs; i++)
        remove_tree(dirs[i]);
}

/* Directories of processes that are gone: a crash ends libFuzzer
 * without the atexit handlers. */
static void remove_stale(const char *base)
{
    apr_pool_t *pool;
    apr_dir_t *dir;
    apr_finfo_t info;

    if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS)
        return;
    if (apr_dir_open(&dir, base, pool) == APR_SUCCESS) {
        while (apr_dir_read(&info, APR_FINFO_NAME | APR_FINFO_TYPE, dir)
               == APR_SUCCESS) {
            const char *dash;
            long pid;

            if (info.filetype != APR_DIR
                || strncmp(info.name, "uc-fuzz-", 8) != 0
                || !(dash = strchr(info.name + 8, '-')))
                continue;
            pid = strtol(dash + 1, NULL, 10);
            if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
                remove_tree(apr_pstrcat(pool, base, "/", info.name, NULL));
        }
        apr_dir_close(dir);
    }
    apr_pool_destroy(pool);
}

const char *fuzz_table_dir(const char *tag)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                       : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096], sub[4200];
    char *dir;

    if (num_dirs >= MAX_DIRS)
        abort();
    if (num_dirs == 0)
        remove_stale(base);
    snprintf(path, sizeof(path), "%s/uc-fuzz-%s-%ld-XXXXXX", base, tag,
             (long)getpid());
    if (!(dir = mkdtemp(path))) {
        perror("mkdtemp");
        abort();
    }
    snprintf(sub, sizeof(sub), "%s/_delta_log", dir);
    if (mkdir(sub, 0700) != 0)
        abort();
    snprintf(sub, sizeof(sub), "%s/_delta_log/_sidecars", dir);
    if (mkdir(sub, 0700) != 0)
        abort();
    dirs[num_dirs] = strdup(dir);
    if (num_dirs++ == 0)
        atexit(remove_dirs);
    return dirs[num_dirs - 1];
}

void fuzz_put_file(const char *dir, const char *rel, const void *data,
                   size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (!data) {
        if (unlink(path) != 0 && errno != ENOENT)
            abort();
        return;
    }
    if (!(f = fopen(path, "wb")))
        abort();
    if (len && fwrite(data, 1, len, f) != len)
        abort();
    if (fclose(f) != 0)
        abort();
}

void fuzz_set_mtime(const char *dir, const char *rel, long sec)
{
    char path[4096];
    struct timeval tv[2];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    tv[0].tv_sec = tv[1].tv_sec = sec;
    tv[0].tv_usec = tv[1].tv_usec = 0;
    utimes(path, tv);
}

/* --- buffers and the thrift compact encoder --------------------------- */

void fuzz_buf_put(fuzz_buf_t *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 256;

        while (cap < b->len + len)
            cap *= 2;
        if (!(b->p = realloc(b->p, cap)))
            abort();
        b->cap = cap;
    }
    if (len)
        memcpy(b->p + b->len, data, len);
    b->len += len;
}

void fuzz_buf_free(fuzz_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

static void put_byte(tc_writer_t *w, unsigned char c)
{
    fuzz_buf_put(w->b, &c, 1);
}

void tc_varint(tc_writer_t *w, uint64_t v)
{
    while (v >= 0x80) {
        put_byte(w, (unsigned char)(v | 0x80));
        v >>= 7;
    }
    put_byte(w, (unsigned char)v);
}

void tc_zigzag(tc_writer_t *w, int64_t v)
{
    tc_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void tc_begin(tc_writer_t *w)
{
    w->depth = 0;
    w->last[0] = 0;
}

void tc_field(tc_writer_t *w, int type, int id)
{
    int delta = id - w->last[w->depth];

    if (delta > 0 && delta <= 15)
        put_byte(w, (unsigned char)(delta << 4 | type));
    else {
        put_byte(w, (unsigned char)type);
        tc_zigzag(w, id);
    }
    w->last[w->depth] = id;
}

void tc_struct_begin(tc_writer_t *w)
{
    w->last[++w->depth] = 0;
}

void tc_struct_end(tc_writer_t *w)
{
    put_byte(w, 0);
    if (w->depth > 0)
        w->depth--;
}

void tc_i32(tc_writer_t *w, int id, int64_t v)
{
    tc_field(w, 5, id);
    tc_zigzag(w, v);
}

void tc_i64(tc_writer_t *w, int id, int64_t v)
{
    tc_field(w, 6, id);
    tc_zigzag(w, v);
}

void tc_raw_binary(tc_writer_t *w, const char *s)
{
    size_t n = strlen(s);

    tc_varint(w, n);
    fuzz_buf_put(w->b, s, n);
}

void tc_binary(tc_writer_t *w, int id, const char *s)
{
    tc_field(w, 8, id);
    tc_raw_binary(w, s);
}

void tc_list_header(tc_writer_t *w, int elem_type, size_t n)
{
    if (n < 15)
        put_byte(w, (unsigned char)(n << 4 | elem_type));
    else {
        put_byte(w, (unsigned char)(0xf0 | elem_type));
        tc_varint(w, n);
    }
}

/* --- synthesized one-column files (pages target) ---------------------- */

enum { T_I32 = 5, T_I64 = 6, T_BINARY = 8, T_LIST = 9, T_STRUCT = 12 };

static void schema_element(tc_writer_t *w, const char *name, int type,
                           int type_length, int repetition, int num_children,
                           int converted)
{
    tc_struct_begin(w);
    if (type >= 0)
        tc_i32(w, 1, type);
    if (type == 7)
        tc_i32(w, 2, type_length);
    if (repetition >= 0)
        tc_i32(w, 3, repetition);
    tc_binary(w, 4, name);
    if (num_children > 0)
        tc_i32(w, 5, num_children);
    if (converted >= 0)
        tc_i32(w, 6, converted);
    tc_struct_end(w);
}

/* The leaf, with the annotations of its shape. */
static void leaf_element(tc_writer_t *w, const char *name,
                         const fuzz_pages_shape_t *s)
{
    tc_struct_begin(w);
    tc_i32(w, 1, s->type);
    if (s->type == 7)
        tc_i32(w, 2, s->type_length);
    tc_i32(w, 3, s->leaf_optional);
    tc_binary(w, 4, name);
    if (s->converted_type >= 0)
        tc_i32(w, 6, s->converted_type);
    if (s->converted_type >= 0 || s->logical_decimal) {
        tc_i32(w, 7, s->scale);
        tc_i32(w, 8, 38);                       /* precision */
    }
    if (s->timestamp_unit || s->logical_decimal) {
        tc_field(w, T_STRUCT, 10);              /* LogicalType */
        tc_struct_begin(w);
        if (s->logical_decimal) {
            tc_field(w, T_STRUCT, 5);           /* DecimalType */
            tc_struct_begin(w);
            tc_i32(w, 1, s->scale);
            tc_i32(w, 2, 38);
            tc_struct_end(w);
        }
        else {
            tc_field(w, T_STRUCT, 8);           /* TimestampType */
            tc_struct_begin(w);
            tc_field(w, 1, 1);                  /* isAdjustedToUTC: true */
            tc_field(w, T_STRUCT, 2);           /* unit: TimeUnit */
            tc_struct_begin(w);
            tc_field(w, T_STRUCT, s->timestamp_unit);
            tc_struct_begin(w);
            tc_struct_end(w);
            tc_struct_end(w);
            tc_struct_end(w);
        }
        tc_struct_end(w);
    }
    tc_struct_end(w);
}

static void column_chunk(tc_writer_t *w, int type, const char *const *path,
                         int depth, int codec, unsigned num_values,
                         size_t offset, size_t len)
{
    int i;

    tc_struct_begin(w);                 /* ColumnChunk */
    tc_i64(w, 2, (int64_t)offset);      /* file_offset */
    tc_field(w, T_STRUCT, 3);
    tc_struct_begin(w);                 /* ColumnMetaData */
    tc_i32(w, 1, type);
    tc_field(w, T_LIST, 2);             /* encodings */
    tc_list_header(w, T_I32, 1);
    tc_zigzag(w, 0);
    tc_field(w, T_LIST, 3);             /* path_in_schema */
    tc_list_header(w, T_BINARY, (size_t)depth);
    for (i = 0; i < depth; i++)
        tc_raw_binary(w, path[i]);
    tc_i32(w, 4, codec);
    tc_i64(w, 5, num_values);
    tc_i64(w, 6, (int64_t)len);
    tc_i64(w, 7, (int64_t)len);
    tc_i64(w, 9, (int64_t)offset);
    tc_struct_end(w);
    tc_struct_end(w);
}

size_t fuzz_pages_header(const fuzz_pages_shape_t *s, size_t key_len,
                         uint8_t out[FUZZ_PAGES_MAP_HEADER])
{
    out[0] = (uint8_t)(s->kind | s->extra_groups << 2 | s->leaf_optional << 4
                       | s->group_optional << 5);
    out[1] = (uint8_t)s->type;
    out[2] = (uint8_t)s->codec;
    out[3] = (uint8_t)(s->type_length == 16 ? 0 : s->type_length);
    out[4] = (uint8_t)s->num_values;
    out[5] = (uint8_t)(s->num_values >> 8);
    out[6] = (uint8_t)s->num_rows;
    out[7] = (uint8_t)(s->num_rows >> 8);
    out[8] = (uint8_t)((s->converted_type >= 0 && s->converted_type < 31
                        ? s->converted_type + 1 : 0)
                       | (s->timestamp_unit & 3) << 5
                       | (s->logical_decimal ? 0x80 : 0));
    out[9] = (uint8_t)(signed char)s->scale;
    if (s->kind != 2)
        return FUZZ_PAGES_HEADER;
    out[10] = (uint8_t)key_len;
    out[11] = (uint8_t)(key_len >> 8);
    return FUZZ_PAGES_MAP_HEADER;
}

int fuzz_pages_file(const uint8_t *data, size_t size, fuzz_buf_t *file)
{
    fuzz_pages_shape_t s;
    tc_writer_t w = { file };
    const char *path[8];
    size_t header, key_off = 0, key_len = 0, val_off, val_len, footer_at;
    int depth = 0, i, num_elements;
    uint32_t footer_len;

    if (size < FUZZ_PAGES_HEADER)
        return 0;
    s.kind = data[0] & 3;
    if (s.kind == 3)
        s.kind = 0;
    s.extra_groups = data[0] >> 2 & 3;
    s.leaf_optional = data[0] >> 4 & 1;
    s.group_optional = data[0] >> 5 & 1;
    s.type = data[1] % 8;
    s.codec = data[2] % 8;
    s.type_length = data[3] ? data[3] : 16;
    s.num_values = data[4] | (unsigned)data[5] << 8;
    s.num_rows = data[6] | (unsigned)data[7] << 8;
    s.converted_type = (data[8] & 31) - 1;
    s.timestamp_unit = data[8] >> 5 & 3;
    s.logical_decimal = data[8] >> 7;
    s.scale = (signed char)data[9];
    header = FUZZ_PAGES_HEADER;
    if (s.kind == 2) {
        if (size < FUZZ_PAGES_MAP_HEADER)
            return 0;
        key_len = data[10] | (size_t)data[11] << 8;
        header = FUZZ_PAGES_MAP_HEADER;
        if (key_len > size - header)
            key_len = size - header;
    }
    /* "PAR1", the chunks as they came, then the footer. */
    file->len = 0;
    fuzz_buf_put(file, "PAR1", 4);
    key_off = 4;
    fuzz_buf_put(file, data + header, size - header);
    val_off = 4 + key_len;
    val_len = size - header - key_len;

    num_elements = 1 + s.extra_groups
                   + (s.kind == 0 ? 1 : s.kind == 1 ? 3 : 4);
    footer_at = file->len;
    tc_begin(&w);
    tc_i32(&w, 1, 1);                               /* version */
    tc_field(&w, T_LIST, 2);                        /* schema */
    tc_list_header(&w, T_STRUCT, (size_t)num_elements);
    schema_element(&w, "schema", -1, 0, -1, 1, -1);
    for (i = 0; i < s.extra_groups; i++) {
        static const char *const names[] = { "a", "b", "c" };

        schema_element(&w, names[i], -1, 0, 1, 1, -1);
        path[depth++] = names[i];
    }
    if (s.kind == 0) {
        leaf_element(&w, "v", &s);
        path[depth++] = "v";
    }
    else if (s.kind == 1) {
        schema_element(&w, "l", -1, 0, s.group_optional, 1, 3);
        schema_element(&w, "list", -1, 0, 2, 1, -1);
        leaf_element(&w, "element", &s);
        path[depth++] = "l";
        path[depth++] = "list";
        path[depth++] = "element";
    }
    else {
        schema_element(&w, "m", -1, 0, s.group_optional, 1, 1);
        schema_element(&w, "key_value", -1, 0, 2, 2, -1);
        schema_element(&w, "key", 6, 0, 0, 0, -1);
        leaf_element(&w, "value", &s);
        path[depth++] = "m";
        path[depth++] = "key_value";
    }
    tc_i64(&w, 3, s.num_rows);                      /* num_rows */
    tc_field(&w, T_LIST, 4);                        /* row_groups */
    tc_list_header(&w, T_STRUCT, 1);
    tc_struct_begin(&w);
    tc_field(&w, T_LIST, 1);                        /* columns */
    if (s.kind == 2) {
        tc_list_header(&w, T_STRUCT, 2);
        path[depth] = "key";
        column_chunk(&w, 6, path, depth + 1, s.codec, s.num_values, key_off,
                     key_len);
        path[depth] = "value";
        column_chunk(&w, s.type, path, depth + 1, s.codec, s.num_values,
                     val_off, val_len);
    }
    else {
        tc_list_header(&w, T_STRUCT, 1);
        column_chunk(&w, s.type, path, depth, s.codec, s.num_values, 4,
                     size - header);
    }
    tc_i64(&w, 2, (int64_t)(size - header));        /* total_byte_size */
    tc_i64(&w, 3, s.num_rows);
    tc_struct_end(&w);
    tc_struct_end(&w);                              /* FileMetaData */
    footer_len = (uint32_t)(file->len - footer_at);
    {
        unsigned char tail[8] = {
            (unsigned char)footer_len, (unsigned char)(footer_len >> 8),
            (unsigned char)(footer_len >> 16),
            (unsigned char)(footer_len >> 24),
            'P', 'A', 'R', '1'
        };
        fuzz_buf_put(file, tail, 8);
    }
    return 1;
}

/* --- exercising an opened Parquet file -------------------------------- */

/* Touches every decoded value, so a short array shows up under ASan. */
static void touch(const uc_pq_column_t *col)
{
    volatile apr_uint64_t sink = 0;
    apr_size_t i;

    for (i = 0; i < col->num_levels; i++) {
        if (col->def)
            sink += col->def[i];
        if (col->rep)
            sink += col->rep[i];
    }
    for (i = 0; i < col->num_values; i++) {
        if (col->ints)
            sink += (apr_uint64_t)col->ints[i];
        else if (col->reals)
            sink += col->reals[i] == col->reals[i];
        else if (col->bytes && col->bytes[i].len)
            sink += (unsigned char)col->bytes[i].ptr[0]
                    + (unsigned char)col->bytes[i].ptr[col->bytes[i].len - 1];
    }
    (void)sink;
}

void fuzz_parquet_exercise(apr_pool_t *pool, uc_pq_file_t *file)
{
    const uc_pq_node_t **top;
    apr_pool_t *sub;
    uc_error_t *err;
    int rg, i, n = file->root->num_children;

    top = apr_palloc(pool, sizeof(*top) * (apr_size_t)(n + 1));
    for (i = 0; i < n; i++)
        top[i] = file->root->children[i];
    for (i = 0; i < file->num_leaves; i++)
        (void)uc_pq_find(file, file->leaves[i]->path);
    for (rg = 0; rg < file->num_row_groups; rg++) {
        uc_pq_rows_t *rows;
        uc_jw_t *w;

        /* Each leaf on its own, errors and all. */
        for (i = 0; i < file->num_leaves; i++) {
            uc_pq_column_t col;

            apr_pool_create(&sub, pool);
            err = uc_pq_read_column(file, sub, rg, file->leaves[i], &col);
            fuzz_report(file->leaves[i]->path, err);
            if (!err)
                touch(&col);
            apr_pool_destroy(sub);
        }
        /* Text leaves read lazily, as checkpoint stats are, in both
         * forms: every row, then the first again (its page decoded anew);
         * the second time with the pages kept decoded for a third
         * reader. */
        for (i = 0; i < 2 * file->num_leaves; i++) {
            const uc_pq_node_t *leaf = file->leaves[i / 2];
            uc_pq_text_form_t form = i % 2 ? UC_PQ_TEXT_JSON_ESCAPED
                                           : UC_PQ_TEXT_AS_STORED;
            uc_pq_lazy_t *lazy = NULL;
            uc_pq_page_budget_t *budget;
            uc_pq_bytes_t value;
            apr_int64_t row;
            int pass;

            if (leaf->type != UC_PQ_BYTE_ARRAY || leaf->max_rep > 0)
                continue;
            apr_pool_create(&sub, pool);
            budget = uc_pq_page_budget_make(sub, (apr_size_t)1 << 20);
            if ((err = uc_pq_lazy_open(file, sub, sub, rg, leaf, form,
                                       &lazy)))
                lazy = NULL;
            fuzz_report("lazy", err);
            for (pass = 0; pass < 3 && lazy; pass++) {
                uc_pq_lazy_reader_t *reader =
                    uc_pq_lazy_reader_make(sub, pass ? budget : NULL);

                err = NULL;
                for (row = 0; !err && row <= file->row_groups[rg].num_rows;
                     row++) {
                    err = uc_pq_lazy_value(reader, lazy, row, &value);
                    fuzz_report(value.ptr ? value.ptr : "null", err);
                }
                if (file->row_groups[rg].num_rows > 0)
                    fuzz_report("again", uc_pq_lazy_value(reader, lazy, 0,
                                                          &value));
            }
            apr_pool_destroy(sub);
        }
        /* Rows of all top-level columns together. */
        apr_pool_create(&sub, pool);
        err = uc_pq_rows_open(file, sub, rg, top, n, &rows);
        fuzz_report("rows", err);
        if (!err) {
            w = uc_jw_make(sub, 256);
            (void)uc_pq_rows_count(rows);
            while (uc_pq_rows_next(rows)) {
                uc_jw_reset(w);
                uc_jw_begin_array(w);
                for (i = 0; i < n; i++) {
                    (void)uc_pq_rows_present(rows, top[i]);
                    if ((err = uc_pq_rows_write(rows, top[i], w))) {
                        fuzz_report("write", err);
                        break;
                    }
                }
                uc_jw_end_array(w);
                fuzz_report(uc_jw_text(w), NULL);
                /* Leaves outside lists and maps, as the checkpoint reader
                 * takes add.path, add.size, ... */
                for (i = 0; i < file->num_leaves; i++) {
                    const uc_pq_node_t *leaf = file->leaves[i];
                    apr_int64_t iv;
                    uc_pq_bytes_t bv;

                    if (leaf->max_rep == 0) {
                        (void)uc_pq_rows_int(rows, leaf, &iv);
                        (void)uc_pq_rows_bytes(rows, leaf, &bv);
                    }
                }
            }
        }
        apr_pool_destroy(sub);
    }
}
