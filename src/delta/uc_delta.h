/* SPDX-License-Identifier: Apache-2.0 */
/* Delta Lake tables read from their _delta_log: snapshots at the latest
 * version, at a version or at a timestamp; the change data feed of a range
 * of versions; a per-process cache of latest snapshots.
 *
 * A snapshot is immutable and reference counted, so threads share it; its
 * memory is its own (not a request pool's). */
#ifndef UC_DELTA_H
#define UC_DELTA_H

#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_tables.h>
#include <jansson.h>

#include "../core/uc_error.h"
#include "../objstore/uc_objstore.h"

/* What the reader may take of the process, fixed when it is set up. */
typedef struct uc_delta_settings {
    /* Threads that decode the pages of a large checkpoint, and then read
     * its rows, at once; 1 = the calling thread alone. */
    int decode_threads;
    /* The most threads one request works with at once, its own included:
     * a snapshot build uses min(decode_threads, request_threads). */
    int request_threads;
    /* Threads that render a long Delta Sharing answer's file lines
     * together while the request's own streams them (it renders too);
     * 1 = the request's thread alone. */
    int answer_threads;
    /* Freed memory kept for the next builds instead of being returned to
     * the system; 0 = none. */
    apr_size_t retained_memory;
} uc_delta_settings_t;

#define UC_DELTA_MAX_DECODE_THREADS 8
#define UC_DELTA_MAX_REQUEST_THREADS 64
#define UC_DELTA_MAX_ANSWER_THREADS 8

/* The defaults: 2 decode threads, 8 request threads, 2 answer threads,
 * 64 MiB retained. */
void uc_delta_settings_default(uc_delta_settings_t *settings);

/* Sets the reader up for this process: the memory it builds snapshots in,
 * libcurl for the object stores, and `settings`, which nothing changes
 * afterwards. Call it before any thread uses the reader (httpd: in
 * child_init; a program: in main), never while one does. `pool` owns the
 * set-up and its cleanup undoes it, so what the reader made must be gone
 * by then (a snapshot cache made from `pool` afterwards is). A set-up
 * made while another is in force replaces its settings until its own pool
 * is cleaned up (tests try other settings so). A setting out of range is
 * a 400 naming it. */
uc_error_t *uc_delta_init(apr_pool_t *pool,
                          const uc_delta_settings_t *settings);

/* The threads a long sharing answer is rendered by: min(answer_threads,
 * request_threads). */
int uc_delta_answer_threads(void);

/* Errors are of the kinds the sharing API answers in Delta Sharing's
 * vocabulary: UC_E_MALFORMED_DELTA_LOG, UC_E_UNSUPPORTED_OPERATION,
 * UC_E_RESOURCE_DOES_NOT_EXIST (and UC_E_STORAGE from the store). */

/* An absent optional number (baseRowId, ...). */
#define UC_DELTA_NONE INT64_MIN

/* What few files carry, kept apart so that files without it cost less
 * (a snapshot holds one uc_delta_file_t per active file). */
typedef struct uc_delta_file_extras {
    const char *tags;               /* JSON object, or NULL */
    const char *deletion_vector;    /* JSON object, or NULL */
    const char *dv_id;              /* unique id of the DV, or NULL */
    apr_int64_t base_row_id;        /* UC_DELTA_NONE when absent */
    apr_int64_t default_row_commit_version;
} uc_delta_file_extras_t;

typedef struct uc_delta_stats_source uc_delta_stats_source_t;

/* One active data file. Text members are JSON exactly as a commit would
 * spell them; all live in the snapshot's memory. */
typedef struct uc_delta_file {
    const char *path;               /* as in the log: a URI, maybe relative */
    const char *partition_values;   /* JSON object */
    const char *stats;              /* JSON text, or NULL: see below */
    const uc_delta_file_extras_t *extras;   /* NULL when it has none */
    apr_int64_t size;
    apr_int64_t modification_time;
    /* The stats of a file a Parquet checkpoint lists stay compressed in
     * the snapshot until uc_delta_file_stats reads them: they are most of
     * its memory and few requests read them. */
    const uc_delta_stats_source_t *stats_source;    /* or NULL */
    apr_int64_t stats_row;
} uc_delta_file_t;

static inline const char *uc_delta_file_dv_id(const uc_delta_file_t *f)
{
    return f->extras ? f->extras->dv_id : NULL;
}

typedef struct uc_delta_snapshot uc_delta_snapshot_t;

