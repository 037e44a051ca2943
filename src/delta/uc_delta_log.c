/* SPDX-License-Identifier: Apache-2.0 */
/* The files of _delta_log: which commits and complete checkpoints exist,
 * their times, and commits read as JSON lines. _last_checkpoint is only a
 * hint of where to start listing; what the listing shows decides. */
#include "uc_delta_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_percent.h"

#define VERSION_DIGITS 20
/* A commit is a few actions per file; anything larger is not a commit. */
#define MAX_COMMIT_BYTES ((apr_off_t)512 << 20)
#define MAX_LAST_CHECKPOINT_BYTES 65536

static uc_error_t *table_error(apr_pool_t *pool,
                               const uc_delta_table_t *table,
                               uc_error_kind_t kind, const char *message)
{
    return uc_error_because(pool, uc_error_make(pool, kind, "%s", message),
                            "the Delta table at '%s': %s", table->location,
                            message);
}

uc_error_t *uc_delta_table_error(apr_pool_t *pool,
                                 const uc_delta_table_t *table,
                                 uc_error_kind_t kind, const char *fmt, ...)
{
    va_list ap;
    const char *message;

    va_start(ap, fmt);
    message = apr_pvsprintf(pool, fmt, ap);
    va_end(ap);
    return table_error(pool, table, kind, message);
}

uc_error_t *uc_delta_corrupt(apr_pool_t *pool, const uc_delta_table_t *table,
                             const char *fmt, ...)
{
    va_list ap;
    const char *what;

    va_start(ap, fmt);
    what = apr_pvsprintf(pool, fmt, ap);
    va_end(ap);
    return table_error(pool, table, UC_E_MALFORMED_DELTA_LOG,
                       apr_pstrcat(pool, "The table's Delta log cannot be "
                                   "read: ", what, ".", NULL));
}

uc_error_t *uc_delta_table_open(apr_pool_t *pool, const char *location,
                                const uc_objstore_config_t *config,
                                uc_delta_table_t **out)
{
    uc_delta_table_t *table = apr_pcalloc(pool, sizeof(*table));
    uc_error_t *err;

    if ((err = uc_objstore_open(pool, location, config, &table->store)))
        return err;
    table->pool = pool;
    table->location = uc_objstore_location(table->store);
    *out = table;
    return NULL;
}

uc_error_t *uc_delta_log_data_key(apr_pool_t *pool, const char *path,
                                  const char **key)
{
    /* A scheme before any '/' makes the URI absolute. */
    int absolute = path[strcspn(path, ":/")] == ':';
    const char *k = absolute ? NULL : uc_percent_decode(pool, path);

    if (!k || !*k || !uc_objstore_key_is_safe(k))
        return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG, "The table's "
                             "log names the file '%s', which is not inside "
                             "the table.", path);
    *key = k;
    return NULL;
}

const char *uc_delta_commit_key(apr_pool_t *pool, apr_int64_t version)
{
    return apr_psprintf(pool, UC_DELTA_LOG_DIR "%020" APR_INT64_T_FMT ".json",
                        version);
}

