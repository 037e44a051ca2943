/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_azure_delegation.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_secret.h"
#include "uc_cloud_http.h"
#include "uc_xml.h"
#include "../core/uc_time.h"

#define SERVICE "Azure Blob Storage"
#define API_VERSION "2022-11-02"
#define MAX_LIFETIME apr_time_from_sec(7 * 24 * 3600)

static uc_error_t *check_arguments(apr_pool_t *pool, const char *endpoint,
                                   const char *access_token,
                                   apr_time_t start, apr_time_t expiry)
{
    if (!uc_cloud_url_for_secrets(endpoint))
        return uc_error_invalid(pool, "The blob endpoint must be an https "
                                "URL (http only to the loopback host).");
    if (!access_token || !*access_token)
        return uc_error_invalid(pool, "A user delegation key needs an "
                                "Azure AD access token.");
    if (expiry <= start)
        return uc_error_invalid(pool, "A user delegation key must expire "
                                "after it starts.");
    if (expiry > apr_time_now() + MAX_LIFETIME)
        return uc_error_invalid(pool, "A user delegation key expires within "
                                "7 days.");
    return NULL;
}

static const char *service_url(apr_pool_t *pool, const char *endpoint)
{
    apr_size_t len = strlen(endpoint);

    while (len && endpoint[len - 1] == '/')
        len--;
    return apr_pstrcat(pool, apr_pstrndup(pool, endpoint, len),
                       "/?restype=service&comp=userdelegationkey", NULL);
}

/* The fields of the key. The value stays in the parsed document, memory of
 * `pool` wiped when it is cleared; the answer it came from is wiped by the
 * caller. */
static uc_error_t *read_key(apr_pool_t *pool, const apr_xml_doc *doc,
                            uc_azure_delegation_key_t *out)
{
    char *value = (char *)uc_xml_path(pool, doc, "UserDelegationKey/Value");

    out->signed_oid = uc_xml_path(pool, doc, "UserDelegationKey/SignedOid");
    out->signed_tid = uc_xml_path(pool, doc, "UserDelegationKey/SignedTid");
    out->signed_start = uc_xml_path(pool, doc,
                                    "UserDelegationKey/SignedStart");
    out->signed_expiry = uc_xml_path(pool, doc,
                                     "UserDelegationKey/SignedExpiry");
    out->signed_service = uc_xml_path(pool, doc,
                                      "UserDelegationKey/SignedService");
    out->signed_version = uc_xml_path(pool, doc,
                                      "UserDelegationKey/SignedVersion");
    if (!out->signed_oid || !*out->signed_oid || !out->signed_tid
        || !*out->signed_tid || !out->signed_start || !out->signed_expiry
        || !out->signed_service || !out->signed_version || !value
        || !*value)
        return uc_error_make(pool, UC_E_STORAGE, "%s answered without a "
                             "user delegation key.", SERVICE);
    uc_secret_wipe_with_pool(pool, value, strlen(value));
    out->value = value;
    return NULL;
}

static uc_error_t *read_answer(apr_pool_t *pool,
                               const uc_cloud_answer_t *answer,
                               uc_azure_delegation_key_t *out)
{
    apr_xml_doc *doc = uc_xml_parse(pool, answer->body, answer->len);

    if (answer->status != 200)
        return uc_cloud_refused(pool, SERVICE, answer->status,
                                uc_xml_path(pool, doc, "Error/Code"));
    if (!doc)
        return uc_error_make(pool, UC_E_STORAGE, "%s answered with what is "
                             "not XML.", SERVICE);
    return read_key(pool, doc, out);
}

uc_error_t *uc_azure_delegation_key(apr_pool_t *pool,
                                    const char *blob_endpoint,
                                    const char *access_token,
                                    apr_time_t start, apr_time_t expiry,
                                    long timeout_ms, const char *ca_file,
                                    uc_azure_delegation_key_t *out)
{
    char *authorization;
    const char *headers[4];
    uc_cloud_request_t req = { 0 };
    uc_cloud_answer_t answer;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if ((err = check_arguments(pool, blob_endpoint, access_token, start,
                               expiry)))
        return err;
    authorization = apr_pstrcat(pool, "Authorization: Bearer ",
                                access_token, NULL);
    headers[0] = authorization;
    headers[1] = "x-ms-version: " API_VERSION;
    headers[2] = "Content-Type: application/xml";
    headers[3] = NULL;
    req.service = SERVICE;
    req.method = "POST";
    req.url = service_url(pool, blob_endpoint);
    req.headers = headers;
    req.body = apr_pstrcat(pool, "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
                           "<KeyInfo><Start>",
                           uc_time_iso8601_seconds(pool, start),
                           "</Start><Expiry>",
                           uc_time_iso8601_seconds(pool, expiry),
                           "</Expiry></KeyInfo>", NULL);
    req.body_len = strlen(req.body);
    req.timeout_ms = timeout_ms;
    req.ca_file = ca_file;
    err = uc_cloud_call(pool, &req, &answer);
    uc_secret_wipe(authorization, strlen(authorization));
    if (err)
        return err;
    err = read_answer(pool, &answer, out);
    uc_secret_wipe(answer.body, answer.len);
    return err;
}
