/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_gcp_token.h"

#include <string.h>
#include <apr_strings.h>
#include <jansson.h>

#include "uc_cloud_http.h"
#include "../core/uc_bytes.h"
#include "../core/uc_json.h"
#include "../core/uc_percent.h"
#include "../core/uc_rsa.h"
#include "../core/uc_secret.h"

#define TOKEN_SERVICE "Google's token endpoint"
#define STS_SERVICE "Google STS"
#define JWT_BEARER "urn:ietf:params:oauth:grant-type:jwt-bearer"
#define TOKEN_EXCHANGE "urn:ietf:params:oauth:grant-type:token-exchange"
#define ACCESS_TOKEN_TYPE "urn:ietf:params:oauth:token-type:access_token"
#define BUCKETS "projects/_/buckets/"
#define VIEWER "inRole:roles/storage.objectViewer"
#define ADMIN "inRole:roles/storage.objectAdmin"
#define LIST_PREFIX \
    "api.getAttribute('storage.googleapis.com/objectListPrefix', '')"
/* GCS's limits on names (cloud.google.com/storage/docs/buckets#naming,
 * objects#naming). */
#define BUCKET_MIN 3
#define BUCKET_MAX 222
#define OBJECT_NAME_MAX 1024
/* Longer than any token Google grants, short enough not to overflow. */
#define EXPIRES_IN_MAX 86400

typedef struct form_field {
    const char *name;
    const char *value;
} form_field_t;

/* The form-encoded body of `n` fields in one buffer, which the caller
 * wipes: the encoded values, which may be secrets, are wiped once
 * copied. */
static char *form_body(apr_pool_t *pool, const form_field_t *fields, int n,
                       apr_size_t *len)
{
    char **encoded = apr_palloc(pool, sizeof(*encoded) * (apr_size_t)n);
    apr_size_t total = 0, size;
    char *body, *o;
    int i;

    for (i = 0; i < n; i++) {
        encoded[i] = uc_percent_encode(pool, fields[i].value,
                                       strlen(fields[i].value), "");
        total += strlen(fields[i].name) + strlen(encoded[i]) + 2;
    }
    body = o = apr_palloc(pool, total);
    for (i = 0; i < n; i++) {
        if (i)
            *o++ = '&';
        size = strlen(fields[i].name);
        memcpy(o, fields[i].name, size);
        o += size;
        *o++ = '=';
        size = strlen(encoded[i]);
        memcpy(o, encoded[i], size);
        o += size;
        uc_secret_wipe(encoded[i], size);
    }
    *o = '\0';
    *len = (apr_size_t)(o - body);
    return body;
}

/* The error for a refusal, with the OAuth error code of its answer
 * ("invalid_grant") and never its error_description. */
static uc_error_t *refused(apr_pool_t *pool, const char *service,
                           const uc_cloud_answer_t *answer)
{
    json_t *doc = json_loadb(answer->body, answer->len, 0, NULL);
    uc_error_t *err = uc_cloud_refused(
        pool, service, answer->status,
        json_string_value(json_object_get(doc, "error")));

    json_decref(doc);
    return err;
}

/* POSTs the form `body` (wiped once sent); a status other than 200 is
 * refused(). */
static uc_error_t *post_form(apr_pool_t *pool, const char *service,
                             const char *uri, char *body, apr_size_t len,
                             long timeout_ms, const char *ca_file,
                             uc_cloud_answer_t *answer)
{
    static const char *const headers[] = {
        "Content-Type: application/x-www-form-urlencoded",
        "Accept: application/json", NULL
    };
    uc_cloud_request_t req = { 0 };
    uc_error_t *err;

    req.service = service;
    req.method = "POST";
    req.url = uri;
    req.headers = headers;
    req.body = body;
    req.body_len = len;
    req.timeout_ms = timeout_ms;
    req.ca_file = ca_file;
    err = uc_cloud_call(pool, &req, answer);
    uc_secret_wipe(body, len);
    if (!err && answer->status != 200) {
        err = refused(pool, service, answer);
        uc_secret_wipe(answer->body, answer->len);
    }
    return err;
}

/* The seconds of a valid expires_in, or 0. */
static apr_int64_t lifetime(const json_t *expires_in)
{
    json_int_t s = json_integer_value(expires_in);

    return json_is_integer(expires_in) && s > 0 && s <= EXPIRES_IN_MAX
           ? (apr_int64_t)s : 0;
}

/* The token of a 200 answer (wiped once read): access_token, expiring
 * expires_in seconds after `now` but not after `inherited` (0: no
 * limit), or at `inherited` when the answer has no expires_in. */
