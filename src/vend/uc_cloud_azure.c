/* SPDX-License-Identifier: Apache-2.0 */
/* Azure Blob Storage and Data Lake (abfss://container@account.dfs.core.
 * windows.net/path): a service principal, a storage account key, or a
 * managed identity (which only Azure's own hosts can use). Temporary
 * credentials are a SAS on the location's container, read ("rl") or
 * read-write ("racwdl"), signed with the account key or with a user
 * delegation key the service principal obtains with its Azure AD token;
 * blob SAS cannot name a prefix outside hierarchical namespaces, so it
 * covers the container, and lasts as long as vended credentials do. The
 * server reads tables with the same keys, signing its own SAS. */
#include "uc_clouds.h"
#include "uc_storage.h"
#include "uc_vend.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_azure_ad.h"
#include "../cloud/uc_azure_delegation.h"
#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_vend_cache.h"
#include "../core/uc_bytes.h"
#include "../core/uc_secret.h"
#include "../core/uc_time.h"
#include "../objstore/uc_azure_sas.h"

/* A workload-identity token file would let a request make the server read
 * any file it can: refused until the administrator can name allowed
 * files. */
static uc_error_t *check_service_principal(uc_call_t *call, json_t *config,
                                           json_t *secrets)
{
    if (json_object_get(config, "federated_token_file"))
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION,
                             "azure_service_principal.federated_token_file "
                             "is not supported: give a client_secret.");
    if (!json_object_get(secrets, "client_secret"))
        return uc_error_invalid(call->pool, "azure_service_principal."
                                "client_secret is required: the server signs "
                                "in as the service principal with it.");
    return NULL;
}

/* Storage account names are what Azure allows in a host name. */
static uc_error_t *check_storage_key(uc_call_t *call, json_t *config,
                                     json_t *secrets)
{
    const char *p, *name = uc_credential_config(config, "account_name");

    (void)secrets;
    for (p = name; *p; p++)
        if (!apr_islower(*p) && !apr_isdigit(*p))
            break;
    if (*p || strlen(name) < 3 || strlen(name) > 24)
        return uc_error_invalid(call->pool, "Invalid azure_storage_key."
                                "account_name: 3 to 24 lower-case letters "
                                "and digits.");
    return NULL;
}

/* An account key is what Azure shows: base64. */
static uc_error_t *valid_base64_key(uc_call_t *call, const char *type,
                                    const char *field, const char *value)
{
    unsigned char *bytes;
    apr_size_t len;

    if (uc_base64_decode(call->pool, value, &bytes, &len) != 0 || len == 0)
        return uc_error_invalid(call->pool, "%s.%s is not a base64 key.",
                                type, field);
    uc_secret_wipe(bytes, len);
    return NULL;
}

static const uc_credential_type_t types[] = {
    { "azure_service_principal",
      { { "directory_id", UC_CREDENTIAL_REQUIRED },
        { "application_id", UC_CREDENTIAL_REQUIRED },
        { "client_secret", UC_CREDENTIAL_SECRET },
        { "federated_token_file", 0 } },
      check_service_principal },
    { "azure_managed_identity",
      { { "access_connector_id", UC_CREDENTIAL_REQUIRED },
        { "managed_identity_id", 0 },
        { "credential_id", UC_CREDENTIAL_SERVER } },
      NULL },
    { "azure_storage_key",
      { { "account_name", UC_CREDENTIAL_REQUIRED },
        { "account_key", UC_CREDENTIAL_REQUIRED | UC_CREDENTIAL_SECRET,
          valid_base64_key } },
      check_storage_key },
    { NULL }
};

typedef struct azure_place {
    const char *container;
    const char *account;
} azure_place_t;

/* abfss://<container>@<account>.dfs.core.windows.net/<path> */
static uc_error_t *place_of(apr_pool_t *pool, const char *url,
                            azure_place_t *out)
{
    const char *start = strstr(url, "://") + 3;
    const char *at = strchr(start, '@'), *dot;

    if (!at || at == start || !(dot = strchr(at + 1, '.')) || dot == at + 1)
        return uc_error_invalid(pool, "'%s' does not name a container and a "
                                "storage account (abfss://container@account"
                                ".dfs.core.windows.net/...).", url);
    out->container = apr_pstrndup(pool, start, (apr_size_t)(at - start));
    out->account = apr_pstrndup(pool, at + 1, (apr_size_t)(dot - at - 1));
    return NULL;
}

