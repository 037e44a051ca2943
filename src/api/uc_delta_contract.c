/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_delta_contract.h"

#include <stdio.h>
#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../store/uc_ratified_commits.h"

#define MIN_READER "delta.minReaderVersion"
#define MIN_WRITER "delta.minWriterVersion"
#define TABLE_ID_PROPERTY "io.unitycatalog.tableId"
#define FEATURES_MAX 256
#define FEATURE_NAME_MAX 256
#define VERSION_MAX 1000

/* A reader feature is a writer feature too; the reverse is not so. */
typedef struct feature {
    const char *name;
    int reader;
} feature_t;

static const feature_t required_features[] = {
    { "catalogManaged", 1 }, { "v2Checkpoint", 1 },
    { "vacuumProtocolCheck", 1 }, { "deletionVectors", 1 },
    { "inCommitTimestamp", 0 }, { NULL, 0 }
};
static const feature_t suggested_features[] = {
    { "columnMapping", 1 }, { "domainMetadata", 0 }, { "rowTracking", 0 },
    { NULL, 0 }
};
#define REQUIRED_READER 3
#define REQUIRED_WRITER 7

static const char *const required_properties[][2] = {
    { "delta.enableDeletionVectors", "true" },
    { "delta.checkpointPolicy", "v2" },
    { "delta.enableInCommitTimestamps", "true" },
    { "delta.checkpoint.writeStatsAsStruct", "true" },
    { "delta.checkpoint.writeStatsAsJson", "true" },
    { NULL, NULL }
};
/* NULL values: the engine chooses them. */
static const char *const suggested_properties[][2] = {
    { "delta.columnMapping.mode", "name" },
    { "delta.columnMapping.maxColumnId", NULL },
    { "delta.enableRowTracking", "true" },
    { "delta.rowTracking.materializedRowIdColumnName", NULL },
    { "delta.rowTracking.materializedRowCommitVersionColumnName", NULL },
    { "delta.randomizeFilePrefixes", "true" },
    { "delta.parquet.compression.codec", "zstd" },
    { NULL, NULL }
};

/* The domains the API carries: the domain, its member, the property it
 * is kept as, and the writer feature it needs. */
static const struct {
    const char *domain, *member, *property, *feature;
    int count;             /* its member is a count, else column paths */
} domains[] = {
    { "delta.clustering", "clusteringColumns", "clusteringColumns",
      "clustering", 0 },
    { "delta.rowTracking", "rowIdHighWaterMark",
      "delta.rowTracking.rowIdHighWaterMark", "rowTracking", 1 },
};
#define DOMAINS (sizeof(domains) / sizeof(domains[0]))

static uc_error_t *read_version(apr_pool_t *pool, const char *field,
                                json_t *value, const char *member,
                                apr_int64_t *out)
{
    int present;
    uc_error_t *err = uc_json_int_field(pool, value, member, 1, VERSION_MAX,
                                        out, &present);

    if (!err && !present)
        return uc_error_invalid(pool, "%s.%s is required.", field, member);
    return err;
}

uc_error_t *uc_delta_protocol_read(apr_pool_t *pool, const char *field,
                                   json_t *value, uc_delta_protocol_t *out)
{
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if (!json_is_object(value))
        return uc_error_invalid(pool, "%s is required: an object.", field);
    if ((err = read_version(pool, field, value, "min-reader-version",
                            &out->min_reader)) ||
        (err = read_version(pool, field, value, "min-writer-version",
                            &out->min_writer)) ||
        (err = uc_json_string_array_field(pool, value, "reader-features",
                                          FEATURES_MAX, FEATURE_NAME_MAX,
                                          &out->reader_features)) ||
        (err = uc_json_string_array_field(pool, value, "writer-features",
                                          FEATURES_MAX, FEATURE_NAME_MAX,
                                          &out->writer_features)))
        return err;
    if (!out->reader_features)
        out->reader_features = uc_json_own(pool, json_array());
    if (!out->writer_features)
        out->writer_features = uc_json_own(pool, json_array());
    return NULL;
}

/* The property that says a table supports `feature`. */
static const char *feature_key(char *buf, size_t size, const char *feature)
{
    snprintf(buf, size, UC_TABLE_FEATURE_PREFIX "%s", feature);
    return buf;
}
#define FEATURE_KEY_SIZE (sizeof(UC_TABLE_FEATURE_PREFIX) + \
                          FEATURE_NAME_MAX)

int uc_delta_protocol_is_feature(const char *key)
{
    return !strncmp(key, UC_TABLE_FEATURE_PREFIX,
                    sizeof(UC_TABLE_FEATURE_PREFIX) - 1);
}

