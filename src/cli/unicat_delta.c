/* SPDX-License-Identifier: Apache-2.0 */
/* unicat-delta: prints a Delta table's snapshot or change data feed as
 * JSON, for debugging a share and for tests.
 *
 *   unicat-delta [options] LOCATION
 *     LOCATION            file:///dir, s3://bucket/prefix, or a local path
 *     --version N         the snapshot at version N
 *     --timestamp T       the snapshot as of T (ISO-8601 or epoch ms)
 *     --changes S[:E]     the change data feed of versions S to E
 *     --no-files          the snapshot without its file list
 *     --catalog-commits F the table is catalog-managed: F (or - for stdin)
 *                         holds its catalog's answer of GET
 *                         /api/2.1/unity-catalog/delta/preview/commits
 *                         asked from version 0, and the table is read as
 *                         those ratified commits say
 *     --region R, --endpoint URL, --path-style
 *                         S3 addressing; keys come from AWS_ACCESS_KEY_ID,
 *                         AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN
 *
 * Exit status: 0 on success, 1 when the table cannot be read (the error is
 * printed as JSON on stderr), 2 for bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include <apr_getopt.h>
#include <apr_strings.h>
#include <apr_file_info.h>
#include <apr_file_io.h>

#include "../core/uc_time.h"
#include "../delta/uc_delta.h"
#include "../delta/uc_delta_json.h"

static const apr_getopt_option_t options[] = {
    { "version", 'v', 1, "snapshot at version N" },
    { "timestamp", 't', 1, "snapshot as of a timestamp" },
    { "changes", 'c', 1, "change data feed S[:E]" },
    { "no-files", 'n', 0, "omit the file list" },
    { "catalog-commits", 'C', 1, "the catalog's ratified commits" },
    { "region", 'r', 1, "S3 region" },
    { "endpoint", 'e', 1, "S3 endpoint URL" },
    { "path-style", 'p', 0, "S3 path-style addressing" },
    { "help", 'h', 0, "this help" },
    { NULL, 0, 0, NULL }
};

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "unicat-delta: %s\n", why);
    fprintf(stderr,
            "usage: unicat-delta [--version N | --timestamp T | --changes "
            "S[:E]] [--no-files]\n"
            "                    [--catalog-commits FILE] [--region R] "
            "[--endpoint URL]\n"
            "                    [--path-style] LOCATION\n");
    return 2;
}

static int fail(apr_pool_t *pool, const uc_error_t *err)
{
    uc_jw_t *w = uc_jw_make(pool, 256);

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "error_code", err->code);
    uc_jw_field_string(w, "message", err->message);
    /* The tool's user named the table: where it lies is theirs to see. */
    if (err->cause)
        uc_jw_field_string(w, "cause", err->cause);
    uc_jw_end_object(w);
    fprintf(stderr, "%s\n", uc_jw_text(w));
    return 1;
}

static int parse_version(const char *s, apr_int64_t *v)
{
    char *end;

    if (!*s)
        return 0;
    *v = apr_strtoi64(s, &end, 10);
    return *end == '\0' && *v >= 0;
}

/* A bare path names a local table. */
static const char *location_of(apr_pool_t *pool, const char *arg)
{
    char *abs;

    if (strstr(arg, "://"))
        return arg;
    if (apr_filepath_merge(&abs, NULL, arg, APR_FILEPATH_TRUENAME, pool)
        != APR_SUCCESS)
        return apr_pstrcat(pool, "file://", arg, NULL);
    return apr_pstrcat(pool, "file://", abs, NULL);
}

typedef struct request {
    apr_int64_t version;
    const char *timestamp;
    const char *changes;
    const char *catalog_commits;    /* a file name, "-" for stdin; or NULL */
    int with_files;
    uc_objstore_config_t s3;
} request_t;

/* The catalog's commits are a few hundred bytes each, and few. */
#define MAX_CATALOG_BYTES (16 << 20)

/* Makes `table` follow the catalog's commits `path` holds. */
static uc_error_t *follow_catalog(apr_pool_t *pool, uc_delta_table_t *table,
                                  const char *path)
{
    apr_file_t *f;
    char *text = apr_palloc(pool, MAX_CATALOG_BYTES + 1);
    apr_size_t len = MAX_CATALOG_BYTES + 1;
    uc_delta_catalog_t *catalog;
    apr_status_t rv;
    uc_error_t *err;

    rv = strcmp(path, "-") == 0
         ? apr_file_open_stdin(&f, pool)
         : apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY, 0,
                         pool);
    if (rv == APR_SUCCESS) {
        rv = apr_file_read_full(f, text, len, &len);
        apr_file_close(f);
    }
    if (rv != APR_SUCCESS && rv != APR_EOF)
        return uc_error_invalid(pool, "--catalog-commits: cannot read %s.",
                                path);
    if (len > MAX_CATALOG_BYTES)
        return uc_error_invalid(pool, "--catalog-commits: %s holds more "
                                "than %d bytes.", path, MAX_CATALOG_BYTES);
    if ((err = uc_delta_catalog_parse(pool, text, len, &catalog)))
        return err;
    return uc_delta_catalog_follow(table, catalog);
}