/* The path of `url` in its container, without the slashes around it. */
static const char *directory_of(apr_pool_t *pool, const char *url)
{
    const char *path = uc_storage_path_of(url);
    apr_size_t n;

    while (*path == '/')
        path++;
    n = strlen(path);
    while (n && path[n - 1] == '/')
        n--;
    return apr_pstrndup(pool, path, n);
}

/* The storage account's blob endpoint, as the administrator set it. */
static const char *blob_endpoint(uc_call_t *call, apr_pool_t *pool,
                                 const char *account)
{
    const char *template = call->cloud->azure_blob_endpoint
                           ? call->cloud->azure_blob_endpoint
                           : "https://{account}.blob.core.windows.net";
    const char *mark = strstr(template, "{account}");

    return apr_pstrcat(pool, apr_pstrndup(pool, template,
                                          (apr_size_t)(mark - template)),
                       account, mark + strlen("{account}"), NULL);
}

/* A user delegation key, from the service principal's token. */
static uc_error_t *delegation(uc_call_t *call, apr_pool_t *pool,
                              const uc_credential_t *cred,
                              const azure_place_t *place, apr_time_t expiry,
                              uc_azure_delegation_key_t *key)
{
    uc_azure_ad_request_t ask;
    uc_azure_token_t token;
    uc_error_t *err;

    memset(&ask, 0, sizeof(ask));
    ask.authority = call->cloud->azure_authority;
    ask.tenant_id = uc_credential_field(cred, "directory_id");
    ask.client_id = uc_credential_field(cred, "application_id");
    ask.timeout_ms = call->cloud->timeout_ms;
    ask.ca_file = call->cloud->ca_file;
    if ((err = uc_credential_secret(call, cred, "client_secret",
                                    &ask.client_secret)) ||
        (err = uc_azure_ad_token(pool, &ask, &token)))
        return err;
    return uc_azure_delegation_key(pool, blob_endpoint(call, pool,
                                                       place->account),
                                   token.access_token, call->now, expiry,
                                   call->cloud->timeout_ms,
                                   call->cloud->ca_file, key);
}

/* Delegation keys are kept by the process's vend cache, per credential
 * (and its update) and account, so that answers do not each ask Azure AD
 * and the storage account anew: a key is asked for twice the span it is
 * wanted for (within Azure's 7 days), and reused while the span is left
 * of it, so that what it signs still lasts as long as asked. */
#define MAX_KEY_SECONDS (7 * 24 * 3600)

typedef struct delegation_fetch {
    uc_call_t *call;
    const uc_credential_t *cred;
    const azure_place_t *place;
    apr_time_t expiry;
} delegation_fetch_t;

/* The key's fields in one cached value, newline-separated (none of them
 * holds one: ids, times, a version, base64). */
static uc_error_t *fetch_delegation(apr_pool_t *pool, void *baton,
                                    uc_vended_t *out)
{
    const delegation_fetch_t *f = baton;
    uc_azure_delegation_key_t key;
    apr_int64_t ms;
    uc_error_t *err = delegation(f->call, pool, f->cred, f->place, f->expiry,
                                 &key);

    if (err)
        return err;
    if (!key.signed_expiry || !uc_time_parse_iso8601(key.signed_expiry, &ms))
        return uc_error_make(pool, UC_E_STORAGE, "The user delegation key of "
                             "%s has no valid expiry.", f->place->account);
    out->kind = "azure_user_delegation_key";
    out->names[0] = "key";
    out->values[0] = apr_pstrcat(pool, key.signed_oid, "\n", key.signed_tid,
                                 "\n", key.signed_start, "\n",
                                 key.signed_expiry, "\n", key.signed_service,
                                 "\n", key.signed_version, "\n", key.value,
                                 NULL);
    out->expires = apr_time_from_msec(ms);
    return NULL;
}

static void read_key(apr_pool_t *pool, const char *text,
                     uc_azure_delegation_key_t *key)
{
    const char **fields[] = {
        &key->signed_oid, &key->signed_tid, &key->signed_start,
        &key->signed_expiry, &key->signed_service, &key->signed_version,
        &key->value
    };
    char *field = apr_pstrdup(pool, text), *end;
    apr_size_t i;

    memset(key, 0, sizeof(*key));
    for (i = 0; field && i < sizeof(fields) / sizeof(fields[0]); i++) {
        if ((end = strchr(field, '\n')))
            *end++ = '\0';
        *fields[i] = field;
        field = end;
    }
}

