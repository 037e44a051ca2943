/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_azure_sas.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_bytes.h"
#include "../core/uc_digest.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"
#include "../core/uc_time.h"

/* Every permission of a blob or container SAS, in the order Azure requires
 * them to be written. */
#define PERMISSION_ORDER "racwdxyltmeopi"

static int permissions_valid(const char *p)
{
    const char *at = PERMISSION_ORDER;

    if (!p || !*p)
        return 0;
    for (; *p; p++) {
        const char *found = strchr(at, *p);
        if (!found)
            return 0;
        at = found + 1;
    }
    return 1;
}

/* base64(HMAC-SHA256(key, text)) with the decoded key; `what` names the
 * key in the error. */
static uc_error_t *sign(apr_pool_t *pool, const char *key_b64,
                        const char *what, const char *text, const char **out)
{
    unsigned char mac[UC_SHA256_BYTES], *key;
    apr_size_t key_len;

    if (!key_b64 || uc_base64_decode(pool, key_b64, &key, &key_len)
        || !key_len)
        return uc_error_invalid(pool, "The %s is not base64.", what);
    uc_digest_hmac_sha256(key, key_len, text, strlen(text), mac);
    uc_secret_wipe(key, key_len);
    *out = uc_base64_encode(pool, mac, sizeof(mac));
    uc_secret_wipe(mac, sizeof(mac));
    return NULL;
}

static int is_set(const char *s)
{
    return s && *s;
}

/* A SAS may not outlive the delegation key that signs it. */
static uc_error_t *check_delegation(apr_pool_t *pool,
                                    const uc_azure_delegation_key_t *key,
                                    apr_time_t expiry)
{
    apr_int64_t key_expiry_ms;

    if (!is_set(key->signed_oid) || !is_set(key->signed_tid)
        || !is_set(key->signed_start) || !is_set(key->signed_expiry)
        || !is_set(key->signed_service) || !is_set(key->signed_version))
        return uc_error_invalid(pool, "The user delegation key lacks its "
                                "signed identity or lifetime.");
    if (!uc_time_parse_iso8601(key->signed_expiry, &key_expiry_ms))
        return uc_error_invalid(pool, "The user delegation key's expiry is "
                                "not an ISO-8601 time.");
    if (expiry > apr_time_from_msec(key_expiry_ms))
        return uc_error_invalid(pool, "A user delegation SAS cannot expire "
                                "after its key.");
    return NULL;
}

static uc_error_t *check_sas(apr_pool_t *pool, const uc_azure_sas_t *sas)
{
    if (!is_set(sas->account) || !is_set(sas->container)
        || (sas->blob && !*sas->blob) || (sas->blob && sas->directory)
        || (sas->directory && (!*sas->directory || *sas->directory == '/'))
        || (!sas->delegation && !sas->account_key))
        return uc_error_invalid(pool, "A SAS needs an account, a container "
                                "and a key, and names a blob or a directory "
                                "at most.");
    if (!permissions_valid(sas->permissions))
        return uc_error_invalid(pool, "SAS permissions are letters of '%s', "
                                "in that order.", PERMISSION_ORDER);
    if (sas->expiry <= sas->start)
        return uc_error_invalid(pool, "A SAS must expire after it starts.");
    return sas->delegation ? check_delegation(pool, sas->delegation,
                                              sas->expiry)
                           : NULL;
}

/* What the SAS grants, as both forms of string-to-sign begin. */
typedef struct grant {
    const char *start, *expiry, *resource, *protocol, *canonical;
    const char *depth;             /* a directory's sdd, "" otherwise */
} grant_t;

/* The resource the SAS opens: its letter, its canonical name (the path
 * as it is, not encoded) and, for a directory, how many directories
 * deep it lies below the container. */
