/* SPDX-License-Identifier: Apache-2.0 */
/* Cloudflare's R2 temp-access-credentials call and the reading of its
 * answer (uc_r2.h). */
#include "uc_r2.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <jansson.h>

#include "uc_cloud_http.h"
#include "../core/uc_bytes.h"
#include "../core/uc_jw.h"
#include "../core/uc_secret.h"

#define SERVICE "Cloudflare R2"
#define DEFAULT_API_BASE "https://api.cloudflare.com/client/v4"
#define DEFAULT_TTL_S 3600
/* Cloudflare documents a maximum of a week and no minimum; below STS's
 * floor credentials would expire before a client has used them. */
#define MIN_TTL_S 900
#define MAX_TTL_S 604800
#define ACCOUNT_ID_LEN 32
#define BUCKET_MIN 3
#define BUCKET_MAX 63
#define PREFIX_MAX 1024

/* --- checks --------------------------------------------------------------- */

/* R2's bucket names: 3 to 63 of a-z, 0-9 and '-', not starting or ending
 * with '-'. */
static int is_bucket_name(const char *s)
{
    apr_size_t n = s ? strlen(s) : 0, i;

    if (n < BUCKET_MIN || n > BUCKET_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        int alnum = apr_islower(s[i]) || apr_isdigit(s[i]);

        if (!alnum && (s[i] != '-' || i == 0 || i == n - 1))
            return 0;
    }
    return 1;
}

static uc_error_t *check_request(apr_pool_t *pool,
                                 const uc_r2_request_t *req,
                                 const char *api_base, int ttl)
{
    const char *prefix = req->prefix ? req->prefix : "";

    if (!uc_is_hex(req->account_id, ACCOUNT_ID_LEN))
        return uc_error_invalid(pool, "account_id must be 32 hexadecimal "
                                "digits.");
    if (!is_bucket_name(req->bucket))
        return uc_error_invalid(pool, "An R2 bucket name is 3 to 63 "
                                "characters among a-z, 0-9 and '-', "
                                "starting and ending with a letter or a "
                                "digit.");
    if (*prefix == '/' || strlen(prefix) > PREFIX_MAX
        || !uc_cloud_is_key_text(prefix))
        return uc_error_invalid(pool, "The prefix must be UTF-8 without "
                                "control characters or a leading '/', at "
                                "most %d bytes.", PREFIX_MAX);
    if (ttl < MIN_TTL_S || ttl > MAX_TTL_S)
        return uc_error_invalid(pool, "ttl_s must be %d to %d seconds.",
                                MIN_TTL_S, MAX_TTL_S);
    if (!req->api_token || !*req->api_token
        || !uc_cloud_is_header_value(req->api_token))
        return uc_error_invalid(pool, "Cloudflare needs an API token "
                                "without control characters.");
    if (!req->parent_access_key_id || !*req->parent_access_key_id
        || !uc_cloud_is_key_text(req->parent_access_key_id))
        return uc_error_invalid(pool, "parent_access_key_id is missing or "
                                "holds control characters.");
    if (!uc_cloud_url_for_secrets(api_base))
        return uc_error_invalid(pool, "api_base must be an https URL (or "
                                "http to the loopback host).");
    return NULL;
}

/* --- the call ------------------------------------------------------------- */

/* `prefix` as R2 matches it, a plain leading part of keys: with one
 * trailing '/', so that "t1" does not reach "t10/". */
static const char *key_prefix(apr_pool_t *pool, const char *prefix)
{
    apr_size_t n = strlen(prefix);

    while (n > 0 && prefix[n - 1] == '/')
        n--;
    return apr_pstrcat(pool, apr_pstrmemdup(pool, prefix, n), "/", NULL);
}

static const char *request_body(apr_pool_t *pool, const uc_r2_request_t *req,
                                int ttl)
{
    uc_jw_t *w = uc_jw_make(pool, 256);

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "bucket", req->bucket);
    uc_jw_field_string(w, "parentAccessKeyId", req->parent_access_key_id);
    uc_jw_field_string(w, "permission", req->write ? "object-read-write"
                                                   : "object-read-only");
    uc_jw_key(w, "ttlSeconds");
    uc_jw_int(w, ttl);
    if (req->prefix && *req->prefix) {
        uc_jw_key(w, "prefixes");
        uc_jw_begin_array(w);
        uc_jw_string(w, key_prefix(pool, req->prefix));
        uc_jw_end_array(w);
    }
    uc_jw_end_object(w);
    return uc_jw_text(w);
}

/* --- the answer ----------------------------------------------------------- */

static apr_status_t wipe_keys(void *data)
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

/* A copy in `pool` of the non-empty string member `name` of `obj`, NULL
 * without one. */
static const char *string_member(apr_pool_t *pool, const json_t *obj,
                                 const char *name)
{
    const char *s = json_string_value(json_object_get(obj, name));

    return s && *s ? apr_pstrdup(pool, s) : NULL;
}

