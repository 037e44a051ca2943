/* Shared between the store's own files; not for operations. */
#ifndef UC_STORE_INTERNAL_H
#define UC_STORE_INTERNAL_H

#include "uc_store.h"

struct uc_store_conn {
    uc_dialect_t dialect;
    apr_dbd_prepared_t *statements[UC_STMT_COUNT];
    const char *metastore_id;
    int schema_version;
};

void uc_store_log(uc_store_t *store, uc_log_level_t level, const char *msg);

/* Logs the driver's message for `rc` and maps it to the error the client
 * sees: duplicate key, busy (503 + Retry-After) or internal. */
uc_error_t *uc_store_db_error(uc_store_t *store, int rc, const char *what);

/* Brings the schema up to the last of `migrations` under a lock that
 * serialises every process and server sharing the database. */
uc_error_t *uc_store_migrate(uc_store_t *store, uc_dialect_t dialect,
                             const uc_migration_t *migrations, int *version);

#endif
