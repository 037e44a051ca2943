/* SPDX-License-Identifier: Apache-2.0 */
/* The stats of checkpoint files, kept compressed: a source per row group
 * of a checkpoint, read back a page at a time. */
#include "uc_delta_replay.h"

struct uc_delta_stats_reader {
    uc_pq_lazy_reader_t *lazy;
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
                               leaf, &source->lazy))) {
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
    return reader;
}

uc_error_t *uc_delta_file_stats(uc_delta_stats_reader_t *reader,
                                const uc_delta_file_t *file,
                                const char **stats)
{
    uc_pq_bytes_t value;
    uc_error_t *err;

    *stats = file->stats;
    if (!file->stats_source)
        return NULL;
    if ((err = uc_pq_lazy_value(reader->lazy, file->stats_source->lazy,
                                file->stats_row, &value)))
        return uc_delta_parquet_error(err);
    *stats = value.ptr;
    return NULL;
}
