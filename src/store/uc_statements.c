#include <stddef.h>

#include "uc_statements.h"

const uc_statement_sql_t uc_statements[UC_STMT_COUNT] = {
    [UC_STMT_METASTORE_GET] = {
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE kind = 'metastore' AND parent_id IS NULL", NULL },
    [UC_STMT_SECURABLE_BY_NAME] = {
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s", NULL },
    /* Inside a transaction: SQLite's BEGIN IMMEDIATE already holds the write
     * lock; PostgreSQL needs the row lock to keep read-modify-write whole. */
    [UC_STMT_SECURABLE_BY_NAME_FOR_UPDATE] = {
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s",
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s FOR UPDATE" },
    [UC_STMT_SECURABLE_PAGE] = {
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name > %s "
        "ORDER BY name LIMIT %s", NULL },
    [UC_STMT_SECURABLE_INSERT] = {
        "INSERT INTO securables (kind, parent_id, " UC_SECURABLE_COLUMNS
        ") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        NULL },
    [UC_STMT_SECURABLE_UPDATE] = {
        "UPDATE securables SET name = %s, comment = %s, properties = %s, "
        "storage_root = %s, storage_location = %s, details = %s, owner = %s, "
        "updated_at = %s, updated_by = %s WHERE id = %s", NULL },
    [UC_STMT_SECURABLE_DELETE] = {
        "DELETE FROM securables WHERE id = %s", NULL },
    [UC_STMT_SECURABLE_FIRST_CHILD] = {
        "SELECT id FROM securables WHERE parent_id = %s LIMIT 1", NULL },
};
