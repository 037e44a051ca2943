/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_delta_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void optional_int(uc_jw_t *w, const char *key, apr_int64_t v)
{
    if (v != UC_DELTA_NONE) {
        uc_jw_key(w, key);
        uc_jw_int(w, v);
    }
}

static void string_list(uc_jw_t *w, const char *key,
                        const apr_array_header_t *list)
{
    int i;

    uc_jw_key(w, key);
    uc_jw_begin_array(w);
    for (i = 0; i < list->nelts; i++)
        uc_jw_string(w, APR_ARRAY_IDX(list, i, const char *));
    uc_jw_end_array(w);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of a hash, sorted, so that output does not depend on the
 * hash's order. */
static const char **sorted_keys(apr_pool_t *pool, apr_hash_t *hash)
{
    const char **keys = apr_palloc(pool, sizeof(char *)
                                   * (apr_hash_count(hash) + 1));
    apr_hash_index_t *hi;
    unsigned n = 0;

    for (hi = apr_hash_first(NULL, hash); hi; hi = apr_hash_next(hi))
        keys[n++] = apr_hash_this_key(hi);
    qsort(keys, n, sizeof(char *), by_name);
    keys[n] = NULL;
    return keys;
}

void uc_delta_write_stats(uc_jw_t *w, const uc_delta_stats_text_t *stats)
{
    if (stats->escaped)
        uc_jw_string_escaped(w, stats->text, stats->len);
    else
        uc_jw_string_n(w, stats->text, stats->len);
}

static uc_error_t *write_file(uc_jw_t *w, uc_delta_stats_reader_t *reader,
                              const uc_delta_file_t *f)
{
    uc_delta_stats_text_t stats;
    uc_error_t *err;

    if ((err = uc_delta_file_stats_text(reader, f, &stats)))
        return err;
    uc_jw_begin_object(w);
    uc_jw_field_string(w, "path", f->path);
    uc_jw_field_raw(w, "partitionValues", f->partition_values);
    uc_jw_key(w, "size");
    uc_jw_int(w, f->size);
    uc_jw_key(w, "modificationTime");
    uc_jw_int(w, f->modification_time);
    if (stats.text) {
        uc_jw_key(w, "stats");
        uc_delta_write_stats(w, &stats);
    }
    if (f->extras) {
        if (f->extras->tags)
            uc_jw_field_raw(w, "tags", f->extras->tags);
        if (f->extras->deletion_vector)
            uc_jw_field_raw(w, "deletionVector", f->extras->deletion_vector);
        optional_int(w, "baseRowId", f->extras->base_row_id);
        optional_int(w, "defaultRowCommitVersion",
                     f->extras->default_row_commit_version);
    }
    uc_jw_end_object(w);
    return NULL;
}

uc_error_t *uc_delta_write_snapshot(uc_jw_t *w, const uc_delta_snapshot_t *s,
                                    int with_files)
{
    const char **key;
    apr_int64_t total = 0;
    apr_size_t i;

    /* Sizes come from the log: the sum saturates rather than overflow. */
    for (i = 0; i < s->num_files; i++)
        if (s->files[i].size > 0)
            total = s->files[i].size > INT64_MAX - total
                    ? INT64_MAX : total + s->files[i].size;
    uc_jw_begin_object(w);
    uc_jw_field_string(w, "location", s->location);
    uc_jw_key(w, "version");
    uc_jw_int(w, s->version);
    uc_jw_key(w, "timestamp");
    uc_jw_int(w, s->timestamp);
    uc_jw_key(w, "checkpointVersion");
    if (s->checkpoint_version >= 0)
        uc_jw_int(w, s->checkpoint_version);
    else
        uc_jw_null(w);
    uc_jw_field_raw(w, "protocol", s->protocol);
    uc_jw_field_raw(w, "metaData", s->metadata);
    string_list(w, "readerFeatures", s->features.reader_features);
    string_list(w, "writerFeatures", s->features.writer_features);
    uc_jw_field_string(w, "columnMapping", s->features.column_mapping);
    uc_jw_key(w, "changeDataFeed");
    uc_jw_bool(w, s->features.change_data_feed);
    uc_jw_key(w, "inCommitTimestamps");
    uc_jw_bool(w, s->features.in_commit_timestamps);
    uc_jw_key(w, "numFiles");
    uc_jw_int(w, (apr_int64_t)s->num_files);
    uc_jw_key(w, "sizeInBytes");
    uc_jw_int(w, total);
    uc_jw_key(w, "appTransactions");
    uc_jw_begin_object(w);
    for (key = sorted_keys(w->pool, s->app_versions); *key; key++) {
        uc_jw_key_n(w, *key, strlen(*key));
        uc_jw_int(w, *(const apr_int64_t *)apr_hash_get(
            s->app_versions, *key, APR_HASH_KEY_STRING));
    }
    uc_jw_end_object(w);
    uc_jw_key(w, "domainMetadata");
    uc_jw_begin_object(w);
    for (key = sorted_keys(w->pool, s->domains); *key; key++) {
        uc_jw_key_n(w, *key, strlen(*key));
        uc_jw_string(w, apr_hash_get(s->domains, *key, APR_HASH_KEY_STRING));
    }
    uc_jw_end_object(w);
    if (with_files) {
        uc_delta_stats_reader_t *reader =
            uc_delta_stats_reader_make(w->pool, NULL);
        uc_error_t *err;

        uc_jw_key(w, "files");
        uc_jw_begin_array(w);
        for (i = 0; i < s->num_files; i++)
            if ((err = write_file(w, reader, &s->files[i])))
                return err;
        uc_jw_end_array(w);
    }
    uc_jw_end_object(w);
    return NULL;
}

static const char *const change_kinds[] = { "cdc", "add", "remove" };

void uc_delta_write_changes(uc_jw_t *w, const uc_delta_changes_t *c)
{
    int i;

    uc_jw_begin_object(w);
    uc_jw_key(w, "startVersion");
    uc_jw_int(w, c->start_version);
    uc_jw_key(w, "endVersion");
    uc_jw_int(w, c->end_version);
    uc_jw_field_raw(w, "protocol", c->protocol);
    uc_jw_field_raw(w, "metaData", c->metadata);
    uc_jw_key(w, "metadataVersions");
    uc_jw_begin_array(w);
    for (i = 0; i < c->metadata_versions->nelts; i++)
        uc_jw_int(w, APR_ARRAY_IDX(c->metadata_versions, i, apr_int64_t));
    uc_jw_end_array(w);
    uc_jw_key(w, "protocolVersions");
    uc_jw_begin_array(w);
    for (i = 0; i < c->protocol_versions->nelts; i++)
        uc_jw_int(w, APR_ARRAY_IDX(c->protocol_versions, i, apr_int64_t));
    uc_jw_end_array(w);
    uc_jw_key(w, "changes");
    uc_jw_begin_array(w);
    for (i = 0; i < c->changes->nelts; i++) {
        const uc_delta_change_t *ch = &APR_ARRAY_IDX(c->changes, i,
                                                     uc_delta_change_t);
        uc_jw_begin_object(w);
        uc_jw_field_string(w, "kind", change_kinds[ch->kind]);
        uc_jw_key(w, "version");
        uc_jw_int(w, ch->version);
        uc_jw_key(w, "timestamp");
        uc_jw_int(w, ch->timestamp);
        uc_jw_field_string(w, "path", ch->path);
        uc_jw_field_raw(w, "partitionValues", ch->partition_values);
        optional_int(w, "size", ch->size);
        if (ch->stats)
            uc_jw_field_string(w, "stats", ch->stats);
        if (ch->deletion_vector)
            uc_jw_field_raw(w, "deletionVector", ch->deletion_vector);
        uc_jw_end_object(w);
    }
    uc_jw_end_array(w);
    uc_jw_end_object(w);
}
