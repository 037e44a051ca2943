/* SPDX-License-Identifier: Apache-2.0 */
/* Delta Sharing recipients (/recipients): one row per recipient under the
 * metastore, {"authentication_type": "TOKEN"} in its details, and its
 * bearer tokens in rows of their own (store/uc_recipient_tokens.h). A
 * token is handed over once, through its activation link on the public
 * routes (/public/data_sharing_activation/{nonce}), which need no
 * authentication: the link is the secret. No catalog route ever answers
 * a token. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_bytes.h"
#include "../core/uc_id.h"
#include "../core/uc_ip_list.h"
#include "../core/uc_json.h"
#include "../core/uc_secret.h"
#include "../core/uc_time.h"
#include "../http/uc_redact.h"
#include "../store/uc_grants.h"
#include "../store/uc_recipient_tokens.h"

#define P UC_PRIV

/* 256 bits from the CSPRNG, for tokens and activation nonces alike. */
#define TOKEN_BYTES 32
/* A rotation keeps the old token at most this long: a year. */
#define MAX_GRACE_SECONDS (365LL * 24 * 3600)
/* Who the audit names for an activation, which has no caller. */
#define ACTIVATION_ACTOR "(activation link)"

static const char *const auth_types[] = {
    "TOKEN", "OAUTH_CLIENT_CREDENTIALS", NULL
};

/* aad of a token row's sealed field: it cannot move to another row. */
static const char *sealed_aad(uc_call_t *call, const char *token_id,
                              const char *field)
{
    return apr_pstrcat(call->pool, "recipient_token/", token_id, "/", field,
                       NULL);
}

static const char *now_ms(uc_call_t *call)
{
    return uc_epoch_ms_text(call->pool, call->now);
}

/* In the audit table, and as the subject of the call's audit line (the
 * open routes resolve no recipient of their own). */
static uc_error_t *audit(uc_call_t *call, const char *actor,
                         const char *action, const char *recipient_id,
                         const char *recipient_name, const char *token_id)
{
    uc_audit_t entry = {
        now_ms(call), actor, action,
        uc_securable_type_name(UC_TYPE_RECIPIENT), recipient_id,
        recipient_name, token_id, NULL
    };

    call->audit_type = entry.securable_type;
    call->audit_name = recipient_name;
    return uc_audit_add(call->store, &entry);
}

/* expiration_time of a create or update body (epoch ms, in the future):
 * *at NULL without one. */
static uc_error_t *read_expiration(uc_call_t *call, const char **at)
{
    apr_int64_t ms = 0;
    int present = 0;
    uc_error_t *err = uc_json_int_field(call->pool, call->body,
                                        "expiration_time", 0,
                                        APR_INT64_MAX / 1000, &ms, &present);

    *at = NULL;
    if (err || !present)
        return err;
    if (ms <= (apr_int64_t)apr_time_as_msec(call->now))
        return uc_error_invalid(call->pool, "expiration_time must be in "
                                "the future (epoch milliseconds).");
    *at = apr_psprintf(call->pool, "%" APR_INT64_T_FMT, ms);
    return NULL;
}

/* Seals `text` into the token row's `field` and wipes the clear copy. */
static uc_error_t *seal_into(uc_call_t *call, const char *token_id,
                             const char *field, char *text,
                             const char **sealed)
{
    uc_error_t *err = uc_secret_seal(call->pool, call->secrets,
                                     sealed_aad(call, token_id, field), text,
                                     strlen(text), sealed);

    uc_secret_wipe(text, strlen(text));
    return err;
}

/* The keyed hashes of a new token and of its activation nonce, under the
 * first key. */
static uc_error_t *hash_into(uc_call_t *call, uc_recipient_token_t *t,
                             const char *token, const char *nonce)
{
    const uc_secret_key_t *key = &call->secrets->keys[0];

    t->key_id = key->id;
    t->token_hash = uc_secret_keyed_hash(call->pool, key,
                                         UC_TOKEN_HASH_PURPOSE, token,
                                         strlen(token));
    t->activation_hash = uc_secret_keyed_hash(call->pool, key,
                                              UC_ACTIVATION_HASH_PURPOSE,
                                              nonce, strlen(nonce));
    if (!t->token_hash || !t->activation_hash)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "HMAC-SHA256 failed");
    return NULL;
}

/* A new bearer token of the recipient, expiring at `expires_at` (NULL:
 * never): stored as its keyed hash, and sealed with its activation nonce
 * until the link is used. `action` is what the audit calls it. */
