/* SPDX-License-Identifier: Apache-2.0 */
/* The line renderer of the Delta Sharing server. Per-request work (the
 * capabilities, the choice of format, the protocol and metaData lines)
 * may parse JSON with jansson; per-file work runs once for each of a
 * table's files, so it only hashes, signs and copies text into the
 * writer. */
#include "uc_sharing_lines.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_bytes.h"
#include "../core/uc_digest.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../delta/uc_delta_dv.h"
#include "../delta/uc_delta_json.h"

/* --- capabilities ---------------------------------------------------------- */

static char *trimmed(char *s)
{
    char *end;

    while (apr_isspace(*s))
        s++;
    end = s + strlen(s);
    while (end > s && apr_isspace(end[-1]))
        *--end = '\0';
    return s;
}

static uc_error_t *add_formats(apr_pool_t *pool, char *values,
                               uc_sharing_caps_t *caps, int *listed)
{
    char *state, *value;

    for (value = apr_strtok(values, ",", &state); value;
         value = apr_strtok(NULL, ",", &state)) {
        value = trimmed(value);
        if (strcmp(value, "parquet") == 0)
            caps->wants_parquet = 1;
        else if (strcmp(value, "delta") == 0)
            caps->wants_delta = 1;
        else if (*value)
            return uc_error_invalid(pool, "Unsupported responseformat '%s' "
                                    "in delta-sharing-capabilities: expected "
                                    "parquet or delta.", value);
        *listed |= *value != '\0';
    }
    return NULL;
}

static void add_features(apr_pool_t *pool, char *values,
                         uc_sharing_caps_t *caps)
{
    char *state, *value;

    for (value = apr_strtok(values, ",", &state); value;
         value = apr_strtok(NULL, ",", &state))
        if (*(value = trimmed(value)))
            APR_ARRAY_PUSH(caps->reader_features, const char *)
                = apr_pstrdup(pool, value);
}

uc_error_t *uc_sharing_caps_parse(apr_pool_t *pool, const char *header,
                                  uc_sharing_caps_t *caps)
{
    char *text = apr_pstrdup(pool, header ? header : ""), *p, *state, *pair;
    int listed = 0;
    uc_error_t *err;

    caps->wants_parquet = caps->wants_delta = caps->include_end_stream = 0;
    caps->async_query = 0;
    caps->reader_features = apr_array_make(pool, 8, sizeof(const char *));
    /* The reference lower-cases the whole header: keys and values alike. */
    for (p = text; *p; p++)
        *p = (char)apr_tolower(*p);
    for (pair = apr_strtok(text, ";", &state); pair;
         pair = apr_strtok(NULL, ";", &state)) {
        char *eq = strchr(pair, '='), *key;

        if (!eq)
            continue;
        *eq = '\0';
        key = trimmed(pair);
        if (strcmp(key, "responseformat") == 0) {
            if ((err = add_formats(pool, eq + 1, caps, &listed)))
                return err;
        }
        else if (strcmp(key, "readerfeatures") == 0)
            add_features(pool, eq + 1, caps);
        else if (strcmp(key, "includeendstreamaction") == 0)
            caps->include_end_stream = strcmp(trimmed(eq + 1), "true") == 0;
        else if (strcmp(key, "asyncquery") == 0)
            caps->async_query = strcmp(trimmed(eq + 1), "true") == 0;
    }
    if (!listed)
        caps->wants_parquet = 1;
    return NULL;
}

uc_error_t *uc_sharing_fileidhash_parse(apr_pool_t *pool, const char *header,
                                        uc_sharing_caps_t *caps)
{
    if (!header)
        caps->file_id_hash = NULL;
    else if (strcasecmp(header, "parquet") == 0)
        caps->file_id_hash = "parquet";
    else if (strcasecmp(header, "delta") == 0)
        caps->file_id_hash = "delta";
    else
        return uc_error_invalid(pool, "Unsupported fileidhash '%s': expected "
                                "parquet or delta.", header);
    return NULL;
}

const char *uc_sharing_caps_answer(apr_pool_t *pool,
                                   uc_sharing_format_t format,
                                   const uc_sharing_caps_t *caps)
{
    return apr_pstrcat(pool, "responseformat=",
                       format == UC_SHARING_DELTA ? "delta" : "parquet",
                       caps && caps->include_end_stream
                           ? ";includeendstreamaction=true" : "", NULL);
}

/* --- the format -------------------------------------------------------------- */

/* A catalog-managed table's commits are the catalog's, which the server
 * is: a recipient reads what it ratified (delta/uc_delta_catalog.c), and
 * the table it is shown is not catalog-managed (a Delta client that saw
 * the feature would look for the catalog to read it). */
