/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_table_store.h"
#include "uc_vend.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"

/* What STS signs with when the credential names no region. */
#define DEFAULT_REGION "us-east-1"

/* Local paths need no credentials. */
static const uc_objstore_config_t local_files;

static int has_scheme(const char *location, const char *scheme)
{
    apr_size_t n = strlen(scheme);

    return !strncmp(location, scheme, n) && !strncmp(location + n, "://", 3);
}

static int is_s3(const char *location)
{
    return has_scheme(location, "s3") || has_scheme(location, "s3a");
}

static int is_azure(const char *location)
{
    return has_scheme(location, "abfss") || has_scheme(location, "abfs") ||
           has_scheme(location, "wasbs") || has_scheme(location, "wasb");
}

int uc_table_store_reads(const char *location)
{
    return has_scheme(location, "file") || is_s3(location) ||
           is_azure(location) || has_scheme(location, "gs");
}

/* The member `name` of vended credentials, NULL when they have none. */
static const char *vended_value(const uc_vended_t *v, const char *name)
{
    int i;

    for (i = 0; i < UC_VENDED_VALUES; i++)
        if (v->names[i] && !strcmp(v->names[i], name))
            return v->values[i];
    return NULL;
}

static uc_error_t *unsupported(uc_call_t *call, const char *location)
{
    const char *sep = strstr(location, "://");
    const char *scheme = sep ? apr_pstrndup(call->pool, location,
                                            (apr_size_t)(sep - location))
                             : location;

    return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION, "The "
                         "server does not read tables on %s:// storage "
                         "itself: only file://, s3://, s3a://, abfss://, "
                         "wasbs:// and gs://.", scheme);
}

/* Azure: the store signs its own SAS, with the account key or a user
 * delegation key good for the lifetime of vended credentials. */
static uc_error_t *azure_config(uc_call_t *call, const char *location,
                                uc_objstore_config_t *c,
                                apr_time_t *valid_until)
{
    apr_time_t expiry = apr_time_from_sec(apr_time_sec(call->now) +
                                          call->cloud->lifetime_s);
    uc_azure_delegation_key_t *delegation;
    uc_credential_t *cred;
    uc_error_t *err;

    if ((err = uc_vend_credential(call, location, 0, &cred)) ||
        (err = uc_vend_azure_key(call, call->pool, cred, location, expiry,
                                 &c->azure_account_key, &delegation)))
        return err;
    c->azure_delegation = delegation;
    c->azure_blob_endpoint = call->cloud->azure_blob_endpoint;
    c->ca_file = call->cloud->ca_file;
    c->timeout_ms = call->cloud->timeout_ms;
    *valid_until = delegation ? expiry : 0;
    return NULL;
}

/* Cloud Storage: the store reads with the location's service account's
 * token, downscoped to the table for reading, and signs V4 URLs with its
 * key. The URLs outlive the token: nothing caps them. */
static uc_error_t *gcs_config(uc_call_t *call, const char *location,
                              uc_objstore_config_t *c)
{
    const uc_credential_t *cred;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_vend_for_credential(call, location, 0, &v, &cred)))
        return err;
    c->gcs_token = vended_value(&v, "oauth_token");
    if (cred && !strcmp(cred->type, "databricks_gcp_service_account")) {
        if ((err = uc_credential_secret(call, cred, "private_key",
                                        &c->gcs_private_key)))
            return err;
        c->gcs_client_email = uc_credential_field(cred, "email");
    }
    c->gcs_endpoint = call->cloud->gcs_endpoint;
    c->ca_file = call->cloud->ca_file;
    c->timeout_ms = call->cloud->timeout_ms;
    return NULL;
}

uc_error_t *uc_table_store_config(uc_call_t *call, const char *location,
                                  const uc_objstore_config_t **config,
                                  apr_time_t *valid_until)
{
    apr_time_t until;
    uc_objstore_config_t *c;
    const uc_credential_t *cred;
    const char *region;
    uc_vended_t v;
    uc_error_t *err;

    if (valid_until)
        *valid_until = 0;
    if (has_scheme(location, "file")) {
        *config = &local_files;
        return NULL;
    }
    if (is_azure(location)) {
        c = apr_pcalloc(call->pool, sizeof(*c));
        if ((err = azure_config(call, location, c, &until)))
            return err;
        *config = c;
        if (valid_until)
            *valid_until = until;
        return NULL;
    }
    if (has_scheme(location, "gs")) {
        c = apr_pcalloc(call->pool, sizeof(*c));
        if ((err = gcs_config(call, location, c)))
            return err;
        *config = c;
        return NULL;
    }
    if (!is_s3(location))
        return unsupported(call, location);
    if ((err = uc_vend_for_credential(call, location, 0, &v, &cred)))
        return err;
    c = apr_pcalloc(call->pool, sizeof(*c));
    region = cred ? uc_credential_field(cred, "region") : NULL;
    c->region = region && *region ? region : DEFAULT_REGION;
    c->access_key_id = vended_value(&v, "access_key_id");
    c->secret_access_key = vended_value(&v, "secret_access_key");
    c->session_token = vended_value(&v, "session_token");
    c->endpoint = call->cloud->s3_endpoint;
    c->path_style = call->cloud->s3_path_style;
    c->timeout_ms = call->cloud->timeout_ms;
    c->ca_file = call->cloud->ca_file;
    *config = c;
    if (valid_until)
        *valid_until = v.expires;
    return NULL;
}