static int run(apr_pool_t *pool, const char *location, const request_t *rq)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *snapshot;
    uc_jw_t *w = uc_jw_make(pool, 1 << 16);
    uc_error_t *err;
    apr_int64_t version = rq->version;

    if ((err = uc_delta_table_open(pool, location, &rq->s3, &table)) ||
        (rq->catalog_commits &&
         (err = follow_catalog(pool, table, rq->catalog_commits))))
        return fail(pool, err);
    if (rq->changes) {
        char *spec = apr_pstrdup(pool, rq->changes);
        char *colon = strchr(spec, ':');
        apr_int64_t start, end = UC_DELTA_LATEST;
        uc_delta_changes_t *changes;

        if (colon)
            *colon = '\0';
        if (!parse_version(spec, &start)
            || (colon && !parse_version(colon + 1, &end)))
            return usage("--changes takes START or START:END versions");
        if ((err = uc_delta_changes(table, pool, start, end, &changes)))
            return fail(pool, err);
        uc_delta_write_changes(w, changes);
        printf("%s\n", uc_jw_text(w));
        return 0;
    }
    if (rq->timestamp) {
        apr_int64_t ms;

        if (!uc_time_parse_iso8601(rq->timestamp, &ms)
            && !parse_version(rq->timestamp, &ms))
            return usage("--timestamp takes ISO-8601 or epoch milliseconds");
        if ((err = uc_delta_version_at(table, NULL, ms,
                                       UC_DELTA_AT_OR_BEFORE, &version)))
            return fail(pool, err);
    }
    if ((err = uc_delta_snapshot(table, version, &snapshot)))
        return fail(pool, err);
    err = uc_delta_write_snapshot(w, snapshot, rq->with_files);
    uc_delta_snapshot_release(snapshot);
    if (err)
        return fail(pool, err);
    printf("%s\n", uc_jw_text(w));
    return 0;
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *pool;
    apr_getopt_t *opt;
    request_t rq;
    uc_delta_settings_t settings;
    const char *arg;
    uc_error_t *err;
    int ch, rc;
    apr_status_t rv;

    apr_app_initialize(&argc, &argv, NULL);
    atexit(apr_terminate);
    apr_pool_create(&pool, NULL);
    memset(&rq, 0, sizeof(rq));
    rq.version = UC_DELTA_LATEST;
    rq.with_files = 1;
    rq.s3.region = getenv("AWS_REGION");
    rq.s3.endpoint = getenv("AWS_ENDPOINT_URL");
    rq.s3.access_key_id = getenv("AWS_ACCESS_KEY_ID");
    rq.s3.secret_access_key = getenv("AWS_SECRET_ACCESS_KEY");
    rq.s3.session_token = getenv("AWS_SESSION_TOKEN");
    apr_getopt_init(&opt, pool, argc, argv);
    while ((rv = apr_getopt_long(opt, options, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'v':
            if (!parse_version(arg, &rq.version))
                return usage("--version takes a non-negative integer");
            break;
        case 't': rq.timestamp = arg; break;
        case 'c': rq.changes = arg; break;
        case 'n': rq.with_files = 0; break;
        case 'C': rq.catalog_commits = arg; break;
        case 'r': rq.s3.region = arg; break;
        case 'e': rq.s3.endpoint = arg; break;
        case 'p': rq.s3.path_style = 1; break;
        default: return usage(NULL);
        }
    }
    if (rv != APR_EOF)
        return usage(NULL);
    if (opt->ind != argc - 1)
        return usage("one table location is needed");
    if (!!rq.changes + !!rq.timestamp + (rq.version != UC_DELTA_LATEST) > 1)
        return usage("give one of --version, --timestamp and --changes");
    uc_delta_settings_default(&settings);
    if ((err = uc_delta_init(pool, &settings)))
        return fail(pool, err);
    rc = run(pool, location_of(pool, argv[opt->ind]), &rq);
    apr_pool_destroy(pool);
    return rc;
}
