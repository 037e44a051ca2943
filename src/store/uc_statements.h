/* SPDX-License-Identifier: Apache-2.0 */
/* Every SQL statement of the module, prepared once per database connection.
 * Parameters use apr_dbd's %s markers and are always bound, never spliced. */
#ifndef UC_STATEMENTS_H
#define UC_STATEMENTS_H

/* Row layouts. A table's columns are listed once, in the order statements
 * select them: COL(name) for a column, BIG(name) for one that a page may
 * leave out past its byte budget (uc_statements.c), SEP between two. The
 * same list gives the statements their column text and the readers the
 * index of each column (UC_SECURABLE_COL_name), so the two cannot drift
 * apart. Columns a statement adds after a layout are indexed from the
 * layout's count, next to it. */
#define UC_SECURABLE_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(name) SEP BIG(comment) SEP BIG(properties) SEP \
    COL(storage_root) SEP COL(storage_location) SEP BIG(details) SEP \
    COL(owner) SEP COL(created_at) SEP COL(created_by) SEP \
    COL(updated_at) SEP COL(updated_by)
#define UC_SECURABLE_COL(c) UC_SECURABLE_COL_##c,
enum {
    UC_SECURABLE_COLUMNS(UC_SECURABLE_COL, UC_SECURABLE_COL, )
    UC_SECURABLE_NCOLS
};
/* A page of children: whether the caller holds more than BROWSE on the
 * row ('1' or '0'), then the page's size column. */
enum { UC_SECURABLE_PAGE_COL_full_access = UC_SECURABLE_NCOLS };

/* What authorization needs of many rows at once, then the row's details:
 * the type of a table ({"table_type":…}), NULL for other kinds. */
#define UC_SECURABLE_REF_COLUMNS(COL, BIG, SEP) \
    COL(kind) SEP COL(parent_id) SEP COL(id) SEP COL(name) SEP COL(owner)
#define UC_SECURABLE_REF_COL(c) UC_SECURABLE_REF_COL_##c,
enum {
    UC_SECURABLE_REF_COLUMNS(UC_SECURABLE_REF_COL, UC_SECURABLE_REF_COL, )
    UC_SECURABLE_REF_COL_details
};

/* An object found through its catalog and schema: their names, the
 * object's securable columns, its table type (table rows), then the
 * page's size column. */
enum {
    UC_ACROSS_COL_catalog_name,
    UC_ACROSS_COL_schema_name,
    UC_ACROSS_COL_object,
    UC_ACROSS_COL_table_type = UC_ACROSS_COL_object + UC_SECURABLE_NCOLS
};

/* A row found by id: its kind and parent, then its securable columns. */
enum { UC_BY_ID_COL_kind, UC_BY_ID_COL_parent_id, UC_BY_ID_COL_row };

/* A stored location that overlaps another: what holds it, and where. */
enum { UC_OVERLAP_COL_kind, UC_OVERLAP_COL_location };

#define UC_MODEL_VERSION_COLUMNS(COL, BIG, SEP) \
    COL(version) SEP COL(id) SEP COL(source) SEP COL(run_id) SEP \
    COL(status) SEP COL(storage_location) SEP BIG(comment) SEP \
    COL(created_at) SEP COL(created_by) SEP COL(updated_at) SEP \
    COL(updated_by)
#define UC_MODEL_VERSION_COL(c) UC_MODEL_VERSION_COL_##c,
enum {
    UC_MODEL_VERSION_COLUMNS(UC_MODEL_VERSION_COL, UC_MODEL_VERSION_COL, )
    UC_MODEL_VERSION_NCOLS
};

#define UC_STAGING_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(schema_id) SEP COL(name) SEP COL(location) SEP \
    COL(created_at) SEP COL(created_by) SEP COL(committed_at)
#define UC_STAGING_COL(c) UC_STAGING_COL_##c,
enum {
    UC_STAGING_COLUMNS(UC_STAGING_COL, UC_STAGING_COL, )
    UC_STAGING_NCOLS
};

/* A commit a Delta table's coordinator ratified (uc_delta_commits.h). */
#define UC_DELTA_COMMIT_COLUMNS(COL, BIG, SEP) \
    COL(commit_version) SEP COL(commit_filename) SEP COL(commit_filesize) SEP \
    COL(commit_file_mtime_ms) SEP COL(commit_timestamp_ms) SEP \
    COL(is_backfilled_latest)
#define UC_DELTA_COMMIT_COL(c) UC_DELTA_COMMIT_COL_##c,
enum {
    UC_DELTA_COMMIT_COLUMNS(UC_DELTA_COMMIT_COL, UC_DELTA_COMMIT_COL, )
    UC_DELTA_COMMIT_NCOLS
};

#define UC_GRANT_COLUMNS(COL, BIG, SEP) \
    COL(securable_id) SEP COL(principal) SEP COL(privilege)