static uc_error_t *cached_delegation(uc_call_t *call, apr_pool_t *pool,
                                     const uc_credential_t *cred,
                                     const azure_place_t *place,
                                     apr_time_t expiry,
                                     uc_azure_delegation_key_t *key)
{
    apr_interval_time_t span = expiry > call->now ? expiry - call->now : 0;
    apr_time_t longest = call->now + apr_time_from_sec(MAX_KEY_SECONDS);
    delegation_fetch_t f = { call, cred, place, expiry + span };
    const char *id = apr_pstrcat(pool, "azure delegation key ", cred->sec->id,
                                 "@", cred->sec->updated_at, " ",
                                 place->account, NULL);
    uc_vended_t v;
    int hit;
    uc_error_t *err;

    if (f.expiry > longest)
        f.expiry = longest;
    if ((err = uc_vend_cache_get(call->cloud->cache, pool, id, expiry,
                                 call->cloud->timeout_ms * 1000,
                                 fetch_delegation, &f, &v, &hit)))
        return err;
    read_key(pool, v.values[0], key);
    return NULL;
}

static uc_error_t *signing_key(uc_call_t *call, apr_pool_t *pool,
                               const uc_credential_t *cred,
                               const azure_place_t *place, apr_time_t expiry,
                               const char **account_key,
                               uc_azure_delegation_key_t **key)
{
    *account_key = NULL;
    *key = NULL;
    if (!strcmp(cred->type, "azure_storage_key")) {
        if (strcmp(uc_credential_field(cred, "account_name"),
                   place->account) != 0)
            return uc_error_invalid(pool, "Credential '%s' holds the key of "
                                    "storage account '%s', not of '%s'.",
                                    cred->sec->name,
                                    uc_credential_field(cred, "account_name"),
                                    place->account);
        return uc_credential_secret(call, cred, "account_key", account_key);
    }
    if (!strcmp(cred->type, "azure_service_principal")) {
        *key = apr_pcalloc(pool, sizeof(**key));
        return cached_delegation(call, pool, cred, place, expiry, *key);
    }
    return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Credential '%s' is "
                         "a managed identity, which only Azure's own hosts "
                         "can use: give the location a service principal or "
                         "a storage key.", cred->sec->name);
}

static uc_error_t *vend(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out)
{
    uc_call_t *call = req->call;
    uc_azure_delegation_key_t *key;
    azure_place_t place = { NULL, NULL };
    uc_azure_sas_t sas;
    const char *token;
    uc_error_t *err;

    memset(&sas, 0, sizeof(sas));
    if ((err = place_of(pool, req->url, &place)))
        return err;
    sas.account = place.account;
    sas.container = place.container;
    /* A container's SAS, as Unity Catalog vends them; for a recipient,
     * one of the location's directory (sr=d: ADLS Gen2's hierarchical
     * namespace, which Unity Catalog asks of Azure storage). */
    if (req->scoped)
        sas.directory = directory_of(pool, req->url);
    sas.permissions = req->write ? "racwdl" : "rl";
    /* Whole seconds, as Azure writes times: a delegation key asked to
     * expire then does not expire before the SAS it signs. */
    sas.expiry = apr_time_from_sec(apr_time_sec(call->now) +
                                   call->cloud->lifetime_s);
    if ((err = signing_key(call, pool, req->cred, &place, sas.expiry,
                           &sas.account_key, &key)))
        return err;
    sas.delegation = key;
    if ((err = uc_azure_sas_sign(pool, &sas, &token)))
        return err;
    out->kind = "azure_user_delegation_sas";
    out->names[0] = "sas_token";
    out->values[0] = token;
    out->expires = sas.expiry;
    return NULL;
}

/* The store signs its own SAS, with the account key or a user delegation
 * key good for the lifetime of vended credentials. */
static uc_error_t *table_store(uc_call_t *call, const char *location,
                               uc_objstore_config_t *c,
                               apr_time_t *valid_until)
{
    apr_time_t expiry = apr_time_from_sec(apr_time_sec(call->now) +
                                          call->cloud->lifetime_s);
    azure_place_t place = { NULL, NULL };
    uc_azure_delegation_key_t *delegation;
    uc_credential_t *cred;
    uc_error_t *err;

    if ((err = uc_vend_credential(call, location, 0, &cred)) ||
        (err = place_of(call->pool, location, &place)) ||
        (err = signing_key(call, call->pool, cred, &place, expiry,
                           &c->azure_account_key, &delegation)))
        return err;
    c->azure_delegation = delegation;
    c->azure_blob_endpoint = call->cloud->azure_blob_endpoint;
    *valid_until = delegation ? expiry : 0;
    return NULL;
}

static const char *const schemes[] = { "abfs", "abfss", NULL };

const uc_cloud_t uc_cloud_azure = {
    "azure", schemes, 1, types, vend, table_store,
    /* A scoped request gets a directory's SAS. */
    1
};
