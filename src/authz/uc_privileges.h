/* The privilege catalogue: names in both spellings, the securable types,
 * and which privileges each type accepts. */
#ifndef UC_PRIVILEGES_H
#define UC_PRIVILEGES_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <stdint.h>

typedef uint64_t uc_privset_t;

typedef enum uc_privilege {
    UC_PRIV_ALL_PRIVILEGES,
    UC_PRIV_USE_CATALOG,
    UC_PRIV_USE_SCHEMA,
    UC_PRIV_BROWSE,
    UC_PRIV_CREATE_CATALOG,
    UC_PRIV_CREATE_SCHEMA,
    UC_PRIV_CREATE_TABLE,
    UC_PRIV_CREATE_VOLUME,
    UC_PRIV_CREATE_FUNCTION,
    UC_PRIV_CREATE_MODEL,
    UC_PRIV_SELECT,
    UC_PRIV_MODIFY,
    UC_PRIV_EXECUTE,
    UC_PRIV_READ_VOLUME,
    UC_PRIV_WRITE_VOLUME,
    UC_PRIV_EXTERNAL_USE_SCHEMA,
    UC_PRIV_MANAGE,
    UC_PRIV_CREATE_EXTERNAL_LOCATION,
    UC_PRIV_CREATE_STORAGE_CREDENTIAL,
    UC_PRIV_CREATE_EXTERNAL_TABLE,
    UC_PRIV_CREATE_EXTERNAL_VOLUME,
    UC_PRIV_CREATE_MANAGED_STORAGE,
    UC_PRIV_READ_FILES,
    UC_PRIV_WRITE_FILES,
    UC_PRIV_CREATE_SHARE,
    UC_PRIV_CREATE_RECIPIENT,
    UC_PRIV_CREATE_PROVIDER,
    UC_PRIV_USE_SHARE,
    UC_PRIV_USE_RECIPIENT,
    UC_PRIV_USE_PROVIDER,
    UC_PRIV_SET_SHARE_PERMISSION,
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
    UC_TYPE_COUNT
} uc_securable_type_t;

/* "USE CATALOG", "USE_CATALOG" and "use catalog" all name USE_CATALOG.
 * Returns -1 for an unknown name. */
int uc_privilege_parse(const char *name);
/* The Unity Catalog OSS spelling, with spaces: "USE CATALOG". */
const char *uc_privilege_name(uc_privilege_t p);
/* The stored spelling, with underscores: "USE_CATALOG". */
const char *uc_privilege_key(uc_privilege_t p);

/* "catalog", "registered_model", …; -1 when unknown. */
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