/* The credentials of a 200 answer parsed as `doc`. */
static uc_error_t *read_success(apr_pool_t *pool, const json_t *doc,
                                int ttl, uc_aws_session_t *out)
{
    const json_t *result = json_object_get(doc, "result");
    uc_aws_keys_t *keys = apr_pcalloc(pool, sizeof(*keys));

    apr_pool_cleanup_register(pool, keys, wipe_keys, apr_pool_cleanup_null);
    if (json_is_true(json_object_get(doc, "success"))) {
        keys->access_key_id = string_member(pool, result, "accessKeyId");
        keys->secret_access_key = string_member(pool, result,
                                                "secretAccessKey");
        keys->session_token = string_member(pool, result, "sessionToken");
    }
    if (!keys->access_key_id || !keys->secret_access_key
        || !keys->session_token)
        return uc_error_make(pool, UC_E_STORAGE,
                             SERVICE " answered without credentials.");
    out->keys = *keys;
    /* Cloudflare's answer says nothing of the expiry: the credentials live
     * for the TTL asked for, from about now. */
    out->expires = apr_time_now() + apr_time_from_sec(ttl);
    return NULL;
}

/* Cloudflare's first error code, never its message: that may quote the
 * request. */
static uc_error_t *read_refusal(apr_pool_t *pool, const json_t *doc,
                                long status)
{
    const json_t *first = json_array_get(json_object_get(doc, "errors"), 0);
    const json_t *code = json_object_get(first, "code");
    const char *text = json_is_integer(code)
        ? apr_psprintf(pool, "%" APR_INT64_T_FMT,
                       (apr_int64_t)json_integer_value(code))
        : json_string_value(code);

    return uc_cloud_refused(pool, SERVICE, status, text);
}

/* jansson's copies of the secrets in `doc`, about to be freed. */
static void wipe_result(json_t *doc)
{
    static const char *const secrets[] = { "secretAccessKey",
                                           "sessionToken", NULL };
    json_t *result = json_object_get(doc, "result");
    const char *const *name;

    for (name = secrets; *name; name++) {
        json_t *s = json_object_get(result, *name);
        if (json_is_string(s))
            uc_secret_wipe((char *)json_string_value(s),
                           json_string_length(s));
    }
}

static uc_error_t *read_answer(apr_pool_t *pool,
                               const uc_cloud_answer_t *answer, int ttl,
                               uc_aws_session_t *out)
{
    json_t *doc = json_loadb(answer->body, answer->len, 0, NULL);
    uc_error_t *err;

    if (answer->status != 200)
        err = read_refusal(pool, doc, answer->status);
    else if (doc == NULL)
        err = uc_error_make(pool, UC_E_STORAGE, SERVICE " answered with "
                            "something that is not JSON.");
    else
        err = read_success(pool, doc, ttl, out);
    wipe_result(doc);
    json_decref(doc);
    return err;
}

static uc_error_t *call_r2(apr_pool_t *pool, apr_pool_t *scratch,
                           const uc_r2_request_t *req, const char *api_base,
                           int ttl, uc_aws_session_t *out)
{
    const char *headers[3] = { "Content-Type: application/json", NULL,
                               NULL };
    uc_cloud_request_t call = {
        .service = SERVICE, .method = "POST", .headers = headers,
        .timeout_ms = req->timeout_ms, .ca_file = req->ca_file,
    };
    uc_cloud_answer_t answer;
    char *auth;
    uc_error_t *err;

    call.url = apr_pstrcat(scratch, api_base, "/accounts/", req->account_id,
                           "/r2/temp-access-credentials", NULL);
    call.body = request_body(scratch, req, ttl);
    call.body_len = strlen(call.body);
    headers[1] = auth = apr_pstrcat(scratch, "Authorization: Bearer ",
                                    req->api_token, NULL);
    err = uc_cloud_call(scratch, &call, &answer);
    uc_secret_wipe(auth, strlen(auth));
    if (err)
        return uc_error_copy(pool, err);
    err = read_answer(pool, &answer, ttl, out);
    uc_secret_wipe(answer.body, answer.len);
    return err;
}

uc_error_t *uc_r2_temp_credentials(apr_pool_t *pool,
                                   const uc_r2_request_t *req,
                                   uc_aws_session_t *out)
{
    const char *api_base = req->api_base ? req->api_base : DEFAULT_API_BASE;
    int ttl = req->ttl_s ? req->ttl_s : DEFAULT_TTL_S;
    apr_pool_t *scratch;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if ((err = check_request(pool, req, api_base, ttl)))
        return err;
    /* libcurl's state and the answer held the token and the secrets: they
     * go before this returns. */
    if (apr_pool_create(&scratch, pool) != APR_SUCCESS)
        return uc_error_internal(pool);
    err = call_r2(pool, scratch, req, api_base, ttl, out);
    apr_pool_destroy(scratch);
    return err;
}
