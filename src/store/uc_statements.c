#include <stddef.h>

#include "uc_statements.h"

/* A JSON array parameter used as an IN list. */
#define SQLITE_LIST(p) "(SELECT value FROM json_each(" p "))"
#define PG_LIST(p) "(SELECT json_array_elements_text(CAST(" p " AS json)))"

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
    /* Parents of what a transaction adds: concurrent additions go on
     * together, a rename or delete of the parent waits for them. */
    [UC_STMT_SECURABLE_BY_NAME_FOR_SHARE] = {
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s",
        "SELECT " UC_SECURABLE_COLUMNS " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s FOR SHARE" },
    /* A page of children, filtered to what the caller may see: all of them
     * (first parameter '1'), those it owns (directly or through a group),
     * or those on which it holds one of the listed privileges. The extra
     * column says whether it holds one of the "full access" privileges;
     * rows seen only through BROWSE say '0'. Principal and privilege
     * lists are JSON arrays. */
    [UC_STMT_SECURABLE_PAGE] = {
        "SELECT " UC_SECURABLE_COLUMNS ", "
        "CASE WHEN %s = '1' OR s.owner IN " SQLITE_LIST("%s") " OR EXISTS "
        "(SELECT 1 FROM grants g WHERE g.securable_id = s.id AND g.principal"
        " IN " SQLITE_LIST("%s") " AND g.privilege IN " SQLITE_LIST("%s")
        ") THEN '1' ELSE '0' END "
        "FROM securables s WHERE s.parent_id = %s AND s.kind = %s "
        "AND s.name > %s AND (%s = '1' OR s.owner IN " SQLITE_LIST("%s")
        " OR EXISTS (SELECT 1 FROM grants g WHERE g.securable_id = s.id "
        "AND g.principal IN " SQLITE_LIST("%s") " AND g.privilege IN "
        SQLITE_LIST("%s") ")) ORDER BY s.name LIMIT %s",
        "SELECT " UC_SECURABLE_COLUMNS ", "
        "CASE WHEN %s = '1' OR s.owner IN " PG_LIST("%s") " OR EXISTS "
        "(SELECT 1 FROM grants g WHERE g.securable_id = s.id AND g.principal"
        " IN " PG_LIST("%s") " AND g.privilege IN " PG_LIST("%s")
        ") THEN '1' ELSE '0' END "
        "FROM securables s WHERE s.parent_id = %s AND s.kind = %s "
        "AND s.name > %s AND (%s = '1' OR s.owner IN " PG_LIST("%s")
        " OR EXISTS (SELECT 1 FROM grants g WHERE g.securable_id = s.id "
        "AND g.principal IN " PG_LIST("%s") " AND g.privilege IN "
        PG_LIST("%s") ")) ORDER BY s.name LIMIT %s" },
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
    /* A reserved staging table keeps its schema from being empty. */
    [UC_STMT_SECURABLE_FIRST_CHILD] = {
        "SELECT id FROM securables WHERE parent_id = %s UNION ALL "
        "SELECT id FROM staging_tables WHERE schema_id = %s "
        "AND committed_at IS NULL LIMIT 1", NULL },
    [UC_STMT_GRANTS_OF_PRINCIPALS] = {
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id IN " SQLITE_LIST("%s")
        " AND principal IN " SQLITE_LIST("%s"),
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id IN " PG_LIST("%s")
        " AND principal IN " PG_LIST("%s") },
    /* One principal's grants on a path of up to four securables (repeated
     * to fill): four primary-key probes, no temporary IN tables, as this
     * runs on every request of a caller without groups. */
    [UC_STMT_GRANTS_OF_USER_ON_PATH] = {
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id = %s AND principal = %s", NULL },
    [UC_STMT_GRANTS_ON] = {
        "SELECT principal, privilege FROM grants WHERE securable_id = %s "
        "ORDER BY principal, privilege", NULL },
    [UC_STMT_GRANTS_ON_CHAIN] = {
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id IN " SQLITE_LIST("%s")
        " ORDER BY principal, privilege",
        "SELECT securable_id, principal, privilege FROM grants "
        "WHERE securable_id IN " PG_LIST("%s")
        " ORDER BY principal, privilege" },
    [UC_STMT_GRANT_ADD] = {
        "INSERT INTO grants (securable_id, principal, privilege, granted_by, "
        "granted_at) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        NULL },
    [UC_STMT_GRANT_REMOVE] = {
        "DELETE FROM grants WHERE securable_id = %s AND principal = %s "
        "AND privilege = %s", NULL },
    [UC_STMT_AUDIT_ADD] = {
        "INSERT INTO authz_audit (at, actor, action, securable_type, "
        "securable_id, securable_name, principal, privilege) VALUES "
        "(%s, %s, %s, %s, %s, %s, %s, %s)", NULL },
    [UC_STMT_SECURABLES_BY_IDS] = {
        "SELECT " UC_SECURABLE_COLUMNS_S " FROM securables s WHERE s.id IN "
        SQLITE_LIST("%s"),
        "SELECT " UC_SECURABLE_COLUMNS_S " FROM securables s WHERE s.id IN "
        PG_LIST("%s") },
    /* (parent_id, name) pairs as a JSON array of two-element arrays. */
    [UC_STMT_SECURABLES_BY_PARENT_NAMES] = {
        "SELECT " UC_SECURABLE_COLUMNS_S " FROM json_each(%s) j "
        "JOIN securables s ON s.parent_id = json_extract(j.value, '$[0]') "
        "AND s.name = json_extract(j.value, '$[1]') WHERE s.kind = %s",
        "SELECT " UC_SECURABLE_COLUMNS_S " FROM "
        "json_array_elements(CAST(%s AS json)) j "
        "JOIN securables s ON s.parent_id = (j.value ->> 0) "
        "AND s.name = (j.value ->> 1) WHERE s.kind = %s" },
    /* Objects of one kind across the schemas of one catalog (or of every
     * catalog when the id is ''), whose schema and object names match LIKE
     * patterns, in (catalog, schema, name) order after a key, filtered to
     * what the caller sees: everything ('1'), else what it owns or holds
     * privileges on at each level (JSON arrays of principals and of
     * privilege keys for the catalog, the schema and the object). The last
     * column is the table type of table rows. */
#define ACROSS_SCHEMAS(LIST, TABLE_TYPE) \
        "SELECT c.name, s.name, " UC_SECURABLE_COLUMNS_O ", " TABLE_TYPE \
        " FROM securables c JOIN securables s ON s.parent_id = c.id " \
        "AND s.kind = 'schema' JOIN securables o ON o.parent_id = s.id " \
        "AND o.kind = %s WHERE c.parent_id = %s AND c.kind = 'catalog' " \
        "AND (%s = '' OR c.id = %s) " \
        "AND s.name LIKE %s ESCAPE '\\' AND o.name LIKE %s ESCAPE '\\' " \
        "AND (c.name > %s OR (c.name = %s AND (s.name > %s OR " \
        "(s.name = %s AND o.name > %s)))) " \
        "AND (%s = '1' OR c.owner IN " LIST("%s") " OR (" \
        "EXISTS (SELECT 1 FROM grants g WHERE g.securable_id = c.id " \
        "AND g.principal IN " LIST("%s") " AND g.privilege IN " LIST("%s") \
        ") AND (s.owner IN " LIST("%s") " OR EXISTS (SELECT 1 FROM grants g " \
        "WHERE g.securable_id IN (s.id, c.id) AND g.principal IN " \
        LIST("%s") " AND g.privilege IN " LIST("%s") ")) AND (s.owner IN " \
        LIST("%s") " OR o.owner IN " LIST("%s") " OR EXISTS (SELECT 1 FROM " \
        "grants g WHERE g.securable_id IN (o.id, s.id, c.id) AND " \
        "g.principal IN " LIST("%s") " AND g.privilege IN " LIST("%s") \
        ")))) ORDER BY c.name, s.name, o.name LIMIT %s"
    [UC_STMT_OBJECTS_ACROSS_SCHEMAS] = {
        ACROSS_SCHEMAS(SQLITE_LIST, "json_extract(o.details, '$.table_type')"),
        ACROSS_SCHEMAS(PG_LIST, "CAST(o.details AS json) ->> 'table_type'") },
    /* A stored location that equals the given one or one of its ancestors
     * (a JSON array), or lies inside it (the range after "<location>/" and
     * before "<location>0", '0' following '/'): securables first, then
     * open staging reservations. */
    [UC_STMT_STORAGE_OVERLAP] = {
        "SELECT kind, storage_location FROM securables WHERE storage_location "
        "IN " SQLITE_LIST("%s") " OR (storage_location > %s AND "
        "storage_location < %s) UNION ALL SELECT 'staging table', location "
        "FROM staging_tables WHERE committed_at IS NULL AND (location IN "
        SQLITE_LIST("%s") " OR (location > %s AND location < %s)) LIMIT 1",
        "SELECT kind, storage_location FROM securables WHERE storage_location "
        "IN " PG_LIST("%s") " OR (storage_location COLLATE \"C\" > %s AND "
        "storage_location COLLATE \"C\" < %s) UNION ALL "
        "SELECT 'staging table', location FROM staging_tables WHERE "
        "committed_at IS NULL AND (location IN " PG_LIST("%s") " OR "
        "(location > %s AND location < %s)) LIMIT 1" },
    [UC_STMT_STAGING_INSERT] = {
        "INSERT INTO staging_tables (id, schema_id, name, location, "
        "created_at, created_by) VALUES (%s, %s, %s, %s, %s, %s)", NULL },
    [UC_STMT_STAGING_BY_LOCATION] = {
        "SELECT id, schema_id, name, location, created_at, created_by, "
        "committed_at FROM staging_tables WHERE location = %s",
        "SELECT id, schema_id, name, location, created_at, created_by, "
        "committed_at FROM staging_tables WHERE location = %s FOR UPDATE" },
    [UC_STMT_STAGING_COMMIT] = {
        "UPDATE staging_tables SET committed_at = %s WHERE id = %s "
        "AND committed_at IS NULL", NULL },
    [UC_STMT_MODEL_VERSION_INSERT] = {
        "INSERT INTO model_versions (model_id, " UC_MODEL_VERSION_COLUMNS
        ") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", NULL },
    [UC_STMT_MODEL_VERSION_GET] = {
        "SELECT " UC_MODEL_VERSION_COLUMNS " FROM model_versions "
        "WHERE model_id = %s AND version = %s", NULL },
    [UC_STMT_MODEL_VERSION_GET_FOR_UPDATE] = {
        "SELECT " UC_MODEL_VERSION_COLUMNS " FROM model_versions "
        "WHERE model_id = %s AND version = %s",
        "SELECT " UC_MODEL_VERSION_COLUMNS " FROM model_versions "
        "WHERE model_id = %s AND version = %s FOR UPDATE" },
    [UC_STMT_MODEL_VERSION_PAGE] = {
        "SELECT " UC_MODEL_VERSION_COLUMNS " FROM model_versions "
        "WHERE model_id = %s AND version > %s ORDER BY version LIMIT %s",
        "SELECT " UC_MODEL_VERSION_COLUMNS " FROM model_versions "
        "WHERE model_id = %s AND version > CAST(%s AS BIGINT) "
        "ORDER BY version LIMIT %s" },
    [UC_STMT_MODEL_VERSION_UPDATE] = {
        "UPDATE model_versions SET status = %s, comment = %s, "
        "updated_at = %s, updated_by = %s WHERE model_id = %s AND version = %s",
        NULL },
    [UC_STMT_MODEL_VERSION_DELETE] = {
        "DELETE FROM model_versions WHERE model_id = %s AND version = %s",
        NULL },
    [UC_STMT_MODEL_VERSION_FIRST] = {
        "SELECT version FROM model_versions WHERE model_id = %s LIMIT 1",
        NULL },
};
