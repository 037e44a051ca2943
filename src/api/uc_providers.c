/* SPDX-License-Identifier: Apache-2.0 */
/* Providers (/providers): the Delta Sharing servers this metastore reads
 * shares from, one row per provider under the metastore. Its profile file
 * (recipient_profile_str) is a secret: details keep it sealed whole and,
 * for answers, its parts that are not secret,
 *     {"authentication_type":"TOKEN",
 *      "profile":{"shareCredentialsVersion":1,"endpoint":…},
 *      "sealed":"v1:…"}
 * so that no bearer token or client secret is ever read back. */
#include "uc_api.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_http.h"
#include "../cloud/uc_cloud_settings.h"
#include "../core/uc_bytes.h"
#include "../core/uc_json.h"
#include "../core/uc_jw.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"
#include "../core/uc_time.h"

#define P UC_PRIV

/* A profile file is a few hundred bytes; a long token fits in this. */
#define PROFILE_MAX 16384
/* URLs, client ids, scopes. */
#define FIELD_MAX 2048
/* Tokens and client secrets. */
#define SECRET_MAX 8192

/* Shows a provider and lets its shares be listed. */
#define READ (P(UC_PRIV_USE_PROVIDER) | P(UC_PRIV_MANAGE))

static const char *const auth_types[] = { "TOKEN",
                                          "OAUTH_CLIENT_CREDENTIALS", NULL };

/* A profile file, parsed; the strings live in `doc`. */
typedef struct profile {
    json_t *doc;
    int version;
    const char *endpoint;
    const char *token;             /* version 1 */
    const char *expiration;        /* version 1, optional */
    const char *token_endpoint;    /* version 2 */
    const char *client_id;         /* version 2 */
    const char *client_secret;     /* version 2 */
    const char *scope;             /* version 2, optional */
} profile_t;

/* aad of the sealed profile: the row and the field, so that it cannot be
 * moved to another provider. */
static const char *profile_aad(uc_call_t *call, const uc_securable_t *sec)
{
    return apr_pstrcat(call->pool, "provider/", sec->id,
                       "/recipient_profile_str", NULL);
}

static void wipe_string(json_t *doc, const char *key)
{
    json_t *v = json_object_get(doc, key);

    if (json_is_string(v))
        uc_secret_wipe((char *)json_string_value(v), json_string_length(v));
}

/* jansson's copies of the secrets, wiped before the document is freed
 * (cleanups run last registered first). */
static apr_status_t wipe_profile(void *data)
{
    wipe_string(data, "bearerToken");
    wipe_string(data, "clientSecret");
    return APR_SUCCESS;
}

/* Messages about a profile never quote it: it holds a secret. */
static uc_error_t *profile_string(uc_call_t *call, json_t *doc,
                                  const char *key, int required,
                                  apr_size_t max, const char **out)
{
    json_t *v = json_object_get(doc, key);

    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return uc_error_invalid(call->pool, "The profile has no %s.",
                                    key);
        return NULL;
    }
    if (!json_is_string(v))
        return uc_error_invalid(call->pool, "The profile's %s must be a "
                                "string.", key);
    if (json_string_length(v) == 0 || json_string_length(v) > max)
        return uc_error_invalid(call->pool, "The profile's %s must hold 1 "
                                "to %d bytes.", key, (int)max);
    /* Every string of a profile ends up in a URL or a header. */
    if (!uc_cloud_is_header_value(json_string_value(v)) ||
        strlen(json_string_value(v)) != json_string_length(v))
        return uc_error_invalid(call->pool, "The profile's %s holds control "
                                "characters.", key);
    *out = json_string_value(v);
    return NULL;
}

/* A token or a secret goes only where it cannot be read on the way. */
static uc_error_t *check_url(uc_call_t *call, const char *key,
                             const char *url)
{
    if (!url || uc_cloud_url_for_secrets(url))
        return NULL;
    return uc_error_invalid(call->pool, "The profile's %s must be an https "
                            "URL (or http to the loopback host): a token is "
                            "never sent in clear.", key);
}