#define UC_GRANT_COL(c) UC_GRANT_COL_##c,
enum {
    UC_GRANT_COLUMNS(UC_GRANT_COL, UC_GRANT_COL, )
    UC_GRANT_NCOLS
};

/* A data object of a share; a read adds the object's current full name. */
#define UC_SHARE_OBJECT_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(share_id) SEP COL(object_id) SEP \
    COL(data_object_type) SEP COL(name) SEP COL(shared_as) SEP \
    COL(comment) SEP COL(partitions) SEP COL(cdf_enabled) SEP \
    COL(history_data_sharing_status) SEP COL(start_version) SEP \
    COL(added_at) SEP COL(added_by)
#define UC_SHARE_OBJECT_COL(c) UC_SHARE_OBJECT_COL_##c,
enum {
    UC_SHARE_OBJECT_COLUMNS(UC_SHARE_OBJECT_COL, UC_SHARE_OBJECT_COL, )
    UC_SHARE_OBJECT_NCOLS,
    UC_SHARE_OBJECT_COL_current_name = UC_SHARE_OBJECT_NCOLS
};

/* A schema a share declares (uc_share_schemas.h). */
#define UC_SHARE_SCHEMA_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(share_id) SEP COL(name) SEP COL(comment) SEP \
    COL(properties) SEP COL(created_at) SEP COL(created_by)
#define UC_SHARE_SCHEMA_COL(c) UC_SHARE_SCHEMA_COL_##c,
enum {
    UC_SHARE_SCHEMA_COLUMNS(UC_SHARE_SCHEMA_COL, UC_SHARE_SCHEMA_COL, )
    UC_SHARE_SCHEMA_NCOLS
};

/* A recipient's bearer token (uc_recipient_tokens.h). */
#define UC_RECIPIENT_TOKEN_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(recipient_id) SEP COL(key_id) SEP COL(token_hash) SEP \
    COL(activation_hash) SEP COL(activation_sealed) SEP \
    COL(token_sealed) SEP COL(activated_at) SEP COL(expires_at) SEP \
    COL(created_at) SEP COL(created_by) SEP COL(updated_at) SEP \
    COL(updated_by) SEP COL(kind)
#define UC_RECIPIENT_TOKEN_COL(c) UC_RECIPIENT_TOKEN_COL_##c,
enum {
    UC_RECIPIENT_TOKEN_COLUMNS(UC_RECIPIENT_TOKEN_COL,
                               UC_RECIPIENT_TOKEN_COL, )
    UC_RECIPIENT_TOKEN_NCOLS
};

/* An asynchronous query of the sharing server (uc_sharing_queries.h). */
#define UC_SHARING_QUERY_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(recipient_id) SEP COL(table_id) SEP COL(key_hash) SEP \
    COL(params_hash) SEP BIG(params) SEP COL(state) SEP COL(preparer) SEP \
    COL(version) SEP COL(created_at) SEP COL(expires_at)
#define UC_SHARING_QUERY_COL(c) UC_SHARING_QUERY_COL_##c,
enum {
    UC_SHARING_QUERY_COLUMNS(UC_SHARING_QUERY_COL, UC_SHARING_QUERY_COL, )
    UC_SHARING_QUERY_NCOLS
};

/* A tag of an entity (uc_entity_tags.h). */
#define UC_ENTITY_TAG_COLUMNS(COL, BIG, SEP) \
    COL(entity_id) SEP COL(column_name) SEP COL(tag_key) SEP \
    COL(tag_value) SEP COL(created_at) SEP COL(created_by) SEP \
    COL(updated_at) SEP COL(updated_by)
#define UC_ENTITY_TAG_COL(c) UC_ENTITY_TAG_COL_##c,
enum {
    UC_ENTITY_TAG_COLUMNS(UC_ENTITY_TAG_COL, UC_ENTITY_TAG_COL, )
    UC_ENTITY_TAG_NCOLS
};

/* An ABAC policy (uc_abac_policies.h); a page adds the depth of the
 * securable it is defined on (0 catalog, 1 schema, 2 table). */
#define UC_ABAC_POLICY_COLUMNS(COL, BIG, SEP) \
    COL(id) SEP COL(securable_id) SEP COL(name) SEP COL(policy_type) SEP \
    BIG(document) SEP BIG(comment) SEP COL(created_at) SEP \
    COL(created_by) SEP COL(updated_at) SEP COL(updated_by)
