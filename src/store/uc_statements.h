/* Every SQL statement of the module, prepared once per database connection.
 * Parameters use apr_dbd's %s markers and are always bound, never spliced. */
#ifndef UC_STATEMENTS_H
#define UC_STATEMENTS_H

/* Columns of a securable row as selected, in the order uc_securables.c
 * reads them; kind and parent are known to whoever asks. */
#define UC_SECURABLE_COLUMNS \
    "id, name, comment, properties, storage_root, storage_location, " \
    "details, owner, created_at, created_by, updated_at, updated_by"

typedef enum uc_stmt {
    UC_STMT_METASTORE_GET,
    UC_STMT_SECURABLE_BY_NAME,
    UC_STMT_SECURABLE_BY_NAME_FOR_UPDATE,
    UC_STMT_SECURABLE_PAGE,
    UC_STMT_SECURABLE_INSERT,
    UC_STMT_SECURABLE_UPDATE,
    UC_STMT_SECURABLE_DELETE,
    UC_STMT_SECURABLE_FIRST_CHILD,
    UC_STMT_COUNT
} uc_stmt_t;

typedef struct uc_statement_sql {
    const char *sqlite;
    const char *postgres;   /* NULL: the SQLite text is portable */
} uc_statement_sql_t;

extern const uc_statement_sql_t uc_statements[UC_STMT_COUNT];

#endif
