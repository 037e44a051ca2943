/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_azure_ad.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <jansson.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"
#include "uc_cloud_http.h"

#define SERVICE "Azure AD"
#define DEFAULT_AUTHORITY "https://login.microsoftonline.com"
#define DEFAULT_SCOPE "https://storage.azure.com/.default"
/* Tokens AAD issues live for an hour or a day; more is a garbled answer. */
#define MAX_EXPIRES_IN (7 * 24 * 3600)

/* A verified domain of the directory (contoso.onmicrosoft.com): labels of
 * letters, digits and inner hyphens, at least two of them. */
static int is_domain(const char *s)
{
    apr_size_t label = 0, labels = 1;
    const char *p;

    if (!s || !*s || strlen(s) > 253)
        return 0;
    for (p = s; *p; p++) {
        if (*p == '.') {
            if (label == 0 || p[-1] == '-')
                return 0;
            label = 0;
            labels++;
        } else if (apr_isalnum(*p) || (*p == '-' && label > 0)) {
            if (++label > 63)
                return 0;
        } else {
            return 0;
        }
    }
    return label > 0 && p[-1] != '-' && labels >= 2;
}

static uc_error_t *check_request(apr_pool_t *pool,
                                 const uc_azure_ad_request_t *req,
                                 const char *authority)
{
    if (!uc_is_uuid(req->tenant_id) && !is_domain(req->tenant_id))
        return uc_error_invalid(pool, "The Azure directory id must be a "
                                "GUID or a domain name.");
    if (!uc_is_uuid(req->client_id))
        return uc_error_invalid(pool, "The Azure application id must be a "
                                "GUID.");
    if (!req->client_secret || !*req->client_secret)
        return uc_error_invalid(pool, "An Azure client secret is needed.");
    if (req->scope && !*req->scope)
        return uc_error_invalid(pool, "The Azure AD scope is empty.");
    if (!uc_cloud_url_for_secrets(authority))
        return uc_error_invalid(pool, "The Azure AD authority must be an "
                                "https URL (http only to the loopback "
                                "host).");
    return NULL;
}

static const char *token_url(apr_pool_t *pool, const char *authority,
                             const char *tenant)
{
    apr_size_t len = strlen(authority);

    while (len && authority[len - 1] == '/')
        len--;
    return apr_pstrcat(pool, apr_pstrndup(pool, authority, len), "/",
                       tenant, "/oauth2/v2.0/token", NULL);
}

static char *form_value(apr_pool_t *pool, const char *value)
{
    return uc_percent_encode(pool, value, strlen(value), "");
}

/* The grant's form. The encoded secret is wiped here; the form, which
 * holds it too, by the caller. */
static char *grant_form(apr_pool_t *pool, const uc_azure_ad_request_t *req)
{
    char *secret = form_value(pool, req->client_secret);
    char *form = apr_pstrcat(
        pool, "grant_type=client_credentials&client_id=",
        form_value(pool, req->client_id), "&client_secret=", secret,
        "&scope=", form_value(pool, req->scope ? req->scope : DEFAULT_SCOPE),
        NULL);

    uc_secret_wipe(secret, strlen(secret));
    return form;
}

/* Overwrites the text of a JSON string now: jansson frees its memory
 * without wiping it. */
static void wipe_json_string(json_t *string)
{
    if (json_is_string(string))
        uc_secret_wipe((char *)json_string_value(string),
                       json_string_length(string));
}

/* AAD's "error" member is a code such as invalid_client; its
 * error_description is never read, for it may quote the request, and is
 * wiped. */
static uc_error_t *refused(apr_pool_t *pool, long status, json_t *answer)
{
    json_t *code = json_object_get(answer, "error");

    wipe_json_string(json_object_get(answer, "error_description"));
    return uc_cloud_refused(pool, SERVICE, status,
                            json_is_string(code) ? json_string_value(code)
                                                 : NULL);
}

/* expires_in is a number of seconds, or a string of digits in AAD's older
 * answers. */
static int read_expires_in(json_t *value, apr_int64_t *seconds)
{
    const char *text;
    char *end;

    if (json_is_integer(value)) {
        *seconds = json_integer_value(value);
    } else if (json_is_string(value)) {
        text = json_string_value(value);
        if (!apr_isdigit(*text))
            return 0;
        *seconds = apr_strtoi64(text, &end, 10);
        if (*end)
            return 0;
    } else {
        return 0;
    }
    return *seconds > 0 && *seconds <= MAX_EXPIRES_IN;
}

static uc_error_t *read_token(apr_pool_t *pool, json_t *answer,
                              apr_time_t asked, uc_azure_token_t *out)
{
    json_t *token = json_object_get(answer, "access_token");
    apr_int64_t seconds;

    if (!json_is_string(token) || !*json_string_value(token)
        || !read_expires_in(json_object_get(answer, "expires_in"),
                            &seconds)) {
        wipe_json_string(token);
        return uc_error_make(pool, UC_E_STORAGE, "%s answered without an "
                             "access token and its lifetime.", SERVICE);
    }
    /* jansson's copy is the caller's: `answer` belongs to `pool`, whose
     * later cleanups run first, so the wipe comes before the release. */
    uc_secret_wipe_with_pool(pool, (char *)json_string_value(token),
                         json_string_length(token));
    out->access_token = json_string_value(token);
    out->expires = asked + apr_time_from_sec(seconds);
    return NULL;
}

static uc_error_t *read_answer(apr_pool_t *pool,
                               const uc_cloud_answer_t *answer,
                               apr_time_t asked, uc_azure_token_t *out)
{
    json_t *json = uc_json_own(pool, json_loadb(answer->body, answer->len,
                                                0, NULL));

    if (answer->status != 200)
        return refused(pool, answer->status, json);
    if (!json_is_object(json))
        return uc_error_make(pool, UC_E_STORAGE, "%s answered with what is "
                             "not a JSON object.", SERVICE);
    return read_token(pool, json, asked, out);
}

uc_error_t *uc_azure_ad_token(apr_pool_t *pool,
                              const uc_azure_ad_request_t *req,
                              uc_azure_token_t *out)
{
    static const char *const headers[] = {
        "Content-Type: application/x-www-form-urlencoded",
        "Accept: application/json", NULL
    };
    const char *authority = req->authority ? req->authority
                                           : DEFAULT_AUTHORITY;
    uc_cloud_request_t call = { 0 };
    uc_cloud_answer_t answer;
    apr_time_t asked = apr_time_now();
    char *form;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if ((err = check_request(pool, req, authority)))
        return err;
    form = grant_form(pool, req);
    call.service = SERVICE;
    call.method = "POST";
    call.url = token_url(pool, authority, req->tenant_id);
    call.headers = headers;
    call.body = form;
    call.body_len = strlen(form);
    call.timeout_ms = req->timeout_ms;
    call.ca_file = req->ca_file;
    err = uc_cloud_call(pool, &call, &answer);
    uc_secret_wipe(form, strlen(form));
    if (err)
        return err;
    err = read_answer(pool, &answer, asked, out);
    uc_secret_wipe(answer.body, answer.len);
    return err;
}