static uc_error_t *mint(uc_call_t *call, const uc_securable_t *sec,
                        const char *kind, const char *expires_at,
                        const char *action)
{
    uc_recipient_token_t t = { 0 };
    char *token, *nonce;
    uc_error_t *err;

    /* Without a key nothing may be stored: the sealing's own refusal. */
    if (!call->secrets || !call->secrets->n)
        return uc_secret_seal(call->pool, call->secrets, "", "", 0,
                              &t.token_sealed);
    token = uc_secret_random_token(call->pool, TOKEN_BYTES);
    nonce = uc_secret_random_token(call->pool, TOKEN_BYTES);
    if (!token || !nonce)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "the random generator failed");
    t.id = uc_uuid4(call->pool);
    t.recipient_id = sec->id;
    t.kind = kind;
    t.expires_at = expires_at;
    t.created_at = t.updated_at = now_ms(call);
    t.created_by = t.updated_by = call->principal;
    if ((err = hash_into(call, &t, token, nonce)) ||
        (err = seal_into(call, t.id, "token", token, &t.token_sealed)) ||
        (err = seal_into(call, t.id, "activation", nonce,
                         &t.activation_sealed)) ||
        (err = uc_recipient_token_insert(call->store, &t)))
        return err;
    return audit(call, call->principal, action, sec->id, sec->name, t.id);
}

static const char *auth_type_of(uc_call_t *call, const uc_securable_t *sec)
{
    return json_string_value(json_object_get(uc_api_details(call, sec),
                                             "authentication_type"));
}

/* What the recipient's activation links hand over: a bearer token
 * (TOKEN) or a client secret (OAUTH_CLIENT_CREDENTIALS). */
static const char *handed_over_kind(uc_call_t *call,
                                    const uc_securable_t *sec)
{
    const char *type = auth_type_of(call, sec);

    if (type && !strcmp(type, "TOKEN"))
        return UC_TOKEN_KIND_BEARER;
    if (type && !strcmp(type, "OAUTH_CLIENT_CREDENTIALS"))
        return UC_TOKEN_KIND_CLIENT;
    return NULL;
}

/* A TOKEN recipient's profile names the sharing endpoint: without one
 * configured there is nothing to hand over. */
static uc_error_t *need_endpoint(uc_call_t *call)
{
    if (call->sharing_endpoint)
        return NULL;
    return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                         "This server names no Delta Sharing endpoint for "
                         "recipients' profiles: its administrator must set "
                         "UnicatSharingEndpoint.");
}

/* An IP access list in the body's properties must parse: a typing error
 * found when the recipient first calls would lock it out. */
static uc_error_t *check_ip_access_list(uc_call_t *call)
{
    json_t *v = json_object_get(json_object_get(call->body, "properties"),
                                UC_RECIPIENT_IP_ACCESS_LIST);
    uc_ip_list_t *list;

    if (!json_is_string(v))
        return NULL;
    return uc_ip_list_parse(call->pool, "properties."
                            UC_RECIPIENT_IP_ACCESS_LIST,
                            json_string_value(v), &list);
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    json_t *details = uc_json_own(call->pool, json_object());
    const char *type = NULL, *at;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body,
                                  "authentication_type", auth_types, 1,
                                  &type)) ||
        (err = read_expiration(call, &at)) ||
        (err = check_ip_access_list(call)))
        return err;
    if ((err = need_endpoint(call)))
        return err;
    json_object_set_new(details, "authentication_type", json_string(type));
    uc_api_set_details(call, sec, details);
    return NULL;
}

/* A TOKEN recipient gets its first token with it. */
static uc_error_t *created(uc_call_t *call, const uc_securable_t *sec)
{
    const char *at;
    uc_error_t *err = read_expiration(call, &at);

    if (err)
        return err;
    return mint(call, sec, handed_over_kind(call, sec), at, "CREATE_TOKEN");
}

/* The newest token of a TOKEN recipient; *out NULL when it has none. */
static uc_error_t *newest_token(uc_call_t *call, const uc_securable_t *sec,
                                uc_recipient_token_t **out)
{
    apr_array_header_t *tokens;
    uc_error_t *err = uc_recipient_tokens_of(call->store, call->pool,
                                             sec->id, &tokens);

    *out = NULL;
    if (!err && tokens->nelts)
        *out = APR_ARRAY_IDX(tokens, tokens->nelts - 1,
                             uc_recipient_token_t *);
    return err;
}

