/* SPDX-License-Identifier: Apache-2.0 */
/* STS AssumeRole, the S3 session policy of vended credentials and the
 * check of role ARNs (uc_sts.h). */
#include "uc_sts.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "uc_cloud_http.h"
#include "uc_xml.h"
#include "../core/uc_jw.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"
#include "../core/uc_time.h"

#define SERVICE "AWS STS"
#define DEFAULT_REGION "us-east-1"
#define DEFAULT_DURATION_S 3600
#define MIN_DURATION_S 900
#define MAX_DURATION_S 43200
#define MAX_ARN 2048
#define MAX_ROLE_NAME 64

/* --- checks --------------------------------------------------------------- */

/* IAM's name characters, [\w+=,.@-]. */
static int is_iam_name_char(char c)
{
    return apr_isalnum(c) || (c && strchr("_+=,.@-", c));
}

static int is_session_name(const char *s)
{
    apr_size_t n = s ? strlen(s) : 0, i;

    if (n < 2 || n > 64)
        return 0;
    for (i = 0; i < n; i++)
        if (!is_iam_name_char(s[i]))
            return 0;
    return 1;
}

/* Goes into the signing scope "aws:amz:<region>:sts", where a ':' would
 * shift the fields, and into the default endpoint's host name. */
static int is_region(const char *s)
{
    apr_size_t n = strlen(s), i;

    if (n == 0 || n > 32)
        return 0;
    for (i = 0; i < n; i++)
        if (!(apr_islower(s[i]) || apr_isdigit(s[i]) || s[i] == '-'))
            return 0;
    return 1;
}

/* "path/to/name": IAM name characters in segments that are not empty, the
 * last (the role's name) at most MAX_ROLE_NAME long. */
static int is_role_path(const char *s)
{
    const char *segment = s;

    for (; *s; s++) {
        if (*s == '/') {
            if (s == segment)
                return 0;
            segment = s + 1;
        }
        else if (!is_iam_name_char(*s))
            return 0;
    }
    return s > segment && (apr_size_t)(s - segment) <= MAX_ROLE_NAME;
}

/* `s` after "arn:<partition>:", NULL without a known partition. */
static const char *after_partition(const char *s)
{
    static const char *const partitions[] = {
        "arn:aws:", "arn:aws-cn:", "arn:aws-us-gov:", NULL
    };
    int i;

    for (i = 0; partitions[i]; i++)
        if (strncmp(s, partitions[i], strlen(partitions[i])) == 0)
            return s + strlen(partitions[i]);
    return NULL;
}

uc_error_t *uc_aws_role_arn_check(apr_pool_t *pool, const char *field,
                                  const char *arn)
{
    const char *p = arn ? after_partition(arn) : NULL;
    int i;

    if (p && strlen(arn) <= MAX_ARN && strncmp(p, "iam::", 5) == 0) {
        for (p += 5, i = 0; i < 12 && apr_isdigit(p[i]); i++)
            ;
        if (i == 12 && strncmp(p + 12, ":role/", 6) == 0
            && is_role_path(p + 18))
            return NULL;
    }
    return uc_error_invalid(pool, "%s is not an IAM role ARN "
                            "(arn:aws:iam::<12-digit account>:role/<name>).",
                            field);
}

