/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary AWS credentials for vending: STS AssumeRole of the role an
 * external location's credential names, limited by an inline session
 * policy to the bucket and key prefix asked for (how Unity Catalog scopes
 * what it hands to clients). */
#ifndef UC_STS_H
#define UC_STS_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

/* STS's limit on the plain text of an inline session policy. */
#define UC_S3_SESSION_POLICY_MAX 2048

typedef struct uc_aws_keys {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;     /* NULL: none */
} uc_aws_keys_t;

typedef struct uc_sts_assume_role {
    /* "https://sts.us-east-1.amazonaws.com", or a stand-in; NULL:
     * https://sts.<region>.amazonaws.com */
    const char *endpoint;
    const char *region;       /* NULL: us-east-1 */
    uc_aws_keys_t base;       /* the identity that calls STS (static keys) */
    const char *role_arn;
    const char *external_id;  /* NULL: none */
    /* RoleSessionName, e.g. "uc-<uuid>" (2-64 chars [\w+=,.@-]) */
    const char *session_name;
    const char *policy;       /* inline session policy (JSON text), NULL:
                                 none */
    int duration_s;           /* DurationSeconds, 900..43200; 0: 3600 */
    long timeout_ms;          /* 0: uc_cloud_http's default */
    const char *ca_file;      /* NULL: system CAs */
} uc_sts_assume_role_t;

typedef struct uc_aws_session {
    uc_aws_keys_t keys;
    apr_time_t expires;       /* STS's Expiration */
} uc_aws_session_t;

/* Calls STS AssumeRole (a form POST signed with SigV4 for
 * "aws:amz:<region>:sts" by uc_cloud_call, with X-Amz-Security-Token when
 * base.session_token is set) and reads the credentials of its answer
 * (AssumeRoleResponse/AssumeRoleResult/Credentials). The secret and the
 * session token in `out` are wiped when `pool` is cleared.
 * Errors: 400 (UC_E_INVALID) for a request STS would refuse anyway (a bad
 * role ARN, session name, duration or region, missing keys, a line break
 * in a header value); STS's refusals through uc_cloud_refused with STS's
 * error code (never its message, which may echo the request); 502 for an
 * answer without the four credential fields or an unreadable expiry; 503
 * when STS cannot be reached or does not answer in time. */
uc_error_t *uc_sts_assume_role(apr_pool_t *pool,
                               const uc_sts_assume_role_t *req,
                               uc_aws_session_t *out);

/* The compact JSON session policy that limits credentials to objects under
 * `prefix` (no leading or trailing '/'; "" for the whole bucket) in
 * `bucket`: s3:GetO* on them, s3:ListBucket of the prefix and below only
 * (of anything when prefix is ""), and s3:GetBucketLocation (on "*", which
 * keeps the policy short and reveals no more than regions); `write` adds
 * s3:PutO*, s3:DeleteO* and s3:*Multipart* on the objects. IAM's wildcards in the names ('*', '?', and '$') are written as
 * the policy variables ${*}, ${?} and ${$}, which stand for them
 * literally. A bucket of up to 63 characters and a prefix of up to 512
 * that need no escaping stay within UC_S3_SESSION_POLICY_MAX; STS refuses
 * a longer policy. */
const char *uc_s3_session_policy(apr_pool_t *pool, const char *bucket,
                                 const char *prefix, int write);

/* Checks an IAM role ARN: arn:<aws|aws-cn|aws-us-gov>:iam::<12 digits>:
 * role/<path/name>, the path and name of [A-Za-z0-9_+=,.@/-] without empty
 * segments, the name at most 64 characters, the whole at most 2048. A 400
 * (UC_E_INVALID) naming `field` otherwise; the ARN is not quoted. */
uc_error_t *uc_aws_role_arn_check(apr_pool_t *pool, const char *field,
                                  const char *arn);

#endif