static void set_features(json_t *properties, json_t *features)
{
    char key[FEATURE_KEY_SIZE];
    json_t *f;
    size_t i;

    json_array_foreach(features, i, f)
        json_object_set_new(properties, feature_key(key, sizeof(key),
                                                    json_string_value(f)),
                            json_string("supported"));
}

void uc_delta_protocol_apply(json_t *properties, const uc_delta_protocol_t *p)
{
    const char *key;
    json_t *value;
    void *tmp;
    char number[24];

    json_object_foreach_safe(properties, tmp, key, value)
        if (uc_delta_protocol_is_feature(key))
            json_object_del(properties, key);
    snprintf(number, sizeof(number), "%" APR_INT64_T_FMT, p->min_reader);
    json_object_set_new(properties, MIN_READER, json_string(number));
    snprintf(number, sizeof(number), "%" APR_INT64_T_FMT, p->min_writer);
    json_object_set_new(properties, MIN_WRITER, json_string(number));
    set_features(properties, p->reader_features);
    set_features(properties, p->writer_features);
}

/* The index of `domain` among those carried, -1 when unknown. */
static int domain_index(const char *domain)
{
    size_t i;

    for (i = 0; domain && i < DOMAINS; i++)
        if (!strcmp(domain, domains[i].domain))
            return (int)i;
    return -1;
}

/* A column path: one name or more. */
static int is_path(json_t *path)
{
    json_t *name;
    size_t i;

    if (!json_is_array(path) || !json_array_size(path))
        return 0;
    json_array_foreach(path, i, name)
        if (!json_is_string(name) || !json_string_length(name))
            return 0;
    return 1;
}

/* One domain's configuration as its property's value. */
static uc_error_t *domain_value(apr_pool_t *pool, size_t d, json_t *config,
                                json_t **out)
{
    json_t *member = json_object_get(config, domains[d].member);
    size_t i;
    json_t *path;

    if (domains[d].count) {
        if (!json_is_integer(member) || json_integer_value(member) < 0)
            return uc_error_invalid(pool, "%s.%s must be a count.",
                                    domains[d].domain, domains[d].member);
        *out = uc_json_own(pool, json_sprintf("%" JSON_INTEGER_FORMAT,
                                              json_integer_value(member)));
        return NULL;
    }
    if (!json_is_array(member))
        return uc_error_invalid(pool, "%s.%s must be an array of column "
                                "paths.", domains[d].domain,
                                domains[d].member);
    json_array_foreach(member, i, path)
        if (!is_path(path))
            return uc_error_invalid(pool, "%s.%s[%lu] must be a path: an "
                                    "array of names.", domains[d].domain,
                                    domains[d].member, (unsigned long)i);
    *out = uc_json_own(pool, json_string(uc_json_dump(pool, member)));
    return NULL;
}

uc_error_t *uc_delta_domains_set(apr_pool_t *pool, json_t *updates,
                                 json_t *properties)
{
    const char *domain;
    json_t *config, *value = NULL;
    int any = 0;
    uc_error_t *err;

    if (!json_is_object(updates))
        return uc_error_invalid(pool, "Domain metadata must be an object "
                                "of domains.");
    json_object_foreach(updates, domain, config) {
        int d = domain_index(domain);
        if (d < 0)
            return uc_error_invalid(pool, "Unknown domain '%s': the "
                                    "domains kept are delta.clustering "
                                    "and delta.rowTracking.", domain);
        if (json_is_null(config))
            continue;
        if ((err = domain_value(pool, (size_t)d, config, &value)))
            return err;
        json_object_set(properties, domains[d].property, value);
        any = 1;
    }
    return any ? NULL : uc_error_invalid(pool, "set-domain-metadata "
                                         "requires at least one domain "
                                         "entry.");
}

uc_error_t *uc_delta_domains_remove(apr_pool_t *pool, json_t *list,
                                    json_t *properties)
{
    json_t *name;
    size_t i;

    if (!json_is_array(list))
        return uc_error_invalid(pool, "remove-domain-metadata requires "
                                "domains: an array.");
    json_array_foreach(list, i, name) {
        int d = domain_index(json_string_value(name));
        if (d < 0)
            return uc_error_invalid(pool, "Unknown domain in "
                                    "remove-domain-metadata: %s",
                                    json_is_string(name)
                                    ? json_string_value(name)
                                    : "(not a string)");
        json_object_del(properties, domains[d].property);
    }
    return NULL;
}

int uc_delta_domains_only(json_t *updates, const char *domain)
{
    const char *key;
    json_t *config;

    json_object_foreach(updates, key, config)
        if (!json_is_null(config) && strcmp(key, domain) != 0)
            return 0;
    return 1;
}

static int has_feature(json_t *properties, const char *feature)
{
    char key[FEATURE_KEY_SIZE];

    return json_object_get(properties, feature_key(key, sizeof(key),
                                                   feature)) != NULL;
}

