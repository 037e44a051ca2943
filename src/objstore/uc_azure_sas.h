/* SPDX-License-Identifier: Apache-2.0 */
/* Azure Blob Storage shared access signatures: a query string that lets
 * its holder do what `permissions` allow on one blob, on a container's
 * blobs, or on the blobs under one directory of an account with a
 * hierarchical namespace (ADLS Gen2), until it expires. Signed with the storage account key (a service
 * SAS, learn.microsoft.com/rest/api/storageservices/create-service-sas) or
 * with a user delegation key (a user delegation SAS, .../create-user-
 * delegation-sas), both in the form of version 2020-12-06 and later. */
#ifndef UC_AZURE_SAS_H
#define UC_AZURE_SAS_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../cloud/uc_azure_delegation.h"
#include "../core/uc_error.h"

#define UC_AZURE_SAS_VERSION "2022-11-02"

typedef struct uc_azure_sas {
    const char *account;
    const char *account_key;    /* base64, as the portal shows it */
    /* NULL: the account key signs. Otherwise this key does, account_key is
     * not read, and the SAS carries the key's identity (skoid...skv). */
    const uc_azure_delegation_key_t *delegation;
    const char *container;
    const char *blob;           /* NULL: the container (sr=c) */
    /* Instead of a blob: a directory ("a/b", sr=d, sdd=2), for accounts
     * with a hierarchical namespace only. */
    const char *directory;
    /* Azure's letters in Azure's order, e.g. "r", "rl", "racwdl". */
    const char *permissions;
    apr_time_t start;           /* 0: from when it is made */
    apr_time_t expiry;
    int allow_http;             /* spr=https,http rather than https */
} uc_azure_sas_t;

/* The SAS query string (sv=...&sig=..., without '?'). A bad key, an
 * incomplete delegation key, bad permissions, an expiry not after the
 * start or after the delegation key's is a 400 that never quotes the key.
 * What was derived from the key is wiped. */
uc_error_t *uc_azure_sas_sign(apr_pool_t *pool, const uc_azure_sas_t *sas,
                              const char **query);

#endif