/* expiration_time moves the expiry of the recipient's newest token; the
 * older ones keep what a rotation gave them. */
static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    uc_recipient_token_t *t;
    const char *at;
    uc_error_t *err;

    if ((err = check_ip_access_list(call)) ||
        (err = read_expiration(call, &at)) || !at)
        return err;
    if ((err = newest_token(call, sec, &t)))
        return err;
    if (!t)
        return uc_error_invalid(call->pool, "Recipient '%s' has no token "
                                "to set an expiration_time on.", sec->name);
    *changed = 1;
    return uc_recipient_token_set_expiry(call->store, t->id, at,
                                         now_ms(call), call->principal);
}

static int has_expired(uc_call_t *call, const uc_recipient_token_t *t)
{
    return t->expires_at && apr_atoi64(t->expires_at) <=
                            (apr_int64_t)apr_time_as_msec(call->now);
}

/* The link that hands the token over, while it is unused and the token
 * lives. */
static const char *activation_url(uc_call_t *call,
                                  const uc_recipient_token_t *t)
{
    char *nonce;
    apr_size_t len;
    uc_error_t *err;

    if (!t->activation_sealed || has_expired(call, t))
        return NULL;
    err = uc_secret_open(call->pool, call->secrets,
                         sealed_aad(call, t->id, "activation"),
                         t->activation_sealed, &nonce, &len);
    if (err) {
        uc_log(&call->log, UC_LOG_ERROR, 0, "UC0701: the activation link "
               "of recipient token %s cannot be shown: %s", t->id,
               err->cause ? err->cause : err->message);
        return NULL;
    }
    return apr_pstrcat(call->pool, uc_call_api_url(call),
                       "/public/" UC_ACTIVATION_SEGMENT "/", nonce, NULL);
}

static void write_token(uc_call_t *call, uc_jw_t *out,
                        const uc_recipient_token_t *t)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "id", t->id);
    uc_jw_field_string(out, "activation_url", activation_url(call, t));
    uc_jw_field_int_text(out, "expiration_time", t->expires_at);
    uc_jw_field_int_text(out, "created_at", t->created_at);
    uc_jw_field_string(out, "created_by", t->created_by);
    uc_jw_field_int_text(out, "updated_at", t->updated_at);
    uc_jw_field_string(out, "updated_by", t->updated_by);
    uc_jw_end_object(out);
}

/* tokens[], oldest first, from those of a page (`of_page`: recipient id
 * -> tokens) or read for the one recipient (NULL). A failed read leaves
 * them out (the log says why): the rest of the answer still holds. */
static void write_tokens(uc_call_t *call, uc_jw_t *out,
                         const uc_securable_t *sec, apr_hash_t *of_page)
{
    apr_array_header_t *tokens = NULL;
    uc_error_t *err = NULL;
    int i;

    if (of_page)
        tokens = apr_hash_get(of_page, sec->id, APR_HASH_KEY_STRING);
    else
        err = uc_recipient_tokens_of(call->store, call->pool, sec->id,
                                     &tokens);
    if (err) {
        uc_log(&call->log, UC_LOG_ERROR, 0, "UC0702: the tokens of "
               "recipient %s cannot be read: %s", sec->name,
               err->cause ? err->cause : err->message);
        return;
    }
    uc_jw_key(out, "tokens");
    uc_jw_begin_array(out);
    for (i = 0; tokens && i < tokens->nelts; i++)
        write_token(call, out, APR_ARRAY_IDX(tokens, i,
                                             uc_recipient_token_t *));
    uc_jw_end_array(out);
}

/* `context` is the tokens of a page of a list, NULL elsewhere. */
static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_string(out, "authentication_type", auth_type_of(call, sec));
    uc_jw_field_string(out, "comment", sec->comment);
    uc_jw_field_raw(out, "properties",
                    sec->properties && *sec->properties ? sec->properties
                                                        : "{}");
    if (handed_over_kind(call, sec))
        write_tokens(call, out, sec, (apr_hash_t *)context);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

/* The tokens of a page of recipients, in one read. */
static uc_error_t *page_tokens(uc_call_t *call,
                               const apr_array_header_t *rows,
                               const void **out)
{
    apr_hash_t *tokens = NULL;
    uc_error_t *err = NULL;

    if (rows->nelts)
        err = uc_recipient_tokens_in_range(
            call->store, call->pool, uc_store_metastore_id(call->store),
            APR_ARRAY_IDX(rows, 0, uc_securable_t *)->name,
            APR_ARRAY_IDX(rows, rows->nelts - 1, uc_securable_t *)->name,
            &tokens);
    *out = tokens ? tokens : apr_hash_make(call->pool);
    return err;
}

