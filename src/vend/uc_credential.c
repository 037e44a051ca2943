/* SPDX-License-Identifier: Apache-2.0 */
/* The credential model: each type of credential (its name, the URL
 * schemes it serves, its fields, which of them are secret or made by the
 * server, and what a valid one holds), and how the rest of the core reads
 * a stored one. A credential's details are
 *     {"purpose":…, "read_only":…, "type":"aws_iam_role",
 *      "config":{…what may be shown…}, "sealed":{field: sealed secret}}
 * so that rendering and the vendors read one shape whatever the type. */
#include "uc_credentials.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_sts.h"
#include "../core/uc_bytes.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_rsa.h"
#include "../core/uc_secret.h"

/* A secret of any type fits in this (a 4096-bit RSA key in PEM is about
 * 3.3 KiB). */
#define SECRET_MAX 8192
/* Identifiers, ARNs, resource ids. */
#define FIELD_MAX 2048

enum {
    REQUIRED = 1 << 0,
    SECRET = 1 << 1,      /* sealed, never answered */
    SERVER = 1 << 2,      /* made by the server: ignored in requests */
};

typedef struct field_spec {
    const char *name;
    unsigned flags;
    /* What a value must be beyond 1 to FIELD_MAX (SECRET_MAX) bytes of
     * text, NULL for nothing; secrets are checked before they are
     * sealed. */
    uc_error_t *(*valid)(uc_call_t *call, const char *type,
                         const char *field, const char *value);
} field_spec_t;

struct uc_credential_type {
    const char *name;
    const char *const *schemes;    /* the URL schemes it serves */
    field_spec_t fields[6];
    /* What the type checks beyond presence and size, NULL for nothing. */
    uc_error_t *(*check)(uc_call_t *call, json_t *config, json_t *secrets);
};
typedef uc_credential_type_t type_spec_t;

static const char *config_string(json_t *config, const char *field)
{
    return json_string_value(json_object_get(config, field));
}

