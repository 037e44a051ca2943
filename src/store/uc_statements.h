/* Every SQL statement of the module, prepared once per database connection.
 * Parameters use apr_dbd's %s markers and are always bound, never spliced. */
#ifndef UC_STATEMENTS_H
#define UC_STATEMENTS_H

/* Columns of a securable row as selected, in the order uc_securables.c
 * reads them; kind and parent are known to whoever asks. */
#define UC_SECURABLE_COLUMNS \
    "id, name, comment, properties, storage_root, storage_location, " \
    "details, owner, created_at, created_by, updated_at, updated_by"

/* The same, qualified by the alias s and led by kind and parent_id, for
 * lookups that do not know them. */
#define UC_SECURABLE_COLUMNS_S \
    "s.kind, s.parent_id, s.id, s.name, s.comment, s.properties, " \
    "s.storage_root, s.storage_location, s.details, s.owner, s.created_at, " \
    "s.created_by, s.updated_at, s.updated_by"

/* The same with the alias o, for rows found through their parents. */
#define UC_SECURABLE_COLUMNS_O \
    "o.id, o.name, o.comment, o.properties, o.storage_root, " \
    "o.storage_location, o.details, o.owner, o.created_at, o.created_by, " \
    "o.updated_at, o.updated_by"

/* Columns of a model version row, in the order uc_model_versions.c reads
 * them. */
#define UC_MODEL_VERSION_COLUMNS \
    "version, id, source, run_id, status, storage_location, comment, " \
    "created_at, created_by, updated_at, updated_by"

typedef enum uc_stmt {
    UC_STMT_METASTORE_GET,
    UC_STMT_SECURABLE_BY_NAME,
    UC_STMT_SECURABLE_BY_NAME_FOR_UPDATE,
    UC_STMT_SECURABLE_BY_NAME_FOR_SHARE,
    UC_STMT_SECURABLE_PAGE,
    UC_STMT_SECURABLE_INSERT,
    UC_STMT_SECURABLE_UPDATE,
    UC_STMT_SECURABLE_DELETE,
    UC_STMT_SECURABLE_FIRST_CHILD,
    UC_STMT_GRANTS_OF_PRINCIPALS,
    UC_STMT_GRANTS_OF_USER_ON_PATH,
    UC_STMT_GRANTS_ON,
    UC_STMT_GRANTS_ON_CHAIN,
    UC_STMT_GRANT_ADD,
    UC_STMT_GRANT_REMOVE,
    UC_STMT_AUDIT_ADD,
    UC_STMT_SECURABLE_REFS_BY_IDS,
    UC_STMT_SECURABLE_REFS_BY_PARENT_NAMES,
    UC_STMT_OBJECTS_ACROSS_SCHEMAS,
    UC_STMT_STORAGE_OVERLAP,
    UC_STMT_MANAGED_ROOT_OVERLAP,
    UC_STMT_STAGING_INSERT,
    UC_STMT_STAGING_BY_LOCATION,
    UC_STMT_STAGING_COMMIT,
    UC_STMT_MODEL_VERSION_INSERT,
    UC_STMT_MODEL_VERSION_GET,
    UC_STMT_MODEL_VERSION_GET_FOR_UPDATE,
    UC_STMT_MODEL_VERSION_PAGE,
    UC_STMT_MODEL_VERSION_UPDATE,
    UC_STMT_MODEL_VERSION_DELETE,
    UC_STMT_MODEL_VERSION_FIRST,
    UC_STMT_COUNT
} uc_stmt_t;

typedef struct uc_statement_sql {
    const char *sqlite;
    const char *postgres;   /* NULL: the SQLite text is portable */
} uc_statement_sql_t;

extern const uc_statement_sql_t uc_statements[UC_STMT_COUNT];

#endif
