/* SPDX-License-Identifier: Apache-2.0 */
/* Log replay, newest action first: the first action seen for a file key,
 * an app id or a domain decides; older ones are skipped. Commits are
 * replayed first, then the base they start from (a checkpoint, or a
 * snapshot being advanced), whose files need no bookkeeping of their own. */
#ifndef UC_DELTA_REPLAY_H
#define UC_DELTA_REPLAY_H

#include "uc_delta_internal.h"
#include "../parquet/uc_parquet.h"

/* Memory holding the strings of files; shared by the snapshots that
 * list those files. */
typedef struct uc_arena {
    apr_pool_t *pool;
    volatile apr_uint32_t refs;
    apr_size_t bytes;
} uc_arena_t;

uc_arena_t *uc_arena_create(void);
void uc_arena_retain(uc_arena_t *arena);
void uc_arena_release(uc_arena_t *arena);
char *uc_arena_strndup(uc_arena_t *arena, const char *s, apr_size_t len);

typedef struct uc_seen {
    apr_uint64_t hash;
    const char *path;
    const char *dv_id;
} uc_seen_t;

typedef struct uc_replay {
    uc_delta_table_t *table;
    apr_pool_t *scratch;
    uc_arena_t *arena;
    apr_pool_t *result;             /* the snapshot's pool, once made */
    uc_seen_t *seen;                /* open addressing, power of two */
    apr_size_t seen_cap;
    apr_size_t seen_count;
    int in_base;                    /* replaying the base now */
    apr_array_header_t *files;      /* uc_delta_file_t, in scratch */
    json_t *protocol;
    json_t *metadata;
    apr_hash_t *apps;               /* appId -> apr_int64_t * */
    apr_hash_t *domains;            /* domain -> text, "" = removed */
    apr_hash_t *partition_texts;    /* interned partition values */
    apr_array_header_t *sidecars;   /* keys of V2 sidecar files */
    apr_array_header_t *sources;    /* arenas of stats sources, held */
    int have_ict;
    apr_int64_t ict;                /* of the newest commit replayed */
} uc_replay_t;

/* The first action of the newest commit: its In-Commit Timestamp. */
void uc_replay_commit_info(uc_replay_t *r, json_t *action);
/* One action line of a commit or a JSON checkpoint part. */
uc_error_t *uc_replay_action(uc_replay_t *r, json_t *action);
/* A file of the base (strings already in r->arena). */
void uc_replay_base_file(uc_replay_t *r, const uc_delta_file_t *file);
/* The extras of a file, in the arena; NULL when there are none. */
const uc_delta_file_extras_t *uc_replay_extras(uc_replay_t *r,
                                               const uc_delta_file_extras_t *x);
/* Interns a partition-values object text in the arena. */
const char *uc_replay_partition_text(uc_replay_t *r, const char *text,
                                     apr_size_t len);

/* The stats of a checkpoint's row group, kept compressed in an arena of
 * their own that the replay holds (and its snapshot will). */
struct uc_delta_stats_source {
    uc_pq_lazy_t *lazy;
    uc_arena_t *arena;
};

uc_error_t *uc_replay_stats_source(uc_replay_t *r,
                                   const uc_pq_file_t *file,
                                   int row_group,
                                   const uc_pq_node_t *leaf,
                                   const uc_delta_stats_source_t **out);
/* Holds the arena of a source a file of the base still uses. */
void uc_replay_keep_source(uc_replay_t *r,
                           const uc_delta_stats_source_t *source);
/* Lets go of the replay's arenas when it makes no snapshot. */
void uc_replay_release_arenas(uc_replay_t *r);

/* `err` in Delta's vocabulary: a Parquet file that cannot be read is a
 * damaged log (UC_E_MALFORMED_DELTA_LOG), which an older checkpoint may stand
 * in for. Other errors pass as they are. */
uc_error_t *uc_delta_parquet_error(uc_error_t *err);

/* Reads checkpoint `cp` into the replay as its base. */
uc_error_t *uc_checkpoint_read(uc_replay_t *r, const uc_log_checkpoint_t *cp);

#endif