static int parse_digits(const char *s, int n, apr_int64_t *value)
{
    apr_int64_t v = 0;
    int i;

    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (v > (INT64_MAX - (s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *value = v;
    return 1;
}

typedef struct part_set {
    apr_int64_t version;
    int num_parts;
    const char **names;
    int found;
    apr_int64_t mtime;
} part_set_t;

typedef struct listing {
    apr_pool_t *pool;
    apr_array_header_t *commits;
    apr_array_header_t *checkpoints;
    apr_hash_t *part_sets;          /* "<v>.<p>" -> part_set_t */
} listing_t;

static void add_checkpoint(listing_t *l, apr_int64_t version,
                           uc_checkpoint_kind_t kind, const char *name,
                           apr_int64_t mtime)
{
    uc_log_checkpoint_t *cp = apr_array_push(l->checkpoints);

    cp->version = version;
    cp->kind = kind;
    cp->num_parts = 1;
    cp->names = apr_palloc(l->pool, sizeof(char *));
    cp->names[0] = name;
    cp->mtime = mtime;
}

/* Parts of multi-part checkpoints are gathered until all are seen. */
static void add_part(listing_t *l, apr_int64_t version, apr_int64_t part,
                     apr_int64_t parts, const char *name, apr_int64_t mtime)
{
    const char *key;
    part_set_t *set;

    if (parts < 1 || part < 1 || part > parts || parts > 100000)
        return;
    key = apr_psprintf(l->pool, "%" APR_INT64_T_FMT ".%" APR_INT64_T_FMT,
                       version, parts);
    set = apr_hash_get(l->part_sets, key, APR_HASH_KEY_STRING);
    if (!set) {
        set = apr_pcalloc(l->pool, sizeof(*set));
        set->version = version;
        set->num_parts = (int)parts;
        set->names = apr_pcalloc(l->pool, sizeof(char *) * (apr_size_t)parts);
        apr_hash_set(l->part_sets, key, APR_HASH_KEY_STRING, set);
    }
    if (!set->names[part - 1]) {
        set->names[part - 1] = name;
        set->found++;
    }
    if (mtime > set->mtime)
        set->mtime = mtime;
}

static int is_uuid_like(const char *s, apr_size_t n)
{
    apr_size_t i;

    if (n != 36)
        return 0;
    for (i = 0; i < n; i++)
        if (!(apr_isxdigit(s[i]) || (s[i] == '-' && (i == 8 || i == 13
                                                     || i == 18 || i == 23))))
            return 0;
    return 1;
}

static void classify(listing_t *l, const uc_object_t *obj)
{
    const char *name = obj->name, *rest;
    apr_size_t n = strlen(name);
    apr_int64_t version, part, parts;

    if (n < VERSION_DIGITS + 5 || !parse_digits(name, VERSION_DIGITS, &version)
        || name[VERSION_DIGITS] != '.')
        return;
    rest = name + VERSION_DIGITS + 1;
    if (strcmp(rest, "json") == 0) {
        uc_log_commit_t *c = apr_array_push(l->commits);

        c->version = version;
        c->mtime = obj->mtime_ms;
        return;
    }
    if (strncmp(rest, "checkpoint.", 11) != 0)
        return;
    rest += 11;
    n = strlen(rest);
    if (strcmp(rest, "parquet") == 0)
        add_checkpoint(l, version, UC_CHECKPOINT_CLASSIC, name,
                       obj->mtime_ms);
    else if (n == 10 + 1 + 10 + 8 && rest[10] == '.'
             && parse_digits(rest, 10, &part)
             && parse_digits(rest + 11, 10, &parts)
             && strcmp(rest + 21, ".parquet") == 0)
        add_part(l, version, part, parts, name, obj->mtime_ms);
    else if ((n == 36 + 5 && strcmp(rest + 36, ".json") == 0)
             || (n == 36 + 8 && strcmp(rest + 36, ".parquet") == 0)) {
        if (is_uuid_like(rest, 36))
            add_checkpoint(l, version, UC_CHECKPOINT_V2, name,
                           obj->mtime_ms);
    }
}

static int by_commit_version(const void *a, const void *b)
{
    apr_int64_t x = ((const uc_log_commit_t *)a)->version;
    apr_int64_t y = ((const uc_log_commit_t *)b)->version;

    return x < y ? -1 : x > y;
}

/* Ascending version; at one version the cheapest kind to read first. */
static int by_checkpoint_version(const void *a, const void *b)
{
    const uc_log_checkpoint_t *x = a, *y = b;

    if (x->version != y->version)
        return x->version < y->version ? -1 : 1;
    return (int)x->kind - (int)y->kind;
}

static void monotonize(apr_array_header_t *commits)
{
    uc_log_commit_t *c = (uc_log_commit_t *)commits->elts;
    int i;

    for (i = 0; i < commits->nelts; i++) {
        c[i].timestamp = c[i].mtime;
        if (i > 0 && c[i].timestamp <= c[i - 1].timestamp)
            c[i].timestamp = c[i - 1].timestamp + 1;
    }
}

/* The log from the first name after `start_after` on (NULL: all of it),
 * which holds the commits of versions `from` and after. */
static uc_error_t *list_from(uc_delta_table_t *table, apr_pool_t *pool,
                             const char *start_after, apr_int64_t from,
                             uc_delta_log_t **out)
{
    listing_t l;
    apr_array_header_t *objects;
    apr_hash_index_t *hi;
    uc_delta_log_t *log = apr_pcalloc(pool, sizeof(*log));
    uc_error_t *err;
    int i;

    if ((err = uc_objstore_list(table->store, pool, UC_DELTA_LOG_DIR,
                                start_after, &objects)))
        return err;
    l.pool = pool;
    l.commits = apr_array_make(pool, objects->nelts + 1,
                               sizeof(uc_log_commit_t));
    l.checkpoints = apr_array_make(pool, 4, sizeof(uc_log_checkpoint_t));
    l.part_sets = apr_hash_make(pool);
    for (i = 0; i < objects->nelts; i++)
        classify(&l, &((uc_object_t *)objects->elts)[i]);
    for (hi = apr_hash_first(pool, l.part_sets); hi; hi = apr_hash_next(hi)) {
        part_set_t *set = apr_hash_this_val(hi);
        uc_log_checkpoint_t *cp;

        if (set->found != set->num_parts)
            continue;
        cp = apr_array_push(l.checkpoints);
        cp->version = set->version;
        cp->kind = UC_CHECKPOINT_MULTI_PART;
        cp->num_parts = set->num_parts;
        cp->names = set->names;
        cp->mtime = set->mtime;
    }
    qsort(l.commits->elts, (size_t)l.commits->nelts, sizeof(uc_log_commit_t),
          by_commit_version);
    qsort(l.checkpoints->elts, (size_t)l.checkpoints->nelts,
          sizeof(uc_log_checkpoint_t), by_checkpoint_version);
    uc_delta_catalog_merge(table, from, l.commits, l.checkpoints);
    monotonize(l.commits);
    log->commits = l.commits;
    log->checkpoints = l.checkpoints;
    log->latest = -1;
    if (l.commits->nelts)
        log->latest = APR_ARRAY_IDX(l.commits, l.commits->nelts - 1,
                                    uc_log_commit_t).version;
    if (l.checkpoints->nelts) {
        apr_int64_t v = APR_ARRAY_IDX(l.checkpoints, l.checkpoints->nelts - 1,
                                      uc_log_checkpoint_t).version;
        if (v > log->latest)
            log->latest = v;
    }
    /* Whatever the log lacks of it, the catalog's latest version is the
     * table's (reading it says what is missing). */
    if (uc_delta_catalog_governs(table))
        log->latest = uc_delta_catalog_of(table)->latest;
    log->complete = start_after == NULL;
    *out = log;
    return NULL;
}

uc_error_t *uc_delta_list_after(uc_delta_table_t *table, apr_pool_t *pool,
                                apr_int64_t version, uc_delta_log_t **out)
{
    return list_from(table, pool, apr_psprintf(pool, "%020" APR_INT64_T_FMT
                                               ".json", version),
                     version + 1, out);
}

/* The version _last_checkpoint names, or -1 when it is missing, empty or
 * not what it should be. */
static apr_int64_t hinted_version(uc_delta_table_t *table, apr_pool_t *pool)
{
    char *data;
    apr_size_t len;
    json_t *hint, *version;
    apr_int64_t v = -1;

    if (uc_objstore_read(table->store, pool, UC_DELTA_LOG_DIR
                         "_last_checkpoint", 0, MAX_LAST_CHECKPOINT_BYTES,
                         &data, &len) != NULL || len == 0)
        return -1;
    hint = json_loadb(data, len, 0, NULL);
    if (!hint)
        return -1;
    version = json_object_get(hint, "version");
    if (json_is_integer(version) && json_integer_value(version) >= 0)
        v = json_integer_value(version);
    json_decref(hint);
    return v;
}

uc_error_t *uc_delta_list(uc_delta_table_t *table, apr_pool_t *pool,
                          int use_hint, uc_delta_log_t **out)
{
    uc_delta_log_t *log;
    uc_error_t *err;

    if (table->full_log) {
        *out = table->full_log;
        return NULL;
    }
    if (use_hint) {
        apr_int64_t hint = hinted_version(table, pool);

        if (hint > 0) {
            const char *from = apr_psprintf(pool, "%020" APR_INT64_T_FMT,
                                            hint);
            if ((err = list_from(table, pool, from, hint, &log)))
                return err;
            /* Usable when a complete checkpoint at or after the hint is
             * there; a stale or wrong hint lists the whole log. */
            if (log->checkpoints->nelts > 0) {
                *out = log;
                return NULL;
            }
        }
    }
    if ((err = list_from(table, table->pool, NULL, 0, &log)))
        return err;
    if (log->latest < 0)
        return uc_delta_table_error(pool, table,
                                    UC_E_RESOURCE_DOES_NOT_EXIST, "The "
                                    "table is not a Delta table: its "
                                    "_delta_log holds no commit or "
                                    "checkpoint.");
    table->full_log = log;
    *out = log;
    return NULL;
}

const uc_log_commit_t *uc_delta_log_commit(const uc_delta_log_t *log,
                                           apr_int64_t version)
{
    const uc_log_commit_t *c = (const uc_log_commit_t *)log->commits->elts;
    int lo = 0, hi = log->commits->nelts - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;

        if (c[mid].version == version)
            return &c[mid];
        if (c[mid].version < version)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

uc_error_t *uc_delta_parse_lines(uc_delta_table_t *table, apr_pool_t *pool,
                                 const char *name, const char *data,
                                 apr_size_t len,
                                 apr_array_header_t **actions)
{
    apr_array_header_t *out = apr_array_make(pool, 16, sizeof(json_t *));
    const char *p = data, *end = data + len;
    int line = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (apr_size_t)(end - p));
        const char *stop = nl ? nl : end;
        json_error_t jerr;
        json_t *action;

        line++;
        while (p < stop && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < stop) {
            action = json_loadb(p, (apr_size_t)(stop - p), JSON_ALLOW_NUL,
                                &jerr);
            if (!action || !json_is_object(action)) {
                json_decref(action);
                return uc_delta_corrupt(pool, table, "line %d of %s is not "
                                        "a JSON object", line, name);
            }
            APR_ARRAY_PUSH(out, json_t *) = uc_json_own(pool, action);
        }
        p = stop + 1;
    }
    *actions = out;
    return NULL;
}

static uc_error_t *read_commit_file(uc_delta_table_t *table,
                                    apr_pool_t *pool, const char *key,
                                    char **data, apr_size_t *len)
{
    return uc_objstore_read(table->store, pool, key, 0, MAX_COMMIT_BYTES,
                            data, len);
}

/* A ratified commit not yet published is its catalog's staged file; once
 * published, the staged file may go: the published one is its copy. */
uc_error_t *uc_delta_read_commit(uc_delta_table_t *table, apr_pool_t *pool,
                                 apr_int64_t version,
                                 apr_array_header_t **actions)
{
    const char *staged = uc_delta_catalog_staged_key(table, pool, version);
    const char *key = staged ? staged : uc_delta_commit_key(pool, version);
    char *data;
    apr_size_t len;
    uc_error_t *err = read_commit_file(table, pool, key, &data, &len);

    if (err && staged && uc_error_is_missing(err)) {
        key = uc_delta_commit_key(pool, version);
        err = read_commit_file(table, pool, key, &data, &len);
    }
    if (err) {
        if (!uc_error_is_missing(err))
            return err;
        return staged
            ? uc_delta_corrupt(pool, table, "commit %" APR_INT64_T_FMT ", "
                               "which its catalog ratified as %s, is "
                               "missing", version, staged)
            : uc_delta_corrupt(pool, table, "commit %" APR_INT64_T_FMT
                               " is missing", version);
    }
    return uc_delta_parse_lines(table, pool, key, data, len, actions);
}

uc_error_t *uc_delta_read_ict(uc_delta_table_t *table, apr_pool_t *pool,
                              apr_int64_t version, int *found,
                              apr_int64_t *ict)
{
    apr_array_header_t *actions;
    json_t *info, *value;
    uc_error_t *err;

    *found = 0;
    if ((err = uc_delta_read_commit(table, pool, version, &actions)))
        return err;
    /* The protocol puts commitInfo first when ICT is on. */
    if (actions->nelts == 0)
        return NULL;
    info = json_object_get(APR_ARRAY_IDX(actions, 0, json_t *),
                           "commitInfo");
    value = json_object_get(info, "inCommitTimestamp");
    if (json_is_integer(value)) {
        *ict = json_integer_value(value);
        *found = 1;
    }
    return NULL;
}