static uc_error_t *read_version_1(uc_call_t *call, profile_t *p)
{
    apr_int64_t ms;
    uc_error_t *err;

    if ((err = profile_string(call, p->doc, "bearerToken", 1, SECRET_MAX,
                              &p->token)) ||
        (err = profile_string(call, p->doc, "expirationTime", 0, FIELD_MAX,
                              &p->expiration)))
        return err;
    if (p->expiration && !uc_time_parse_iso8601(p->expiration, &ms))
        return uc_error_invalid(call->pool, "The profile's expirationTime "
                                "must be an ISO-8601 time.");
    return NULL;
}

static uc_error_t *read_version_2(uc_call_t *call, profile_t *p)
{
    const char *type;
    uc_error_t *err;

    if ((err = profile_string(call, p->doc, "type", 1, FIELD_MAX, &type)))
        return err;
    if (strcmp(type, "oauth_client_credentials") != 0)
        return uc_error_invalid(call->pool, "Profiles of version 2 are "
                                "taken of type oauth_client_credentials "
                                "only.");
    if ((err = profile_string(call, p->doc, "tokenEndpoint", 1, FIELD_MAX,
                              &p->token_endpoint)) ||
        (err = check_url(call, "tokenEndpoint", p->token_endpoint)) ||
        (err = profile_string(call, p->doc, "clientId", 1, FIELD_MAX,
                              &p->client_id)) ||
        (err = profile_string(call, p->doc, "clientSecret", 1, SECRET_MAX,
                              &p->client_secret)) ||
        (err = profile_string(call, p->doc, "scope", 0, FIELD_MAX,
                              &p->scope)))
        return err;
    return NULL;
}

/* A profile file (Delta Sharing's "Profile File Format"): version 1 with a
 * bearer token, or version 2 with OAuth client credentials. */
static uc_error_t *parse_profile(uc_call_t *call, const char *text,
                                 apr_size_t len, profile_t *p)
{
    json_error_t jerr;
    json_t *version;
    uc_error_t *err;

    memset(p, 0, sizeof(*p));
    /* jansson's message would quote the text near the fault. */
    p->doc = uc_json_own(call->pool, json_loadb(text, len,
                                                JSON_REJECT_DUPLICATES,
                                                &jerr));
    if (p->doc)
        apr_pool_cleanup_register(call->pool, p->doc, wipe_profile,
                                  apr_pool_cleanup_null);
    if (!json_is_object(p->doc))
        return uc_error_invalid(call->pool, "recipient_profile_str must be "
                                "a Delta Sharing profile file: a JSON "
                                "object.");
    version = json_object_get(p->doc, "shareCredentialsVersion");
    if (!json_is_integer(version) || (json_integer_value(version) != 1 &&
                                      json_integer_value(version) != 2))
        return uc_error_invalid(call->pool, "The profile's "
                                "shareCredentialsVersion must be 1 (a bearer "
                                "token) or 2 (OAuth client credentials).");
    p->version = (int)json_integer_value(version);
    if ((err = profile_string(call, p->doc, "endpoint", 1, FIELD_MAX,
                              &p->endpoint)) ||
        (err = check_url(call, "endpoint", p->endpoint)))
        return err;
    return p->version == 1 ? read_version_1(call, p)
                           : read_version_2(call, p);
}

static void set_string(json_t *obj, const char *key, const char *value)
{
    if (value)
        json_object_set_new(obj, key, json_string(value));
}

/* What may be shown of a profile: all but its secrets. */
static json_t *shown_profile(const profile_t *p)
{
    json_t *shown = json_object();

    json_object_set_new(shown, "shareCredentialsVersion",
                        json_integer(p->version));
    set_string(shown, "type", p->version == 2 ? "oauth_client_credentials"
                                              : NULL);
    set_string(shown, "endpoint", p->endpoint);
    set_string(shown, "expirationTime", p->expiration);
    set_string(shown, "tokenEndpoint", p->token_endpoint);
    set_string(shown, "clientId", p->client_id);
    set_string(shown, "scope", p->scope);
    return shown;
}

/* A profile's URLs name no address of this host or its networks, unless
 * the mount allows it: checked here for a clear answer, and again as each
 * call connects, when the DNS may answer otherwise. */
static uc_error_t *check_addresses(uc_call_t *call, const profile_t *p)
{
    long timeout_ms = call->cloud->timeout_ms;
    uc_error_t *err;

    if (call->provider_private_addresses)
        return NULL;
    if ((err = uc_cloud_check_public(call->pool, "The profile's endpoint",
                                     p->endpoint, timeout_ms)))
        return err;
    return p->token_endpoint
        ? uc_cloud_check_public(call->pool, "The profile's tokenEndpoint",
                                p->token_endpoint, timeout_ms)
        : NULL;
}