/* USE RECIPIENT (on the metastore: it reaches every recipient) or MANAGE
 * shows a recipient. */
#define READ (P(UC_PRIV_USE_RECIPIENT) | P(UC_PRIV_MANAGE))

static uc_visibility_t *visible_recipients(uc_call_t *call,
                                           int include_browse)
{
    int all = uc_access_has(&call->access, UC_LEVEL_METASTORE,
                            P(UC_PRIV_USE_RECIPIENT));

    (void)include_browse;
    return uc_api_visibility(call, all, all, READ, READ);
}

static const uc_api_family_t recipients = {
    .type = UC_TYPE_RECIPIENT, .level = UC_LEVEL_CATALOG,
    .rules = UC_RULES_ON_METASTORE_LISTED_AT(UC_TYPE_RECIPIENT,
                                             UC_PRIV_CREATE_RECIPIENT, READ,
                                             0, UC_TARGET_METASTORE),
    .read = READ,
    .label = "Recipient", .plural = "recipients",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS, .audited = 1,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_PROPERTIES,
    .update_fields = UC_FIELDS_ALL,
    .render = render, .page_context = page_tokens,
    .prepare_create = prepare_create, .created = created,
    .prepare_update = prepare_update, .visibility = visible_recipients
};

/* POST /recipients/{name}/rotate-token: a new token (and link); the
 * tokens before it expire existing_token_expire_in_seconds from now (0:
 * at once), unless they expire sooner. */
static uc_error_t *rotate_token(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    apr_int64_t grace = 0;
    int present = 0;
    const char *at;
    uc_error_t *err = uc_json_int_field(call->pool, call->body,
                                        "existing_token_expire_in_seconds",
                                        0, MAX_GRACE_SECONDS, &grace,
                                        &present);

    if (err)
        return err;
    if (!present)
        return uc_error_invalid(call->pool, "Missing required field "
                                "'existing_token_expire_in_seconds'.");
    if (!handed_over_kind(call, sec))
        return uc_error_invalid(call->pool, "Recipient '%s' has no token to "
                                "rotate.", sec->name);
    at = apr_psprintf(call->pool, "%" APR_INT64_T_FMT,
                      (apr_int64_t)apr_time_as_msec(call->now) +
                      grace * 1000);
    if ((err = need_endpoint(call)) ||
        (err = uc_recipient_tokens_expire(call->store, sec->id, at,
                                          now_ms(call), call->principal)) ||
        (err = mint(call, sec, handed_over_kind(call, sec), NULL,
                    "ROTATE_TOKEN")))
        return err;
    render(call, out, sec, NULL);
    return NULL;
}

/* The one answer to a link that is unknown, used, or of a token that
 * expired: they cannot be told apart. */
static uc_error_t *no_such_link(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_NOT_FOUND,
                         "No such activation link: it may have been used "
                         "already.");
}

/* The token of a live activation link, held for the activation. */
static uc_error_t *token_of_link(uc_call_t *call, uc_recipient_token_t **t)
{
    const char *nonce = call->params[0];
    uc_error_t *err;

    if (strlen(nonce) > 256)
        return no_such_link(call);
    if ((err = uc_recipient_token_by_activation(call->store, call->pool,
                                                call->secrets, nonce, t)))
        return err;
    if (!*t || !(*t)->token_sealed || has_expired(call, *t))
        return no_such_link(call);
    return NULL;
}

/* GET /public/data_sharing_activation_info/{nonce}: whether the link
 * works, without using it. */