/* Access keys come in pairs, and a session token needs them. */
static uc_error_t *check_aws(uc_call_t *call, json_t *config, json_t *secrets)
{
    const char *region = config_string(config, "region");
    int key = json_object_get(config, "access_key_id") != NULL;
    int secret = json_object_get(secrets, "secret_access_key") != NULL;
    const char *p;
    uc_error_t *err;

    if ((err = uc_aws_role_arn_check(call->pool, "aws_iam_role.role_arn",
                                     config_string(config, "role_arn"))))
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

/* A workload-identity token file would let a request make the server read
 * any file it can: refused until the administrator can name allowed
 * files. */
static uc_error_t *check_service_principal(uc_call_t *call, json_t *config,
                                           json_t *secrets)
{
    if (json_object_get(config, "federated_token_file"))
        return uc_error_make(call->pool, UC_E_UNSUPPORTED_OPERATION,
                             "azure_service_principal.federated_token_file "
                             "is not supported: give a client_secret.");
    if (!json_object_get(secrets, "client_secret"))
        return uc_error_invalid(call->pool, "azure_service_principal."
                                "client_secret is required: the server signs "
                                "in as the service principal with it.");
    return NULL;
}

/* Storage account names are what Azure allows in a host name. */
static uc_error_t *check_storage_key(uc_call_t *call, json_t *config,
                                     json_t *secrets)
{
    const char *p, *name = config_string(config, "account_name");

    (void)secrets;
    for (p = name; *p; p++)
        if (!apr_islower(*p) && !apr_isdigit(*p))
            break;
    if (*p || strlen(name) < 3 || strlen(name) > 24)
        return uc_error_invalid(call->pool, "Invalid azure_storage_key."
                                "account_name: 3 to 24 lower-case letters "
                                "and digits.");
    return NULL;
}

/* An account key is what Azure shows: base64. */
static uc_error_t *valid_base64_key(uc_call_t *call, const char *type,
                                    const char *field, const char *value)
{
    unsigned char *bytes;
    apr_size_t len;

    if (uc_base64_decode(call->pool, value, &bytes, &len) != 0 || len == 0)
        return uc_error_invalid(call->pool, "%s.%s is not a base64 key.",
                                type, field);
    uc_secret_wipe(bytes, len);
    return NULL;
}

/* A private key as Google's key files hold it: one that signs. */
static uc_error_t *valid_pem_key(uc_call_t *call, const char *type,
                                 const char *field, const char *value)
{
    unsigned char *sig;
    apr_size_t len;

    if (uc_rsa_sha256_sign(call->pool, value, "", 0, &sig, &len))
        return uc_error_invalid(call->pool, "%s.%s is not an RSA private "
                                "key in PEM form.", type, field);
    return NULL;
}

/* Signing and minting tokens need the account's address with its key. */
static uc_error_t *check_gcp(uc_call_t *call, json_t *config, json_t *secrets)
{
    if (json_object_get(secrets, "private_key") &&
        !json_object_get(config, "email"))
        return uc_error_invalid(call->pool, "databricks_gcp_service_account:"
                                " a private_key needs the account's "
                                "email.");
    return NULL;
}

static const char *const s3_schemes[] = { "s3", NULL };
static const char *const azure_schemes[] = { "abfs", "abfss", NULL };
static const char *const gcs_schemes[] = { "gs", NULL };
static const char *const r2_schemes[] = { "r2", NULL };

/* Cloudflare account ids are 32 hex digits. */
static uc_error_t *check_cloudflare(uc_call_t *call, json_t *config,
                                    json_t *secrets)
{
    (void)secrets;
    if (!uc_is_hex(config_string(config, "account_id"), 32))
        return uc_error_invalid(call->pool, "Invalid cloudflare_api_token."
                                "account_id: 32 hex digits.");
    return NULL;
}

static const type_spec_t types[] = {
    { "aws_iam_role", s3_schemes,
      { { "role_arn", REQUIRED }, { "region", 0 }, { "access_key_id", 0 },
        { "secret_access_key", SECRET }, { "session_token", SECRET },
        { "external_id", SERVER } },
      check_aws },
    { "azure_service_principal", azure_schemes,
      { { "directory_id", REQUIRED }, { "application_id", REQUIRED },
        { "client_secret", SECRET }, { "federated_token_file", 0 } },
      check_service_principal },
    { "azure_managed_identity", azure_schemes,
      { { "access_connector_id", REQUIRED }, { "managed_identity_id", 0 },
        { "credential_id", SERVER } },
      NULL },
    { "azure_storage_key", azure_schemes,
      { { "account_name", REQUIRED },
        { "account_key", REQUIRED | SECRET, valid_base64_key } },
      check_storage_key },
    /* Databricks' R2 credential, with the API token that derives
     * temporary keys from the parent access key (an extension). */
    { "cloudflare_api_token", r2_schemes,
      { { "account_id", REQUIRED }, { "access_key_id", REQUIRED },
        { "secret_access_key", SECRET }, { "api_token", REQUIRED | SECRET } },
      check_cloudflare },
    { "databricks_gcp_service_account", gcs_schemes,
      { { "email", 0 }, { "private_key_id", 0 },
        { "private_key", SECRET, valid_pem_key },
        { "credential_id", SERVER } },
      check_gcp },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const type_spec_t *type_named(const char *name)
{
    size_t i;

    for (i = 0; name && i < NTYPES; i++)
        if (!strcmp(types[i].name, name))
            return &types[i];
    return NULL;
}

static const field_spec_t *field_of(const type_spec_t *t, const char *name)
{
    const field_spec_t *f;

    for (f = t->fields; f < t->fields + 6 && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

uc_error_t *uc_credential_body_type(uc_call_t *call, const type_spec_t **type,
                             json_t **given)
{
    size_t i;

    *type = NULL;
    for (i = 0; i < NTYPES; i++) {
        json_t *v = json_object_get(call->body, types[i].name);
        if (!v || json_is_null(v))
            continue;
        if (!json_is_object(v))
            return uc_error_invalid(call->pool, "Field '%s' must be an "
                                    "object.", types[i].name);
        if (*type)
            return uc_error_invalid(call->pool, "A credential has one type: "
                                    "both %s and %s were given.",
                                    (*type)->name, types[i].name);
        *type = &types[i];
        *given = v;
    }
    return NULL;
}

/* aad of a sealed secret: the row and the field, so that it cannot be
 * moved to another credential or field. */
static const char *secret_aad(uc_call_t *call, const uc_securable_t *sec,
                              const char *field)
{
    return apr_pstrcat(call->pool, "credential/", sec->id, "/", field, NULL);
}

static uc_error_t *seal_one(uc_call_t *call, const uc_securable_t *sec,
                            const char *field, json_t *value, json_t *sealed)
{
    const char *text = json_string_value(value), *box;
    size_t len = json_string_length(value);
    uc_error_t *err;

    err = uc_secret_seal(call->pool, call->secrets,
                         secret_aad(call, sec, field), text, len, &box);
    /* The request's copy goes too: nothing keeps the clear text. */
    uc_secret_wipe((char *)text, len);
    if (err)
        return err;
    json_object_set_new(sealed, field, json_string(box));
    return NULL;
}

/* One member of a type object into the configuration or, sealed, into
 * the secrets. */
static uc_error_t *read_member(uc_call_t *call, const uc_securable_t *sec,
                               const type_spec_t *t, const char *key,
                               json_t *value, json_t *config, json_t *sealed)
{
    const field_spec_t *f = field_of(t, key);
    uc_error_t *err;

    if (!f)
        return uc_error_invalid(call->pool, "Unknown field '%s.%s'.",
                                t->name, key);
    if (f->flags & SERVER)
        return NULL;
    if (json_is_null(value)) {
        json_object_set_new((f->flags & SECRET) ? sealed : config, key,
                            json_null());
        return NULL;
    }
    if (!json_is_string(value))
        return uc_error_invalid(call->pool, "Field '%s.%s' must be a "
                                "string.", t->name, key);
    if (json_string_length(value) == 0 ||
        json_string_length(value) > (f->flags & SECRET ? SECRET_MAX
                                                       : FIELD_MAX))
        return uc_error_invalid(call->pool, "%s.%s must hold 1 to %d "
                                "bytes.", t->name, key,
                                f->flags & SECRET ? SECRET_MAX : FIELD_MAX);
    if (f->valid &&
        (err = f->valid(call, t->name, key, json_string_value(value))))
        return err;
    if (f->flags & SECRET)
        return seal_one(call, sec, key, value, sealed);
    json_object_set(config, key, value);
    return NULL;
}

/* What is kept of the credential before, when the request names the same
 * type: every field the request does not mention (it cannot read secrets
 * back to send them again), and none it sets to null. */
static void keep_from(const type_spec_t *t, const uc_credential_t *old,
                      json_t *config, json_t *sealed)
{
    const field_spec_t *f;

    if (!old || strcmp(old->type, t->name) != 0)
        return;
    for (f = t->fields; f < t->fields + 6 && f->name; f++) {
        json_t *into = (f->flags & SECRET) ? sealed : config;
        json_t *v = json_object_get((f->flags & SECRET) ? old->sealed
                                                        : old->config,
                                    f->name);
        if (v && !json_object_get(into, f->name))
            json_object_set(into, f->name, v);
    }
}

/* Fields a request set to null are gone once the old ones are merged. */
static void drop_nulls(json_t *object)
{
    const char *key;
    json_t *value;
    void *tmp;

    json_object_foreach_safe(object, tmp, key, value)
        if (json_is_null(value))
            json_object_del(object, key);
}

static void make_server_fields(uc_call_t *call, const type_spec_t *t,
                               json_t *config)
{
    const field_spec_t *f;

    for (f = t->fields; f < t->fields + 6 && f->name; f++)
        if ((f->flags & SERVER) && !json_object_get(config, f->name))
            json_object_set_new(config, f->name,
                                json_string(uc_uuid4(call->pool)));
}

static uc_error_t *check_required(uc_call_t *call, const type_spec_t *t,
                                  json_t *config, json_t *sealed)
{
    const field_spec_t *f;

    for (f = t->fields; f < t->fields + 6 && f->name; f++)
        if ((f->flags & REQUIRED) &&
            !json_object_get((f->flags & SECRET) ? sealed : config, f->name))
            return uc_error_invalid(call->pool, "Field '%s.%s' is "
                                    "required.", t->name, f->name);
    return NULL;
}

uc_error_t *uc_credential_read(uc_call_t *call, const uc_securable_t *sec,
                               const uc_credential_type_t *t, json_t *given,
                               const uc_credential_t *old, json_t *details)
{
    json_t *config = uc_json_own(call->pool, json_object());
    json_t *sealed = uc_json_own(call->pool, json_object());
    const char *key;
    json_t *value;
    uc_error_t *err;

    json_object_foreach(given, key, value)
        if ((err = read_member(call, sec, t, key, value, config, sealed)))
            return err;
    keep_from(t, old, config, sealed);
    drop_nulls(config);
    drop_nulls(sealed);
    make_server_fields(call, t, config);
    if ((err = check_required(call, t, config, sealed)) ||
        (t->check && (err = t->check(call, config, sealed))))
        return err;
    json_object_set_new(details, "type", json_string(t->name));
    json_object_set(details, "config", config);
    json_object_set(details, "sealed", sealed);
    return NULL;
}

uc_error_t *uc_credential_of(uc_call_t *call, const uc_securable_t *sec,
                             uc_credential_t **out)
{
    json_t *details = uc_json_own(call->pool,
                                  uc_json_stored_object(sec->details));
    uc_credential_t *c = apr_pcalloc(call->pool, sizeof(*c));

    c->sec = sec;
    c->type = json_string_value(json_object_get(details, "type"));
    c->purpose = json_string_value(json_object_get(details, "purpose"));
    c->read_only = json_is_true(json_object_get(details, "read_only"));
    c->config = json_object_get(details, "config");
    c->sealed = json_object_get(details, "sealed");
    if (!c->type || !c->purpose || !json_is_object(c->config) ||
        !json_is_object(c->sealed))
        return uc_error_make(call->pool, UC_E_INTERNAL, "Credential '%s' "
                             "is stored in a shape this server does not "
                             "read.", sec->name);
    *out = c;
    return NULL;
}

uc_error_t *uc_credential_by_id(uc_call_t *call, const char *id,
                                uc_credential_t **out)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_securable_by_id(call->store, call->pool, id, &sec);

    *out = NULL;
    if (err || !sec)
        return err;
    return uc_credential_of(call, sec, out);
}

const char *uc_credential_field(const uc_credential_t *cred,
                                const char *field)
{
    return config_string(cred->config, field);
}

uc_error_t *uc_credential_secret(uc_call_t *call, const uc_credential_t *cred,
                                 const char *field, const char **value)
{
    const char *sealed = config_string(cred->sealed, field);
    char *plain;
    apr_size_t len;
    uc_error_t *err;

    *value = NULL;
    if (!sealed)
        return NULL;
    if ((err = uc_secret_open(call->pool, call->secrets,
                              secret_aad(call, cred->sec, field), sealed,
                              &plain, &len)))
        return err;
    *value = plain;
    return NULL;
}

int uc_credential_serves(const char *type, const char *url)
{
    const type_spec_t *t = type_named(type);
    const char *const *s;
    size_t n;

    for (s = t ? t->schemes : NULL; s && *s; s++) {
        n = strlen(*s);
        if (!strncmp(url, *s, n) && !strncmp(url + n, "://", 3))
            return 1;
    }
    return 0;
}
const char *uc_credential_type_list(apr_pool_t *pool)
{
    const char *list = types[0].name;
    size_t i;

    for (i = 1; i < NTYPES; i++)
        list = apr_pstrcat(pool, list, i + 1 < NTYPES ? ", " : " or ",
                           types[i].name, NULL);
    return list;
}
