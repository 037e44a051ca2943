/* SPDX-License-Identifier: Apache-2.0 */
/* S3: the credential's role assumed through STS, with its external id and
 * a session policy that keeps the keys to the location's bucket and
 * prefix (reads, or reads and writes). */
#include "uc_vend.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../cloud/uc_sts.h"
#include "../core/uc_id.h"

/* RoleSessionName: at most 64 characters, shown in CloudTrail. */
static const char *session_name(apr_pool_t *pool)
{
    return apr_pstrcat(pool, "uc-", uc_uuid4(pool), NULL);
}

uc_error_t *uc_vend_s3(const uc_vend_request_t *req, apr_pool_t *pool,
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
