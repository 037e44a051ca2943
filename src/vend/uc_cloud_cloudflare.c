/* SPDX-License-Identifier: Apache-2.0 */
/* Cloudflare R2 (r2://bucket@account.r2.cloudflarestorage.com/path): a
 * parent R2 access key and an API token (Databricks' credential, with the
 * token as an extension). Temporary credentials are keys Cloudflare's
 * temp-access-credentials call derives from the parent key, limited to
 * the location's bucket and prefix, reading or writing objects. The
 * server does not read tables there itself. */
#include "uc_clouds.h"
#include "uc_vend.h"

#include <string.h>
#include <strings.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_r2.h"
#include "../core/uc_bytes.h"

/* Cloudflare account ids are 32 hex digits. */
static uc_error_t *check_cloudflare(uc_call_t *call, json_t *config,
                                    json_t *secrets)
{
    (void)secrets;
    if (!uc_is_hex(uc_credential_config(config, "account_id"), 32))
        return uc_error_invalid(call->pool, "Invalid cloudflare_api_token."
                                "account_id: 32 hex digits.");
    return NULL;
}

static const uc_credential_type_t types[] = {
    { "cloudflare_api_token",
      { { "account_id", UC_CREDENTIAL_REQUIRED },
        { "access_key_id", UC_CREDENTIAL_REQUIRED },
        { "secret_access_key", UC_CREDENTIAL_SECRET },
        { "api_token", UC_CREDENTIAL_REQUIRED | UC_CREDENTIAL_SECRET } },
      check_cloudflare },
    { NULL }
};

/* r2://<bucket>@<account>.r2.cloudflarestorage.com/<prefix> */
static uc_error_t *place_of(apr_pool_t *pool, const char *url,
                            const char **bucket, const char **account,
                            const char **prefix)
{
    const char *start = strstr(url, "://") + 3;
    const char *at = strchr(start, '@'), *dot, *slash;

    slash = strchr(start, '/');
    if (!at || at == start || (slash && slash < at) ||
        !(dot = strchr(at + 1, '.')) || dot == at + 1)
        return uc_error_invalid(pool, "'%s' does not name a bucket and an "
                                "account (r2://bucket@account.r2."
                                "cloudflarestorage.com/...).", url);
    *bucket = apr_pstrndup(pool, start, (apr_size_t)(at - start));
    *account = apr_pstrndup(pool, at + 1, (apr_size_t)(dot - at - 1));
    *prefix = slash ? slash + 1 : "";
    return NULL;
}

static uc_error_t *vend(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out)
{
    uc_call_t *call = req->call;
    const uc_credential_t *cred = req->cred;
    uc_aws_session_t session;
    uc_r2_request_t ask;
    uc_error_t *err;

    memset(&ask, 0, sizeof(ask));
    if ((err = place_of(pool, req->url, &ask.bucket, &ask.account_id,
                        &ask.prefix)))
        return err;
    /* URLs come lower-cased; account ids are hex in either case. */
    if (strcasecmp(ask.account_id, uc_credential_field(cred, "account_id")))
        return uc_error_invalid(pool, "Credential '%s' is of Cloudflare "
                                "account '%s', not of '%s'.",
                                cred->sec->name,
                                uc_credential_field(cred, "account_id"),
                                ask.account_id);
    ask.account_id = uc_credential_field(cred, "account_id");
    if ((err = uc_credential_secret(call, cred, "api_token",
                                    &ask.api_token)))
        return err;
    ask.api_base = call->cloud->cloudflare_api_base;
    ask.parent_access_key_id = uc_credential_field(cred, "access_key_id");
    ask.write = req->write;
    ask.ttl_s = call->cloud->lifetime_s;
    ask.timeout_ms = call->cloud->timeout_ms;
    ask.ca_file = call->cloud->ca_file;
    if ((err = uc_r2_temp_credentials(pool, &ask, &session)))
        return err;
    uc_vend_keys(out, "r2_temp_credentials", &session);
    return NULL;
}

static const char *const schemes[] = { "r2", NULL };

const uc_cloud_t uc_cloud_cloudflare = {
    "cloudflare", schemes, 1, types, vend, NULL, 1
};