static const char *const catalog_features[] = {
    "catalogManaged", "catalogOwned-preview", NULL
};

/* Reader features whose effects are all in the log, which the server
 * reads for the client: no client has to know them. */
static const char *const server_resolved[] = {
    "v2Checkpoint", "vacuumProtocolCheck", "catalogManaged",
    "catalogOwned-preview", NULL
};

static int client_lists(const uc_sharing_caps_t *caps, const char *feature)
{
    int i;

    for (i = 0; caps->reader_features && i < caps->reader_features->nelts;
         i++)
        if (strcasecmp(APR_ARRAY_IDX(caps->reader_features, i,
                                     const char *), feature) == 0)
            return 1;
    return 0;
}

static int server_resolves(const char *feature)
{
    const char *const *f;

    for (f = server_resolved; *f; f++)
        if (strcmp(*f, feature) == 0)
            return 1;
    return 0;
}

static uc_error_t *parse_action(apr_pool_t *pool, const char *json,
                                const char *what, json_t **out)
{
    *out = uc_json_own(pool, json_loads(json ? json : "", 0, NULL));
    if (!json_is_object(*out))
        return uc_error_because(pool, uc_error_internal(pool),
                                "the %s action is not a JSON object", what);
    return NULL;
}

/* Enabled unless set to "false", as the reference reads the property:
 * DVs may be written from the next commit on even where none exists. */
static uc_error_t *dv_enabled(apr_pool_t *pool, const char *metadata_json,
                              int *enabled)
{
    json_t *m, *v;
    uc_error_t *err = parse_action(pool, metadata_json, "metaData", &m);

    if (err)
        return err;
    v = json_object_get(json_object_get(m, "configuration"),
                        "delta.enableDeletionVectors");
    *enabled = json_is_string(v)
        && strcasecmp(json_string_value(v), "false") != 0;
    return NULL;
}

static const char *joined(apr_pool_t *pool, apr_array_header_t *names)
{
    return apr_array_pstrcat(pool, names, ',');
}

/* The features that keep `features`' table from the parquet format for
 * this client: empty when its files read as plain Parquet for it. */
static apr_array_header_t *parquet_blockers(apr_pool_t *pool,
                                            const uc_sharing_caps_t *caps,
                                            const uc_delta_features_t *features,
                                            int dv)
{
    apr_array_header_t *out = apr_array_make(pool, 2, sizeof(const char *));
    const char *cm = features->column_mapping;

    if (dv && !client_lists(caps, "deletionVectors"))
        APR_ARRAY_PUSH(out, const char *) = "deletionVectors";
    if (cm && strcmp(cm, "none") != 0 && !client_lists(caps, "columnMapping"))
        APR_ARRAY_PUSH(out, const char *) = "columnMapping";
    return out;
}

/* The table's reader features the client must handle itself in the delta
 * format and did not list. Reader version 2 has no feature list: it is
 * column mapping. */
static apr_array_header_t *delta_blockers(apr_pool_t *pool,
                                          const uc_sharing_caps_t *caps,
                                          const uc_delta_features_t *features)
{
    apr_array_header_t *out = apr_array_make(pool, 2, sizeof(const char *));
    int i;

    if (features->min_reader_version == 2
        && !client_lists(caps, "columnMapping"))
        APR_ARRAY_PUSH(out, const char *) = "columnMapping";
    for (i = 0; features->min_reader_version >= 3 && features->reader_features
         && i < features->reader_features->nelts; i++) {
        const char *f = APR_ARRAY_IDX(features->reader_features, i,
                                      const char *);

        if (!server_resolves(f) && !client_lists(caps, f))
            APR_ARRAY_PUSH(out, const char *) = f;
    }
    return out;
}

uc_error_t *uc_sharing_choose_format(apr_pool_t *pool,
                                     const uc_sharing_caps_t *caps,
                                     const uc_delta_features_t *features,
                                     const char *metadata_json,
                                     uc_sharing_format_t *format)
{
    const char *cm = features->column_mapping;
    apr_array_header_t *missing;
    int dv = 0;
    uc_error_t *err;

    if ((err = dv_enabled(pool, metadata_json, &dv)))
        return err;
    if (caps->wants_parquet && caps->wants_delta)
        *format = features->min_reader_version == 1 && !dv
                  && (!cm || strcmp(cm, "none") == 0)
            ? UC_SHARING_PARQUET : UC_SHARING_DELTA;
    else
        *format = caps->wants_delta ? UC_SHARING_DELTA : UC_SHARING_PARQUET;
    if (*format == UC_SHARING_PARQUET) {
        missing = parquet_blockers(pool, caps, features, dv);
        if (missing->nelts)
            return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION,
                                 "Unsupported Delta Table Properties: the "
                                 "table uses %s, which the parquet response "
                                 "format cannot carry; ask for "
                                 "responseformat=delta with readerfeatures "
                                 "listing them.", joined(pool, missing));
        return NULL;
    }
    missing = delta_blockers(pool, caps, features);
    if (missing->nelts)
        return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION,
                             "The table needs the reader features %s, which "
                             "the client did not list in readerfeatures.",
                             joined(pool, missing));
    return NULL;
}

