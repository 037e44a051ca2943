/* SPDX-License-Identifier: Apache-2.0 */
/* How the server itself reads a table's files (its Delta log, to check
 * what is shared of it; its data files, to pre-sign them for
 * recipients): as the table's cloud says (uc_clouds.h): nothing for local
 * paths, what the credential of the external location covering it gives
 * in the clouds. */
#ifndef UC_TABLE_STORE_H
#define UC_TABLE_STORE_H

#include "../call/uc_call.h"
#include "../objstore/uc_objstore.h"

/* Whether the server reads tables at `location` itself: its cloud has a
 * table_store (every one but R2). */
int uc_table_store_reads(const char *location);

/* How the server itself reads the table at `location` (normalised), its
 * cloud's table_store: file:// needs nothing; S3 gets read-only
 * credentials vended for that location (uc_vend_for with write 0, so
 * cached and scoped to it, and failing as it does: 400 when no external
 * location with a credential covers it, 502 or 503 when STS fails) in the
 * credential's region (us-east-1 when it has none), at UnicatS3Endpoint;
 * Azure the key that signs the store's SAS (the account key, or a user
 * delegation key for the lifetime of vended credentials) at
 * UnicatAzureBlobEndpoint; Cloud Storage a downscoped token and the
 * account's key. All with UnicatCloudTimeout and UnicatCloudCAFile.
 * Other schemes are a 400 UNSUPPORTED_OPERATION naming the scheme.
 * *config is from call->pool. *valid_until (may be NULL) is when the
 * credentials expire, 0 when they do not (file://): a URL pre-signed
 * with them is dead after it, whatever its own expiry says. */
uc_error_t *uc_table_store_config(uc_call_t *call, const char *location,
                                  const uc_objstore_config_t **config,
                                  apr_time_t *valid_until);

#endif
