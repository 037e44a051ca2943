/* SPDX-License-Identifier: Apache-2.0 */
/* Directory access (Delta Sharing's accessModes "dir"): instead of signed
 * URLs of the files one snapshot needs, read credentials for the table's
 * root, with which the recipient reads the Delta log and the files
 * itself. The whole directory is then the recipient's: every version,
 * the change data, every partition. So it is offered only for a table the
 * share holds whole (its history and its change data feed shared, from
 * version 0, no partition filter; no ABAC policy may govern shared data),
 * in a cloud whose vended credentials are scoped to it (uc_clouds.h:
 * S3, R2, Cloud Storage; the SAS the server makes on Azure are the
 * container's). Local tables have no credentials to hand out: they are
 * read by URL only. */
#include "uc_sharing_api.h"

#include <string.h>

#include "uc_shared.h"
#include "../core/uc_json.h"
#include "../vend/uc_clouds.h"
#include "../vend/uc_storage_url.h"
#include "../vend/uc_vend.h"

int uc_sharing_dir_offered(const uc_shared_table_t *t)
{
    const uc_share_object_t *o = t->object;
    const uc_cloud_t *cloud = t->table->storage_location
                              ? uc_clouds_of_url(t->table->storage_location)
                              : NULL;

    return cloud && cloud->vend_scoped && !strcmp(o->cdf_enabled, "1") &&
           !strcmp(o->history_data_sharing_status, "ENABLED") &&
           !o->start_version && (!o->partitions || !strcmp(o->partitions,
                                                           "[]"));
}

/* The cloud's credential object as the protocol names it and its members,
 * from what the vendor made. R2's keys are S3's. */
static const struct {
    const char *kind;
    const char *object;
    const char *members[3][2];     /* vended name, protocol name */
} objects[] = {
    { "aws_temp_credentials", "awsTempCredentials",
      { { "access_key_id", "accessKeyId" },
        { "secret_access_key", "secretAccessKey" },
        { "session_token", "sessionToken" } } },
    { "r2_temp_credentials", "awsTempCredentials",
      { { "access_key_id", "accessKeyId" },
        { "secret_access_key", "secretAccessKey" },
        { "session_token", "sessionToken" } } },
    { "gcp_oauth_token", "gcpOauthToken",
      { { "oauth_token", "oauthToken" } } },
};

static uc_error_t *write_credentials(uc_call_t *call, uc_jw_t *out,
                                     const char *location,
                                     const uc_vended_t *v)
{
    size_t i, m;

    for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
        if (v->kind && !strcmp(v->kind, objects[i].kind))
            break;
    if (i == sizeof(objects) / sizeof(objects[0]))
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION,
                             "Table %s/%s offers url access only.",
                             call->params[1], call->params[2]);
    uc_jw_begin_object(out);
    uc_jw_key(out, "credentials");
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "location", location);
    uc_jw_key(out, objects[i].object);
    uc_jw_begin_object(out);
    for (m = 0; m < 3 && objects[i].members[m][0]; m++)
        uc_jw_field_string(out, objects[i].members[m][1],
                           uc_vended_value(v, objects[i].members[m][0]));
    uc_jw_end_object(out);
    uc_jw_key(out, "expirationTime");
    uc_jw_int(out, (apr_int64_t)apr_time_as_msec(v->expires));
    uc_jw_end_object(out);
    uc_jw_end_object(out);
    return NULL;
}

/* The body's location, when given, must be the table's root: the one
 * location this server offers. */
static uc_error_t *check_location(uc_call_t *call, const char *root)
{
    const char *given = NULL, *normal;
    uc_error_t *err = uc_json_string_field(call->pool, call->body,
                                           "location", 0, &given);

    if (err || !given)
        return err;
    if (uc_storage_url_derived(call->pool, "location", given, &normal) ||
        strcmp(normal, root) != 0)
        return uc_error_invalid(call->pool, "Field 'location' must be the "
                                "table's location as the table listings "
                                "give it.");
    return NULL;
}

uc_error_t *uc_sharing_table_credentials(uc_call_t *call, uc_jw_t *out)
{
    uc_vended_t v;
    uc_shared_t s;
    uc_error_t *err;

    if ((err = uc_shared_open(call, &s)))
        return err;
    if (!uc_sharing_dir_offered(s.t))
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION,
                             "Table %s/%s offers url access only.",
                             call->params[1], call->params[2]);
    if ((err = check_location(call, s.t->table->storage_location)))
        return err;
    if ((err = uc_vend_for(call, s.t->table->storage_location, 0, &v)))
        return uc_shared_storage_error(&s, err);
    return write_credentials(call, out, s.t->table->storage_location, &v);
}