/* --- protocol and metaData --------------------------------------------------- */

static int is_empty_array(json_t *v)
{
    return json_is_array(v) && json_array_size(v) == 0;
}

static void optional_int(uc_jw_t *jw, const char *key, apr_int64_t value)
{
    if (value != UC_DELTA_NONE) {
        uc_jw_key(jw, key);
        uc_jw_int(jw, value);
    }
}

/* Takes `catalog_features` out of the feature list `key` of `protocol`;
 * whether one was there. */
static int drop_catalog_features(json_t *protocol, const char *key)
{
    json_t *list = json_object_get(protocol, key);
    const char *const *f;
    size_t i;
    int dropped = 0;

    for (i = json_array_size(list); i-- > 0;) {
        const char *name = json_string_value(json_array_get(list, i));
        for (f = catalog_features; name && *f; f++)
            if (!strcmp(name, *f)) {
                json_array_remove(list, i);
                dropped = 1;
                break;
            }
    }
    return dropped;
}

/* The table's protocol as a recipient is shown it: `text` itself, or,
 * for a catalog-managed table, without the catalog's features. */
static const char *recipient_protocol(apr_pool_t *pool, json_t *protocol,
                                      const char *text)
{
    int reader = drop_catalog_features(protocol, "readerFeatures");
    int writer = drop_catalog_features(protocol, "writerFeatures");

    return reader || writer ? uc_json_dump(pool, protocol) : text;
}

uc_error_t *uc_sharing_write_protocol_at(uc_jw_t *jw, apr_pool_t *pool,
                                         uc_sharing_format_t format,
                                         const char *protocol_json,
                                         apr_int64_t version)
{
    const char *omit[3] = { NULL, NULL, NULL }, **o = omit;
    json_t *protocol;
    uc_error_t *err;

    if (format == UC_SHARING_PARQUET) {
        /* Parquet clients read the files, not the log: whatever the
         * table's protocol, version 1 is what they need (legacy Scala
         * refuses more than 2). */
        uc_jw_raw(jw, "{\"protocol\":{\"minReaderVersion\":1}}");
        return NULL;
    }
    if ((err = parse_action(pool, protocol_json, "protocol", &protocol)))
        return err;
    if (is_empty_array(json_object_get(protocol, "readerFeatures")))
        *o++ = "readerFeatures";
    if (is_empty_array(json_object_get(protocol, "writerFeatures")))
        *o++ = "writerFeatures";
    uc_jw_begin_object(jw);
    uc_jw_key(jw, "protocol");
    uc_jw_begin_object(jw);
    uc_jw_key(jw, "deltaProtocol");
    uc_jw_begin_object(jw);
    uc_jw_members(jw, recipient_protocol(pool, protocol, protocol_json),
                  omit);
    uc_jw_end_object(jw);
    optional_int(jw, "version", version);
    uc_jw_end_object(jw);
    uc_jw_end_object(jw);
    return NULL;
}

uc_error_t *uc_sharing_write_protocol(uc_jw_t *jw, apr_pool_t *pool,
                                      uc_sharing_format_t format,
                                      const char *protocol_json)
{
    return uc_sharing_write_protocol_at(jw, pool, format, protocol_json,
                                        UC_DELTA_NONE);
}

/* The schema as the reference shares it: top-level fields keep only the
 * "comment" of their metadata (the rest, column mapping's included, is
 * the provider's business); nested fields are left as they are. */
static uc_error_t *shared_schema(apr_pool_t *pool, json_t *metadata,
                                 const char **out)
{
    json_t *text = json_object_get(metadata, "schemaString");
    json_t *schema, *fields, *field;
    size_t i;

    schema = json_is_string(text)
        ? uc_json_own(pool, json_loads(json_string_value(text), 0, NULL))
        : NULL;
    fields = json_object_get(schema, "fields");
    if (!json_is_array(fields))
        return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG, "The table's "
                             "schemaString is not a Delta struct schema.");
    json_array_foreach(fields, i, field) {
        json_t *meta = json_object_get(field, "metadata");
        json_t *comment = json_object_get(meta, "comment");
        json_t *kept;

        if (!json_is_object(meta))
            continue;
        kept = json_object();
        if (comment)
            json_object_set(kept, "comment", comment);
        json_object_set_new(field, "metadata", kept);
    }
    *out = uc_json_dump(pool, schema);
    return NULL;
}