/* The body's recipient_profile_str, checked against the provider's
 * authentication type, sealed into `details` with what may be shown. */
static uc_error_t *read_profile(uc_call_t *call, const uc_securable_t *sec,
                                const char *auth_type, json_t *details)
{
    json_t *given = json_object_get(call->body, "recipient_profile_str");
    const char *text = json_string_value(given), *box;
    apr_size_t len = json_string_length(given);
    int want = !strcmp(auth_type, "TOKEN") ? 1 : 2;
    profile_t p;
    uc_error_t *err;

    if (!text || len == 0 || len > PROFILE_MAX)
        return uc_error_invalid(call->pool, "recipient_profile_str is "
                                "required: a profile file of 1 to %d "
                                "bytes.", PROFILE_MAX);
    if (!(err = parse_profile(call, text, len, &p)) && p.version != want)
        err = uc_error_invalid(call->pool, "%s providers take profiles of "
                               "version %d.", auth_type, want);
    if (!err)
        err = check_addresses(call, &p);
    if (!err)
        err = uc_secret_seal(call->pool, call->secrets,
                             profile_aad(call, sec), text, len, &box);
    /* The request's copy goes too: nothing keeps the clear text. */
    uc_secret_wipe((char *)text, len);
    if (err)
        return err;
    json_object_set_new(details, "profile", shown_profile(&p));
    json_object_set_new(details, "sealed", json_string(box));
    return NULL;
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    json_t *details = uc_json_own(call->pool, json_object());
    const char *auth_type;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body,
                                  "authentication_type", auth_types, 1,
                                  &auth_type)) ||
        (err = read_profile(call, sec, auth_type, details)))
        return err;
    json_object_set_new(details, "authentication_type",
                        json_string(auth_type));
    uc_api_set_details(call, sec, details);
    return NULL;
}

static const char *auth_type_of(json_t *details)
{
    const char *t = json_string_value(json_object_get(details,
                                                      "authentication_type"));

    return t ? t : "TOKEN";
}

/* A new profile replaces the old one whole; the authentication type
 * stays. */
static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    json_t *details = json_deep_copy(uc_api_details(call, sec));
    json_t *given = json_object_get(call->body, "recipient_profile_str");
    uc_error_t *err;

    uc_json_own(call->pool, details);
    if (!given || json_is_null(given))
        return NULL;
    if (!json_is_string(given))
        return uc_error_invalid(call->pool, "Field 'recipient_profile_str' "
                                "must be a string.");
    if ((err = read_profile(call, sec, auth_type_of(details), details)))
        return err;
    uc_api_set_details(call, sec, details);
    *changed = 1;
    return NULL;
}

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    json_t *details = uc_api_details(call, sec);
    json_t *profile = json_object_get(details, "profile");

    (void)context;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_string(out, "authentication_type", auth_type_of(details));
    uc_jw_field_string(out, "comment", sec->comment);
    uc_jw_field_raw(out, "properties", sec->properties && *sec->properties
                                       ? sec->properties : "{}");
    uc_jw_field_string(out, "recipient_profile_str",
                       profile ? uc_json_dump(call->pool, profile) : NULL);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

/* USE PROVIDER on the metastore shows every provider (uc_authz.c); a
 * failure to read the caller's grants there shows less, never more. */
static uc_visibility_t *visible_providers(uc_call_t *call,
                                          int include_browse)
{
    uc_chain_t chain;
    uc_access_t access;
    int all = 0;

    (void)include_browse;
    if (!call->who->admin &&
        !uc_authz_resolve(call, "metastore", NULL, UC_LOCK_SHARE, &chain) &&
        !uc_authz_evaluate(call, &chain, &access))
        all = uc_access_has(&access, UC_LEVEL_METASTORE,
                            P(UC_PRIV_USE_PROVIDER));
    return uc_api_visibility(call, all, all, READ, READ);
}

static const char *const secret_details[] = { "sealed", NULL };

