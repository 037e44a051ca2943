/* SPDX-License-Identifier: Apache-2.0 */
/* The stats of checkpoint files, kept compressed: a source per row group
 * of a checkpoint, read back a page at a time, escaped for JSON answers
 * as each page is decoded. */
#include "uc_delta_replay.h"

#include <string.h>
#include <apr_strings.h>
#include <jansson.h>

struct uc_delta_stats_reader {
    uc_pq_lazy_reader_t *lazy;
    apr_pool_t *scratch;        /* the text of the last unescaped stats */
};

uc_error_t *uc_replay_stats_source(uc_replay_t *r, const uc_pq_file_t *file,
                                   int row_group, const uc_pq_node_t *leaf,
                                   const uc_delta_stats_source_t **out)
{
    uc_arena_t *arena = uc_arena_create();
    uc_delta_stats_source_t *source = apr_palloc(arena->pool,
                                                 sizeof(*source));
    uc_error_t *err;

    if ((err = uc_pq_lazy_open(file, arena->pool, r->scratch, row_group,
                               leaf, UC_PQ_TEXT_JSON_ESCAPED,
                               &source->lazy))) {
        uc_arena_release(arena);
        return err;
    }
    source->arena = arena;
    arena->bytes = uc_pq_lazy_kept_bytes(source->lazy) + sizeof(*source);
    *(uc_arena_t **)apr_array_push(r->sources) = arena;
    *out = source;
    return NULL;
}

void uc_replay_keep_source(uc_replay_t *r,
                           const uc_delta_stats_source_t *source)
{
    int i;

    for (i = r->sources->nelts - 1; i >= 0; i--)
        if (APR_ARRAY_IDX(r->sources, i, uc_arena_t *) == source->arena)
            return;
    uc_arena_retain(source->arena);
    *(uc_arena_t **)apr_array_push(r->sources) = source->arena;
}

void uc_replay_release_arenas(uc_replay_t *r)
{
    int i;

    uc_arena_release(r->arena);
    for (i = 0; i < r->sources->nelts; i++)
        uc_arena_release(APR_ARRAY_IDX(r->sources, i, uc_arena_t *));
    r->sources->nelts = 0;
}

uc_delta_stats_reader_t *uc_delta_stats_reader_make(apr_pool_t *pool,
                                                    uc_delta_cache_t *cache)
{
    uc_delta_stats_reader_t *reader = apr_palloc(pool, sizeof(*reader));

    reader->lazy = uc_pq_lazy_reader_make(pool, cache
                                          ? uc_delta_cache_pages(cache)
                                          : NULL);
    apr_pool_create(&reader->scratch, pool);
    return reader;
}

uc_delta_stats_text_t uc_delta_stats_text_of(const char *stats)
{
    uc_delta_stats_text_t t = { stats, stats ? strlen(stats) : 0, 0 };

    return t;
}

uc_error_t *uc_delta_file_stats_text(uc_delta_stats_reader_t *reader,
                                     const uc_delta_file_t *file,
                                     uc_delta_stats_text_t *out)
{
    uc_pq_bytes_t value;
    uc_error_t *err;

    if (!file->stats_source) {
        *out = uc_delta_stats_text_of(file->stats);
        return NULL;
    }
    if ((err = uc_pq_lazy_value(reader->lazy, file->stats_source->lazy,
                                file->stats_row, &value)))
        return uc_delta_parquet_error(err);
    out->text = value.ptr;
    out->len = value.len;
    out->escaped = value.ptr != NULL;
    return NULL;
}

/* The text a JSON string body stands for, NUL-terminated (what follows a
 * \u0000 in it is dropped, as a C string would). */
static uc_error_t *unescape(apr_pool_t *pool, const char *body,
                            apr_size_t len, const char **text)
{
    char *quoted = apr_palloc(pool, len + 2);
    json_t *s;

    quoted[0] = '"';
    memcpy(quoted + 1, body, len);
    quoted[len + 1] = '"';
    s = json_loadb(quoted, len + 2, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!json_is_string(s)) {
        json_decref(s);
        return uc_error_make(pool, UC_E_INTERNAL, "The stats of a checkpoint "
                             "page were kept in a form that does not read "
                             "back.");
    }
    *text = apr_pstrdup(pool, json_string_value(s));
    json_decref(s);
    return NULL;
}

uc_error_t *uc_delta_file_stats(uc_delta_stats_reader_t *reader,
                                const uc_delta_file_t *file,
                                const char **stats)
{
    uc_delta_stats_text_t t;
    uc_error_t *err;

    *stats = NULL;
    if ((err = uc_delta_file_stats_text(reader, file, &t)))
        return err;
    if (!t.escaped) {
        *stats = t.text;
        return NULL;
    }
    apr_pool_clear(reader->scratch);
    return unescape(reader->scratch, t.text, t.len, stats);
}

/* Each cache line of `len` bytes of text (stats are a few). */
static void prefetch_text(const char *text, apr_size_t len)
{
    apr_size_t at;

    for (at = 0; at < len; at += 64)
        __builtin_prefetch(text + at);
}

void uc_delta_prefetch_file(const uc_delta_snapshot_t *snapshot,
                            apr_size_t i, int stage)
{
    const uc_delta_file_t *f;
    const uc_pq_bytes_t *slot;

    if (i >= snapshot->num_files)
        return;
    f = &snapshot->files[i];
    if (stage == 2) {
        __builtin_prefetch(f);
        return;
    }
    slot = f->stats_source
        ? uc_pq_lazy_kept_slot(f->stats_source->lazy, f->stats_row) : NULL;
    if (stage == 1) {
        __builtin_prefetch(f->path);
        __builtin_prefetch(f->partition_values);
        __builtin_prefetch(uc_delta_file_path_md5(snapshot, i));
        if (slot)
            __builtin_prefetch(slot);
        return;
    }
    if (slot && slot->ptr)
        prefetch_text(slot->ptr, slot->len);
}