static uc_error_t *check_request(apr_pool_t *pool,
                                 const uc_sts_assume_role_t *req,
                                 const char *region, int duration)
{
    const uc_aws_keys_t *base = &req->base;
    uc_error_t *err;

    if ((err = uc_aws_role_arn_check(pool, "role_arn", req->role_arn)))
        return err;
    if (!is_session_name(req->session_name))
        return uc_error_invalid(pool, "session_name must be 2 to 64 "
                                "characters among letters, digits and "
                                "_+=,.@-.");
    if (duration < MIN_DURATION_S || duration > MAX_DURATION_S)
        return uc_error_invalid(pool, "duration_s must be %d to %d seconds.",
                                MIN_DURATION_S, MAX_DURATION_S);
    if (!is_region(region))
        return uc_error_invalid(pool, "region must be an AWS region name "
                                "(us-east-1).");
    if (!base->access_key_id || !*base->access_key_id
        || !base->secret_access_key || !*base->secret_access_key)
        return uc_error_invalid(pool, "AssumeRole needs an access key id "
                                "and a secret access key.");
    /* libcurl takes the key id and the secret as "id:secret". */
    if (strchr(base->access_key_id, ':')
        || !uc_cloud_is_header_value(base->access_key_id))
        return uc_error_invalid(pool, "The access key id holds a ':' or "
                                "control characters.");
    if (base->session_token && !uc_cloud_is_header_value(base->session_token))
        return uc_error_invalid(pool, "The session token holds control "
                                "characters.");
    return NULL;
}

/* --- the call ------------------------------------------------------------- */

static const char *form_field(apr_pool_t *pool, const char *name,
                              const char *value)
{
    return apr_pstrcat(pool, "&", name, "=",
                       uc_percent_encode(pool, value, strlen(value), ""),
                       NULL);
}

static const char *form_body(apr_pool_t *pool,
                             const uc_sts_assume_role_t *req, int duration)
{
    return apr_pstrcat(
        pool, "Action=AssumeRole&Version=2011-06-15",
        form_field(pool, "RoleArn", req->role_arn),
        form_field(pool, "RoleSessionName", req->session_name),
        form_field(pool, "DurationSeconds",
                   apr_itoa(pool, duration)),
        req->external_id ? form_field(pool, "ExternalId", req->external_id)
                         : "",
        req->policy ? form_field(pool, "Policy", req->policy) : "", NULL);
}

/* --- the answer ----------------------------------------------------------- */

/* The text of `e` joined in `pool` in one allocation: no partial copy of a
 * secret is left in between. NULL when there is none. */
static char *element_text(apr_pool_t *pool, const apr_xml_elem *e)
{
    const apr_text *t;
    apr_size_t len = 0;
    char *s, *w;

    if (e == NULL)
        return NULL;
    for (t = e->first_cdata.first; t; t = t->next)
        len += strlen(t->text);
    if (len == 0)
        return NULL;
    s = w = apr_palloc(pool, len + 1);
    for (t = e->first_cdata.first; t; t = t->next) {
        apr_size_t n = strlen(t->text);
        memcpy(w, t->text, n);
        w += n;
    }
    *w = '\0';
    return s;
}

/* The parser's copies of the credentials. apr_xml hands its text out as
 * const, but it is pool memory of the parse that is about to be freed. */
static void wipe_element_texts(const apr_xml_elem *e)
{
    const apr_xml_elem *child;
    const apr_text *t;

    for (t = e->first_cdata.first; t; t = t->next)
        uc_secret_wipe((char *)t->text, strlen(t->text));
    for (child = e->first_child; child; child = child->next)
        wipe_element_texts(child);
}

static apr_status_t wipe_session(void *data)
{
    uc_aws_keys_t *keys = data;

    if (keys->secret_access_key)
        uc_secret_wipe((char *)keys->secret_access_key,
                       strlen(keys->secret_access_key));
    if (keys->session_token)
        uc_secret_wipe((char *)keys->session_token,
                       strlen(keys->session_token));
    return APR_SUCCESS;
}

/* Copies the four fields of Credentials into `pool`. */
static uc_error_t *read_credentials(apr_pool_t *pool,
                                    const apr_xml_elem *creds,
                                    uc_aws_session_t *out)
{
    uc_aws_keys_t *keys = apr_pcalloc(pool, sizeof(*keys));
    const char *expiration;
    apr_int64_t ms;

    keys->access_key_id = element_text(pool, uc_xml_child(creds,
                                                          "AccessKeyId"));
    keys->secret_access_key = element_text(
        pool, uc_xml_child(creds, "SecretAccessKey"));
    keys->session_token = element_text(pool, uc_xml_child(creds,
                                                          "SessionToken"));
    apr_pool_cleanup_register(pool, keys, wipe_session,
                              apr_pool_cleanup_null);
    expiration = element_text(pool, uc_xml_child(creds, "Expiration"));
    if (!keys->access_key_id || !keys->secret_access_key
        || !keys->session_token || !expiration)
        return uc_error_make(pool, UC_E_STORAGE,
                             SERVICE " answered without credentials.");
    if (!uc_time_parse_iso8601(expiration, &ms))
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " answered with "
                             "an expiry that is not an ISO-8601 time.");
    out->keys = *keys;
    out->expires = (apr_time_t)ms * 1000;
    return NULL;
}

