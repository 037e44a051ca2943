/* SPDX-License-Identifier: Apache-2.0 */
/* The server's own file system (file:///path, or an absolute path): no
 * identity reads it but the server's, so no credential reaches it and
 * none is vended (uc_vend.h answers with the URL alone); the server reads
 * tables there as they are. */
#include "uc_clouds.h"

static uc_error_t *table_store(uc_call_t *call, const char *location,
                               uc_objstore_config_t *config,
                               apr_time_t *valid_until)
{
    (void)call;
    (void)location;
    (void)config;
    *valid_until = 0;
    return NULL;
}

static const char *const schemes[] = { "file", NULL };

const uc_cloud_t uc_cloud_file = {
    "file", schemes, 0, NULL, NULL, table_store
};