/* What a reader must know of a table's protocol. */
typedef struct uc_delta_features {
    int min_reader_version;
    int min_writer_version;
    apr_array_header_t *reader_features;   /* const char *, may be empty */
    apr_array_header_t *writer_features;
    int in_commit_timestamps;       /* ICT enabled by the metadata */
    apr_int64_t ict_enablement_version;
    apr_int64_t ict_enablement_timestamp;   /* UC_DELTA_NONE when unset */
    int change_data_feed;           /* delta.enableChangeDataFeed */
    const char *column_mapping;     /* "none", "name" or "id" */
} uc_delta_features_t;

struct uc_delta_snapshot {
    const char *location;
    apr_int64_t version;
    apr_int64_t timestamp;          /* ms of the version's commit */
    apr_int64_t checkpoint_version; /* -1 when replayed from JSON alone */
    const char *protocol;           /* compact JSON of the protocol action */
    const char *metadata;           /* compact JSON of the metaData action */
    uc_delta_features_t features;
    const uc_delta_file_t *files;
    apr_size_t num_files;
    apr_hash_t *app_versions;       /* txn appId -> apr_int64_t * */
    apr_hash_t *domains;            /* domain -> configuration text */
    apr_size_t bytes;               /* memory held, for the cache budget */
};

/* The MD5 of the path of file `i` as the log spells it (UC_MD5_BYTES),
 * the id Delta Sharing gives files: computed for a block of files when
 * one of them is first asked for, then kept with the snapshot (its bytes
 * are counted). NULL when memory runs out. Safe between threads. */
const unsigned char *uc_delta_file_path_md5(
    const uc_delta_snapshot_t *snapshot, apr_size_t i);

/* The files of a snapshot by the text of their partition values (which
 * the reader interns): each distinct text once, with the indexes of its
 * files in snapshot order, so that a filter on partition values is judged
 * once per partition and costs the files it keeps. Built when first asked
 * for, then kept with the snapshot (its bytes are counted). NULL when
 * memory runs out. Safe between threads. */
typedef struct uc_delta_partition_group {
    const char *values;             /* the partitionValues text */
    apr_size_t count;
    const apr_uint32_t *files;      /* indexes into the snapshot's files */
} uc_delta_partition_group_t;

typedef struct uc_delta_partitions {
    apr_size_t num_groups;
    const uc_delta_partition_group_t *groups;
} uc_delta_partitions_t;

const uc_delta_partitions_t *uc_delta_snapshot_partitions(
    const uc_delta_snapshot_t *snapshot);

/* Reference counting: a snapshot is freed when its last holder lets go. */
void uc_delta_snapshot_retain(uc_delta_snapshot_t *snapshot);
void uc_delta_snapshot_release(uc_delta_snapshot_t *snapshot);

/* A table: a store plus what was learnt of its log in this use. */
typedef struct uc_delta_table uc_delta_table_t;

uc_error_t *uc_delta_table_open(apr_pool_t *pool, const char *location,
                                const uc_objstore_config_t *config,
                                uc_delta_table_t **out);

#define UC_DELTA_LATEST (-1)

/* A catalog-managed table (PROTOCOL.md "Catalog-managed tables") is what
 * its catalog ratified, not what _delta_log/ holds: a ratified commit
 * lives as _delta_log/_staged_commits/<file_name> until it is published
 * (backfilled) as _delta_log/<version>.json, and a file above the
 * catalog's latest version is no version yet. What the catalog says: */
typedef struct uc_delta_ratified {
    apr_int64_t version;
    const char *file_name;          /* a name in _delta_log/_staged_commits/ */
    apr_int64_t size;
    apr_int64_t mtime;              /* the file's, ms */
    apr_int64_t timestamp;          /* the commit's in-commit timestamp, ms */
} uc_delta_ratified_t;

typedef struct uc_delta_catalog {
    /* The latest version it ratified; UC_DELTA_LATEST when it ratified
     * none (the table is then what _delta_log/ holds). */
    apr_int64_t latest;
    /* The ratified commits not yet published, oldest first, one per
     * version up to `latest` (none when every one is published). */
    const uc_delta_ratified_t *commits;
    int num_commits;
} uc_delta_catalog_t;

/* Reads `table` as its catalog says, from now on: its commits are the
 * published ones below the first of catalog->commits, then the catalog's
 * staged files (each wins over a published file of its version, and is
 * read from that file, its copy, once it is gone), and none above
 * catalog->latest; a checkpoint above it is no checkpoint. _staged_commits/
 * is never listed: what else lies there is no commit. The catalogManaged
 * reader feature is read only so. `catalog` is copied. A list that is not
 * one commit per version up to `latest`, or a name that is not a plain
 * file name, is a 400. */