/* Reads a 200 answer parsed in `scratch`, then wipes the parser's copies
 * of what it held. */
static uc_error_t *read_success(apr_pool_t *pool, apr_pool_t *scratch,
                                const uc_cloud_answer_t *answer,
                                uc_aws_session_t *out)
{
    apr_xml_doc *doc = uc_xml_parse(scratch, answer->body, answer->len);
    const apr_xml_elem *creds = NULL;
    uc_error_t *err;

    if (doc == NULL)
        return uc_error_make(pool, UC_E_STORAGE,
                             SERVICE " answered with something that is not "
                             "XML.");
    if (strcmp(doc->root->name, "AssumeRoleResponse") == 0)
        creds = uc_xml_child(uc_xml_child(doc->root, "AssumeRoleResult"),
                             "Credentials");
    if (creds == NULL)
        err = uc_error_make(pool, UC_E_STORAGE,
                            SERVICE " answered without credentials.");
    else
        err = read_credentials(pool, creds, out);
    wipe_element_texts(doc->root);
    return err;
}

/* STS's error code, never its message: that may quote the request. */
static uc_error_t *read_refusal(apr_pool_t *pool, apr_pool_t *scratch,
                                const uc_cloud_answer_t *answer)
{
    apr_xml_doc *doc = uc_xml_parse(scratch, answer->body, answer->len);

    return uc_cloud_refused(pool, SERVICE, answer->status,
                            uc_xml_path(scratch, doc,
                                        "ErrorResponse/Error/Code"));
}

static uc_error_t *call_sts(apr_pool_t *pool, apr_pool_t *scratch,
                            const uc_sts_assume_role_t *req,
                            const char *region, int duration,
                            uc_aws_session_t *out)
{
    const char *body = form_body(scratch, req, duration);
    char *token_header = NULL;
    const char *headers[3] = {
        "Content-Type: application/x-www-form-urlencoded; charset=utf-8",
        NULL, NULL
    };
    uc_cloud_request_t call = {
        .service = SERVICE, .method = "POST", .headers = headers,
        .body = body, .body_len = strlen(body),
        .aws_sigv4 = apr_pstrcat(scratch, "aws:amz:", region, ":sts", NULL),
        .aws_key = req->base.access_key_id,
        .aws_secret = req->base.secret_access_key,
        .timeout_ms = req->timeout_ms, .ca_file = req->ca_file,
    };
    uc_cloud_answer_t answer;
    uc_error_t *err;

    call.url = req->endpoint ? req->endpoint
        : apr_pstrcat(scratch, "https://sts.", region, ".amazonaws.com/",
                      NULL);
    if (req->base.session_token)
        headers[1] = token_header = apr_pstrcat(
            scratch, "X-Amz-Security-Token: ", req->base.session_token,
            NULL);
    err = uc_cloud_call(scratch, &call, &answer);
    if (token_header)
        uc_secret_wipe(token_header, strlen(token_header));
    if (err)
        return uc_error_copy(pool, err);
    if (answer.status != 200)
        err = read_refusal(pool, scratch, &answer);
    else
        err = read_success(pool, scratch, &answer, out);
    uc_secret_wipe(answer.body, answer.len);
    return err;
}

