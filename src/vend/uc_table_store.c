/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_table_store.h"
#include "uc_clouds.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"

static int reads_tables(const uc_cloud_t *cloud)
{
    return cloud->table_store != NULL;
}

int uc_table_store_reads(const char *location)
{
    const uc_cloud_t *cloud = uc_clouds_of_url(location);

    return cloud && reads_tables(cloud);
}

static uc_error_t *unsupported(uc_call_t *call, const char *location)
{
    const char *sep = strstr(location, "://");
    const char *scheme = sep ? apr_pstrndup(call->pool, location,
                                            (apr_size_t)(sep - location))
                             : location;

    return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION, "The "
                         "server does not read tables on %s:// storage "
                         "itself: only on %s.", scheme,
                         uc_clouds_schemes(call->pool, reads_tables));
}

uc_error_t *uc_table_store_config(uc_call_t *call, const char *location,
                                  const uc_objstore_config_t **config,
                                  apr_time_t *valid_until)
{
    const uc_cloud_t *cloud = uc_clouds_of_url(location);
    uc_objstore_config_t *c;
    apr_time_t until = 0;
    uc_error_t *err;

    if (valid_until)
        *valid_until = 0;
    if (!cloud || !reads_tables(cloud))
        return unsupported(call, location);
    c = apr_pcalloc(call->pool, sizeof(*c));
    if ((err = cloud->table_store(call, location, c, &until)))
        return err;
    c->ca_file = call->cloud->ca_file;
    c->timeout_ms = call->cloud->timeout_ms;
    *config = c;
    if (valid_until)
        *valid_until = until;
    return NULL;
}