static uc_error_t *read_token(apr_pool_t *pool, const char *service,
                              const uc_cloud_answer_t *answer,
                              apr_time_t now, apr_time_t inherited,
                              uc_gcp_token_t *out)
{
    json_t *doc = json_loadb(answer->body, answer->len, 0, NULL);
    const char *token = json_string_value(json_object_get(doc,
                                                          "access_token"));
    const json_t *expires_in = json_object_get(doc, "expires_in");
    apr_time_t expires = inherited;
    uc_error_t *err = NULL;

    if (expires_in) {
        apr_int64_t seconds = lifetime(expires_in);

        expires = seconds ? now + apr_time_from_sec(seconds) : 0;
        if (inherited && expires > inherited)
            expires = inherited;
    }
    if (!token || !*token || expires <= 0) {
        err = uc_error_make(pool, UC_E_STORAGE, "%s answered without an "
                            "access token and its lifetime.", service);
    } else {
        out->access_token = apr_pstrdup(pool, token);
        uc_secret_wipe_with_pool(pool, (char *)out->access_token,
                                 strlen(token));
        out->expires = expires;
    }
    json_decref(doc);
    uc_secret_wipe(answer->body, answer->len);
    return err;
}

/* base64url of the compact JSON of `value` (released); NULL for none. */
static const char *jwt_part(apr_pool_t *pool, json_t *value)
{
    const char *text;

    if (!value)
        return NULL;
    text = uc_json_dump(pool, value);
    json_decref(value);
    return uc_base64url_encode(pool, (const unsigned char *)text,
                               strlen(text));
}

static json_t *jwt_header(const char *kid)
{
    json_t *header = json_pack("{s:s, s:s}", "alg", "RS256", "typ", "JWT");

    if (header && kid && json_object_set_new(header, "kid",
                                             json_string(kid))) {
        json_decref(header);
        return NULL;
    }
    return header;
}

static json_t *jwt_claims(const uc_gcp_token_request_t *req,
                          const char *uri, apr_time_t now)
{
    json_int_t iat = (json_int_t)apr_time_sec(now);

    return json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", req->client_email,
                     "scope", req->scope ? req->scope
                                         : UC_GCP_READ_ONLY_SCOPE,
                     "aud", uri, "iat", iat,
                     "exp", iat + UC_GCP_JWT_LIFETIME);
}

/* The signed assertion, which the caller wipes. */
static uc_error_t *make_assertion(apr_pool_t *pool,
                                  const uc_gcp_token_request_t *req,
                                  const char *uri, apr_time_t now,
                                  char **jwt)
{
    const char *header = jwt_part(pool, jwt_header(req->private_key_id));
    const char *claims = jwt_part(pool, jwt_claims(req, uri, now));
    const char *input;
    unsigned char *sig;
    apr_size_t sig_len;
    char *sig_text;
    uc_error_t *err;

    if (!header || !claims)
        return uc_error_invalid(pool, "The service account's e-mail "
                                "address, key id and scope and the token "
                                "URI must be UTF-8 text.");
    input = apr_pstrcat(pool, header, ".", claims, NULL);
    if ((err = uc_rsa_sha256_sign(pool, req->private_key, input,
                                  strlen(input), &sig, &sig_len)))
        return err;
    sig_text = uc_base64url_encode(pool, sig, sig_len);
    uc_secret_wipe(sig, sig_len);
    *jwt = apr_pstrcat(pool, input, ".", sig_text, NULL);
    uc_secret_wipe(sig_text, strlen(sig_text));
    return NULL;
}

uc_error_t *uc_gcp_access_token(apr_pool_t *pool,
                                const uc_gcp_token_request_t *req,
                                uc_gcp_token_t *out)
{
    const char *uri = req->token_uri ? req->token_uri : UC_GCP_TOKEN_URI;
    apr_time_t now = req->now ? req->now : apr_time_now();
    form_field_t fields[2];
    uc_cloud_answer_t answer;
    char *jwt = NULL, *body;
    apr_size_t len;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if (!req->client_email || !*req->client_email)
        return uc_error_invalid(pool, "A Google access token needs the "
                                "service account's e-mail address.");
    if ((err = make_assertion(pool, req, uri, now, &jwt)))
        return err;
    fields[0] = (form_field_t){ "grant_type", JWT_BEARER };
    fields[1] = (form_field_t){ "assertion", jwt };
    body = form_body(pool, fields, 2, &len);
    uc_secret_wipe(jwt, strlen(jwt));
    if ((err = post_form(pool, TOKEN_SERVICE, uri, body, len,
                         req->timeout_ms, req->ca_file, &answer)))
        return err;
    return read_token(pool, TOKEN_SERVICE, &answer, now, 0, out);
}

/* 3 to 222 of a-z, 0-9, '-', '_' and '.', starting and ending with a
 * letter or digit: no name that could leave the resource or the
 * condition it is written in. */
