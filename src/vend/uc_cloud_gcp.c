/* SPDX-License-Identifier: Apache-2.0 */
/* Google Cloud Storage (gs://bucket/path): a service account and its key.
 * Temporary credentials are an OAuth token of the account, minted with its
 * key (a JWT bearer grant), then downscoped by Google's STS to the
 * location's bucket and prefix (read, or read-write); the server reads
 * tables with a read-only one and signs V4 URLs with the account's key. */
#include "uc_clouds.h"
#include "uc_vend.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_gcp_token.h"
#include "../core/uc_rsa.h"

#define SCOPE_WRITE "https://www.googleapis.com/auth/devstorage.read_write"

/* A private key as Google's key files hold it: one that signs. */
static uc_error_t *valid_pem_key(uc_call_t *call, const char *type,
                                 const char *field, const char *value)
{
    unsigned char *sig;
    apr_size_t len;

    if (uc_rsa_sha256_sign(call->pool, value, "", 0, &sig, &len))
        return uc_error_invalid(call->pool, "%s.%s is not an RSA private "
                                "key in PEM form.", type, field);
    return NULL;
}

/* Signing and minting tokens need the account's address with its key. */
static uc_error_t *check_gcp(uc_call_t *call, json_t *config, json_t *secrets)
{
    if (json_object_get(secrets, "private_key") &&
        !json_object_get(config, "email"))
        return uc_error_invalid(call->pool, "databricks_gcp_service_account:"
                                " a private_key needs the account's "
                                "email.");
    return NULL;
}

static const uc_credential_type_t types[] = {
    { "databricks_gcp_service_account",
      { { "email", 0 }, { "private_key_id", 0 },
        { "private_key", UC_CREDENTIAL_SECRET, valid_pem_key },
        { "credential_id", UC_CREDENTIAL_SERVER } },
      check_gcp },
    { NULL }
};

static uc_error_t *vend(const uc_vend_request_t *req, apr_pool_t *pool,
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

/* The store reads with the location's service account's token, downscoped
 * to the table for reading, and signs V4 URLs with its key. The URLs
 * outlive the token: nothing caps them. */
static uc_error_t *table_store(uc_call_t *call, const char *location,
                               uc_objstore_config_t *c,
                               apr_time_t *valid_until)
{
    const uc_credential_t *cred;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_vend_for_credential(call, location, 0, &v, &cred)))
        return err;
    c->gcs_token = uc_vended_value(&v, "oauth_token");
    if (cred && (err = uc_credential_secret(call, cred, "private_key",
                                            &c->gcs_private_key)))
        return err;
    c->gcs_client_email = cred ? uc_credential_field(cred, "email") : NULL;
    c->gcs_endpoint = call->cloud->gcs_endpoint;
    *valid_until = 0;
    return NULL;
}

static const char *const schemes[] = { "gs", NULL };

const uc_cloud_t uc_cloud_gcp = {
    "gcp", schemes, 0, types, vend, table_store, 1
};