static void grant_resource(apr_pool_t *pool, const uc_azure_sas_t *sas,
                           grant_t *g)
{
    const char *path = sas->blob ? sas->blob : sas->directory;
    const char *p;
    int depth = 0;

    g->resource = sas->blob ? "b" : sas->directory ? "d" : "c";
    g->canonical = apr_pstrcat(pool, "/blob/", sas->account, "/",
                               sas->container, path ? "/" : "",
                               path ? path : "", NULL);
    g->depth = "";
    if (!sas->directory)
        return;
    for (p = sas->directory; *p; p++)
        if (*p != '/' && (p == sas->directory || p[-1] == '/'))
            depth++;
    g->depth = apr_psprintf(pool, "&sdd=%d", depth);
}

/* A service SAS: identifier, IP, snapshot time, encryption scope and the
 * response header overrides are not used, so their lines are empty. */
static const char *service_text(apr_pool_t *pool, const uc_azure_sas_t *sas,
                                const grant_t *g)
{
    return apr_pstrcat(pool, sas->permissions, "\n", g->start, "\n",
                       g->expiry, "\n", g->canonical, "\n\n\n", g->protocol,
                       "\n", UC_AZURE_SAS_VERSION, "\n", g->resource,
                       "\n\n\n\n\n\n\n", NULL);
}

/* A user delegation SAS: the key's identity follows the resource; the
 * authorized and unauthorized user object ids, correlation id, IP,
 * snapshot time, encryption scope and response header overrides are not
 * used, so their lines are empty. */
static const char *delegation_text(apr_pool_t *pool,
                                   const uc_azure_sas_t *sas,
                                   const grant_t *g)
{
    const uc_azure_delegation_key_t *k = sas->delegation;

    return apr_pstrcat(pool, sas->permissions, "\n", g->start, "\n",
                       g->expiry, "\n", g->canonical, "\n", k->signed_oid,
                       "\n", k->signed_tid, "\n", k->signed_start, "\n",
                       k->signed_expiry, "\n", k->signed_service, "\n",
                       k->signed_version, "\n\n\n\n\n", g->protocol, "\n",
                       UC_AZURE_SAS_VERSION, "\n", g->resource,
                       "\n\n\n\n\n\n\n", NULL);
}

static const char *encoded(apr_pool_t *pool, const char *s)
{
    return uc_percent_encode(pool, s, strlen(s), "");
}

/* The key's identity in the query, "" for a service SAS. */
static const char *delegation_query(apr_pool_t *pool,
                                    const uc_azure_delegation_key_t *k)
{
    if (!k)
        return "";
    return apr_pstrcat(pool, "&skoid=", encoded(pool, k->signed_oid),
                       "&sktid=", encoded(pool, k->signed_tid),
                       "&skt=", encoded(pool, k->signed_start),
                       "&ske=", encoded(pool, k->signed_expiry),
                       "&sks=", encoded(pool, k->signed_service),
                       "&skv=", encoded(pool, k->signed_version), NULL);
}

uc_error_t *uc_azure_sas_sign(apr_pool_t *pool, const uc_azure_sas_t *sas,
                              const char **query)
{
    grant_t g;
    const char *sig = NULL;
    uc_error_t *err;

    if ((err = check_sas(pool, sas)))
        return err;
    g.start = sas->start ? uc_time_iso8601_seconds(pool, sas->start) : "";
    g.expiry = uc_time_iso8601_seconds(pool, sas->expiry);
    g.protocol = sas->allow_http ? "https,http" : "https";
    grant_resource(pool, sas, &g);
    err = sas->delegation
        ? sign(pool, sas->delegation->value, "user delegation key",
               delegation_text(pool, sas, &g), &sig)
        : sign(pool, sas->account_key, "storage account key",
               service_text(pool, sas, &g), &sig);
    if (err)
        return err;
    *query = apr_pstrcat(pool, "sv=", UC_AZURE_SAS_VERSION,
                         *g.start ? "&st=" : "",
                         *g.start ? encoded(pool, g.start) : "",
                         "&se=", encoded(pool, g.expiry),
                         "&sr=", g.resource, g.depth,
                         "&sp=", sas->permissions,
                         delegation_query(pool, sas->delegation),
                         "&spr=", encoded(pool, g.protocol),
                         "&sig=", encoded(pool, sig), NULL);
    return NULL;
}
