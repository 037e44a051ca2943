/* SPDX-License-Identifier: Apache-2.0 */
/* Checkpoints: the input is _delta_log/00000000000000000001.checkpoint.
 * parquet of a table whose commits 0, 1 and 2 are valid, read as the base
 * of the snapshots at versions 1 and 2 (a corrupt checkpoint falls back to
 * the commits, as the reader does). */
#include "fuzz_common.h"

#include <stdio.h>
#include <string.h>

#include "core/uc_jw.h"
#include "delta/uc_delta.h"
#include "delta/uc_delta_json.h"

static const char *dir;
static const char *location;

#define CHECKPOINT "_delta_log/00000000000000000001.checkpoint.parquet"

static const char commit0[] =
    "{\"commitInfo\":{\"timestamp\":1000000,\"operation\":\"WRITE\"}}\n"
    "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
    "\"readerFeatures\":[\"deletionVectors\"],"
    "\"writerFeatures\":[\"deletionVectors\"]}}\n"
    "{\"metaData\":{\"id\":\"fuzz\",\"format\":{\"provider\":\"parquet\","
    "\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\","
    "\\\"fields\\\":[{\\\"name\\\":\\\"part\\\",\\\"type\\\":\\\"integer\\\","
    "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":"
    "[\"part\"],\"configuration\":{\"delta.enableChangeDataFeed\":\"true\"},"
    "\"createdTime\":0}}\n"
    "{\"add\":{\"path\":\"part=0/a.parquet\",\"partitionValues\":"
    "{\"part\":\"0\"},\"size\":10,\"modificationTime\":1,"
    "\"dataChange\":true}}\n"
    "{\"add\":{\"path\":\"part=1/b.parquet\",\"partitionValues\":"
    "{\"part\":\"1\"},\"size\":20,\"modificationTime\":1,"
    "\"dataChange\":true}}\n";
static const char commit1[] =
    "{\"commitInfo\":{\"timestamp\":2000000,\"operation\":\"DELETE\"}}\n"
    "{\"remove\":{\"path\":\"part=0/a.parquet\",\"deletionTimestamp\":2,"
    "\"dataChange\":true}}\n"
    "{\"add\":{\"path\":\"part=0/a.parquet\",\"partitionValues\":"
    "{\"part\":\"0\"},\"size\":10,\"modificationTime\":2,"
    "\"dataChange\":true,\"deletionVector\":{\"storageType\":\"i\","
    "\"pathOrInlineDv\":\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{\","
    "\"sizeInBytes\":34,\"cardinality\":1}}}\n"
    "{\"txn\":{\"appId\":\"app\",\"version\":3}}\n";
static const char commit2[] =
    "{\"commitInfo\":{\"timestamp\":3000000,\"operation\":\"WRITE\"}}\n"
    "{\"add\":{\"path\":\"part=2/c.parquet\",\"partitionValues\":"
    "{\"part\":\"2\"},\"size\":30,\"modificationTime\":3,"
    "\"dataChange\":true}}\n"
    "{\"remove\":{\"path\":\"part=1/b.parquet\",\"deletionTimestamp\":3,"
    "\"dataChange\":true}}\n"
    "{\"domainMetadata\":{\"domain\":\"d\",\"configuration\":\"{}\","
    "\"removed\":false}}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static char loc[4200];

    (void)argc;
    (void)argv;
    fuzz_root_pool();
    dir = fuzz_table_dir("checkpoint");
    snprintf(loc, sizeof(loc), "file://%s", dir);
    location = loc;
    fuzz_put_file(dir, "_delta_log/00000000000000000000.json", commit0,
                  sizeof(commit0) - 1);
    fuzz_put_file(dir, "_delta_log/00000000000000000001.json", commit1,
                  sizeof(commit1) - 1);
    fuzz_put_file(dir, "_delta_log/00000000000000000002.json", commit2,
                  sizeof(commit2) - 1);
    fuzz_set_mtime(dir, "_delta_log/00000000000000000000.json", 1000);
    fuzz_set_mtime(dir, "_delta_log/00000000000000000001.json", 2000);
    fuzz_set_mtime(dir, "_delta_log/00000000000000000002.json", 3000);
    fuzz_put_file(dir, "_delta_log/_last_checkpoint", "{\"version\":1}", 13);
    return 0;
}

static void snapshot_at(apr_pool_t *pool, apr_int64_t version)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;
    uc_error_t *err;

    if ((err = uc_delta_table_open(pool, location, NULL, &table))) {
        fuzz_report("table", err);
        return;
    }
    err = uc_delta_snapshot(table, version, &s);
    fuzz_report(version < 0 ? "latest" : "version 1", err);
    if (!err) {
        uc_jw_t *w = uc_jw_make(pool, 1024);

        fuzz_report(s->checkpoint_version == 1 ? "from the checkpoint"
                                               : "from the commits", NULL);
        /* Stats stay compressed until read: writing them all reads
         * every page. */
        err = uc_delta_write_snapshot(w, s, 1);
        fuzz_report(err ? "stats" : uc_jw_text(w), err);
        uc_delta_snapshot_release(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool;

    fuzz_put_file(dir, CHECKPOINT, size ? (const void *)data : "", size);
    apr_pool_create(&pool, fuzz_root_pool());
    snapshot_at(pool, UC_DELTA_LATEST);
    snapshot_at(pool, 1);
    apr_pool_destroy(pool);
    return 0;
}
