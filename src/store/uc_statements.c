/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>

#include "uc_statements.h"
#include "../core/uc_page.h"

/* A JSON array parameter used as an IN list. */
#define SQLITE_LIST(p) "(SELECT value FROM json_each(" p "))"
#define PG_LIST(p) "(SELECT json_array_elements_text(CAST(" p " AS json)))"

/* Pages end at a byte budget as well as at a count (uc_store_select_page):
 * a page statement's last column is a size. On SQLite it is the row's
 * stored size, and reading stops where the page ends. PostgreSQL's driver
 * fetches a whole result, so there a narrow subquery w picks the page's
 * rows in order with `bytes_before`, the size of the rows before each (a
 * window sum), the rows are then read by id, and their large columns are
 * left out past the budget. */
#define BYTES_BEFORE(size, order) \
    "COALESCE(SUM(" size ") OVER (ORDER BY " order \
    " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS bytes_before"
#define TEXT_OF(n) #n
#define TEXT_OF_VALUE(n) TEXT_OF(n)
#define WITHIN_BUDGET(column) \
    "CASE WHEN w.bytes_before < " TEXT_OF_VALUE(UC_PAGE_BYTES) " THEN " \
    column " END"

/* The column text of a row layout (uc_statements.h): bare, qualified by
 * an alias, with the large columns of PostgreSQL pages within the budget,
 * or as the markers of the values it inserts. */
#define BARE(c) #c
#define OF_S(c) "s." #c
#define OF_O(c) "o." #c
#define OF_M(c) "m." #c
#define OF_X(c) "x." #c
#define OF_T(c) "t." #c
#define OF_G(c) "g." #c
#define BUDGETED_S(c) WITHIN_BUDGET("s." #c)
#define BUDGETED_M(c) WITHIN_BUDGET("m." #c)
#define BUDGETED_X(c) WITHIN_BUDGET("x." #c)
#define MARKER(c) "%s"
#define COLUMNS(LAYOUT) LAYOUT(BARE, BARE, ", ")
#define COLUMNS_OF(LAYOUT, ALIAS) LAYOUT(ALIAS, ALIAS, ", ")
#define MARKERS(LAYOUT) LAYOUT(MARKER, MARKER, ", ")
#define SECURABLES COLUMNS(UC_SECURABLE_COLUMNS)
#define MODEL_VERSIONS COLUMNS(UC_MODEL_VERSION_COLUMNS)
#define GRANTS COLUMNS(UC_GRANT_COLUMNS)
#define SHARE_OBJECTS COLUMNS(UC_SHARE_OBJECT_COLUMNS)
#define SHARE_SCHEMAS COLUMNS(UC_SHARE_SCHEMA_COLUMNS)
#define RECIPIENT_TOKENS COLUMNS(UC_RECIPIENT_TOKEN_COLUMNS)
#define ENTITY_TAGS COLUMNS(UC_ENTITY_TAG_COLUMNS)
#define ABAC_POLICIES COLUMNS(UC_ABAC_POLICY_COLUMNS)
#define SHARING_QUERIES COLUMNS(UC_SHARING_QUERY_COLUMNS)