static uc_error_t *activation_info(uc_call_t *call, uc_jw_t *out)
{
    uc_recipient_token_t *t;
    uc_error_t *err = token_of_link(call, &t);

    if (err)
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

#define TOKEN_ENDPOINT "/public/data_sharing_oauth/token"

/* The profile file of a client secret: Delta Sharing's version 2, OAuth
 * client credentials at this server's token endpoint, the client id being
 * the row's. */
static void write_client_profile(uc_call_t *call, uc_jw_t *out,
                                 const char *secret,
                                 const uc_recipient_token_t *t)
{
    uc_jw_begin_object(out);
    uc_jw_key(out, "shareCredentialsVersion");
    uc_jw_int(out, 2);
    uc_jw_field_string(out, "type", "oauth_client_credentials");
    uc_jw_field_string(out, "endpoint", call->sharing_endpoint);
    uc_jw_field_string(out, "tokenEndpoint",
                       apr_pstrcat(call->pool, uc_call_api_url(call),
                                   TOKEN_ENDPOINT, NULL));
    uc_jw_field_string(out, "clientId", t->id);
    uc_jw_field_string(out, "clientSecret", secret);
    uc_jw_end_object(out);
}

/* The profile file of the token: Delta Sharing's version 1 for a bearer
 * token (clients refuse bearer profiles of version 2). */
static void write_profile(uc_call_t *call, uc_jw_t *out, const char *token,
                          const uc_recipient_token_t *t)
{
    char when[UC_TIME_TEXT];

    if (t->kind && !strcmp(t->kind, UC_TOKEN_KIND_CLIENT)) {
        write_client_profile(call, out, token, t);
        return;
    }
    uc_jw_begin_object(out);
    uc_jw_key(out, "shareCredentialsVersion");
    uc_jw_int(out, 1);
    uc_jw_field_string(out, "endpoint", call->sharing_endpoint);
    uc_jw_field_string(out, "bearerToken", token);
    if (t->expires_at &&
        uc_time_format_iso8601(apr_atoi64(t->expires_at), when))
        uc_jw_field_string(out, "expirationTime", when);
    uc_jw_end_object(out);
}

/* GET /public/data_sharing_activation/{nonce}: the profile, once. The
 * sealed token and the link go in the same transaction that answers. */
static uc_error_t *activate(uc_call_t *call, uc_jw_t *out)
{
    uc_recipient_token_t *t;
    uc_securable_t *sec;
    char *token;
    apr_size_t len;
    int done = 0;
    uc_error_t *err;

    if ((err = need_endpoint(call)) || (err = token_of_link(call, &t)) ||
        (err = uc_secret_open(call->pool, call->secrets,
                              sealed_aad(call, t->id, "token"),
                              t->token_sealed, &token, &len)) ||
        (err = uc_recipient_token_activate(call->store, t->id, now_ms(call),
                                           &done)))
        return err;
    if (!done)
        return no_such_link(call);
    if ((err = uc_securable_by_id(call->store, call->pool, t->recipient_id,
                                  &sec)) ||
        (err = audit(call, ACTIVATION_ACTOR, "ACTIVATE_TOKEN",
                     t->recipient_id, sec ? sec->name : "", t->id)))
        return err;
    write_profile(call, out, token, t);
    return NULL;
}

/* An access token lives an hour, as Delta Sharing's OAuth clients expect
 * (they renew when less than ten minutes are left), and never longer than
 * the client secret it was issued for. */
#define ACCESS_TOKEN_SECONDS 3600
/* Client ids are UUIDs and secrets 43 characters: anything longer is not
 * one. */
#define MAX_CLIENT_FIELD 256

/* The client credentials of a token request: HTTP Basic (RFC 6749 §2.3.1,
 * what the Delta Sharing clients send), else client_id and client_secret
 * in the form. *id NULL when neither holds them. */
static void client_credentials(uc_call_t *call, const char **id,
                               const char **secret)
{
    const char *auth = call->authorization;
    unsigned char *decoded;
    apr_size_t len;
    char *colon;

    *id = *secret = NULL;
    if (auth && !strncasecmp(auth, "Basic ", 6) &&
        strlen(auth) <= 4 * MAX_CLIENT_FIELD &&
        uc_base64_decode(call->pool, auth + 6, &decoded, &len) == 0 &&
        !memchr(decoded, '\0', len)) {
        char *pair = apr_pstrmemdup(call->pool, (const char *)decoded, len);

        uc_secret_wipe(decoded, len);
        if ((colon = strchr(pair, ':'))) {
            *colon = '\0';
            *id = pair;
            *secret = colon + 1;
        }
        return;
    }
    if (call->form) {
        *id = apr_table_get(call->form, "client_id");
        *secret = apr_table_get(call->form, "client_secret");
    }
}

static uc_error_t *bad_client(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_UNAUTHENTICATED,
                         "Client authentication failed (invalid_client).");
}

/* A new access token for the client secret `client`, expiring at
 * `expires_ms`; *token is the token itself. */