static int cdf_on(json_t *metadata)
{
    json_t *v = json_object_get(json_object_get(metadata, "configuration"),
                                "delta.enableChangeDataFeed");

    return json_is_string(v) && strcasecmp(json_string_value(v), "true") == 0;
}

static void optional_string(uc_jw_t *jw, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    if (json_is_string(v))
        uc_jw_field_string(jw, key, json_string_value(v));
}

/* What the parquet metaData line takes from the action, read before any
 * of the line is written. */
typedef struct parquet_metadata {
    json_t *action;
    const char *schema;
} parquet_metadata_t;

static uc_error_t *read_parquet_metadata(apr_pool_t *pool,
                                         const char *metadata_json,
                                         parquet_metadata_t *out)
{
    uc_error_t *err = parse_action(pool, metadata_json, "metaData",
                                   &out->action);

    return err ? err : shared_schema(pool, out->action, &out->schema);
}

static void write_parquet_metadata(uc_jw_t *jw, const parquet_metadata_t *pm,
                                   int cdf_shared)
{
    json_t *columns = json_object_get(pm->action, "partitionColumns");

    optional_string(jw, pm->action, "id");
    optional_string(jw, pm->action, "name");
    optional_string(jw, pm->action, "description");
    uc_jw_field_raw(jw, "format", "{\"provider\":\"parquet\"}");
    uc_jw_field_string(jw, "schemaString", pm->schema);
    uc_jw_field_raw(jw, "configuration", cdf_shared && cdf_on(pm->action)
                    ? "{\"enableChangeDataFeed\":\"true\"}" : "{}");
    uc_jw_key(jw, "partitionColumns");
    if (json_is_array(columns))
        uc_jw_json(jw, columns);
    else
        uc_jw_raw(jw, "[]");
}

uc_error_t *uc_sharing_write_metadata(uc_jw_t *jw, apr_pool_t *pool,
                                      uc_sharing_format_t format,
                                      const char *metadata_json,
                                      apr_int64_t version, int cdf_shared,
                                      apr_int64_t size,
                                      apr_int64_t num_files)
{
    parquet_metadata_t pm = { NULL, NULL };
    uc_error_t *err;

    if (format == UC_SHARING_PARQUET
        && (err = read_parquet_metadata(pool, metadata_json, &pm)))
        return err;
    /* The delta format copies the action as it is: checked only for
     * being one, the snapshot having parsed it already. */
    if (format == UC_SHARING_DELTA && (!metadata_json || *metadata_json != '{'))
        return uc_error_because(pool, uc_error_internal(pool),
                                "the metaData action is not a JSON object");
    uc_jw_begin_object(jw);
    uc_jw_key(jw, "metaData");
    uc_jw_begin_object(jw);
    if (format == UC_SHARING_DELTA)
        uc_jw_field_raw(jw, "deltaMetadata", metadata_json);
    else
        write_parquet_metadata(jw, &pm, cdf_shared);
    optional_int(jw, "version", version);
    optional_int(jw, "size", size);
    optional_int(jw, "numFiles", num_files);
    uc_jw_end_object(jw);
    uc_jw_end_object(jw);
    return NULL;
}

/* --- files ---------------------------------------------------------------------- */

#define ID_MAX (2 * UC_SHA256_BYTES + 1)

void uc_sharing_signer_expire(uc_sharing_signer_t *signer, apr_int64_t ms)
{
    signer->expiration_ms = ms;
    signer->expiration_member_len = ms == UC_DELTA_NONE ? 0
        : apr_snprintf(signer->expiration_member,
                       sizeof(signer->expiration_member),
                       ",\"expirationTimestamp\":%" APR_INT64_T_FMT, ms);
}

/* What a file line needs beyond the log's text, all of it got (and every
 * refusal made) before the line is begun. */
typedef struct shared_file {
    uc_sharing_url_t url;       /* signed URL of the data file */
    char id[ID_MAX];
    const char *dv;             /* deletion vector descriptor, or NULL */
    uc_sharing_url_t dv_url;    /* signed URL of its file; text NULL:
                                 * inline */
    char dv_id[ID_MAX];
} shared_file_t;