static int is_bucket_name(const char *s)
{
    apr_size_t n = strlen(s), i;

    if (n < BUCKET_MIN || n > BUCKET_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        int edge = i == 0 || i == n - 1;
        int alnum = (s[i] >= 'a' && s[i] <= 'z')
                    || (s[i] >= '0' && s[i] <= '9');

        if (!alnum && (edge || !strchr("-_.", s[i])))
            return 0;
    }
    return 1;
}

/* The prefix as a directory: no leading slash, one trailing; "" for the
 * whole bucket. */
static const char *directory(apr_pool_t *pool, const char *prefix)
{
    const char *start = prefix ? prefix : "", *end;

    while (*start == '/')
        start++;
    end = start + strlen(start);
    while (end > start && end[-1] == '/')
        end--;
    if (end == start)
        return "";
    return apr_pstrcat(pool, apr_pstrndup(pool, start,
                                          (apr_size_t)(end - start)),
                       "/", NULL);
}

/* `s` as a CEL string literal: single-quoted, its backslashes and quotes
 * escaped, so no prefix can end the literal and add to the condition. */
static const char *cel_string(apr_pool_t *pool, const char *s)
{
    char *out = apr_palloc(pool, 2 * strlen(s) + 3), *o = out;

    *o++ = '\'';
    for (; *s; s++) {
        if (*s == '\\' || *s == '\'')
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

/* Google's two documented conditions: an object's resource.name is
 * projects/_/buckets/B/objects/NAME; a list's is the bucket's, and its
 * prefix is the objectListPrefix attribute. */
static const char *condition(apr_pool_t *pool, const char *bucket,
                             const char *dir)
{
    const char *objects = apr_pstrcat(pool, BUCKETS, bucket, "/objects/",
                                      dir, NULL);

    return apr_pstrcat(pool, "resource.name.startsWith(",
                       cel_string(pool, objects), ") || " LIST_PREFIX
                       ".startsWith(", cel_string(pool, dir), ")", NULL);
}

/* The options of the exchange: one rule for the bucket, conditioned on
 * the directory unless it is the whole bucket. NULL when out of memory. */
static const char *boundary_options(apr_pool_t *pool, const char *bucket,
                                    const char *dir, int write)
{
    json_t *rule = json_pack(
        "{s:s, s:[s]}", "availableResource",
        apr_pstrcat(pool, "//storage.googleapis.com/" BUCKETS, bucket, NULL),
        "availablePermissions", write ? ADMIN : VIEWER);
    json_t *options;

    if (rule && *dir && json_object_set_new(
            rule, "availabilityCondition",
            json_pack("{s:s}", "expression", condition(pool, bucket, dir)))) {
        json_decref(rule);
        return NULL;
    }
    options = rule ? json_pack("{s:{s:[o]}}", "accessBoundary",
                               "accessBoundaryRules", rule)
                   : NULL;
    return options ? uc_json_dump(pool, uc_json_own(pool, options)) : NULL;
}

uc_error_t *uc_gcp_downscope(apr_pool_t *pool, const char *sts_uri,
                             const uc_gcp_token_t *source,
                             const char *bucket, const char *prefix,
                             int write, long timeout_ms,
                             const char *ca_file, uc_gcp_token_t *out)
{
    const char *dir, *options;
    form_field_t fields[5];
    uc_cloud_answer_t answer;
    apr_size_t len;
    char *body;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if (!source || !source->access_token || !*source->access_token)
        return uc_error_invalid(pool, "Downscoping needs a token.");
    if (!bucket || !is_bucket_name(bucket))
        return uc_error_invalid(pool, "Not a GCS bucket name.");
    if (prefix && (strlen(prefix) >= OBJECT_NAME_MAX
                   || !uc_cloud_is_key_text(prefix)))
        return uc_error_invalid(pool, "A GCS object prefix is UTF-8 "
                                "without control characters, shorter than "
                                "%d bytes.", OBJECT_NAME_MAX);
    dir = directory(pool, prefix);
    if (!(options = boundary_options(pool, bucket, dir, write)))
        return uc_error_internal(pool);
    fields[0] = (form_field_t){ "grant_type", TOKEN_EXCHANGE };
    fields[1] = (form_field_t){ "subject_token_type", ACCESS_TOKEN_TYPE };
    fields[2] = (form_field_t){ "requested_token_type", ACCESS_TOKEN_TYPE };
    fields[3] = (form_field_t){ "subject_token", source->access_token };
    fields[4] = (form_field_t){ "options", options };
    body = form_body(pool, fields, 5, &len);
    if ((err = post_form(pool, STS_SERVICE, sts_uri ? sts_uri
                                                    : UC_GCP_STS_URI,
                         body, len, timeout_ms, ca_file, &answer)))
        return err;
    return read_token(pool, STS_SERVICE, &answer, apr_time_now(),
                      source->expires, out);
}
