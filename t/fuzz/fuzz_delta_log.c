/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta log reader on fuzzed commits, in a scratch table directory
 * made once per process.
 *
 * Input: a flags byte, then up to five sections separated by NUL bytes
 * (raw NUL cannot occur in JSON text):
 *   commit 0, commit 1, _last_checkpoint, commit 2,
 *   a V2 JSON checkpoint at version 1 (00000000000000000001.checkpoint.
 *   <uuid>.json).
 * A missing section is a missing file. Flags:
 *   bit 0  commit 0 starts with a fixed protocol and metaData
 *   bit 1  ... whose configuration enables the change data feed
 *   bit 2  ... and In-Commit Timestamps (commitInfo first, writer feature)
 *   bit 3  latest snapshots through a cache: built before commit 2 is
 *          written, advanced after
 *   bits 4-5  which timestamp uc_delta_version_at looks for
 * Every input: uc_delta_parse_lines on each section, snapshots at the
 * latest version and at 0 (written as JSON), the change data feed of all
 * versions, and version lookups by time. */
#include "fuzz_common.h"

#include <stdio.h>
#include <string.h>

#include "core/uc_jw.h"
#include "delta/uc_delta_internal.h"
#include "delta/uc_delta_json.h"

#define NUM_SECTIONS 5

static const char *dir;
static const char *location;

static const char *const names[NUM_SECTIONS] = {
    "_delta_log/00000000000000000000.json",
    "_delta_log/00000000000000000001.json",
    "_delta_log/_last_checkpoint",
    "_delta_log/00000000000000000002.json",
    ("_delta_log/00000000000000000001.checkpoint."
     "00000000-0000-4000-8000-000000000000.json"),
};

/* Commit times, seconds: fixed so timestamps are reproducible. */
static const long mtimes[NUM_SECTIONS] = { 1000, 2000, 2500, 3000, 2500 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static char loc[4200];

    (void)argc;
    (void)argv;
    fuzz_root_pool();
    dir = fuzz_table_dir("log");
    snprintf(loc, sizeof(loc), "file://%s", dir);
    location = loc;
    return 0;
}

static void put_section(int i, const fuzz_buf_t *b, int present)
{
    fuzz_put_file(dir, names[i], present ? (b->p ? (void *)b->p : "") : NULL,
                  present ? b->len : 0);
    if (present)
        fuzz_set_mtime(dir, names[i], mtimes[i]);
}

static uc_delta_table_t *open_table(apr_pool_t *pool)
{
    uc_delta_table_t *table;
    uc_error_t *err = uc_delta_table_open(pool, location, NULL, &table);

    fuzz_report("table", err);
    return err ? NULL : table;
}

static void write_snapshot(apr_pool_t *pool, uc_delta_snapshot_t *s)
{
    uc_jw_t *w = uc_jw_make(pool, 1024);

    uc_error_t *err = uc_delta_write_snapshot(w, s, 1);

    fuzz_report(err ? "stats" : uc_jw_text(w), err);
}

