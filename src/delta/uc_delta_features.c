/* SPDX-License-Identifier: Apache-2.0 */
/* Which tables this reader can serve (PROTOCOL.md "Table Features"), and
 * the table properties that change how the log is read. */
#include "uc_delta_internal.h"

#include <string.h>
#include <apr_strings.h>

/* Reader features whose data the server passes through or whose log
 * effects it handles. */
static const char *const supported_reader_features[] = {
    "columnMapping", "deletionVectors", "timestampNtz", "v2Checkpoint",
    "vacuumProtocolCheck", "typeWidening", "typeWidening-preview",
    "variantType", "variantType-preview", "variantShredding-preview",
    "geospatial", NULL
};

/* A catalog-managed table's commits may be unpublished, known to its
 * catalog only: it is read when the reader follows that catalog
 * (uc_delta_catalog_follow). */
static const char *const catalog_features[] = {
    "catalogManaged", "catalogOwned-preview", NULL
};

#define MAX_READER_VERSION 3

static int listed(const char *const *list, const char *feature)
{
    const char *const *f;

    for (f = list; *f; f++)
        if (strcmp(*f, feature) == 0)
            return 1;
    return 0;
}


static apr_array_header_t *feature_list(apr_pool_t *pool, json_t *list)
{
    apr_array_header_t *out = apr_array_make(pool, 4, sizeof(const char *));
    size_t i;
    json_t *item;

    json_array_foreach(list, i, item)
        if (json_is_string(item))
            APR_ARRAY_PUSH(out, const char *)
                = apr_pstrdup(pool, json_string_value(item));
    return out;
}

static int has(const apr_array_header_t *list, const char *name)
{
    int i;

    for (i = 0; i < list->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(list, i, const char *), name) == 0)
            return 1;
    return 0;
}

static const char *config_value(json_t *metadata, const char *key)
{
    json_t *v = json_object_get(json_object_get(metadata, "configuration"),
                                key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int config_true(json_t *metadata, const char *key)
{
    const char *v = config_value(metadata, key);

    return v && strcasecmp(v, "true") == 0;
}

uc_error_t *uc_delta_read_features(apr_pool_t *pool,
                                   const uc_delta_table_t *table,
                                   json_t *protocol, json_t *metadata,
                                   uc_delta_features_t *f)
{
    json_t *reader = json_object_get(protocol, "minReaderVersion");
    json_t *writer = json_object_get(protocol, "minWriterVersion");
    const char *mode, *since;
    int i;

    memset(f, 0, sizeof(*f));
    if (!json_is_integer(reader) || !json_is_integer(writer))
        return uc_delta_corrupt(pool, table, "the protocol action has no "
                                "minReaderVersion or minWriterVersion");
    f->min_reader_version = (int)json_integer_value(reader);
    f->min_writer_version = (int)json_integer_value(writer);
    f->reader_features = feature_list(pool, json_object_get(protocol,
                                                            "readerFeatures"));
    f->writer_features = feature_list(pool, json_object_get(protocol,
                                                            "writerFeatures"));
    if (f->min_reader_version > MAX_READER_VERSION
        || f->min_reader_version < 1)
        return uc_delta_table_error(pool, table, UC_E_UNSUPPORTED_OPERATION,
                                    "The table needs Delta reader version "
                                    "%d; this server reads up to version "
                                    "%d.", f->min_reader_version,
                                    MAX_READER_VERSION);
    for (i = 0; i < f->reader_features->nelts; i++) {
        const char *name = APR_ARRAY_IDX(f->reader_features, i, const char *);

        if (listed(catalog_features, name)) {
            if (table->catalog)
                continue;
            return uc_delta_table_error(pool, table,
                                        UC_E_UNSUPPORTED_OPERATION, "The "
                                        "table is catalog-managed (reader "
                                        "feature '%s'): it is read with "
                                        "the commits its catalog ratified, "
                                        "which this reader was not given.",
                                        name);
        }
        if (!listed(supported_reader_features, name))
            return uc_delta_table_error(pool, table,
                                        UC_E_UNSUPPORTED_OPERATION, "The "
                                        "table uses the Delta reader "
                                        "feature '%s', which this server "
                                        "does not support.", name);
    }
    mode = config_value(metadata, "delta.columnMapping.mode");
    f->column_mapping = mode ? apr_pstrdup(pool, mode) : "none";
    f->change_data_feed = config_true(metadata, "delta.enableChangeDataFeed");
    f->in_commit_timestamps = has(f->writer_features, "inCommitTimestamp")
        && config_true(metadata, "delta.enableInCommitTimestamps");
    since = config_value(metadata, "delta.inCommitTimestampEnablementVersion");
    f->ict_enablement_version = since ? apr_atoi64(since) : 0;
    since = config_value(metadata,
                         "delta.inCommitTimestampEnablementTimestamp");
    f->ict_enablement_timestamp = since ? apr_atoi64(since) : UC_DELTA_NONE;
    return NULL;
}