uc_error_t *uc_delta_catalog_follow(uc_delta_table_t *table,
                                    const uc_delta_catalog_t *catalog);
/* Whether `name` may be a ratified commit's file_name: one name in
 * _delta_log/_staged_commits/ (up to UC_DELTA_FILE_NAME_MAX bytes), never
 * a path. */
#define UC_DELTA_FILE_NAME_MAX 1024
int uc_delta_catalog_file_name(const char *name);
/* What the table follows, or NULL. */
const uc_delta_catalog_t *uc_delta_catalog_of(const uc_delta_table_t *table);

/* The catalog's answer of GET /delta/preview/commits (Unity Catalog's
 * DeltaGetCommitsResponse asked from version 0: "commits" newest first,
 * "latest_table_version") as a catalog, into `pool`. No commit and a
 * latest version of 0 is a table the catalog ratified nothing of. Not
 * that answer: a 400 saying what. */
uc_error_t *uc_delta_catalog_parse(apr_pool_t *pool, const char *text,
                                   apr_size_t len, uc_delta_catalog_t **out);

/* The key below the table's location of a file its log names: `path`, a
 * relative URI, percent-decoded once. An absolute URI, or a path that
 * leaves the table, is a 400 MALFORMED_DELTA_LOG. */
uc_error_t *uc_delta_log_data_key(apr_pool_t *pool, const char *path,
                                  const char **key);

/* The snapshot at `version` (UC_DELTA_LATEST for the newest), built from
 * the log. The caller releases it. */
uc_error_t *uc_delta_snapshot(uc_delta_table_t *table, apr_int64_t version,
                              uc_delta_snapshot_t **out);

/* Version lookup by commit time (ms): the latest version committed at or
 * before `timestamp` (snapshot "as of"), or the earliest at or after it
 * (starting points of changes). 400 when there is none. */
typedef enum {
    UC_DELTA_AT_OR_BEFORE,
    UC_DELTA_AT_OR_AFTER
} uc_delta_time_match_t;

/* `latest` (the table's latest snapshot, NULL to build it) tells whether
 * commits carry In-Commit Timestamps. */
uc_error_t *uc_delta_version_at(uc_delta_table_t *table,
                                const uc_delta_snapshot_t *latest,
                                apr_int64_t timestamp,
                                uc_delta_time_match_t match,
                                apr_int64_t *version);

/* One change of the change data feed. */
typedef enum {
    UC_DELTA_CHANGE_CDC,            /* a _change_data file */
    UC_DELTA_CHANGE_ADD,            /* a data file added (inserts) */
    UC_DELTA_CHANGE_REMOVE          /* a data file removed (deletes) */
} uc_delta_change_kind_t;

typedef struct uc_delta_change {
    uc_delta_change_kind_t kind;
    apr_int64_t version;
    apr_int64_t timestamp;
    const char *path;
    const char *partition_values;
    apr_int64_t size;               /* UC_DELTA_NONE when the log omits it */
    const char *stats;
    const char *deletion_vector;
} uc_delta_change_t;

typedef struct uc_delta_changes {
    apr_int64_t start_version;
    apr_int64_t end_version;
    const char *protocol;           /* as of start_version */
    const char *metadata;
    uc_delta_features_t features;
    apr_array_header_t *changes;    /* uc_delta_change_t, in version order */
    apr_array_header_t *metadata_versions; /* apr_int64_t: metaData in range */
    apr_array_header_t *protocol_versions; /* apr_int64_t: protocol in range */
} uc_delta_changes_t;

/* The change data feed of versions [start, end] (end UC_DELTA_LATEST = the
 * newest), into `pool`. 400 when the range is out of bounds or CDF was not
 * on for part of it. */
uc_error_t *uc_delta_changes(uc_delta_table_t *table, apr_pool_t *pool,
                             apr_int64_t start, apr_int64_t end,
                             uc_delta_changes_t **out);

/* The data changes of versions [start, end] as a streaming reader replays
 * them, with or without the change data feed: the add and remove actions
 * with dataChange of each commit (never its cdc files), and the versions
 * after the start that changed the metaData or the protocol. A protocol in the range this reader cannot
 * read is a 400 UNSUPPORTED_OPERATION. */
uc_error_t *uc_delta_data_changes(uc_delta_table_t *table, apr_pool_t *pool,
                                  apr_int64_t start, apr_int64_t end,
                                  uc_delta_changes_t **out);

