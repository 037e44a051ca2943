/* SPDX-License-Identifier: Apache-2.0 */
/* GCS: an OAuth token of the service account, minted with its key (a JWT
 * bearer grant), then downscoped by Google's STS to the location's bucket
 * and prefix (read, or read-write). */
#include "uc_vend.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_gcp_token.h"

#define SCOPE_WRITE "https://www.googleapis.com/auth/devstorage.read_write"

uc_error_t *uc_vend_gcs(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out)
{
    uc_call_t *call = req->call;
    const uc_credential_t *cred = req->cred;
    uc_gcp_token_request_t ask;
    uc_gcp_token_t token, scoped;
    const char *bucket, *prefix;
    uc_error_t *err;

    memset(&ask, 0, sizeof(ask));
    if ((err = uc_credential_secret(call, cred, "private_key",
                                    &ask.private_key)))
        return err;
    if (!ask.private_key)
        return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Credential "
                             "'%s' has no private_key to mint tokens with.",
                             cred->sec->name);
    ask.token_uri = call->cloud->gcp_token_uri;
    ask.client_email = uc_credential_field(cred, "email");
    ask.private_key_id = uc_credential_field(cred, "private_key_id");
    ask.scope = req->write ? SCOPE_WRITE : UC_GCP_READ_ONLY_SCOPE;
    ask.timeout_ms = call->cloud->timeout_ms;
    ask.ca_file = call->cloud->ca_file;
    ask.now = call->now;
    uc_vend_split(pool, req->url, &bucket, &prefix);
    if ((err = uc_gcp_access_token(pool, &ask, &token)) ||
        (err = uc_gcp_downscope(pool, call->cloud->gcp_sts_uri, &token,
                                bucket, prefix, req->write,
                                call->cloud->timeout_ms,
                                call->cloud->ca_file, &scoped)))
        return err;
    out->kind = "gcp_oauth_token";
    out->names[0] = "oauth_token";
    out->values[0] = scoped.access_token;
    out->expires = scoped.expires;
    return NULL;
}