#define UC_ABAC_POLICY_COL(c) UC_ABAC_POLICY_COL_##c,
enum {
    UC_ABAC_POLICY_COLUMNS(UC_ABAC_POLICY_COL, UC_ABAC_POLICY_COL, )
    UC_ABAC_POLICY_NCOLS,
    UC_ABAC_POLICY_COL_depth = UC_ABAC_POLICY_NCOLS
};

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
    UC_STMT_MANAGED_ROOT_ABOVE,
    UC_STMT_DATA_ABOVE,
    UC_STMT_DATA_HOLDERS,
    UC_STMT_LOCATION_COVERING,
    UC_STMT_LOCATION_OVERLAP,
    UC_STMT_LOCATION_OF_CREDENTIAL,
    UC_STMT_LOCATIONS_FORGET_CREDENTIAL,
    UC_STMT_SECURABLE_BY_ID,
    UC_STMT_SECURABLE_BY_ID_FOR_UPDATE,
    UC_STMT_STAGING_INSERT,
    UC_STMT_STAGING_BY_LOCATION,
    UC_STMT_STAGING_COMMIT,
    UC_STMT_STAGING_OPEN_BY_ID,
    UC_STMT_DELTA_COMMITS_OF,
    UC_STMT_DELTA_COMMIT_INSERT,
    UC_STMT_DELTA_COMMITS_DELETE_UP_TO,
    UC_STMT_DELTA_COMMIT_FLAG,
    UC_STMT_MODEL_VERSION_INSERT,
    UC_STMT_MODEL_VERSION_GET,
    UC_STMT_MODEL_VERSION_GET_FOR_UPDATE,
    UC_STMT_MODEL_VERSION_PAGE,
    UC_STMT_MODEL_VERSION_UPDATE,
    UC_STMT_MODEL_VERSION_DELETE,
    UC_STMT_MODEL_VERSION_FIRST,
    UC_STMT_SHARE_OBJECT_INSERT,
    UC_STMT_SHARE_OBJECTS_OF,
    UC_STMT_SHARE_OBJECT_OF,
    UC_STMT_SHARE_OBJECT_UPDATE,
    UC_STMT_SHARE_OBJECT_DELETE,
    UC_STMT_SHARE_SCHEMA_INSERT,
    UC_STMT_SHARE_SCHEMAS_OF,
    UC_STMT_SHARE_SCHEMA_DELETE,
    UC_STMT_RECIPIENT_TOKEN_INSERT,
    UC_STMT_RECIPIENT_TOKENS_OF,
    UC_STMT_RECIPIENT_TOKENS_IN_RANGE,
    UC_STMT_RECIPIENT_TOKEN_BY_ACTIVATION,
    UC_STMT_RECIPIENT_TOKEN_ACTIVATE,
    UC_STMT_RECIPIENT_TOKEN_BY_HASH,
    UC_STMT_RECIPIENT_TOKENS_EXPIRE,
    UC_STMT_RECIPIENT_TOKEN_SET_EXPIRY,
    UC_STMT_RECIPIENT_CLIENT_BY_ID,
    UC_STMT_RECIPIENT_ACCESS_PURGE,
    UC_STMT_SHARE_RECIPIENTS_PAGE,
    UC_STMT_SHARE_RECIPIENT_ADD,
    UC_STMT_SHARE_RECIPIENT_REMOVE,
    UC_STMT_SHARES_OF_RECIPIENT_PAGE,
    UC_STMT_SHARE_OF_RECIPIENT,
    UC_STMT_ENTITY_TAG_INSERT,
    UC_STMT_ENTITY_TAG_GET,
    UC_STMT_ENTITY_TAG_PAGE,
    UC_STMT_ENTITY_TAG_UPDATE,
    UC_STMT_ENTITY_TAG_DELETE,
    UC_STMT_ENTITY_TAG_COUNT,
    UC_STMT_ENTITY_TAGS_OUTSIDE_VALUES,
    UC_STMT_ABAC_POLICY_INSERT,
    UC_STMT_ABAC_POLICY_GET,
    UC_STMT_ABAC_POLICY_PAGE,
    UC_STMT_ABAC_POLICY_UPDATE,
    UC_STMT_ABAC_POLICY_DELETE,
    UC_STMT_ABAC_POLICY_COUNT,
    UC_STMT_ABAC_POLICY_OVER_SHARED,
    UC_STMT_SHARE_OF_POLICY_SCOPE,
    UC_STMT_SHARING_QUERY_INSERT,
    UC_STMT_SHARING_QUERY_BY_KEY,
    UC_STMT_SHARING_QUERY_GET,
    UC_STMT_SHARING_QUERY_PIN,
    UC_STMT_SHARING_QUERIES_LIVE,
    UC_STMT_SHARING_QUERIES_PURGE,
    UC_STMT_CATALOG_VERSION,
    UC_STMT_COUNT
} uc_stmt_t;

typedef struct uc_statement_sql {
    const char *sqlite;
    const char *postgres;   /* NULL: the SQLite text is portable */
} uc_statement_sql_t;

extern const uc_statement_sql_t uc_statements[UC_STMT_COUNT];

#endif