static void cached_latest(uc_delta_cache_t *cache, apr_pool_t *pool)
{
    uc_delta_table_t *table = open_table(pool);
    uc_delta_snapshot_t *s;
    uc_error_t *err;

    if (!table)
        return;
    err = uc_delta_cache_latest(cache, table, &s);
    fuzz_report("cache", err);
    if (!err)
        uc_delta_snapshot_release(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_buf_t sections[NUM_SECTIONS];
    int present[NUM_SECTIONS] = { 0 };
    apr_pool_t *pool;
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;
    uc_delta_changes_t *changes;
    uc_delta_cache_t *cache = NULL;
    uc_error_t *err;
    apr_int64_t version;
    int flags, i, n = 0;
    const uint8_t *p, *end;

    if (size < 1)
        return 0;
    flags = data[0];
    for (i = 0; i < NUM_SECTIONS; i++)
        sections[i].len = 0;
    if (flags & 1) {
        static const char ict[] =
            "{\"commitInfo\":{\"inCommitTimestamp\":1000500}}\n";
        const char *protocol = flags & 4
            ? "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,"
              "\"writerFeatures\":[\"inCommitTimestamp\"]}}\n"
            : "{\"protocol\":{\"minReaderVersion\":1,"
              "\"minWriterVersion\":2}}\n";
        const char *config = flags & 4
            ? (flags & 2 ? "{\"delta.enableChangeDataFeed\":\"true\","
                           "\"delta.enableInCommitTimestamps\":\"true\"}"
                         : "{\"delta.enableInCommitTimestamps\":\"true\"}")
            : (flags & 2 ? "{\"delta.enableChangeDataFeed\":\"true\"}"
                         : "{}");
        char meta[512];

        if (flags & 4)
            fuzz_buf_put(&sections[0], ict, sizeof(ict) - 1);
        fuzz_buf_put(&sections[0], protocol, strlen(protocol));
        snprintf(meta, sizeof(meta), "{\"metaData\":{\"id\":\"fuzz\","
                 "\"format\":{\"provider\":\"parquet\",\"options\":{}},"
                 "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\","
                 "\\\"fields\\\":[]}\",\"partitionColumns\":[],"
                 "\"configuration\":%s,\"createdTime\":0}}\n", config);
        fuzz_buf_put(&sections[0], meta, strlen(meta));
    }
    for (p = data + 1, end = data + size; n < NUM_SECTIONS; n++) {
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        const uint8_t *stop = nul ? nul : end;

        present[n] = 1;
        fuzz_buf_put(&sections[n], p, (size_t)(stop - p));
        if (!nul)
            break;
        p = nul + 1;
    }

    apr_pool_create(&pool, fuzz_root_pool());

    /* The line parser alone. */
    if ((table = open_table(pool)))
        for (i = 0; i < NUM_SECTIONS; i++)
            if (present[i]) {
                apr_array_header_t *actions;

                err = uc_delta_parse_lines(table, pool, names[i],
                                           sections[i].p
                                           ? (const char *)sections[i].p : "",
                                           sections[i].len, &actions);
                fuzz_report("parse", err);
            }

    /* The table without commit 2, cached; then with it, advanced. */
    for (i = 0; i < NUM_SECTIONS; i++)
        if (i != 3)
            put_section(i, &sections[i], present[i]);
    put_section(3, &sections[3], 0);
    if (flags & 8) {
        if ((err = uc_delta_cache_create(pool, 1 << 26, &cache)))
            abort();
        cached_latest(cache, pool);
    }
    put_section(3, &sections[3], present[3]);
    if (cache) {
        cached_latest(cache, pool);
        cached_latest(cache, pool);
    }

    /* Cold snapshots. */
    if ((table = open_table(pool))) {
        err = uc_delta_snapshot(table, UC_DELTA_LATEST, &s);
        fuzz_report("latest", err);
        if (!err) {
            write_snapshot(pool, s);
            uc_delta_snapshot_release(s);
        }
    }
    if ((table = open_table(pool))) {
        err = uc_delta_snapshot(table, 0, &s);
        fuzz_report("version 0", err);
        if (!err) {
            write_snapshot(pool, s);
            uc_delta_snapshot_release(s);
        }
    }

    /* The change data feed of every version. */
    if ((table = open_table(pool))) {
        err = uc_delta_changes(table, pool, 0, UC_DELTA_LATEST, &changes);
        fuzz_report("changes", err);
        if (!err) {
            uc_jw_t *w = uc_jw_make(pool, 1024);

            uc_delta_write_changes(w, changes);
            fuzz_report(uc_jw_text(w), NULL);
        }
    }

    /* Versions by time: before, at and between the commit times. */
    if ((table = open_table(pool))) {
        static const apr_int64_t times[4] = { 500, 1000000, 2000500,
                                              1000500 };
        apr_int64_t ts = times[(flags >> 4) & 3];

        err = uc_delta_version_at(table, NULL, ts, UC_DELTA_AT_OR_BEFORE,
                                  &version);
        fuzz_report("version before", err);
        err = uc_delta_version_at(table, NULL, ts, UC_DELTA_AT_OR_AFTER,
                                  &version);
        fuzz_report("version after", err);
    }

    apr_pool_destroy(pool);
    return 0;
}
