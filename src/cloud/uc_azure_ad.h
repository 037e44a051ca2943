/* SPDX-License-Identifier: Apache-2.0 */
/* Azure AD (Microsoft Entra ID) access tokens for an application, by the
 * OAuth 2.0 client-credentials grant of the v2.0 token endpoint
 * (learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-
 * grant-flow): what a storage credential's directory, application id and
 * client secret are exchanged for before Azure Storage is asked for a user
 * delegation key. */
#ifndef UC_AZURE_AD_H
#define UC_AZURE_AD_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

typedef struct uc_azure_ad_request {
    const char *authority;     /* NULL: https://login.microsoftonline.com */
    const char *tenant_id;     /* directory_id */
    const char *client_id;     /* application_id */
    const char *client_secret;
    const char *scope;         /* NULL: https://storage.azure.com/.default */
    long timeout_ms;           /* 0: uc_cloud_call's default */
    const char *ca_file;       /* NULL: the system's authorities */
} uc_azure_ad_request_t;

typedef struct uc_azure_token {
    const char *access_token;  /* a secret, wiped when the pool is cleared */
    apr_time_t expires;        /* counted from before the request was sent */
} uc_azure_token_t;

/* POST {authority}/{tenant}/oauth2/v2.0/token. A tenant that is neither a
 * GUID nor a domain name, a client id that is not a GUID, a missing secret
 * or an authority that is not https (or http to the loopback host) is a
 * 400; an unreachable authority a 503; a refusal the 502 or 503 of
 * uc_cloud_refused with AAD's error code ("invalid_client"). Neither the
 * secret nor AAD's error description (it may echo the request) is ever in
 * an error. */
uc_error_t *uc_azure_ad_token(apr_pool_t *pool,
                              const uc_azure_ad_request_t *req,
                              uc_azure_token_t *out);

#endif
