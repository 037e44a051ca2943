/* SPDX-License-Identifier: Apache-2.0 */
/* Azure Blob Storage service SAS signed with the storage account key
 * (learn.microsoft.com/rest/api/storageservices/create-service-sas,
 * version 2020-12-06 and later): a query string that lets its holder do
 * what `permissions` allow on one blob, or on a container's blobs, until
 * it expires. */
#ifndef UC_AZURE_SAS_H
#define UC_AZURE_SAS_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

#define UC_AZURE_SAS_VERSION "2022-11-02"

typedef struct uc_azure_sas {
    const char *account;
    const char *account_key;    /* base64, as the portal shows it */
    const char *container;
    const char *blob;           /* NULL: the container (sr=c) */
    /* Azure's letters in Azure's order, e.g. "r", "rl", "racwdl". */
    const char *permissions;
    apr_time_t start;           /* 0: from when it is made */
    apr_time_t expiry;
    int allow_http;             /* spr=https,http rather than https */
} uc_azure_sas_t;

/* The SAS query string (sv=...&sig=..., without '?'). A bad key, bad
 * permissions or an expiry not after the start is a 400 that never quotes
 * the key. What was derived from the key is wiped. */
uc_error_t *uc_azure_sas_sign(apr_pool_t *pool, const uc_azure_sas_t *sas,
                              const char **query);

#endif