/* A scheme ("s3:", "file:") or a root: the path leaves the table's
 * directory, which is all a recipient was granted. File names are runs
 * of scheme characters: the colon is looked for first. */
static int is_absolute(const char *path, apr_size_t len)
{
    const char *colon, *p;

    if (*path == '/')
        return 1;
    if (!apr_isalpha(*path) || !(colon = memchr(path, ':', len)))
        return 0;
    for (p = path + 1; p < colon; p++)
        if (!apr_isalnum(*p) && *p != '+' && *p != '-' && *p != '.')
            return 0;
    return 1;
}

static uc_error_t *no_path(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG,
                         "A file action of the table has no path.");
}

/* The length of a path a line may name: one relative to the table. */
static uc_error_t *relative_path(apr_pool_t *pool, const char *path,
                                 apr_size_t *len)
{
    *len = strlen(path);
    return is_absolute(path, *len)
        ? uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION, "The table "
                        "contains the absolute path '%s': a table "
                        "containing absolute paths cannot be shared.", path)
        : NULL;
}

static void count_signed(const uc_sharing_signer_t *signer, apr_uint64_t n)
{
    if (signer->tally)
        *signer->tally += n;
    else
        uc_metrics_add(signer->metrics, UC_M_SIGNED_URLS, n);
}

static uc_error_t *sign(apr_pool_t *pool, const uc_sharing_signer_t *signer,
                        const char *path, uc_sharing_url_t *url)
{
    apr_size_t len;
    uc_error_t *err;

    if ((err = relative_path(pool, path, &len)) ||
        (err = signer->sign(signer->baton, pool, path, len, &url->text,
                            &url->len)))
        return err;
    count_signed(signer, 1);
    return NULL;
}

uc_error_t *uc_sharing_lines_sign_files(apr_pool_t *pool,
                                        const uc_sharing_signer_t *signer,
                                        const uc_delta_snapshot_t *snapshot,
                                        const apr_size_t i[2],
                                        uc_sharing_url_t url[2])
{
    const char *path[2], *text[2];
    apr_size_t len[2], text_len[2];
    int k;
    uc_error_t *err;

    for (k = 0; k < 2; k++) {
        path[k] = snapshot->files[i[k]].path;
        if (!path[k] || !*path[k])
            return no_path(pool);
        if ((err = signer->sign2 ? relative_path(pool, path[k], &len[k])
                                 : sign(pool, signer, path[k], &url[k])))
            return err;
    }
    if (!signer->sign2)
        return NULL;
    if ((err = signer->sign2(signer->baton, pool, path, len, text,
                             text_len)))
        return err;
    for (k = 0; k < 2; k++) {
        url[k].text = text[k];
        url[k].len = text_len[k];
    }
    count_signed(signer, 2);
    return NULL;
}

/* The reference's ids: MD5 of the log's path for parquet, SHA-256 for
 * delta, unless the client's fileidhash picks one. Hashing the path, not
 * the URL, keeps them stable across requests and re-signing. */
static void file_id(uc_sharing_format_t format, const uc_sharing_caps_t *caps,
                    const char *path, const unsigned char *md5, char *out)
{
    const char *scheme = caps && caps->file_id_hash ? caps->file_id_hash
        : format == UC_SHARING_DELTA ? "delta" : "parquet";
    unsigned char digest[UC_SHA256_BYTES];

    if (strcmp(scheme, "delta") == 0) {
        uc_digest_sha256(path, strlen(path), digest);
        uc_hex_encode(digest, UC_SHA256_BYTES, out);
    }
    else {
        if (!md5)
            uc_digest_md5(path, strlen(path), digest);
        uc_hex_encode(md5 ? md5 : digest, UC_MD5_BYTES, out);
    }
}

