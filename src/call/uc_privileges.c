/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_privileges.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

static const char *const keys[UC_PRIV_COUNT] = {
#define UC_PRIV_KEY(key, name) #key,
    UC_PRIVILEGES(UC_PRIV_KEY)
#undef UC_PRIV_KEY
};

static const char *const names[UC_PRIV_COUNT] = {
#define UC_PRIV_NAME(key, name) name,
    UC_PRIVILEGES(UC_PRIV_NAME)
#undef UC_PRIV_NAME
};

static const char *const type_names[UC_TYPE_COUNT] = {
    "metastore", "catalog", "schema", "table", "volume", "function",
    "registered_model", "external_location", "credential", "share",
    "recipient", "provider", "agent", "agent_skill", "tag_policy"
};

#define P UC_PRIV

/* Privileges that act on the objects inside a schema. */
#define SCHEMA_OBJECT_PRIVS \
    (P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) | P(UC_PRIV_EXECUTE) | \
     P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME))

/* Privileges on a schema, which its objects inherit. */
#define SCHEMA_PRIVS \
    (P(UC_PRIV_USE_SCHEMA) | P(UC_PRIV_CREATE_TABLE) | \
     P(UC_PRIV_CREATE_VOLUME) | P(UC_PRIV_CREATE_FUNCTION) | \
     P(UC_PRIV_CREATE_MODEL) | P(UC_PRIV_EXTERNAL_USE_SCHEMA) | \
     SCHEMA_OBJECT_PRIVS)

/* ALL PRIVILEGES stands for every grantable privilege of the type except
 * MANAGE and EXTERNAL USE SCHEMA, which must be granted by name. */
#define NOT_IN_ALL (P(UC_PRIV_MANAGE) | P(UC_PRIV_EXTERNAL_USE_SCHEMA))

static const uc_privset_t grantable[UC_TYPE_COUNT] = {
    [UC_TYPE_METASTORE] =
        P(UC_PRIV_CREATE_CATALOG) | P(UC_PRIV_CREATE_EXTERNAL_LOCATION) |
        P(UC_PRIV_CREATE_STORAGE_CREDENTIAL) | P(UC_PRIV_CREATE_SHARE) |
        P(UC_PRIV_CREATE_RECIPIENT) | P(UC_PRIV_CREATE_PROVIDER) |
        P(UC_PRIV_USE_SHARE) | P(UC_PRIV_USE_RECIPIENT) |
        P(UC_PRIV_USE_PROVIDER) | P(UC_PRIV_SET_SHARE_PERMISSION) |
        P(UC_PRIV_CREATE_TAG_POLICY),
    [UC_TYPE_CATALOG] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_USE_CATALOG) |
        P(UC_PRIV_BROWSE) | P(UC_PRIV_CREATE_SCHEMA) | P(UC_PRIV_MANAGE) |
        SCHEMA_PRIVS,
    [UC_TYPE_SCHEMA] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_MANAGE) | SCHEMA_PRIVS,
    [UC_TYPE_TABLE] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) |
        P(UC_PRIV_MANAGE),
    [UC_TYPE_VOLUME] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_READ_VOLUME) |
        P(UC_PRIV_WRITE_VOLUME) | P(UC_PRIV_MANAGE),
    [UC_TYPE_FUNCTION] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_EXECUTE) | P(UC_PRIV_MANAGE),
    [UC_TYPE_REGISTERED_MODEL] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_EXECUTE) | P(UC_PRIV_MANAGE),
    [UC_TYPE_EXTERNAL_LOCATION] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_BROWSE) |
        P(UC_PRIV_READ_FILES) |
        P(UC_PRIV_WRITE_FILES) | P(UC_PRIV_CREATE_EXTERNAL_TABLE) |
        P(UC_PRIV_CREATE_EXTERNAL_VOLUME) |
        P(UC_PRIV_CREATE_MANAGED_STORAGE) | P(UC_PRIV_MANAGE),
    [UC_TYPE_CREDENTIAL] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_CREATE_EXTERNAL_LOCATION) |
        P(UC_PRIV_CREATE_EXTERNAL_TABLE) | P(UC_PRIV_READ_FILES) |
        P(UC_PRIV_WRITE_FILES) | P(UC_PRIV_MANAGE),
    [UC_TYPE_SHARE] =
        P(UC_PRIV_SELECT) | P(UC_PRIV_SET_SHARE_PERMISSION) |
        P(UC_PRIV_MANAGE),
    [UC_TYPE_RECIPIENT] = P(UC_PRIV_USE_RECIPIENT) | P(UC_PRIV_MANAGE),
    [UC_TYPE_PROVIDER] = P(UC_PRIV_USE_PROVIDER) | P(UC_PRIV_MANAGE),
    /* Agents are invoked like functions; skills are directories read like
     * volumes. */
    [UC_TYPE_AGENT] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_EXECUTE) | P(UC_PRIV_MANAGE),
    [UC_TYPE_AGENT_SKILL] =
        P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_READ_VOLUME) |
        P(UC_PRIV_WRITE_VOLUME) | P(UC_PRIV_MANAGE),
    /* A governed tag: ASSIGN puts its key on entities, MANAGE changes
     * its definition (and assigns it too). */
    [UC_TYPE_TAG_POLICY] = P(UC_PRIV_ASSIGN) | P(UC_PRIV_MANAGE),
};

int uc_privilege_parse(const char *name)
{
    char buf[64];
    size_t i, n = strlen(name);
    int p;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    for (i = 0; i < n; i++)
        buf[i] = name[i] == ' ' ? '_' : (char)apr_toupper(name[i]);
    buf[n] = '\0';
    for (p = 0; p < UC_PRIV_COUNT; p++)
        if (strcmp(buf, keys[p]) == 0)
            return p;
    return -1;
}

const char *uc_privilege_name(uc_privilege_t p)
{
    return p < UC_PRIV_COUNT ? names[p] : "?";
}

const char *uc_privilege_key(uc_privilege_t p)
{
    return p < UC_PRIV_COUNT ? keys[p] : "?";
}

int uc_securable_type_parse(const char *name)
{
    int t;

    /* The permissions API of Databricks and of the issue trackers' clients
     * names credentials of purpose STORAGE so. */
    if (strcasecmp(name, "storage_credential") == 0)
        return UC_TYPE_CREDENTIAL;
    for (t = 0; t < UC_TYPE_COUNT; t++)
        if (strcasecmp(name, type_names[t]) == 0)
            return t;
    return -1;
}

const char *uc_securable_type_name(uc_securable_type_t t)
{
    return t < UC_TYPE_COUNT ? type_names[t] : "?";
}

uc_privset_t uc_privileges_grantable(uc_securable_type_t t)
{
    return t < UC_TYPE_COUNT ? grantable[t] : 0;
}

uc_privset_t uc_privileges_expand(uc_privset_t set, uc_securable_type_t t)
{
    if (set & P(UC_PRIV_ALL_PRIVILEGES))
        set |= uc_privileges_grantable(t) & ~NOT_IN_ALL;
    return set;
}

apr_array_header_t *uc_privileges_names(apr_pool_t *pool, uc_privset_t set)
{
    apr_array_header_t *out = apr_array_make(pool, 4, sizeof(const char *));
    int p;

    for (p = 0; p < UC_PRIV_COUNT; p++)
        if (set & P(p))
            APR_ARRAY_PUSH(out, const char *) = names[p];
    return out;
}
