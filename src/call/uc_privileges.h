/* SPDX-License-Identifier: Apache-2.0 */
/* The privilege catalogue: names in both spellings, the securable types,
 * and which privileges each type accepts. */
#ifndef UC_PRIVILEGES_H
#define UC_PRIVILEGES_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <stdint.h>

typedef uint64_t uc_privset_t;

/* Every privilege: its stored key and its answer spelling. */
#define UC_PRIVILEGES(X) \
    X(ALL_PRIVILEGES, "ALL PRIVILEGES") \
    X(USE_CATALOG, "USE CATALOG") \
    X(USE_SCHEMA, "USE SCHEMA") \
    X(BROWSE, "BROWSE") \
    X(CREATE_CATALOG, "CREATE CATALOG") \
    X(CREATE_SCHEMA, "CREATE SCHEMA") \
    X(CREATE_TABLE, "CREATE TABLE") \
    X(CREATE_VOLUME, "CREATE VOLUME") \
    X(CREATE_FUNCTION, "CREATE FUNCTION") \
    X(CREATE_MODEL, "CREATE MODEL") \
    X(SELECT, "SELECT") \
    X(MODIFY, "MODIFY") \
    X(EXECUTE, "EXECUTE") \
    X(READ_VOLUME, "READ VOLUME") \
    X(WRITE_VOLUME, "WRITE VOLUME") \
    X(EXTERNAL_USE_SCHEMA, "EXTERNAL USE SCHEMA") \
    X(MANAGE, "MANAGE") \
    X(CREATE_EXTERNAL_LOCATION, "CREATE EXTERNAL LOCATION") \
    X(CREATE_STORAGE_CREDENTIAL, "CREATE STORAGE CREDENTIAL") \
    X(CREATE_EXTERNAL_TABLE, "CREATE EXTERNAL TABLE") \
    X(CREATE_EXTERNAL_VOLUME, "CREATE EXTERNAL VOLUME") \
    X(CREATE_MANAGED_STORAGE, "CREATE MANAGED STORAGE") \
    X(READ_FILES, "READ FILES") \
    X(WRITE_FILES, "WRITE FILES") \
    X(CREATE_SHARE, "CREATE SHARE") \
    X(CREATE_RECIPIENT, "CREATE RECIPIENT") \
    X(CREATE_PROVIDER, "CREATE PROVIDER") \
    X(USE_SHARE, "USE SHARE") \
    X(USE_RECIPIENT, "USE RECIPIENT") \
    X(USE_PROVIDER, "USE PROVIDER") \
    X(SET_SHARE_PERMISSION, "SET SHARE PERMISSION") \
    X(CREATE_TAG_POLICY, "CREATE TAG POLICY") \
    X(ASSIGN, "ASSIGN")

typedef enum uc_privilege {
#define UC_PRIV_ENUM(key, name) UC_PRIV_##key,
    UC_PRIVILEGES(UC_PRIV_ENUM)
#undef UC_PRIV_ENUM
    UC_PRIV_COUNT
} uc_privilege_t;

#define UC_PRIV(p) ((uc_privset_t)1 << (p))

typedef enum uc_securable_type {
    UC_TYPE_METASTORE,
    UC_TYPE_CATALOG,
    UC_TYPE_SCHEMA,
    UC_TYPE_TABLE,
    UC_TYPE_VOLUME,
    UC_TYPE_FUNCTION,
    UC_TYPE_REGISTERED_MODEL,
    UC_TYPE_EXTERNAL_LOCATION,
    UC_TYPE_CREDENTIAL,
    UC_TYPE_SHARE,
    UC_TYPE_RECIPIENT,
    UC_TYPE_PROVIDER,
    UC_TYPE_AGENT,
    UC_TYPE_AGENT_SKILL,
    UC_TYPE_TAG_POLICY,
    UC_TYPE_COUNT
} uc_securable_type_t;

/* "USE CATALOG", "USE_CATALOG" and "use catalog" all name USE_CATALOG.
 * Returns -1 for an unknown name. */
int uc_privilege_parse(const char *name);
/* The Unity Catalog OSS spelling, with spaces: "USE CATALOG". */
const char *uc_privilege_name(uc_privilege_t p);
/* The stored spelling, with underscores: "USE_CATALOG". */
const char *uc_privilege_key(uc_privilege_t p);

/* "catalog", "registered_model", …; -1 when unknown. The objects of a
 * schema are stored under their type's name as their kind. */
int uc_securable_type_parse(const char *name);
const char *uc_securable_type_name(uc_securable_type_t t);

/* What may be granted on a securable of type t (it also covers the
 * privileges that only take effect on its children). */
uc_privset_t uc_privileges_grantable(uc_securable_type_t t);

/* Expands ALL_PRIVILEGES into what it stands for on type t. */
uc_privset_t uc_privileges_expand(uc_privset_t set, uc_securable_type_t t);

/* The names of a set, in catalogue order, in the answer spelling. */
apr_array_header_t *uc_privileges_names(apr_pool_t *pool, uc_privset_t set);

#endif