/* A member of a descriptor; the rare one with escapes in it is parsed. */
static const char *dv_member(apr_pool_t *pool, const char *dv,
                             const char *key)
{
    const char *s = uc_json_stored_string(pool, dv, key);
    json_t *v;

    if (s)
        return s;
    v = json_object_get(uc_json_own(pool, json_loads(dv, 0, NULL)), key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Where the deletion vector's file is, as a log path: NULL for an inline
 * one, which travels in the descriptor. */
static uc_error_t *dv_file(apr_pool_t *pool, const char *dv,
                           const char **path)
{
    const char *type = dv_member(pool, dv, "storageType");
    const char *where = dv_member(pool, dv, "pathOrInlineDv");

    *path = NULL;
    if (type && strcmp(type, "u") == 0)
        return uc_delta_dv_path(pool, where, path);
    if (type && strcmp(type, "p") == 0 && where) {
        *path = where;
        return NULL;
    }
    if (type && strcmp(type, "i") == 0)
        return NULL;
    return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG, "The deletion "
                         "vector %s has no storageType u, p or i with its "
                         "pathOrInlineDv.", dv);
}

static uc_error_t *share_dv(apr_pool_t *pool, uc_sharing_format_t format,
                            const uc_sharing_caps_t *caps,
                            const uc_sharing_signer_t *signer,
                            shared_file_t *out)
{
    const char *path;
    uc_error_t *err;

    /* A parquet client reads the data file whole: the rows the vector
     * deletes would come back. */
    if (format == UC_SHARING_PARQUET)
        return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION, "A file of "
                             "the table has a deletion vector, which the "
                             "parquet response format cannot carry; ask for "
                             "responseformat=delta with readerfeatures="
                             "deletionvectors.");
    if ((err = dv_file(pool, out->dv, &path)) || !path)
        return err;
    if ((err = sign(pool, signer, path, &out->dv_url)))
        return err;
    file_id(format, caps, path, NULL, out->dv_id);
    return NULL;
}

/* `md5`, when known, is the digest of `path`; `url`, when not NULL, its
 * URL signed already. */
static uc_error_t *share_file(apr_pool_t *pool, uc_sharing_format_t format,
                              const uc_sharing_caps_t *caps,
                              const uc_sharing_signer_t *signer,
                              const char *path, const unsigned char *md5,
                              const uc_sharing_url_t *url, const char *dv,
                              shared_file_t *out)
{
    uc_error_t *err;

    out->dv = dv;
    out->dv_url.text = NULL;
    if (!path || !*path)
        return no_path(pool);
    if (url)
        out->url = *url;
    else if ((err = sign(pool, signer, path, &out->url)))
        return err;
    file_id(format, caps, path, md5, out->id);
    return dv ? share_dv(pool, format, caps, signer, out) : NULL;
}

static const char *object_or_empty(const char *json)
{
    return json ? json : "{}";
}

/* An on-disk vector is rewritten to point at its signed URL ("p": an
 * absolute path, which a URL is); offset, size and cardinality stay. */
static void write_dv(uc_jw_t *jw, const shared_file_t *sf)
{
    static const char *const rewritten[] = {
        "storageType", "pathOrInlineDv", NULL
    };

    if (!sf->dv)
        return;
    uc_jw_key(jw, "deletionVector");
    if (!sf->dv_url.text) {
        uc_jw_raw(jw, sf->dv);
        return;
    }
    uc_jw_begin_object(jw);
    uc_jw_field_string(jw, "storageType", "p");
    uc_jw_field_string(jw, "pathOrInlineDv", sf->dv_url.text);
    uc_jw_members(jw, sf->dv, rewritten);
    uc_jw_end_object(jw);
}

/* {"file":{id, version?, timestamp?, expirationTimestamp?,
 * deletionVectorFileId?, "deltaSingleAction":{<kind>: — left open for
 * the action's members. */
static void begin_delta_file(uc_jw_t *jw, const shared_file_t *sf,
                             const uc_sharing_signer_t *signer,
                             apr_int64_t version, apr_int64_t timestamp,
                             const char *kind)
{
    uc_jw_begin_object(jw);
    uc_jw_key(jw, "file");
    uc_jw_begin_object(jw);
    uc_jw_field_string(jw, "id", sf->id);
    optional_int(jw, "version", version);
    optional_int(jw, "timestamp", timestamp);
    optional_int(jw, "expirationTimestamp", signer->expiration_ms);
    if (sf->dv_url.text)
        uc_jw_field_string(jw, "deletionVectorFileId", sf->dv_id);
    uc_jw_key(jw, "deltaSingleAction");
    uc_jw_begin_object(jw);
    uc_jw_key(jw, kind);
    uc_jw_begin_object(jw);
}

static void end_delta_file(uc_jw_t *jw)
{
    int i;

    for (i = 0; i < 4; i++)
        uc_jw_end_object(jw);
}

/* Constant text of a line written in runs (uc_jw_text_n). */
#define RUN(jw, literal) uc_jw_text_n(jw, literal, sizeof(literal) - 1)
/* ,"key":<integer>, unless the integer is absent. */
#define RUN_INT(jw, key, value)                                        \
    do {                                                               \
        if ((value) != UC_DELTA_NONE) {                                \
            RUN(jw, ",\"" key "\":");                                   \
            uc_jw_digits(jw, value);                                   \
        }                                                              \
    } while (0)

