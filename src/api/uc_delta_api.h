/* SPDX-License-Identifier: Apache-2.0 */
/* The UC Delta API (/delta/v1, Unity Catalog's api/delta.yaml): the
 * catalog as Delta engines speak to it, in kebab case and with errors of
 * its own (http/uc_render.h). Its routes are in uc_delta_api.c; creating
 * tables in uc_delta_create.c, updating them (and committing to them) in
 * uc_delta_update.c, credentials in uc_delta_credentials.c. */
#ifndef UC_DELTA_API_H
#define UC_DELTA_API_H

#include "uc_api.h"
#include "../vend/uc_vend.h"

/* The table properties that date the table's last metadata change: its
 * version and its commit's timestamp. */
#define UC_DELTA_LAST_UPDATE_VERSION "delta.lastUpdateVersion"
#define UC_DELTA_LAST_COMMIT_TIMESTAMP "delta.lastCommitTimestamp"

/* `table` must be a Delta table; any other answers
 * UnsupportedTableFormatException, so that a Delta client falls back to
 * the catalog API. */
uc_error_t *uc_delta_api_check_format(uc_call_t *call,
                                      const uc_securable_t *table);

/* The table's answer (DeltaLoadTableResponse) from its row as it is now:
 * metadata, and for a catalog-managed table the commits not backfilled
 * (newest first) and the latest version, from its ratified `commits`
 * when the caller holds them (NULL: read). */
uc_error_t *uc_delta_api_write_table(uc_call_t *call, uc_jw_t *out,
                                     const uc_securable_t *table,
                                     const apr_array_header_t *commits);

/* The operations of the other files. */
uc_error_t *uc_delta_create_staging(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_delta_create_table(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_delta_update_table(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_delta_table_credentials(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_delta_staging_credentials(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_delta_path_credentials(uc_call_t *call, uc_jw_t *out);

/* Writes credentials vended for `url` as the member of a
 * DeltaCredentialsResponse ("storage-credentials": [...]) for an
 * operation READ or READ_WRITE (`write`). */
void uc_delta_write_credentials(uc_jw_t *out, const char *url,
                                const uc_vended_t *v, int write);

#endif