const uc_statement_sql_t uc_statements[UC_STMT_COUNT] = {
    [UC_STMT_METASTORE_GET] = {
        "SELECT " SECURABLES " FROM securables "
        "WHERE kind = 'metastore' AND parent_id IS NULL", NULL },
    [UC_STMT_SECURABLE_BY_NAME] = {
        "SELECT " SECURABLES " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s", NULL },
    /* Inside a transaction: SQLite's BEGIN IMMEDIATE already holds the write
     * lock; PostgreSQL needs the row lock to keep read-modify-write whole. */
    [UC_STMT_SECURABLE_BY_NAME_FOR_UPDATE] = {
        "SELECT " SECURABLES " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s",
        "SELECT " SECURABLES " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s FOR UPDATE" },
    /* Parents of what a transaction adds: concurrent additions go on
     * together, a rename or delete of the parent waits for them. */
    [UC_STMT_SECURABLE_BY_NAME_FOR_SHARE] = {
        "SELECT " SECURABLES " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s",
        "SELECT " SECURABLES " FROM securables "
        "WHERE parent_id = %s AND kind = %s AND name = %s FOR SHARE" },
    /* A page of children, filtered to what the caller may see: all of them
     * (parameter '1'), those it owns (directly or through a group), or
     * those on which it holds one of the listed privileges. The column
     * after the securable's says whether it holds one of the "full access"
     * privileges; rows seen only through BROWSE say '0'. Principal and
     * privilege lists are JSON arrays. */
#define FULL_ACCESS(LIST, a) \
        "CASE WHEN %s = '1' OR " a ".owner IN " LIST("%s") " OR EXISTS " \
        "(SELECT 1 FROM grants g WHERE g.securable_id = " a ".id AND " \
        "g.principal IN " LIST("%s") " AND g.privilege IN " LIST("%s") \
        ") THEN '1' ELSE '0' END"
#define CHILDREN_PAGE(LIST, a) \
        " FROM securables " a " WHERE " a ".parent_id = %s AND " a \
        ".kind = %s AND " a ".name > %s AND (%s = '1' OR " a ".owner IN " \
        LIST("%s") " OR EXISTS (SELECT 1 FROM grants g WHERE " \
        "g.securable_id = " a ".id AND g.principal IN " LIST("%s") \
        " AND g.privilege IN " LIST("%s") ")) ORDER BY " a ".name LIMIT %s"
    [UC_STMT_SECURABLE_PAGE] = {
        "SELECT " SECURABLES ", " FULL_ACCESS(SQLITE_LIST, "s")
        ", s.stored_bytes" CHILDREN_PAGE(SQLITE_LIST, "s"),
        "SELECT " UC_SECURABLE_COLUMNS(OF_S, BUDGETED_S, ", ") ", "
        FULL_ACCESS(PG_LIST, "s") ", w.bytes_before FROM (SELECT v.id, "
        "v.name, "
        BYTES_BEFORE("v.stored_bytes", "v.name") CHILDREN_PAGE(PG_LIST, "v")
        ") w JOIN securables s ON s.id = w.id ORDER BY w.name" },
    [UC_STMT_SECURABLE_INSERT] = {
        "INSERT INTO securables (kind, parent_id, " SECURABLES
        ", stored_bytes) VALUES (%s, %s, " MARKERS(UC_SECURABLE_COLUMNS)
        ", %s)", NULL },
    [UC_STMT_SECURABLE_UPDATE] = {
        "UPDATE securables SET name = %s, comment = %s, properties = %s, "
        "storage_root = %s, storage_location = %s, details = %s, owner = %s, "
        "updated_at = %s, updated_by = %s, stored_bytes = %s WHERE id = %s",
        NULL },
    [UC_STMT_SECURABLE_DELETE] = {
        "DELETE FROM securables WHERE id = %s", NULL },
    /* A reserved staging table keeps its schema from being empty. */
    [UC_STMT_SECURABLE_FIRST_CHILD] = {
        "SELECT id FROM securables WHERE parent_id = %s UNION ALL "
        "SELECT id FROM staging_tables WHERE schema_id = %s "
        "AND committed_at IS NULL LIMIT 1", NULL },
    /* On SQLite the ids drive the join: an IN list of a thousand ids is
     * first sorted into a temporary index, which cost more than the
     * primary-key probes themselves. Repeated ids repeat rows, which
     * callers OR into the same privileges. */
    [UC_STMT_GRANTS_OF_PRINCIPALS] = {
        "SELECT " COLUMNS_OF(UC_GRANT_COLUMNS, OF_G) " FROM json_each(%s) j "
        "CROSS JOIN grants g ON g.securable_id = j.value "
        "WHERE g.principal IN " SQLITE_LIST("%s"),
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id IN " PG_LIST("%s")
        " AND principal IN " PG_LIST("%s") },
    /* One principal's grants on a path of up to four securables (repeated
     * to fill): four primary-key probes, no temporary IN tables, as this
     * runs on every request of a caller without groups. */
    [UC_STMT_GRANTS_OF_USER_ON_PATH] = {
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id = %s AND principal = %s UNION ALL "
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id = %s AND principal = %s", NULL },
    [UC_STMT_GRANTS_ON] = {
        "SELECT " GRANTS " FROM grants WHERE securable_id = %s "
        "ORDER BY principal, privilege", NULL },
    [UC_STMT_GRANTS_ON_CHAIN] = {
        "SELECT " GRANTS " FROM grants "
        "WHERE securable_id IN " SQLITE_LIST("%s")
        " ORDER BY principal, privilege",
        "SELECT " GRANTS " FROM grants "
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
    /* What authorization needs of many rows at once
     * (UC_SECURABLE_REF_COLUMNS) and, for a table, its type as details
     * ({"table_type":"VIEW"}): no more, so that what a batch costs does not
     * grow with the objects' size. */
#define SECURABLE_REFS(TABLE_TYPE) \
        "SELECT " COLUMNS_OF(UC_SECURABLE_REF_COLUMNS, OF_S) ", " \
        "CASE WHEN s.kind = 'table' THEN '{\"table_type\":\"' || " \
        TABLE_TYPE " || '\"}' END "
#define SQLITE_TABLE_TYPE "json_extract(s.details, '$.table_type')"
#define PG_TABLE_TYPE "(CAST(s.details AS json) ->> 'table_type')"
/* The same read from the row itself, for a statement that finds its rows
 * in a covering index and reads the table for tables only. */
#define SQLITE_ROW_TABLE_TYPE \
        "(SELECT json_extract(r.details, '$.table_type') FROM securables r " \
        "WHERE r.rowid = s.rowid)"
    /* The ids drive the join on SQLite, as in GRANTS_OF_PRINCIPALS;
     * callers ask for each id once. */
    [UC_STMT_SECURABLE_REFS_BY_IDS] = {
        SECURABLE_REFS(SQLITE_TABLE_TYPE) "FROM json_each(%s) j "
        "CROSS JOIN securables s ON s.id = j.value",
        SECURABLE_REFS(PG_TABLE_TYPE) "FROM securables s WHERE s.id IN "
        PG_LIST("%s") },
    /* Names by parent, as a JSON object of arrays ({"<parent id>":
     * ["<name>", ...]}): each array is read once, where an array of
     * [parent, name] pairs took two JSON extractions a pair. On SQLite
     * through the index that compares names first and holds every column
     * but the details (sql/sqlite/0016): a schema's row is not read. On
     * PostgreSQL each name is looked up by itself (LATERAL ... LIMIT 1,
     * which the planner does not fold into a join; the name is unique in
     * its parent and kind): as a join, a table whose statistics were not
     * gathered yet was planned as a nested loop over every name for every
     * row of the kind, 120 ms for 475 names among 1,000 schemas. */
    [UC_STMT_SECURABLE_REFS_BY_PARENT_NAMES] = {
        SECURABLE_REFS(SQLITE_ROW_TABLE_TYPE) "FROM json_each(%s) p "
        "CROSS JOIN json_each(p.value) n CROSS JOIN securables s "
        "INDEXED BY securables_by_name ON s.parent_id = p.key AND s.kind = %s AND s.name = n.value",
        SECURABLE_REFS(PG_TABLE_TYPE) "FROM json_each(CAST(%s AS json)) p "
        "CROSS JOIN json_array_elements_text(p.value) n(name) "
        "CROSS JOIN LATERAL (SELECT " COLUMNS(UC_SECURABLE_REF_COLUMNS) ", details "
        "FROM securables WHERE parent_id = p.key AND kind = %s "
        "AND name = n.name LIMIT 1) s" },
    /* Objects of one kind across the schemas of one catalog (or of every
     * catalog when the id is ''), whose schema and object names match LIKE
     * patterns, in (catalog, schema, name) order after a key, filtered to
     * what the caller sees: everything ('1'), else what it owns or holds
     * privileges on at each level (JSON arrays of principals and of
     * privilege keys for the catalog, the schema and the object). After
     * the securable's columns come the table type of table rows and the
     * size of a page statement. */
#define ACROSS_SCHEMAS(LIST) \
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
        "SELECT c.name, s.name, " COLUMNS_OF(UC_SECURABLE_COLUMNS, OF_O) ", "
        "json_extract(o.details, '$.table_type'), o.stored_bytes"
        ACROSS_SCHEMAS(SQLITE_LIST),
        "SELECT w.catalog_name, w.schema_name, "
        UC_SECURABLE_COLUMNS(OF_X, BUDGETED_X, ", ") ", "
        "CAST(x.details AS json) ->> 'table_type', w.bytes_before FROM "
        "(SELECT c.name AS catalog_name, s.name AS schema_name, o.id AS id, "
        "o.name AS name, "
        BYTES_BEFORE("o.stored_bytes", "c.name, s.name, o.name")
        ACROSS_SCHEMAS(PG_LIST) ") w JOIN securables x ON "
        "x.id = w.id ORDER BY w.catalog_name, w.schema_name, w.name" },
    /* A stored location that equals the given one or one of its ancestors
     * (a JSON array), or lies inside it (the range after "<location>/" and
     * before "<location>0", '0' following '/'): securables first (the
     * managed locations of catalogs and schemas only when the fourth
     * parameter is '1'), then open staging reservations. PostgreSQL
     * compares bytes, as the normal forms are built. */
    [UC_STMT_STORAGE_OVERLAP] = {
        "SELECT kind, storage_location FROM securables WHERE (storage_location "
        "IN " SQLITE_LIST("%s") " OR (storage_location > %s AND "
        "storage_location < %s)) AND (%s = '1' OR kind NOT IN ('catalog', "
        "'schema')) UNION ALL SELECT 'staging table', location "
        "FROM staging_tables WHERE committed_at IS NULL AND (location IN "
        SQLITE_LIST("%s") " OR (location > %s AND location < %s)) LIMIT 1",
        "SELECT kind, storage_location FROM securables WHERE (storage_location "
        "COLLATE \"C\" IN " PG_LIST("%s") " OR (storage_location COLLATE "
        "\"C\" > %s AND storage_location COLLATE \"C\" < %s)) AND (%s = '1' "
        "OR kind NOT IN ('catalog', 'schema')) UNION ALL "
        "SELECT 'staging table', location FROM staging_tables WHERE "
        "committed_at IS NULL AND (location COLLATE \"C\" IN " PG_LIST("%s")
        " OR (location COLLATE \"C\" > %s AND location COLLATE \"C\" < %s)) "
        "LIMIT 1" },
    /* The storage_root of a catalog or schema that equals a location or
     * one of its ancestors, or lies inside it, and that none of the
     * principals (a JSON array) owns, neither directly nor, for a schema,
     * through its catalog. */
    [UC_STMT_MANAGED_ROOT_OVERLAP] = {
        "SELECT s.kind, s.storage_root FROM securables s LEFT JOIN securables "
        "c ON c.id = s.parent_id AND s.kind = 'schema' WHERE s.kind IN "
        "('catalog', 'schema') AND (s.storage_root IN " SQLITE_LIST("%s")
        " OR (s.storage_root > %s AND s.storage_root < %s)) AND "
        "COALESCE(s.owner, '') NOT IN " SQLITE_LIST("%s") " AND "
        "COALESCE(c.owner, '') NOT IN " SQLITE_LIST("%s") " LIMIT 1",
        "SELECT s.kind, s.storage_root FROM securables s LEFT JOIN securables "
        "c ON c.id = s.parent_id AND s.kind = 'schema' WHERE s.kind IN "
        "('catalog', 'schema') AND (s.storage_root COLLATE \"C\" IN "
        PG_LIST("%s") " OR (s.storage_root COLLATE \"C\" > %s AND "
        "s.storage_root COLLATE \"C\" < %s)) AND COALESCE(s.owner, '') NOT IN "
        PG_LIST("%s") " AND COALESCE(c.owner, '') NOT IN " PG_LIST("%s")
        " LIMIT 1" },
    /* The storage_root of a catalog or schema that is one of a list of
     * locations (a location and its ancestors): managed storage holding
     * the location. */
    [UC_STMT_MANAGED_ROOT_ABOVE] = {
        "SELECT kind, storage_root FROM securables WHERE kind IN ('catalog', "
        "'schema') AND storage_root IN " SQLITE_LIST("%s") " LIMIT 1",
        "SELECT kind, storage_root FROM securables WHERE kind IN ('catalog', "
        "'schema') AND storage_root COLLATE \"C\" IN " PG_LIST("%s")
        " LIMIT 1" },
    /* The data (not a container's managed location) of an object stored
     * at one of a list of locations: the strict ancestors of a location
     * lying inside it. */
    [UC_STMT_DATA_ABOVE] = {
        "SELECT kind, storage_location FROM securables WHERE storage_location "
        "IN " SQLITE_LIST("%s") " AND kind NOT IN ('catalog', 'schema') "
        "LIMIT 1",
        "SELECT kind, storage_location FROM securables WHERE storage_location "
        "COLLATE \"C\" IN " PG_LIST("%s") " AND kind NOT IN ('catalog', "
        "'schema') LIMIT 1" },
    /* The objects whose data is at one of a list of locations (a path and
     * its ancestors): two at most, since one is what a path may lie in. */
    [UC_STMT_DATA_HOLDERS] = {
        "SELECT kind, parent_id, " SECURABLES " FROM securables WHERE "
        "storage_location IN " SQLITE_LIST("%s") " AND kind NOT IN "
        "('catalog', 'schema') LIMIT 2",
        "SELECT kind, parent_id, " SECURABLES " FROM securables WHERE "
        "storage_location COLLATE \"C\" IN " PG_LIST("%s") " AND kind NOT IN "
        "('catalog', 'schema') LIMIT 2" },
    /* External locations keep their URL as storage_root: they are not data
     * of their own, and the storage overlap checks of data read
     * storage_location. Those covering a location are at it or at one of
     * its ancestors (a JSON array); locations do not overlap, so there is
     * one, and the reader takes the longest should a race have made more
     * (no ORDER BY: it would sort in a temporary tree on every vend).
     * SQLite probes the index of roots once per ancestor (CROSS JOIN keeps
     * the list outside): an IN list would build a temporary tree of it on
     * every call, and its plan would scan every external location. */
    [UC_STMT_LOCATION_COVERING] = {
        "SELECT " COLUMNS_OF(UC_SECURABLE_COLUMNS, OF_S) " FROM json_each(%s) "
        "AS a CROSS JOIN securables AS s ON s.storage_root = a.value WHERE "
        "s.parent_id = %s AND s.kind = 'external_location' LIMIT 8",
        "SELECT " COLUMNS_OF(UC_SECURABLE_COLUMNS, OF_S) " FROM "
        "json_array_elements_text(CAST(%s AS json)) AS a (value) JOIN "
        "securables AS s ON s.storage_root COLLATE \"C\" = a.value WHERE "
        "s.parent_id = %s AND s.kind = 'external_location' LIMIT 8" },
    /* Another external location (not the given id) at a location, above
     * it (a JSON array of the location and its ancestors) or inside it;
     * the first in URL order, so that the error names the same one every
     * time. */
    [UC_STMT_LOCATION_OVERLAP] = {
        "SELECT name, storage_root FROM securables WHERE parent_id = %s AND "
        "kind = 'external_location' AND id <> %s AND (storage_root IN "
        SQLITE_LIST("%s") " OR (storage_root > %s AND storage_root < %s)) "
        "ORDER BY storage_root LIMIT 1",
        "SELECT name, storage_root FROM securables WHERE parent_id = %s AND "
        "kind = 'external_location' AND id <> %s AND (storage_root COLLATE "
        "\"C\" IN " PG_LIST("%s") " OR (storage_root COLLATE \"C\" > %s AND "
        "storage_root COLLATE \"C\" < %s)) ORDER BY storage_root COLLATE "
        "\"C\" LIMIT 1" },
    [UC_STMT_LOCATION_OF_CREDENTIAL] = {
        "SELECT name FROM securables WHERE parent_id = %s AND "
        "kind = 'external_location' AND "
        "json_extract(details, '$.credential_id') = %s LIMIT 1",
        "SELECT name FROM securables WHERE parent_id = %s AND "
        "kind = 'external_location' AND "
        "CAST(details AS json) ->> 'credential_id' = %s LIMIT 1" },
    /* A credential deleted with force leaves its locations without one. */
    [UC_STMT_LOCATIONS_FORGET_CREDENTIAL] = {
        "UPDATE securables SET details = json_remove(details, "
        "'$.credential_id') WHERE kind = 'external_location' AND "
        "json_extract(details, '$.credential_id') = %s",
        "UPDATE securables SET details = CAST(CAST(details AS jsonb) - "
        "'credential_id' AS text) WHERE kind = 'external_location' AND "
        "CAST(details AS json) ->> 'credential_id' = %s" },
    [UC_STMT_SECURABLE_BY_ID] = {
        "SELECT kind, parent_id, " SECURABLES " FROM securables "
        "WHERE id = %s", NULL },
    /* The row a transaction is about to change, whose writers it queues
     * (a Delta table's commits: SQLite's BEGIN IMMEDIATE queues them
     * already). */
    [UC_STMT_SECURABLE_BY_ID_FOR_UPDATE] = {
        "SELECT kind, parent_id, " SECURABLES " FROM securables "
        "WHERE id = %s",
        "SELECT kind, parent_id, " SECURABLES " FROM securables "
        "WHERE id = %s FOR UPDATE" },
    [UC_STMT_STAGING_INSERT] = {
        "INSERT INTO staging_tables (" COLUMNS(UC_STAGING_COLUMNS)
        ") VALUES (" MARKERS(UC_STAGING_COLUMNS) ")", NULL },
    [UC_STMT_STAGING_BY_LOCATION] = {
        "SELECT " COLUMNS(UC_STAGING_COLUMNS) " FROM staging_tables "
        "WHERE location = %s",
        "SELECT " COLUMNS(UC_STAGING_COLUMNS) " FROM staging_tables "
        "WHERE location = %s FOR UPDATE" },
    [UC_STMT_STAGING_COMMIT] = {
        "UPDATE staging_tables SET committed_at = %s WHERE id = %s "
        "AND committed_at IS NULL", NULL },
    [UC_STMT_STAGING_OPEN_BY_ID] = {
        "SELECT " COLUMNS(UC_STAGING_COLUMNS) " FROM staging_tables "
        "WHERE id = %s AND committed_at IS NULL", NULL },
    /* A table's ratified commits, oldest first: no more than the bound on
     * unbackfilled commits and the flagged latest one. */
    [UC_STMT_DELTA_COMMITS_OF] = {
        "SELECT " COLUMNS(UC_DELTA_COMMIT_COLUMNS) " FROM delta_commits "
        "WHERE table_id = %s ORDER BY commit_version", NULL },
    [UC_STMT_DELTA_COMMIT_INSERT] = {
        "INSERT INTO delta_commits (table_id, "
        COLUMNS(UC_DELTA_COMMIT_COLUMNS) ") VALUES (%s, "
        MARKERS(UC_DELTA_COMMIT_COLUMNS) ")", NULL },
    [UC_STMT_DELTA_COMMITS_DELETE_UP_TO] = {
        "DELETE FROM delta_commits WHERE table_id = %s "
        "AND commit_version <= %s", NULL },
    [UC_STMT_DELTA_COMMIT_FLAG] = {
        "UPDATE delta_commits SET is_backfilled_latest = 1 "
        "WHERE table_id = %s AND commit_version = %s", NULL },
    [UC_STMT_MODEL_VERSION_INSERT] = {
        "INSERT INTO model_versions (model_id, " MODEL_VERSIONS
        ") VALUES (%s, " MARKERS(UC_MODEL_VERSION_COLUMNS) ")", NULL },
    [UC_STMT_MODEL_VERSION_GET] = {
        "SELECT " MODEL_VERSIONS " FROM model_versions "
        "WHERE model_id = %s AND version = %s", NULL },
    [UC_STMT_MODEL_VERSION_GET_FOR_UPDATE] = {
        "SELECT " MODEL_VERSIONS " FROM model_versions "
        "WHERE model_id = %s AND version = %s",
        "SELECT " MODEL_VERSIONS " FROM model_versions "
        "WHERE model_id = %s AND version = %s FOR UPDATE" },
    /* A page statement (see SECURABLE_PAGE) of a model's versions. */
#define VERSION_SIZE "length(COALESCE(comment, '')) + length(source)"
    [UC_STMT_MODEL_VERSION_PAGE] = {
        "SELECT " MODEL_VERSIONS ", " VERSION_SIZE " FROM "
        "model_versions WHERE model_id = %s AND version > %s "
        "ORDER BY version LIMIT %s",
        "SELECT " UC_MODEL_VERSION_COLUMNS(OF_M, BUDGETED_M, ", ")
        ", w.bytes_before FROM "
        "(SELECT model_id, version, " BYTES_BEFORE(VERSION_SIZE, "version")
        " FROM model_versions WHERE model_id = %s AND version > "
        "CAST(%s AS BIGINT) ORDER BY version LIMIT %s) w "
        "JOIN model_versions m ON m.model_id = w.model_id AND "
        "m.version = w.version ORDER BY w.version" },
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
    [UC_STMT_SHARE_OBJECT_INSERT] = {
        "INSERT INTO share_objects (" SHARE_OBJECTS ") VALUES ("
        MARKERS(UC_SHARE_OBJECT_COLUMNS) ")", NULL },
    /* The data objects of a share with the current full name of each
     * (found by id, so a rename shows): catalog.schema.table for a table,
     * catalog.schema for a schema. */
#define SHARE_OBJECTS_NAMED \
        "SELECT " COLUMNS_OF(UC_SHARE_OBJECT_COLUMNS, OF_O) ", " \
        "CASE WHEN t.kind = 'schema' THEN p.name || '.' || t.name " \
        "ELSE g.name || '.' || p.name || '.' || t.name END " \
        "FROM share_objects o JOIN securables t ON t.id = o.object_id " \
        "JOIN securables p ON p.id = t.parent_id " \
        "LEFT JOIN securables g ON g.id = p.parent_id WHERE o.share_id = %s"
    [UC_STMT_SHARE_OBJECTS_OF] = {
        SHARE_OBJECTS_NAMED " ORDER BY o.shared_as", NULL },
    [UC_STMT_SHARE_OBJECT_OF] = {
        SHARE_OBJECTS_NAMED " AND o.object_id = %s", NULL },
    [UC_STMT_SHARE_OBJECT_UPDATE] = {
        "UPDATE share_objects SET comment = %s, partitions = %s, "
        "cdf_enabled = %s, history_data_sharing_status = %s, "
        "start_version = %s WHERE id = %s", NULL },
    [UC_STMT_SHARE_OBJECT_DELETE] = {
        "DELETE FROM share_objects WHERE id = %s", NULL },
    [UC_STMT_SHARE_SCHEMA_INSERT] = {
        "INSERT INTO share_schemas (" SHARE_SCHEMAS ") VALUES ("
        MARKERS(UC_SHARE_SCHEMA_COLUMNS) ")", NULL },
    [UC_STMT_SHARE_SCHEMAS_OF] = {
        "SELECT " SHARE_SCHEMAS " FROM share_schemas WHERE share_id = %s "
        "ORDER BY name", NULL },
    [UC_STMT_SHARE_SCHEMA_DELETE] = {
        "DELETE FROM share_schemas WHERE id = %s", NULL },
    [UC_STMT_RECIPIENT_TOKEN_INSERT] = {
        "INSERT INTO recipient_tokens (" RECIPIENT_TOKENS ") VALUES ("
        MARKERS(UC_RECIPIENT_TOKEN_COLUMNS) ")", NULL },
    /* In creation order: rowid (PostgreSQL: seq) after the time, for
     * tokens of the same millisecond. */
    [UC_STMT_RECIPIENT_TOKENS_OF] = {
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE recipient_id = %s AND kind <> 'access' "
        "ORDER BY created_at, rowid",
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE recipient_id = %s AND kind <> 'access' "
        "ORDER BY created_at, seq" },
    /* The same for every recipient named first to last (a page of a
     * list), by recipient. */
    [UC_STMT_RECIPIENT_TOKENS_IN_RANGE] = {
        "SELECT " COLUMNS_OF(UC_RECIPIENT_TOKEN_COLUMNS, OF_T) " "
        "FROM recipient_tokens t JOIN securables s ON s.id = t.recipient_id "
        "WHERE s.parent_id = %s AND s.kind = 'recipient' AND s.name >= %s "
        "AND s.name <= %s AND t.kind <> 'access' "
        "ORDER BY t.recipient_id, t.created_at, t.rowid",
        "SELECT " COLUMNS_OF(UC_RECIPIENT_TOKEN_COLUMNS, OF_T) " "
        "FROM recipient_tokens t JOIN securables s ON s.id = t.recipient_id "
        "WHERE s.parent_id = %s AND s.kind = 'recipient' AND s.name >= %s "
        "AND s.name <= %s AND t.kind <> 'access' "
        "ORDER BY t.recipient_id, t.created_at, t.seq" },
    /* The row an activation link names, held until the activation ends. */
    [UC_STMT_RECIPIENT_TOKEN_BY_ACTIVATION] = {
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE key_id = %s AND activation_hash = %s",
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE key_id = %s AND activation_hash = %s FOR UPDATE" },
    /* Once: of two activations at once, one changes the row. */
    [UC_STMT_RECIPIENT_TOKEN_ACTIVATE] = {
        "UPDATE recipient_tokens SET activation_hash = NULL, "
        "activation_sealed = NULL, token_sealed = NULL, activated_at = %s "
        "WHERE id = %s AND activation_hash IS NOT NULL", NULL },
    [UC_STMT_RECIPIENT_TOKEN_BY_HASH] = {
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE key_id = %s AND token_hash = %s AND kind <> 'client'",
        NULL },
    /* Rotation: the recipient's tokens live after `at` expire then. */
    [UC_STMT_RECIPIENT_TOKENS_EXPIRE] = {
        "UPDATE recipient_tokens SET expires_at = CAST(%s AS BIGINT), "
        "updated_at = CAST(%s AS BIGINT), updated_by = %s "
        "WHERE recipient_id = %s AND "
        "(expires_at IS NULL OR expires_at > CAST(%s AS BIGINT))", NULL },
    [UC_STMT_RECIPIENT_TOKEN_SET_EXPIRY] = {
        "UPDATE recipient_tokens SET expires_at = CAST(%s AS BIGINT), "
        "updated_at = CAST(%s AS BIGINT), updated_by = %s WHERE id = %s",
        NULL },
    [UC_STMT_RECIPIENT_CLIENT_BY_ID] = {
        "SELECT " RECIPIENT_TOKENS " FROM recipient_tokens "
        "WHERE id = %s AND kind = 'client'", NULL },
    /* Access tokens are made at every token request: the expired ones go
     * when the next is made. */
    [UC_STMT_RECIPIENT_ACCESS_PURGE] = {
        "DELETE FROM recipient_tokens WHERE recipient_id = %s AND "
        "kind = 'access' AND expires_at <= CAST(%s AS BIGINT)", NULL },
    /* The recipients of a share in name order after a name, as a page. */
    [UC_STMT_SHARE_RECIPIENTS_PAGE] = {
        "SELECT r.name FROM share_recipients g JOIN securables r ON "
        "r.id = g.recipient_id WHERE g.share_id = %s AND r.name > %s "
        "ORDER BY r.name LIMIT %s", NULL },
    [UC_STMT_SHARE_RECIPIENT_ADD] = {
        "INSERT INTO share_recipients (share_id, recipient_id, granted_at, "
        "granted_by) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING", NULL },
    [UC_STMT_SHARE_RECIPIENT_REMOVE] = {
        "DELETE FROM share_recipients WHERE share_id = %s AND "
        "recipient_id = %s", NULL },
    /* What the sharing server shows a recipient: the shares granted to
     * it, in name order after a name, as a page; one of them by name. */
    [UC_STMT_SHARES_OF_RECIPIENT_PAGE] = {
        "SELECT s.id, s.name FROM share_recipients g JOIN securables s ON "
        "s.id = g.share_id WHERE g.recipient_id = %s AND s.name > %s "
        "ORDER BY s.name LIMIT %s", NULL },
    [UC_STMT_SHARE_OF_RECIPIENT] = {
        "SELECT " COLUMNS_OF(UC_SECURABLE_COLUMNS, OF_S) ", s.parent_id "
        "FROM share_recipients g JOIN securables s ON s.id = g.share_id "
        "WHERE g.recipient_id = %s AND s.kind = 'share' AND s.name = %s",
        NULL },
    [UC_STMT_ENTITY_TAG_INSERT] = {
        "INSERT INTO entity_tags (" ENTITY_TAGS ") VALUES ("
        MARKERS(UC_ENTITY_TAG_COLUMNS) ")", NULL },
    [UC_STMT_ENTITY_TAG_GET] = {
        "SELECT " ENTITY_TAGS " FROM entity_tags WHERE entity_id = %s AND "
        "column_name = %s AND tag_key = %s", NULL },
    /* Keyset by tag key; the first page starts after ''. */
    [UC_STMT_ENTITY_TAG_PAGE] = {
        "SELECT " ENTITY_TAGS " FROM entity_tags WHERE entity_id = %s AND "
        "column_name = %s AND tag_key > %s ORDER BY tag_key LIMIT %s", NULL },
    [UC_STMT_ENTITY_TAG_UPDATE] = {
        "UPDATE entity_tags SET tag_value = %s, updated_at = %s, "
        "updated_by = %s WHERE entity_id = %s AND column_name = %s AND "
        "tag_key = %s", NULL },
    [UC_STMT_ENTITY_TAG_DELETE] = {
        "DELETE FROM entity_tags WHERE entity_id = %s AND column_name = %s "
        "AND tag_key = %s", NULL },
    [UC_STMT_ENTITY_TAG_COUNT] = {
        "SELECT COUNT(*) FROM entity_tags WHERE entity_id = %s AND "
        "column_name = %s", NULL },
    /* Entities (columns counted apart) whose tag of the key holds no
     * value or one outside a JSON array of values. */
    [UC_STMT_ENTITY_TAGS_OUTSIDE_VALUES] = {
        "SELECT COUNT(*) FROM entity_tags WHERE tag_key = %s AND "
        "(tag_value IS NULL OR tag_value NOT IN " SQLITE_LIST("%s") ")",
        "SELECT COUNT(*) FROM entity_tags WHERE tag_key = %s AND "
        "(tag_value IS NULL OR tag_value NOT IN " PG_LIST("%s") ")" },
    [UC_STMT_ABAC_POLICY_INSERT] = {
        "INSERT INTO abac_policies (" ABAC_POLICIES ") VALUES ("
        MARKERS(UC_ABAC_POLICY_COLUMNS) ")", NULL },
    [UC_STMT_ABAC_POLICY_GET] = {
        "SELECT " ABAC_POLICIES " FROM abac_policies WHERE securable_id = %s "
        "AND name = %s", NULL },
    /* The policies of up to three securables (a table, its schema, its
     * catalog; '' where fewer), ancestors first, keyset by
     * (depth, name): parameters catalog id, schema id, the three ids,
     * then the depth and name of the last row of the page before
     * (-1 and '' for the first) and the limit. */
#define POLICY_PAGE(CAST_DEPTH) \
        "SELECT " ABAC_POLICIES ", depth FROM (SELECT " ABAC_POLICIES ", " \
        "CASE securable_id WHEN %s THEN 0 WHEN %s THEN 1 ELSE 2 END AS " \
        "depth FROM abac_policies WHERE securable_id IN (%s, %s, %s)) p " \
        "WHERE depth > " CAST_DEPTH " OR (depth = " CAST_DEPTH " AND " \
        "name > %s) ORDER BY depth, name LIMIT %s"
    [UC_STMT_ABAC_POLICY_PAGE] = {
        POLICY_PAGE("CAST(%s AS INTEGER)"), NULL },
    [UC_STMT_ABAC_POLICY_UPDATE] = {
        "UPDATE abac_policies SET name = %s, policy_type = %s, "
        "document = %s, comment = %s, updated_at = %s, updated_by = %s "
        "WHERE id = %s", NULL },
    [UC_STMT_ABAC_POLICY_DELETE] = {
        "DELETE FROM abac_policies WHERE id = %s", NULL },
    [UC_STMT_ABAC_POLICY_COUNT] = {
        "SELECT COUNT(*) FROM abac_policies WHERE securable_id = %s", NULL },
    /* A policy that would hold over a data object a share is to expose:
     * one on the object (a table or a schema) or above it (parameters:
     * the object, its parent, its grandparent), or on a table of it
     * (parameter: the object again when it is a schema, else ''). */
    [UC_STMT_ABAC_POLICY_OVER_SHARED] = {
        "SELECT a.name, a.securable_id FROM abac_policies a WHERE "
        "a.securable_id IN (%s, %s, %s) OR a.securable_id IN (SELECT id "
        "FROM securables WHERE parent_id = %s AND kind = 'table') "
        "ORDER BY a.name LIMIT 1", NULL },
    /* A share that exposes data a policy on a securable would govern: a
     * data object that is the securable, lies under it (two levels), or
     * is the schema holding it (parameters: the securable three times,
     * then its parent). */
    [UC_STMT_SHARE_OF_POLICY_SCOPE] = {
        "SELECT sh.name FROM share_objects o "
        "JOIN securables sh ON sh.id = o.share_id "
        "JOIN securables x ON x.id = o.object_id "
        "LEFT JOIN securables up ON up.id = x.parent_id "
        "WHERE x.id = %s OR x.parent_id = %s OR up.parent_id = %s OR "
        "x.id = %s ORDER BY sh.name LIMIT 1", NULL },
    [UC_STMT_SHARING_QUERY_INSERT] = {
        "INSERT INTO sharing_queries (" SHARING_QUERIES ") VALUES (%s, %s, "
        "%s, %s, %s, %s, %s, %s, CAST(%s AS BIGINT), CAST(%s AS BIGINT), "
        "CAST(%s AS BIGINT))", NULL },
    /* A live query is one before its expiry: the others answer as
     * missing ones until a submit deletes them. */
    [UC_STMT_SHARING_QUERY_BY_KEY] = {
        "SELECT " SHARING_QUERIES " FROM sharing_queries "
        "WHERE recipient_id = %s AND table_id = %s AND key_hash = %s "
        "AND expires_at > CAST(%s AS BIGINT)", NULL },
    [UC_STMT_SHARING_QUERY_GET] = {
        "SELECT " SHARING_QUERIES " FROM sharing_queries "
        "WHERE id = %s AND recipient_id = %s AND table_id = %s "
        "AND expires_at > CAST(%s AS BIGINT)", NULL },
    /* The first process to read the snapshot pins its version. */
    [UC_STMT_SHARING_QUERY_PIN] = {
        "UPDATE sharing_queries SET state = 'ready', "
        "version = COALESCE(version, CAST(%s AS BIGINT)) WHERE id = %s",
        NULL },
    [UC_STMT_SHARING_QUERIES_LIVE] = {
        "SELECT COUNT(*) FROM sharing_queries WHERE recipient_id = %s "
        "AND expires_at > CAST(%s AS BIGINT)", NULL },
    [UC_STMT_SHARING_QUERIES_PURGE] = {
        "DELETE FROM sharing_queries WHERE expires_at <= CAST(%s AS BIGINT)",
        NULL },
    /* The sum of its rows (one on SQLite, a row per writer's shard on
     * PostgreSQL: sql/<dialect>/0015_catalog_version.sql). */
    /* SQLite keeps one row (sql/sqlite/0015_catalog_version.sql), read
     * without an aggregate; PostgreSQL the sum of 16. */
    [UC_STMT_CATALOG_VERSION] = {
        "SELECT version FROM catalog_version WHERE shard = 0",
        "SELECT CAST(SUM(version) AS BIGINT) FROM catalog_version" },
};