/* The stats as a JSON string: a checkpoint's come escaped already. */
static void write_stats(uc_jw_t *jw, const uc_delta_stats_text_t *stats)
{
    if (stats->escaped)
        uc_jw_quoted_n(jw, stats->text, stats->len);
    else
        uc_jw_escaped_n(jw, stats->text, stats->len);
}

/* {"<kind>":{url, id, partitionValues, size, stats?, version?,
 * timestamp?, expirationTimestamp?}}: the line of every file of a long
 * answer, its constant text written in runs rather than member by
 * member. */
static void write_parquet_file(uc_jw_t *jw, const char *kind,
                               const shared_file_t *sf,
                               const char *partition_values,
                               apr_int64_t size,
                               const uc_delta_stats_text_t *stats,
                               const uc_sharing_signer_t *signer,
                               apr_int64_t version, apr_int64_t timestamp)
{
    const char *values = object_or_empty(partition_values);

    RUN(jw, "{\"");
    uc_jw_text_n(jw, kind, strlen(kind));
    RUN(jw, "\":{\"url\":");
    if (signer->plain_urls) {
        RUN(jw, "\"");
        uc_jw_text_n(jw, sf->url.text, sf->url.len);
        RUN(jw, "\",\"id\":\"");
    }
    else {
        uc_jw_escaped_n(jw, sf->url.text, sf->url.len);
        RUN(jw, ",\"id\":\"");
    }
    /* Hex digits. */
    uc_jw_text_n(jw, sf->id, strlen(sf->id));
    RUN(jw, "\",\"partitionValues\":");
    uc_jw_text_n(jw, values, strlen(values));
    RUN(jw, ",\"size\":");
    uc_jw_digits(jw, size);
    if (stats && stats->text) {
        RUN(jw, ",\"stats\":");
        write_stats(jw, stats);
    }
    RUN_INT(jw, "version", version);
    RUN_INT(jw, "timestamp", timestamp);
    uc_jw_text_n(jw, signer->expiration_member,
                 signer->expiration_member_len);
    RUN(jw, "}}");
}

static uc_error_t *write_file(uc_jw_t *jw, apr_pool_t *pool,
                              uc_sharing_format_t format,
                              const uc_sharing_caps_t *caps,
                              const uc_delta_file_t *file,
                              const unsigned char *md5,
                              const uc_delta_stats_text_t *stats,
                              const uc_sharing_url_t *url,
                              const uc_sharing_signer_t *signer,
                              apr_int64_t version, apr_int64_t timestamp)
{
    const uc_delta_file_extras_t *x = file->extras;
    shared_file_t sf;
    uc_error_t *err;

    if ((err = share_file(pool, format, caps, signer, file->path, md5, url,
                          x ? x->deletion_vector : NULL, &sf)))
        return err;
    if (format == UC_SHARING_PARQUET) {
        write_parquet_file(jw, "file", &sf, file->partition_values,
                           file->size, stats, signer, version, timestamp);
        return NULL;
    }
    begin_delta_file(jw, &sf, signer, version, timestamp, "add");
    uc_jw_field_string(jw, "path", sf.url.text);
    uc_jw_field_raw(jw, "partitionValues",
                    object_or_empty(file->partition_values));
    optional_int(jw, "size", file->size);
    optional_int(jw, "modificationTime", file->modification_time);
    uc_jw_key(jw, "dataChange");
    uc_jw_bool(jw, 1);
    if (stats && stats->text) {
        uc_jw_key(jw, "stats");
        uc_delta_write_stats(jw, stats);
    }
    /* Tags stay with the provider (the reference redacts them): readers
     * need none of them. Row tracking ids are part of the rows. */
    write_dv(jw, &sf);
    if (x) {
        optional_int(jw, "baseRowId", x->base_row_id);
        optional_int(jw, "defaultRowCommitVersion",
                     x->default_row_commit_version);
    }
    end_delta_file(jw);
    return NULL;
}

uc_error_t *uc_sharing_write_file(uc_jw_t *jw, apr_pool_t *pool,
                                  uc_sharing_format_t format,
                                  const uc_sharing_caps_t *caps,
                                  const uc_delta_file_t *file,
                                  const char *stats,
                                  const uc_sharing_signer_t *signer,
                                  apr_int64_t version, apr_int64_t timestamp)
{
    uc_delta_stats_text_t text = uc_delta_stats_text_of(stats);

    return write_file(jw, pool, format, caps, file, NULL, &text, NULL,
                      signer, version, timestamp);
}

