/* SPDX-License-Identifier: Apache-2.0 */
/* Azure Blob Storage user delegation keys (learn.microsoft.com/rest/api/
 * storageservices/get-user-delegation-key): a key the storage account
 * hands to the holder of an Azure AD token, which signs user delegation
 * SAS (uc_azure_sas.h) with that identity's rights instead of the account
 * key's. */
#ifndef UC_AZURE_DELEGATION_H
#define UC_AZURE_DELEGATION_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

/* As Azure returns it; a SAS quotes every field but the value. */
typedef struct uc_azure_delegation_key {
    const char *signed_oid, *signed_tid, *signed_start, *signed_expiry,
               *signed_service, *signed_version;
    const char *value;         /* base64 key: a secret */
} uc_azure_delegation_key_t;

/* The key valid from `start` to `expiry` (at most 7 days from now, as Azure
 * allows), asked of `blob_endpoint` (https://<account>.blob.core.windows.net
 * or azurite's http(s)://127.0.0.1:PORT/<account>) with an access token for
 * storage (uc_azure_ad_token). The token goes over https only, or to the
 * loopback host. Bad arguments are a 400; an unreachable service a 503; a
 * refusal the 502 or 503 of uc_cloud_refused with Azure's error code. The
 * key's value is wiped when `pool` is cleared, and never in an error. */
uc_error_t *uc_azure_delegation_key(apr_pool_t *pool,
                                    const char *blob_endpoint,
                                    const char *access_token,
                                    apr_time_t start, apr_time_t expiry,
                                    long timeout_ms, const char *ca_file,
                                    uc_azure_delegation_key_t *out);

#endif