static const uc_api_family_t providers = {
    .type = UC_TYPE_PROVIDER, .level = UC_LEVEL_CATALOG,
    .rules = UC_RULES_ON_METASTORE(UC_TYPE_PROVIDER,
                                   UC_PRIV_CREATE_PROVIDER, READ, 0),
    .read = READ,
    .label = "Provider", .plural = "providers",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS, .audited = 1,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_PROPERTIES | UC_FIELD_OWNER,
    .update_fields = UC_FIELDS_ALL,
    .secret_details = secret_details,
    .render = render, .prepare_create = prepare_create,
    .prepare_update = prepare_update, .visibility = visible_providers
};

/* --- the provider's shares ------------------------------------------- */

/* The provider's profile, opened (its secrets wiped with the pool). */
static uc_error_t *open_profile(uc_call_t *call, const uc_securable_t *sec,
                                profile_t *p)
{
    json_t *details = uc_api_details(call, sec);
    const char *sealed = json_string_value(json_object_get(details,
                                                           "sealed"));
    char *plain;
    apr_size_t len;
    uc_error_t *err;

    if (!sealed)
        return uc_error_make(call->pool, UC_E_INTERNAL, "Provider '%s' is "
                             "stored without a profile.", sec->name);
    if ((err = uc_secret_open(call->pool, call->secrets,
                              profile_aad(call, sec), sealed, &plain,
                              &len)))
        return err;
    return parse_profile(call, plain, len, p);
}

/* <endpoint>/shares with the caller's paging passed on as Delta Sharing
 * names it. */
static uc_error_t *shares_url(uc_call_t *call, const char *endpoint,
                              const char **url)
{
    const char *max = apr_table_get(call->query, "max_results");
    const char *token = apr_table_get(call->query, "page_token");
    apr_size_t n = strlen(endpoint);
    const char *sep = "?", *p;
    char *u;

    for (p = max; p && *p && apr_isdigit(*p); p++)
        ;
    if (max && (*p || !*max || strlen(max) > 9))
        return uc_error_invalid(call->pool, "max_results must be a "
                                "non-negative integer.");
    while (n > 0 && endpoint[n - 1] == '/')
        n--;
    u = apr_pstrcat(call->pool, apr_pstrndup(call->pool, endpoint, n),
                    "/shares", NULL);
    if (max && *max) {
        u = apr_pstrcat(call->pool, u, sep, "maxResults=", max, NULL);
        sep = "&";
    }
    if (token && *token)
        u = apr_pstrcat(call->pool, u, sep, "pageToken=",
                        uc_percent_encode(call->pool, token, strlen(token),
                                          ""), NULL);
    *url = u;
    return NULL;
}

/* {"items":[{"name":…}],"nextPageToken":…} as
 * {"shares":[{"name":…}],"next_page_token":…}. */