uc_error_t *uc_sharing_write_snapshot_file(uc_jw_t *jw, apr_pool_t *pool,
                                           uc_sharing_format_t format,
                                           const uc_sharing_caps_t *caps,
                                           const uc_delta_snapshot_t *snapshot,
                                           apr_size_t i,
                                           const uc_delta_stats_text_t *stats,
                                           const uc_sharing_url_t *url,
                                           const uc_sharing_signer_t *signer,
                                           apr_int64_t version,
                                           apr_int64_t timestamp)
{
    return write_file(jw, pool, format, caps, &snapshot->files[i],
                      uc_delta_file_path_md5(snapshot, i), stats, url,
                      signer, version, timestamp);
}

/* --- changes ------------------------------------------------------------------ */

static const char *change_key(uc_delta_change_kind_t kind, int delta)
{
    switch (kind) {
    case UC_DELTA_CHANGE_ADD:
        return "add";
    case UC_DELTA_CHANGE_REMOVE:
        return "remove";
    default:
        return delta ? "cdc" : "cdf";
    }
}

/* A change as the Delta action the client replays: the commit's time is
 * what the action's own times were closest to (the change keeps no
 * modificationTime or deletionTimestamp of its own). */
static void write_delta_change(uc_jw_t *jw, const uc_delta_change_t *c,
                               const shared_file_t *sf)
{
    uc_jw_field_string(jw, "path", sf->url.text);
    if (c->kind == UC_DELTA_CHANGE_REMOVE) {
        uc_jw_key(jw, "deletionTimestamp");
        uc_jw_int(jw, c->timestamp);
    }
    uc_jw_field_raw(jw, "partitionValues",
                    object_or_empty(c->partition_values));
    uc_jw_key(jw, "size");
    uc_jw_int(jw, c->size);
    if (c->kind == UC_DELTA_CHANGE_ADD) {
        uc_jw_key(jw, "modificationTime");
        uc_jw_int(jw, c->timestamp);
    }
    uc_jw_key(jw, "dataChange");
    uc_jw_bool(jw, c->kind != UC_DELTA_CHANGE_CDC);
    if (c->kind == UC_DELTA_CHANGE_REMOVE) {
        uc_jw_key(jw, "extendedFileMetadata");
        uc_jw_bool(jw, 1);
    }
    if (c->kind == UC_DELTA_CHANGE_ADD && c->stats)
        uc_jw_field_string(jw, "stats", c->stats);
    write_dv(jw, sf);
}

uc_error_t *uc_sharing_write_change(uc_jw_t *jw, apr_pool_t *pool,
                                    uc_sharing_format_t format,
                                    const uc_sharing_caps_t *caps,
                                    const uc_delta_change_t *change,
                                    const uc_sharing_signer_t *signer)
{
    int delta = format == UC_SHARING_DELTA;
    shared_file_t sf;
    uc_error_t *err;

    if (change->size == UC_DELTA_NONE)
        return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION, "The %s of "
                             "'%s' in version %" APR_INT64_T_FMT " has no "
                             "size, without which it cannot be shared.",
                             change_key(change->kind, delta),
                             change->path ? change->path : "",
                             change->version);
    if ((err = share_file(pool, format, caps, signer, change->path, NULL,
                          NULL, change->kind == UC_DELTA_CHANGE_CDC ? NULL
                                : change->deletion_vector, &sf)))
        return err;
    if (!delta) {
        uc_delta_stats_text_t stats = uc_delta_stats_text_of(
            change->kind == UC_DELTA_CHANGE_ADD ? change->stats : NULL);

        write_parquet_file(jw, change_key(change->kind, 0), &sf,
                           change->partition_values, change->size, &stats,
                           signer, change->version, change->timestamp);
        return NULL;
    }
    begin_delta_file(jw, &sf, signer, change->version, change->timestamp,
                     change_key(change->kind, 1));
    write_delta_change(jw, change, &sf);
    end_delta_file(jw);
    return NULL;
}

/* --- the end of a stream ------------------------------------------------------ */

uc_error_t *uc_sharing_write_end_stream(uc_jw_t *jw,
                                        const char *next_page_token,
                                        const char *refresh_token,
                                        apr_int64_t min_url_expiration_ms)
{
    uc_jw_begin_object(jw);
    uc_jw_key(jw, "endStreamAction");
    uc_jw_begin_object(jw);
    if (refresh_token)
        uc_jw_field_string(jw, "refreshToken", refresh_token);
    if (next_page_token)
        uc_jw_field_string(jw, "nextPageToken", next_page_token);
    optional_int(jw, "minUrlExpirationTimestamp", min_url_expiration_ms);
    uc_jw_end_object(jw);
    uc_jw_end_object(jw);
    return NULL;
}
