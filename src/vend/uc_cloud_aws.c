/* SPDX-License-Identifier: Apache-2.0 */
/* Amazon S3 (s3://bucket/path): an IAM role the server assumes through
 * STS. Temporary credentials are the role's session with its external id
 * and a session policy that keeps the keys to the location's bucket and
 * prefix (reads, or reads and writes); the server reads tables with such
 * keys too, read-only. */
#include "uc_clouds.h"
#include "uc_vend.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_sts.h"
#include "../core/uc_id.h"

/* What STS signs with when the credential names no region. */
#define DEFAULT_REGION "us-east-1"

/* Access keys come in pairs, and a session token needs them. */
static uc_error_t *check_aws(uc_call_t *call, json_t *config, json_t *secrets)
{
    const char *region = uc_credential_config(config, "region");
    int key = json_object_get(config, "access_key_id") != NULL;
    int secret = json_object_get(secrets, "secret_access_key") != NULL;
    const char *p;
    uc_error_t *err;

    if ((err = uc_aws_role_arn_check(call->pool, "aws_iam_role.role_arn",
                                     uc_credential_config(config,
                                                          "role_arn"))))
        return err;
    if (key != secret)
        return uc_error_invalid(call->pool, "aws_iam_role: access_key_id "
                                "and secret_access_key go together.");
    if (json_object_get(secrets, "session_token") && !key)
        return uc_error_invalid(call->pool, "aws_iam_role: a session_token "
                                "needs access_key_id and "
                                "secret_access_key.");
    for (p = region; p && *p; p++)
        if (!apr_isalnum(*p) && *p != '-')
            return uc_error_invalid(call->pool, "Invalid aws_iam_role."
                                    "region '%s'.", region);
    if (region && (!*region || strlen(region) > 32))
        return uc_error_invalid(call->pool, "Invalid aws_iam_role.region "
                                "'%s'.", region);
    return NULL;
}

static const uc_credential_type_t types[] = {
    { "aws_iam_role",
      { { "role_arn", UC_CREDENTIAL_REQUIRED }, { "region", 0 },
        { "access_key_id", 0 },
        { "secret_access_key", UC_CREDENTIAL_SECRET },
        { "session_token", UC_CREDENTIAL_SECRET },
        { "external_id", UC_CREDENTIAL_SERVER } },
      check_aws },
    { NULL }
};

/* RoleSessionName: at most 64 characters, shown in CloudTrail. */
static const char *session_name(apr_pool_t *pool)
{
    return apr_pstrcat(pool, "uc-", uc_uuid4(pool), NULL);
}

static uc_error_t *vend(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out)
{
    uc_call_t *call = req->call;
    const uc_credential_t *cred = req->cred;
    uc_sts_assume_role_t ask;
    uc_aws_session_t session;
    const char *bucket, *prefix;
    uc_error_t *err;

    memset(&ask, 0, sizeof(ask));
    ask.base.access_key_id = uc_credential_field(cred, "access_key_id");
    if ((err = uc_credential_secret(call, cred, "secret_access_key",
                                    &ask.base.secret_access_key)) ||
        (err = uc_credential_secret(call, cred, "session_token",
                                    &ask.base.session_token)))
        return err;
    if (!ask.base.access_key_id || !ask.base.secret_access_key)
        return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Credential "
                             "'%s' has no access key to call STS with: "
                             "give its aws_iam_role an access_key_id and a "
                             "secret_access_key.", cred->sec->name);
    uc_vend_split(pool, req->url, &bucket, &prefix);
    ask.endpoint = call->cloud->aws_sts_endpoint;
    ask.region = uc_credential_field(cred, "region");
    ask.role_arn = uc_credential_field(cred, "role_arn");
    ask.external_id = uc_credential_field(cred, "external_id");
    ask.session_name = session_name(pool);
    ask.policy = uc_s3_session_policy(pool, bucket, prefix, req->write);
    ask.duration_s = call->cloud->lifetime_s;
    ask.timeout_ms = call->cloud->timeout_ms;
    ask.ca_file = call->cloud->ca_file;
    if ((err = uc_sts_assume_role(pool, &ask, &session)))
        return err;
    uc_vend_keys(out, "aws_temp_credentials", &session);
    return NULL;
}

/* The keys of a read-only session, in the region the credential names. */
static uc_error_t *table_store(uc_call_t *call, const char *location,
                               uc_objstore_config_t *c,
                               apr_time_t *valid_until)
{
    const uc_credential_t *cred;
    const char *region;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_vend_for_credential(call, location, 0, &v, &cred)))
        return err;
    region = cred ? uc_credential_field(cred, "region") : NULL;
    c->region = region && *region ? region : DEFAULT_REGION;
    c->access_key_id = uc_vended_value(&v, "access_key_id");
    c->secret_access_key = uc_vended_value(&v, "secret_access_key");
    c->session_token = uc_vended_value(&v, "session_token");
    c->endpoint = call->cloud->s3_endpoint;
    c->path_style = call->cloud->s3_path_style;
    *valid_until = v.expires;
    return NULL;
}

static const char *const schemes[] = { "s3", NULL };

const uc_cloud_t uc_cloud_aws = {
    "aws", schemes, 0, types, vend, table_store, 1
};
