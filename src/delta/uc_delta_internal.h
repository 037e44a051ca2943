/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the files of the Delta log reader; not an interface. */
#ifndef UC_DELTA_INTERNAL_H
#define UC_DELTA_INTERNAL_H

#include "uc_delta.h"

#define UC_DELTA_LOG_DIR "_delta_log/"
#define UC_DELTA_SIDECAR_DIR "_delta_log/_sidecars/"

typedef enum {
    UC_CHECKPOINT_CLASSIC,          /* <v>.checkpoint.parquet */
    UC_CHECKPOINT_V2,               /* <v>.checkpoint.<uuid>.json|parquet */
    UC_CHECKPOINT_MULTI_PART        /* <v>.checkpoint.<o>.<p>.parquet */
} uc_checkpoint_kind_t;

typedef struct uc_log_commit {
    apr_int64_t version;
    apr_int64_t mtime;
    apr_int64_t timestamp;          /* mtime made monotonic */
} uc_log_commit_t;

typedef struct uc_log_checkpoint {
    apr_int64_t version;
    uc_checkpoint_kind_t kind;
    int num_parts;
    const char **names;             /* keys below _delta_log/, by part */
    apr_int64_t mtime;
} uc_log_checkpoint_t;

/* What one listing of _delta_log showed. */
typedef struct uc_delta_log {
    apr_array_header_t *commits;    /* uc_log_commit_t, ascending */
    apr_array_header_t *checkpoints;/* complete ones, ascending version */
    apr_int64_t latest;             /* -1 for an empty log */
    int complete;                   /* listed from the start, not a hint */
} uc_delta_log_t;

struct uc_delta_table {
    apr_pool_t *pool;
    uc_objstore_t *store;
    const char *location;
    uc_delta_log_t *full_log;       /* the whole listing, once needed */
    const uc_delta_catalog_t *catalog;  /* what it follows, or NULL */
};

/* Lists the log; with `use_hint`, from the version _last_checkpoint names
 * (falling back to the whole log when the hint is unusable). */
uc_error_t *uc_delta_list(uc_delta_table_t *table, apr_pool_t *pool,
                          int use_hint, uc_delta_log_t **out);
/* What the log holds after commit `version` (newer commits, and the
 * checkpoints of newer versions). */
uc_error_t *uc_delta_list_after(uc_delta_table_t *table, apr_pool_t *pool,
                                apr_int64_t version, uc_delta_log_t **out);
/* Whether the table's catalog decides its versions: it follows one that
 * ratified some. */
int uc_delta_catalog_governs(const uc_delta_table_t *table);
/* The catalog's commits merged into a listing of the log that holds the
 * commits from version `from` on (both arrays sorted as listed): the
 * published commits below the first ratified one, the ratified ones of
 * `from` and after, the checkpoints up to the catalog's latest version.
 * Nothing when the table's catalog does not govern it. */
void uc_delta_catalog_merge(const uc_delta_table_t *table, apr_int64_t from,
                            apr_array_header_t *commits,
                            apr_array_header_t *checkpoints);
/* The key of the staged file of ratified commit `version` not yet
 * published; NULL when the version has none. */
const char *uc_delta_catalog_staged_key(const uc_delta_table_t *table,
                                        apr_pool_t *pool,
                                        apr_int64_t version);

const uc_log_commit_t *uc_delta_log_commit(const uc_delta_log_t *log,
                                           apr_int64_t version);
const char *uc_delta_commit_key(apr_pool_t *pool, apr_int64_t version);

/* Errors about the table. Their messages say "the table" and never where
 * it lies (an answer may go to a Delta Sharing recipient, who must not
 * learn the provider's storage); its location goes to the cause, for the
 * log. */
uc_error_t *uc_delta_table_error(apr_pool_t *pool,
                                 const uc_delta_table_t *table,
                                 uc_error_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A log that does not read as Delta: MALFORMED_DELTA_LOG saying what. */
uc_error_t *uc_delta_corrupt(apr_pool_t *pool, const uc_delta_table_t *table,
                             const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The ICT of a commit (its first action's commitInfo.inCommitTimestamp);
 * 0 when the commit has none. */
uc_error_t *uc_delta_read_ict(uc_delta_table_t *table, apr_pool_t *pool,
                              apr_int64_t version, int *found,
                              apr_int64_t *ict);

/* Reads a commit's lines as JSON objects (jansson, owned by `pool`). */
uc_error_t *uc_delta_read_commit(uc_delta_table_t *table, apr_pool_t *pool,
                                 apr_int64_t version,
                                 apr_array_header_t **actions);
uc_error_t *uc_delta_parse_lines(uc_delta_table_t *table, apr_pool_t *pool,
                                 const char *name, const char *data,
                                 apr_size_t len,
                                 apr_array_header_t **actions);

/* Reader-side protocol checks and features of a protocol + metadata. */
uc_error_t *uc_delta_read_features(apr_pool_t *pool,
                                   const uc_delta_table_t *table,
                                   json_t *protocol, json_t *metadata,
                                   uc_delta_features_t *features);

/* `base` advanced to `target` by the commits after it, which `log` lists. */
uc_error_t *uc_delta_snapshot_advance(uc_delta_table_t *table,
                                      const uc_delta_snapshot_t *base,
                                      const uc_delta_log_t *log,
                                      apr_int64_t target,
                                      uc_delta_snapshot_t **out);

/* How many threads a snapshot build works with at once, its own
 * included: the decode threads, bounded by the request threads. */
int uc_delta_load_threads(void);

/* The 64-bit hash of a file key (path, deletion vector id). */
apr_uint64_t uc_delta_key_hash(const char *path, const char *dv_id);

#endif