uc_error_t *uc_delta_domains_check(apr_pool_t *pool, json_t *properties)
{
    size_t d;

    for (d = 0; d < DOMAINS; d++)
        if (json_object_get(properties, domains[d].property) &&
            !has_feature(properties, domains[d].feature))
            return uc_error_invalid(pool, "domain-metadata.%s requires the "
                                    "'%s' writer feature.",
                                    domains[d].domain, domains[d].feature);
    return NULL;
}

static int listed(json_t *list, const char *name)
{
    json_t *item;
    size_t i;

    json_array_foreach(list, i, item)
        if (!strcmp(json_string_value(item), name))
            return 1;
    return 0;
}

static uc_error_t *check_protocol(apr_pool_t *pool,
                                  const uc_delta_protocol_t *p)
{
    const feature_t *f;
    json_t *item;
    size_t i;

    json_array_foreach(p->reader_features, i, item)
        if (!listed(p->writer_features, json_string_value(item)))
            return uc_error_invalid(pool, "Feature '%s' is in "
                                    "reader-features but not "
                                    "writer-features: every reader feature "
                                    "is also a writer feature.",
                                    json_string_value(item));
    if (p->min_reader < REQUIRED_READER || p->min_writer < REQUIRED_WRITER)
        return uc_error_invalid(pool, "A MANAGED table's protocol needs "
                                "reader version %d and writer version %d "
                                "at least (got %" APR_INT64_T_FMT " and %"
                                APR_INT64_T_FMT ").", REQUIRED_READER,
                                REQUIRED_WRITER, p->min_reader,
                                p->min_writer);
    for (f = required_features; f->name; f++) {
        if (f->reader && !listed(p->reader_features, f->name))
            return uc_error_invalid(pool, "MANAGED table missing required "
                                    "reader-feature '%s'.", f->name);
        if (!listed(p->writer_features, f->name))
            return uc_error_invalid(pool, "MANAGED table missing required "
                                    "writer-feature '%s'.", f->name);
    }
    return NULL;
}

uc_error_t *uc_delta_contract_check(apr_pool_t *pool,
                                    const uc_delta_protocol_t *p,
                                    json_t *properties)
{
    const char *id;
    uc_error_t *err;
    int i;

    if ((err = check_protocol(pool, p)))
        return err;
    for (i = 0; required_properties[i][0]; i++) {
        const char *value = json_string_value(
            json_object_get(properties, required_properties[i][0]));
        if (!value || strcmp(value, required_properties[i][1]))
            return uc_error_invalid(pool, "MANAGED table required property "
                                    "'%s' must be '%s' (got '%s').",
                                    required_properties[i][0],
                                    required_properties[i][1],
                                    value ? value : "nothing");
    }
    id = json_string_value(json_object_get(properties, TABLE_ID_PROPERTY));
    if (!id || !*id)
        return uc_error_invalid(pool, "MANAGED table required property '"
                                TABLE_ID_PROPERTY "' is missing.");
    return uc_delta_domains_check(pool, properties);
}

static void write_features(uc_jw_t *out, const char *key,
                           const feature_t *features, int reader)
{
    const feature_t *f;

    uc_jw_key(out, key);
    uc_jw_begin_array(out);
    for (f = features; f->name; f++)
        if (f->reader || !reader)
            uc_jw_string(out, f->name);
    uc_jw_end_array(out);
}

static void write_properties(uc_jw_t *out, const char *key,
                             const char *const (*props)[2])
{
    int i;

    uc_jw_key(out, key);
    uc_jw_begin_object(out);
    for (i = 0; props[i][0]; i++)
        uc_jw_field_string(out, props[i][0], props[i][1]);
}

void uc_delta_contract_write(uc_jw_t *out, const char *table_id)
{
    uc_jw_key(out, "required-protocol");
    uc_jw_begin_object(out);
    uc_jw_field_int(out, "min-reader-version", REQUIRED_READER);
    uc_jw_field_int(out, "min-writer-version", REQUIRED_WRITER);
    write_features(out, "reader-features", required_features, 1);
    write_features(out, "writer-features", required_features, 0);
    uc_jw_end_object(out);
    uc_jw_key(out, "suggested-protocol");
    uc_jw_begin_object(out);
    write_features(out, "reader-features", suggested_features, 1);
    write_features(out, "writer-features", suggested_features, 0);
    uc_jw_end_object(out);
    write_properties(out, "required-properties", required_properties);
    uc_jw_field_string(out, TABLE_ID_PROPERTY, table_id);
    uc_jw_end_object(out);
    write_properties(out, "suggested-properties", suggested_properties);
    uc_jw_end_object(out);
}