uc_error_t *uc_sts_assume_role(apr_pool_t *pool,
                               const uc_sts_assume_role_t *req,
                               uc_aws_session_t *out)
{
    const char *region = req->region ? req->region : DEFAULT_REGION;
    int duration = req->duration_s ? req->duration_s : DEFAULT_DURATION_S;
    apr_pool_t *scratch;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if ((err = check_request(pool, req, region, duration)))
        return err;
    /* What the call and the parse leave behind holds secrets: it goes
     * (wiped where it held them) before this returns. */
    if (apr_pool_create(&scratch, pool) != APR_SUCCESS)
        return uc_error_internal(pool);
    err = call_sts(pool, scratch, req, region, duration, out);
    apr_pool_destroy(scratch);
    return err;
}

/* --- the session policy --------------------------------------------------- */

/* `s` with IAM's wildcard characters as the policy variables that stand for
 * them literally. */
static const char *iam_literal(apr_pool_t *pool, const char *s)
{
    char *out = apr_palloc(pool, 4 * strlen(s) + 1), *w = out;

    for (; *s; s++) {
        if (*s == '*' || *s == '?' || *s == '$') {
            *w++ = '$';
            *w++ = '{';
            *w++ = *s;
            *w++ = '}';
        }
        else
            *w++ = *s;
    }
    *w = '\0';
    return out;
}

/* Opens an Allow statement of `actions` on `resource`, for a Condition to
 * follow. */
static void begin_allow(uc_jw_t *w, const char *const *actions,
                        const char *resource)
{
    uc_jw_begin_object(w);
    uc_jw_field_string(w, "Effect", "Allow");
    uc_jw_key(w, "Action");
    if (actions[1] == NULL)
        uc_jw_string(w, actions[0]);
    else {
        uc_jw_begin_array(w);
        for (; *actions; actions++)
            uc_jw_string(w, *actions);
        uc_jw_end_array(w);
    }
    uc_jw_field_string(w, "Resource", resource);
}

/* Listing is allowed of the prefix itself and of what is below it. */
static void list_condition(uc_jw_t *w, apr_pool_t *pool, const char *prefix)
{
    uc_jw_key(w, "Condition");
    uc_jw_begin_object(w);
    uc_jw_key(w, "StringLike");
    uc_jw_begin_object(w);
    uc_jw_key(w, "s3:prefix");
    uc_jw_begin_array(w);
    uc_jw_string(w, prefix);
    uc_jw_string(w, apr_pstrcat(pool, prefix, "/*", NULL));
    uc_jw_end_array(w);
    uc_jw_end_object(w);
    uc_jw_end_object(w);
}

const char *uc_s3_session_policy(apr_pool_t *pool, const char *bucket,
                                 const char *prefix, int write)
{
    static const char *const read_actions[] = { "s3:GetO*", NULL };
    static const char *const write_actions[] = {
        "s3:GetO*", "s3:PutO*", "s3:DeleteO*", "s3:*Multipart*", NULL
    };
    static const char *const list[] = { "s3:ListBucket", NULL };
    static const char *const locate[] = { "s3:GetBucketLocation", NULL };
    const char *p = iam_literal(pool, prefix);
    const char *bucket_arn = apr_pstrcat(pool, "arn:aws:s3:::",
                                         iam_literal(pool, bucket), NULL);
    uc_jw_t *w = uc_jw_make(pool, 1024);

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "Version", "2012-10-17");
    uc_jw_key(w, "Statement");
    uc_jw_begin_array(w);
    begin_allow(w, write ? write_actions : read_actions,
          apr_pstrcat(pool, bucket_arn, *p ? "/" : "", p, "/*", NULL));
    uc_jw_end_object(w);
    begin_allow(w, list, bucket_arn);
    if (*p)
        list_condition(w, pool, p);
    uc_jw_end_object(w);
    /* Any bucket's: naming this one again would take the 63 bytes that
     * a 512-byte prefix needs to fit under STS's limit, and a bucket's
     * region is all this reveals. */
    begin_allow(w, locate, "*");
    uc_jw_end_object(w);
    uc_jw_end_array(w);
    uc_jw_end_object(w);
    return uc_jw_text(w);
}