static uc_error_t *write_shares(uc_call_t *call, uc_jw_t *out,
                                const char *service,
                                const uc_cloud_answer_t *answer)
{
    json_t *doc = uc_json_own(call->pool,
                              json_loadb(answer->body, answer->len, 0, NULL));
    json_t *items = json_object_get(doc, "items"), *item;
    json_t *next = json_object_get(doc, "nextPageToken");
    size_t i;

    if (!json_is_object(doc) || (items && !json_is_array(items)) ||
        (next && !json_is_null(next) && !json_is_string(next)))
        return uc_error_make(call->pool, UC_E_STORAGE, "%s answered what is "
                             "not a list of shares.", service);
    json_array_foreach(items, i, item)
        if (!json_is_string(json_object_get(item, "name")))
            return uc_error_make(call->pool, UC_E_STORAGE, "%s answered a "
                                 "share without a name.", service);
    uc_jw_begin_object(out);
    uc_jw_key(out, "shares");
    uc_jw_begin_array(out);
    json_array_foreach(items, i, item) {
        uc_jw_begin_object(out);
        uc_jw_key(out, "name");
        uc_jw_json(out, json_object_get(item, "name"));
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    /* Servers end their lists with "" as well as without a token. */
    uc_jw_field_string(out, "next_page_token",
                       json_string_length(next) ? json_string_value(next)
                                                : NULL);
    uc_jw_end_object(out);
    return NULL;
}

/* The access token an OAuth profile (version 2) buys at its token
 * endpoint: the client credentials grant (RFC 6749 §4.4), the client id
 * and secret in HTTP Basic as Delta Sharing's clients send them. A
 * refusal is the token endpoint's 502 (its status, never its body). */
static uc_error_t *exchange_token(uc_call_t *call, const profile_t *p,
                                  const char **token)
{
    const char *service = "The token endpoint of the provider's profile";
    char *pair = apr_pstrcat(call->pool, p->client_id, ":", p->client_secret,
                             NULL);
    char *basic = apr_pstrcat(call->pool, "Authorization: Basic ",
                              uc_base64_encode(call->pool,
                                               (unsigned char *)pair,
                                               strlen(pair)), NULL);
    const char *headers[] = {
        "Accept: application/json",
        "Content-Type: application/x-www-form-urlencoded", basic, NULL
    };
    const char *body = p->scope
        ? apr_pstrcat(call->pool, "grant_type=client_credentials&scope=",
                      uc_percent_encode(call->pool, p->scope,
                                        strlen(p->scope), ""), NULL)
        : "grant_type=client_credentials";
    uc_cloud_request_t req = {
        .service = service, .method = "POST", .url = p->token_endpoint,
        .headers = headers, .body = body, .body_len = strlen(body),
        .public_only = !call->provider_private_addresses,
        .timeout_ms = call->cloud->timeout_ms,
        .ca_file = call->cloud->ca_file,
    };
    uc_cloud_answer_t answer;
    json_t *doc, *access;
    uc_error_t *err = uc_cloud_call(call->pool, &req, &answer);

    uc_secret_wipe(pair, strlen(pair));
    uc_secret_wipe(basic, strlen(basic));
    if (err)
        return err;
    if (answer.status != 200) {
        uc_secret_wipe(answer.body, answer.len);
        return uc_cloud_refused(call->pool, service, answer.status, NULL);
    }
    doc = uc_json_own(call->pool, json_loadb(answer.body, answer.len, 0,
                                             NULL));
    uc_secret_wipe(answer.body, answer.len);
    access = json_object_get(doc, "access_token");
    if (!json_is_string(access) || !json_string_length(access) ||
        json_string_length(access) > SECRET_MAX)
        return uc_error_make(call->pool, UC_E_STORAGE, "%s answered no "
                             "access_token.", service);
    *token = apr_pstrdup(call->pool, json_string_value(access));
    uc_secret_wipe((char *)json_string_value(access),
                   json_string_length(access));
    uc_secret_wipe_with_pool(call->pool, (char *)*token, strlen(*token));
    return NULL;
}

/* Databricks' ListProviderShares: the provider's own list of shares, from
 * its sharing server with the provider's token (a bearer profile's, or the
 * access token an OAuth profile buys first). */
static uc_error_t *list_shares(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    const char *service = apr_psprintf(call->pool, "The sharing server of "
                                       "provider '%s'", sec->name);
    const char *headers[3] = { "Accept: application/json", NULL, NULL };
    uc_cloud_request_t req = {
        .service = service, .method = "GET", .headers = headers,
        .public_only = !call->provider_private_addresses,
        .timeout_ms = call->cloud->timeout_ms,
        .ca_file = call->cloud->ca_file,
    };
    uc_cloud_answer_t answer;
    profile_t p;
    const char *token;
    char *auth;
    uc_error_t *err;

    if (!call->secrets || !call->secrets->n)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "The profile of provider '%s' is sealed, and "
                             "this server has no key to open it: its "
                             "administrator must set UnicatSecretKeyFile.",
                             sec->name);
    if ((err = open_profile(call, sec, &p)) ||
        (err = shares_url(call, p.endpoint, &req.url)))
        return err;
    token = p.token;
    if (p.version == 2 && (err = exchange_token(call, &p, &token)))
        return err;
    headers[1] = auth = apr_pstrcat(call->pool, "Authorization: Bearer ",
                                    token, NULL);
    err = uc_cloud_call(call->pool, &req, &answer);
    uc_secret_wipe(auth, strlen(auth));
    if (err)
        return err;
    if (answer.status != 200)
        return uc_cloud_refused(call->pool, service, answer.status, NULL);
    return write_shares(call, out, service, &answer);
}

const uc_route_t uc_provider_routes[] = {
    UC_FAMILY_ROUTES(providers, "/providers", "/providers/{name}"),
    { UC_GET, "/providers/{name}/shares", list_shares, 0,
      &providers.rules.read, NULL, &providers },
    { 0, NULL, NULL, 0, NULL }
};
