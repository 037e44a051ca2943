/* SPDX-License-Identifier: Apache-2.0 */
/* Catalog-managed tables (PROTOCOL.md "Catalog-managed tables"): the
 * catalog's ratified commits merged into what a listing of _delta_log/
 * shows, as Delta's kernel merges them (published commits below the first
 * ratified one, the ratified ones, nothing above the latest), and the
 * file a ratified commit is read from. */
#include "uc_delta_internal.h"

#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"

#define STAGED_DIR UC_DELTA_LOG_DIR "_staged_commits/"

static uc_error_t *bad_catalog(apr_pool_t *pool, const char *what,
                               apr_int64_t version)
{
    return uc_error_make(pool, UC_E_INVALID, "The catalog's commits of the "
                         "table cannot be read: %s (version %"
                         APR_INT64_T_FMT ").", what, version);
}

int uc_delta_catalog_file_name(const char *name)
{
    apr_size_t n = name ? strlen(name) : 0;

    return n > 0 && n <= UC_DELTA_FILE_NAME_MAX && !strchr(name, '/') &&
           !strchr(name, '\\') && strcmp(name, ".") && strcmp(name, "..");
}

static uc_error_t *check(apr_pool_t *pool, const uc_delta_catalog_t *catalog)
{
    int i;

    if (catalog->latest < UC_DELTA_LATEST ||
        (catalog->latest == UC_DELTA_LATEST && catalog->num_commits > 0))
        return bad_catalog(pool, "its latest version is not one",
                           catalog->latest);
    for (i = 0; i < catalog->num_commits; i++) {
        const uc_delta_ratified_t *c = &catalog->commits[i];
        apr_int64_t want = catalog->latest - (catalog->num_commits - 1 - i);

        if (c->version != want)
            return bad_catalog(pool, "its commits are not one per version up "
                               "to its latest", c->version);
        if (!uc_delta_catalog_file_name(c->file_name))
            return bad_catalog(pool, "a commit's file_name is not a name in "
                               "_delta_log/_staged_commits/", c->version);
    }
    return NULL;
}

uc_error_t *uc_delta_catalog_follow(uc_delta_table_t *table,
                                    const uc_delta_catalog_t *catalog)
{
    uc_delta_catalog_t *copy;
    uc_delta_ratified_t *commits;
    uc_error_t *err;
    int i;

    if ((err = check(table->pool, catalog)))
        return err;
    copy = apr_pmemdup(table->pool, catalog, sizeof(*catalog));
    commits = apr_pcalloc(table->pool, sizeof(*commits)
                          * (apr_size_t)(catalog->num_commits + 1));
    for (i = 0; i < catalog->num_commits; i++) {
        commits[i] = catalog->commits[i];
        commits[i].file_name = apr_pstrdup(table->pool,
                                           catalog->commits[i].file_name);
    }
    copy->commits = commits;
    table->catalog = copy;
    table->full_log = NULL;
    return NULL;
}

const uc_delta_catalog_t *uc_delta_catalog_of(const uc_delta_table_t *table)
{
    return table->catalog;
}

/* The ratified commit of `version` not yet published, or NULL. */
static const uc_delta_ratified_t *ratified(const uc_delta_table_t *table,
                                           apr_int64_t version)
{
    const uc_delta_catalog_t *c = table->catalog;
    apr_int64_t first;

    if (!c || c->num_commits == 0)
        return NULL;
    first = c->commits[0].version;
    if (version < first || version > c->latest)
        return NULL;
    return &c->commits[version - first];
}

const char *uc_delta_catalog_staged_key(const uc_delta_table_t *table,
                                        apr_pool_t *pool, apr_int64_t version)
{
    const uc_delta_ratified_t *r = ratified(table, version);

    return r ? apr_pstrcat(pool, STAGED_DIR, r->file_name, NULL) : NULL;
}

int uc_delta_catalog_governs(const uc_delta_table_t *table)
{
    return table->catalog && table->catalog->latest != UC_DELTA_LATEST;
}

