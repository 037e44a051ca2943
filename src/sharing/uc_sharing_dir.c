/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials of recipients' own. Directory access to tables (Delta
 * Sharing's accessModes "dir"): instead of signed
 * URLs of the files one snapshot needs, read credentials for the table's
 * root, with which the recipient reads the Delta log and the files
 * itself. The whole directory is then the recipient's: every version,
 * the change data, every partition. So it is offered only for a table the
 * share holds whole (its history and its change data feed shared, from
 * version 0, no partition filter; no ABAC policy may govern shared data),
 * in a cloud whose vended credentials can be scoped to it (uc_clouds.h:
 * S3, R2 and Cloud Storage by the policies their tokens carry, Azure by
 * a SAS of the table's directory). Local tables have no credentials to
 * hand out: they are read by URL only.
 *
 * Volumes and agent skills (Open Sharing's assets, read whole by their
 * recipients) get read credentials for their location in the same
 * clouds; a local one gets a grant of the files route for its root
 * (uc_file_url.h), the credentials of this server's own "store", with
 * the listing of its directories (uc_file_list.h). */
#include "uc_sharing_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_file_url.h"
#include "uc_shared.h"
#include "uc_sharing_tables.h"
#include "../core/uc_json.h"
#include "../vend/uc_clouds.h"
#include "../vend/uc_storage_url.h"
#include "../vend/uc_vend.h"

/* Whether credentials vended for the securable's location are that
 * place's alone. */
static int scoped_storage(const uc_shared_table_t *t)
{
    const uc_cloud_t *cloud = t->table->storage_location
                              ? uc_clouds_of_url(t->table->storage_location)
                              : NULL;

    return cloud && cloud->vend_scoped;
}

static int is_local(const uc_shared_table_t *t)
{
    return !strncmp(t->table->storage_location, "file:", 5);
}

const char *uc_sharing_asset_location(uc_call_t *call,
                                      const uc_shared_table_t *t)
{
    if (is_local(t))
        return apr_pstrcat(call->pool, uc_sharing_sign_files_base(call), "/",
                           t->table->id, "/", NULL);
    return scoped_storage(t) ? t->table->storage_location : NULL;
}

int uc_sharing_dir_offered(const uc_shared_table_t *t)
{
    const uc_share_object_t *o = t->object;

    return scoped_storage(t) && !strcmp(o->cdf_enabled, "1") &&
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
    { "azure_user_delegation_sas", "azureUserDelegationSas",
      { { "sas_token", "sasToken" } } },
};

/* The credentials object of the protocol: a table's in
 * {"credentials": {location, …}}, a volume's flat (Open Sharing). */
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
                             "%s/%s cannot be read with credentials of "
                             "your own.", call->params[1], call->params[2]);
    uc_jw_begin_object(out);
    if (location) {
        uc_jw_key(out, "credentials");
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "location", location);
    }
    uc_jw_key(out, objects[i].object);
    uc_jw_begin_object(out);
    for (m = 0; m < 3 && objects[i].members[m][0]; m++)
        uc_jw_field_string(out, objects[i].members[m][1],
                           uc_vended_value(v, objects[i].members[m][0]));
    uc_jw_end_object(out);
    uc_jw_key(out, "expirationTime");
    uc_jw_int(out, (apr_int64_t)apr_time_as_msec(v->expires));
    if (location)
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
    if ((err = uc_vend_scoped(call, s.t->table->storage_location, &v)))
        return uc_shared_storage_error(&s, err);
    return write_credentials(call, out, s.t->table->storage_location, &v);
}

uc_error_t *uc_sharing_asset_named(uc_call_t *call,
                                   const uc_sharing_asset_kind_t *a,
                                   uc_shared_table_t **out)
{
    const uc_securable_t *share = call->chain.sec[UC_LEVEL_CATALOG];
    uc_error_t *err = uc_sharing_asset_find(call, share, a->object_type,
                                            a->kind, call->params[1],
                                            call->params[2], out);

    if (!err && !*out)
        err = uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                            "[Share/Schema/%s] '%s/%s/%s' does not exist, "
                            "please contact your share provider for "
                            "further information.", a->label,
                            call->params[0], call->params[1],
                            call->params[2]);
    return err;
}

/* A local asset's credentials: the grant of its root on the files route,
 * as long as the URLs of files are good. */
static uc_error_t *write_grant(uc_call_t *call, uc_jw_t *out,
                               const uc_shared_table_t *t)
{
    apr_int64_t expires = apr_time_sec(call->now) + call->url_lifetime;
    const char *url, *query;
    uc_error_t *err = uc_file_grant_make(call->pool, call->secrets,
                                         uc_sharing_sign_files_base(call),
                                         t->table->id, expires, &url,
                                         &query);

    if (err)
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "signedPrefix");
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "url", url);
    uc_jw_field_string(out, "query", query);
    uc_jw_end_object(out);
    uc_jw_field_int(out, "expirationTime", expires * 1000);
    uc_jw_end_object(out);
    return NULL;
}

/* What the cloud said is the provider's, for the error log. */
static uc_error_t *vend_error(uc_call_t *call, const uc_shared_table_t *t,
                             uc_error_t *err)
{
    uc_error_because(call->pool, err, "%s: %s", t->table->name,
                     err->cause ? err->cause : err->message);
    if (err->kind != UC_E_UNAVAILABLE)
        uc_error_recast(err, UC_E_MALFORMED_REQUEST);
    err->message = apr_psprintf(call->pool, "The storage of %s/%s cannot be "
                                "reached; please contact your share "
                                "provider.", call->params[1],
                                call->params[2]);
    return err;
}

uc_error_t *uc_sharing_asset_credentials(uc_call_t *call, uc_jw_t *out,
                                         const uc_sharing_asset_kind_t *a)
{
    uc_shared_table_t *t;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_sharing_asset_named(call, a, &t)))
        return err;
    if (is_local(t))
        return write_grant(call, out, t);
    if (!scoped_storage(t))
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION,
                             "%s %s/%s is kept where recipients cannot read "
                             "it with credentials of their own.", a->label,
                             call->params[1], call->params[2]);
    if ((err = uc_vend_scoped(call, t->table->storage_location, &v)))
        return vend_error(call, t, err);
    return write_credentials(call, out, NULL, &v);
}
