/* SPDX-License-Identifier: Apache-2.0 */
/* A table's Delta log as the server reads it, with the credentials of its
 * storage (uc_table_store.h), as its catalog ratified it when the table
 * is catalog-managed, and its snapshots held until the call ends: what the
 * sharing server, the share checks and the catalog's Delta routes read
 * tables through. */
#ifndef UC_TABLE_LOG_H
#define UC_TABLE_LOG_H

#include "../call/uc_call.h"
#include "../delta/uc_delta.h"
#include "../store/uc_securables.h"

typedef struct uc_table_log {
    uc_call_t *call;
    const char *location;           /* the table's, normalised */
    const uc_objstore_config_t *config;  /* how its files are reached */
    apr_time_t valid_until;        /* when config's credentials expire; 0:
                                    * they do not */
    uc_delta_table_t *delta;
    uc_delta_snapshot_t *latest;   /* read once, when needed */
} uc_table_log_t;

/* The log of `table` (at its storage location): its storage's config
 * (uc_table_store_config), then the log opened through it. When the table
 * is catalog-managed (uc_ratified_commits_managed), its ratified commits
 * are read, once, and the log follows them (uc_delta_catalog_follow): each
 * read of the call sees the versions the catalog had ratified then, none
 * before it ratified them, and the process's cache of snapshots never
 * serves another latest version. On failure log->delta is NULL, and
 * log->config too when the storage's credentials were what failed. */
uc_error_t *uc_table_log_open(uc_call_t *call, const uc_securable_t *table,
                              uc_table_log_t *log);

/* The same log opened again into `pool`, which may outlive the call (a
 * thread's): its config and the catalog's commits it follows copied. */
uc_error_t *uc_table_log_reopen(const uc_table_log_t *log, apr_pool_t *pool,
                                uc_delta_table_t **out);

/* The latest snapshot, through the process's cache of them when the call
 * has one (read once per call); and the one at `version`. Both are held
 * until the call's pool goes. */
uc_error_t *uc_table_log_latest(uc_table_log_t *log,
                                uc_delta_snapshot_t **out);
uc_error_t *uc_table_log_at(uc_table_log_t *log, apr_int64_t version,
                            uc_delta_snapshot_t **out);

#endif