/* One commit as a table's history shows it. */
typedef struct uc_delta_commit {
    apr_int64_t version;
    /* ms: its commitInfo's inCommitTimestamp when it has one, else the
     * time of its commit file (made monotonic). */
    apr_int64_t timestamp;
    const char *commit_info;        /* compact JSON of its commitInfo, or
                                     * NULL when it has none */
    apr_int64_t num_added_files;    /* its add actions */
    apr_int64_t num_removed_files;  /* its remove actions */
    apr_int64_t added_bytes;        /* the sizes they give */
    apr_int64_t removed_bytes;
} uc_delta_commit_t;

/* Up to `limit` commits (uc_delta_commit_t, into `pool`) of the versions
 * below `below` (UC_DELTA_LATEST: from the newest), newest first, of those
 * the log still holds as JSON commit files; *more tells whether older
 * ones remain. */
uc_error_t *uc_delta_commits_read(uc_delta_table_t *table, apr_pool_t *pool,
                                  apr_int64_t below, int limit,
                                  apr_array_header_t **out, int *more);

/* Reads the stats of files for one thread, with memory from `pool`; it
 * keeps the checkpoint page it decoded last, so that files read in the
 * order of the snapshot decode each page once. With the process's
 * snapshot cache (NULL: none), the pages it decodes stay decoded with the
 * snapshot for later readers, within the cache's budget for them. */
typedef struct uc_delta_stats_reader uc_delta_stats_reader_t;
struct uc_delta_cache;

uc_delta_stats_reader_t *uc_delta_stats_reader_make(
    apr_pool_t *pool, struct uc_delta_cache *cache);
/* The stats text of `file`, or NULL; valid until the reader's next call.
 * A damaged checkpoint page is a 400 error here. */
uc_error_t *uc_delta_file_stats(uc_delta_stats_reader_t *reader,
                                const uc_delta_file_t *file,
                                const char **stats);

/* A file's stats as an answer writes them: their JSON text, or (for the
 * files of a Parquet checkpoint, whose pages of stats are escaped once
 * and kept so) the body of the JSON string that holds it, escaped and
 * without its quotes. */
typedef struct uc_delta_stats_text {
    const char *text;           /* NULL: the file has no stats */
    apr_size_t len;
    int escaped;
} uc_delta_stats_text_t;

/* Stats held as their JSON text (a commit's, or none: NULL). */
uc_delta_stats_text_t uc_delta_stats_text_of(const char *stats);

/* The same as uc_delta_file_stats, in the form the reader holds them. */
uc_error_t *uc_delta_file_stats_text(uc_delta_stats_reader_t *reader,
                                     const uc_delta_file_t *file,
                                     uc_delta_stats_text_t *out);

/* Asks the processor's caches for what reading file `i` of `snapshot`
 * touches, in three stages, each a file later than the one before: 2 its
 * entry; 1 its path, partition values, id digest and where its stats
 * lie; 0 the stats themselves. A reader visiting files far apart (those
 * a filter keeps) calls them ahead of the file it reads, so that the
 * misses overlap. Changes nothing a reader sees. */
void uc_delta_prefetch_file(const uc_delta_snapshot_t *snapshot,
                            apr_size_t i, int stage);

/* The per-process cache of latest snapshots, bounded by `budget` bytes.
 * Safe to share between threads. */
typedef struct uc_delta_cache uc_delta_cache_t;

uc_error_t *uc_delta_cache_create(apr_pool_t *pool, apr_size_t budget,
                                  uc_delta_cache_t **out);
/* What decoded stats pages may take beside the cached snapshots: a
 * quarter of the cache's budget. */
struct uc_pq_page_budget *uc_delta_cache_pages(uc_delta_cache_t *cache);
/* The latest snapshot of the table: the cached one when the log has no
 * newer commit, else the cached one advanced by the new commits (a cold
 * build when nothing usable is cached). The caller releases it. */
uc_error_t *uc_delta_cache_latest(uc_delta_cache_t *cache,
                                  uc_delta_table_t *table,
                                  uc_delta_snapshot_t **out);

typedef struct uc_delta_cache_stats {
    apr_size_t entries;
    apr_size_t bytes;
    apr_uint64_t hits;              /* served without reading a commit */
    apr_uint64_t advances;          /* advanced by new commits */
    apr_uint64_t builds;            /* built from the checkpoint */
    apr_uint64_t evictions;
    apr_size_t decoded_bytes;       /* stats pages kept decoded */
} uc_delta_cache_stats_t;

void uc_delta_cache_stats(uc_delta_cache_t *cache,
                          uc_delta_cache_stats_t *stats);

#endif
