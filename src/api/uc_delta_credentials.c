/* SPDX-License-Identifier: Apache-2.0 */
/* The UC Delta API's temporary credentials: for a table (READ, or
 * READ_WRITE with MODIFY), for a staging table (its creator writes its
 * first commit), for a path. The same credentials the catalog API vends,
 * in the shape of a DeltaStorageCredential: the prefix they reach, the
 * operation, when they expire, and a config of the cloud's keys (empty
 * for a local path, which needs none). */
#include "uc_delta_api.h"

#include <string.h>

#include "uc_temporary_credentials.h"

#define P UC_PRIV

/* The members of vended credentials as the config names them. */
static const char *const config_keys[][2] = {
    { "access_key_id", "s3.access-key-id" },
    { "secret_access_key", "s3.secret-access-key" },
    { "session_token", "s3.session-token" },
    { "sas_token", "azure.sas-token" },
    { "oauth_token", "gcs.oauth-token" },
    { NULL, NULL }
};

static void write_config(uc_jw_t *out, const uc_vended_t *v)
{
    int i, k;

    uc_jw_key(out, "config");
    uc_jw_begin_object(out);
    for (i = 0; v->kind && i < UC_VENDED_VALUES && v->names[i]; i++)
        for (k = 0; config_keys[k][0]; k++)
            if (!strcmp(v->names[i], config_keys[k][0]))
                uc_jw_field_string(out, config_keys[k][1], v->values[i]);
    uc_jw_end_object(out);
}

void uc_delta_write_credentials(uc_jw_t *out, const char *url,
                                const uc_vended_t *v, int write)
{
    uc_jw_key(out, "storage-credentials");
    uc_jw_begin_array(out);
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "prefix", url);
    uc_jw_field_string(out, "operation", write ? "READ_WRITE" : "READ");
    uc_jw_field_int(out, "expiration-time-ms",
                    (apr_int64_t)apr_time_as_msec(v->expires));
    write_config(out, v);
    uc_jw_end_object(out);
    uc_jw_end_array(out);
}

/* The query's operation: READ (0) or READ_WRITE (1). */
static uc_error_t *operation_of(uc_call_t *call, int *write)
{
    const char *op = apr_table_get(call->query, "operation");

    if (!op || (strcmp(op, "READ") && strcmp(op, "READ_WRITE")))
        return uc_error_invalid(call->pool, "Query parameter 'operation' "
                                "must be READ or READ_WRITE.");
    *write = !strcmp(op, "READ_WRITE");
    return NULL;
}

static uc_error_t *vend(uc_call_t *call, uc_jw_t *out, const char *url,
                        int write)
{
    uc_vended_t v;
    uc_error_t *err = uc_vend_for(call, url, write, &v);

    if (err)
        return err;
    uc_jw_begin_object(out);
    uc_delta_write_credentials(out, url, &v, write);
    uc_jw_end_object(out);
    return NULL;
}

uc_error_t *uc_delta_table_credentials(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    int write;
    uc_error_t *err = operation_of(call, &write);

    if (err)
        return err;
    if (write && !uc_access_has(&call->access, UC_LEVEL_OBJECT,
                                P(UC_PRIV_MODIFY)))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access "
                             "denied: MODIFY needed on '%s' for credentials "
                             "that write.", table->name);
    if (!table->storage_location)
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_TABLE_FORMAT,
                             "'%s' has no storage of its own.", table->name);
    return vend(call, out, table->storage_location, write);
}

/* Read and write, for the staging table's creator; once the table is
 * made (under the staging table's id), for whoever may write it, as its
 * credentials would be. */
uc_error_t *uc_delta_staging_credentials(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *staging = UC_TARGET_OF(call);

    if (!staging->storage_location)
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_TABLE_FORMAT,
                             "'%s' has no storage of its own.",
                             staging->name);
    return vend(call, out, staging->storage_location, 1);
}

uc_error_t *uc_delta_path_credentials(uc_call_t *call, uc_jw_t *out)
{
    const char *url = apr_table_get(call->query, "location");
    int write;
    uc_error_t *err;

    if (!url || !*url)
        return uc_error_invalid(call->pool, "Query parameter 'location' is "
                                "required.");
    if ((err = operation_of(call, &write)) ||
        (err = uc_temporary_path_check(call, "location", url,
                                       write ? UC_PATH_READ_WRITE
                                             : UC_PATH_READ, &url)))
        return err;
    return vend(call, out, url, write);
}