static uc_error_t *issue_access(uc_call_t *call,
                                const uc_recipient_token_t *client,
                                apr_int64_t expires_ms, char **token)
{
    const uc_secret_key_t *key = &call->secrets->keys[0];
    uc_recipient_token_t t = { 0 };

    if (!(*token = uc_secret_random_token(call->pool, TOKEN_BYTES)))
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "the random generator failed");
    t.id = uc_uuid4(call->pool);
    t.recipient_id = client->recipient_id;
    t.kind = UC_TOKEN_KIND_ACCESS;
    t.key_id = key->id;
    t.token_hash = uc_secret_keyed_hash(call->pool, key,
                                        UC_TOKEN_HASH_PURPOSE, *token,
                                        strlen(*token));
    t.activated_at = t.created_at = t.updated_at = now_ms(call);
    t.expires_at = apr_psprintf(call->pool, "%" APR_INT64_T_FMT, expires_ms);
    t.created_by = t.updated_by = client->id;
    if (!t.token_hash)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "HMAC-SHA256 failed");
    return uc_recipient_token_insert(call->store, &t);
}

/* POST /public/data_sharing_oauth/token: the client credentials grant
 * (RFC 6749 §4.4) of OAUTH_CLIENT_CREDENTIALS recipients, whose profiles
 * (version 2) name it. The client id and secret an activation link handed
 * over buy an access token that the sharing server takes as it takes
 * bearer tokens. An unknown client, a wrong secret and an expired one are
 * the same 401. */
static uc_error_t *token_request(uc_call_t *call, uc_jw_t *out)
{
    const char *grant = call->form ? apr_table_get(call->form, "grant_type")
                                   : NULL;
    const char *id, *secret;
    uc_recipient_token_t *client;
    uc_securable_t *sec;
    apr_int64_t now = (apr_int64_t)apr_time_as_msec(call->now);
    apr_int64_t expires = now + ACCESS_TOKEN_SECONDS * 1000;
    char *token;
    uc_error_t *err;

    if (!grant || strcmp(grant, "client_credentials") != 0)
        return uc_error_invalid(call->pool, "grant_type must be "
                                "client_credentials "
                                "(unsupported_grant_type).");
    client_credentials(call, &id, &secret);
    if (!id || !secret || strlen(id) > MAX_CLIENT_FIELD ||
        strlen(secret) > MAX_CLIENT_FIELD)
        return bad_client(call);
    if ((err = uc_recipient_client_check(call->store, call->pool,
                                         call->secrets, id, secret,
                                         call->now, &client)))
        return err;
    if (!client)
        return bad_client(call);
    if (client->expires_at && apr_atoi64(client->expires_at) < expires)
        expires = apr_atoi64(client->expires_at);
    if ((err = uc_recipient_access_purge(call->store, client->recipient_id,
                                         now_ms(call))) ||
        (err = issue_access(call, client, expires, &token)) ||
        (err = uc_securable_by_id(call->store, call->pool,
                                  client->recipient_id, &sec)) ||
        (err = audit(call, client->id, "ISSUE_ACCESS_TOKEN",
                     client->recipient_id, sec ? sec->name : "",
                     client->id)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "access_token", token);
    uc_jw_field_string(out, "token_type", "bearer");
    uc_jw_key(out, "expires_in");
    uc_jw_int(out, (expires - now) / 1000);
    uc_jw_end_object(out);
    uc_secret_wipe(token, strlen(token));
    return NULL;
}

static const uc_rule_t anyone = { UC_TARGET_PUBLIC, { { 0, 0 } } };

const uc_route_t uc_recipient_routes[] = {
    { UC_POST, "/recipients/{name}/rotate-token", rotate_token,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &recipients.rules.manage, NULL,
      &recipients, "ROTATE_TOKEN" },
    UC_FAMILY_ROUTES(recipients, "/recipients", "/recipients/{name}"),
    { UC_GET, "/public/" UC_ACTIVATION_INFO_SEGMENT "/{nonce}",
      activation_info, 0, &anyone, NULL, NULL },
    { UC_GET, "/public/" UC_ACTIVATION_SEGMENT "/{nonce}", activate,
      UC_ROUTE_TXN, &anyone, NULL, NULL, "ACTIVATE_TOKEN" },
    { UC_POST, TOKEN_ENDPOINT, token_request, UC_ROUTE_FORM | UC_ROUTE_TXN,
      &anyone, NULL, NULL, "ISSUE_ACCESS_TOKEN" },
    { 0, NULL, NULL, 0, NULL }
};