/* Keeps the elements of `a` that `keep` keeps against `bound`. */
static void filter(apr_array_header_t *a, int (*keep)(const void *,
                                                      apr_int64_t),
                   apr_int64_t bound)
{
    int i, n = 0;

    for (i = 0; i < a->nelts; i++) {
        char *e = a->elts + (apr_size_t)i * (apr_size_t)a->elt_size;

        if (!keep(e, bound))
            continue;
        if (n != i)
            memcpy(a->elts + (apr_size_t)n * (apr_size_t)a->elt_size, e,
                   (apr_size_t)a->elt_size);
        n++;
    }
    a->nelts = n;
}

static int commit_below(const void *e, apr_int64_t bound)
{
    return ((const uc_log_commit_t *)e)->version < bound;
}

static int checkpoint_at_most(const void *e, apr_int64_t bound)
{
    return ((const uc_log_checkpoint_t *)e)->version <= bound;
}

void uc_delta_catalog_merge(const uc_delta_table_t *table, apr_int64_t from,
                            apr_array_header_t *commits,
                            apr_array_header_t *checkpoints)
{
    const uc_delta_catalog_t *c = table->catalog;
    int i;

    if (!uc_delta_catalog_governs(table))
        return;
    filter(commits, commit_below, c->num_commits ? c->commits[0].version
                                                 : c->latest + 1);
    filter(checkpoints, checkpoint_at_most, c->latest);
    for (i = 0; i < c->num_commits; i++) {
        uc_log_commit_t *commit;

        if (c->commits[i].version < from)
            continue;
        commit = apr_array_push(commits);
        commit->version = c->commits[i].version;
        /* Its time is the one the catalog knows it by: the commit's own,
         * not when a file was written. */
        commit->mtime = c->commits[i].timestamp;
    }
}

/* --- the catalog's answer ------------------------------------------------ */

static uc_error_t *required_int(apr_pool_t *pool, json_t *obj,
                                const char *field, apr_int64_t *out)
{
    return uc_json_required_int(pool, obj, field, 0, APR_INT64_MAX, out);
}

static uc_error_t *read_commit(apr_pool_t *pool, json_t *item,
                               uc_delta_ratified_t *c)
{
    uc_error_t *err;

    if (!json_is_object(item))
        return uc_error_invalid(pool, "Each of 'commits' must be an object.");
    if ((err = required_int(pool, item, "version", &c->version)) ||
        (err = uc_json_string_field(pool, item, "file_name", 1,
                                    &c->file_name)) ||
        (err = required_int(pool, item, "file_size", &c->size)) ||
        (err = required_int(pool, item, "file_modification_timestamp",
                            &c->mtime)))
        return err;
    return required_int(pool, item, "timestamp", &c->timestamp);
}

static int by_version(const void *a, const void *b)
{
    apr_int64_t x = ((const uc_delta_ratified_t *)a)->version;
    apr_int64_t y = ((const uc_delta_ratified_t *)b)->version;

    return x < y ? -1 : x > y;
}

uc_error_t *uc_delta_catalog_parse(apr_pool_t *pool, const char *text,
                                   apr_size_t len, uc_delta_catalog_t **out)
{
    json_t *answer = uc_json_own(pool, json_loadb(text, len, 0, NULL));
    json_t *list = json_object_get(answer, "commits");
    uc_delta_catalog_t *c = apr_pcalloc(pool, sizeof(*c));
    uc_delta_ratified_t *commits;
    uc_error_t *err;
    size_t i;

    if (!json_is_object(answer) || !json_is_array(list))
        return uc_error_invalid(pool, "The catalog's commits must be a JSON "
                                "object with an array 'commits' and "
                                "'latest_table_version', as GET "
                                "/delta/preview/commits answers.");
    if ((err = required_int(pool, answer, "latest_table_version",
                            &c->latest)))
        return err;
    commits = apr_pcalloc(pool, sizeof(*commits) * (json_array_size(list)
                                                    + 1));
    for (i = 0; i < json_array_size(list); i++)
        if ((err = read_commit(pool, json_array_get(list, i), &commits[i])))
            return err;
    qsort(commits, json_array_size(list), sizeof(*commits), by_version);
    c->commits = commits;
    c->num_commits = (int)json_array_size(list);
    if (c->latest == 0 && c->num_commits == 0)
        c->latest = UC_DELTA_LATEST;
    if ((err = check(pool, c)))
        return err;
    *out = c;
    return NULL;
}
