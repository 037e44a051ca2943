/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta Sharing protocol server: what a recipient, identified by its
 * bearer token, reads of the shares granted to it; and the spec's share
 * management, for catalog principals. */
#ifndef UC_SHARING_API_H
#define UC_SHARING_API_H

#include <apr_thread_pool.h>

#include "../call/uc_call.h"

struct uc_store;

extern const uc_route_t uc_sharing_routes[];

/* The operations on one shared table (uc_shared.c: version and
 * metadata; uc_sharing_query.c; uc_sharing_changes.c); the path's
 * parameters are share, schema and table. */
uc_error_t *uc_sharing_table_version(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_sharing_table_metadata(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_sharing_table_query(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_sharing_table_changes(uc_call_t *call, uc_jw_t *out);
/* uc_sharing_dir.c: POST …/temporary-table-credentials, read credentials
 * for the table's root (directory access), and whether a shared table
 * offers it. */
uc_error_t *uc_sharing_table_credentials(uc_call_t *call, uc_jw_t *out);
struct uc_shared_table;
int uc_sharing_dir_offered(const struct uc_shared_table *t);
/* Open Sharing's assets other than tables, volumes and agent skills
 * (uc_sharing_dir.c): a kind of them, the one the path names (its share,
 * schema and name; 404 when the share holds none of that name), where a
 * recipient reads it (a cloud location whose vended credentials are the
 * asset's alone, the root of its grant on the files route for a local
 * one; NULL where neither), and POST …/temporary-volume-credentials
 * (…/temporary-skill-credentials). */
typedef struct uc_sharing_asset_kind {
    const char *object_type;       /* of the share's objects: "VOLUME" */
    const char *kind;              /* of the securables: UC_KIND_VOLUME */
    const char *label;             /* in errors: "Volume" */
} uc_sharing_asset_kind_t;
uc_error_t *uc_sharing_asset_named(uc_call_t *call,
                                   const uc_sharing_asset_kind_t *a,
                                   struct uc_shared_table **out);
const char *uc_sharing_asset_location(uc_call_t *call,
                                      const struct uc_shared_table *t);
uc_error_t *uc_sharing_asset_credentials(uc_call_t *call, uc_jw_t *out,
                                         const uc_sharing_asset_kind_t *a);

/* Asynchronous queries (uc_sharing_async.c): the process's pool of
 * threads that read a query's snapshot while its client polls, and what
 * the glue lends them. */
typedef struct uc_sharing_async_env {
    apr_thread_pool_t *threads;    /* the child's, made in child_init */
    apr_size_t backlog;            /* at most this many jobs wait: beyond,
                                    * queries are answered at once */
    /* Names this process (host, pid, start) in the rows its threads
     * prepare; NULL when they have no connection of their own (below):
     * polls then never wait for them. */
    const char *process;
    apr_interval_time_t wait;      /* UnicatSharingAsyncWait */
    apr_int64_t lifetime;          /* UnicatSharingAsyncLifetime, seconds */
    /* A connection to the database for a thread of the pool, given back
     * when `pool` goes; NULL when the process has none to lend (prefork:
     * mod_dbd's one connection of the child is its request's). Its
     * threads then only read snapshots into the cache, and the query's
     * poll pins the version itself. */
    uc_error_t *(*store_open)(void *baton, apr_pool_t *pool,
                              struct uc_store **out);
    void *baton;
} uc_sharing_async_env_t;

/* POST …/tables/{table}/queries/{query}: a poll of an asynchronous
 * query. */
uc_error_t *uc_sharing_table_query_poll(uc_call_t *call, uc_jw_t *out);

#endif
