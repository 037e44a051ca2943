/* SPDX-License-Identifier: Apache-2.0 */
/* The credential model: how a credential of any type (its cloud declares
 * its fields, which of them are secret or made by the server, and what a
 * valid one holds: uc_clouds.h) is read from a request, sealed and stored,
 * and how the rest of the core reads a stored one. A credential's details
 * are
 *     {"purpose":…, "read_only":…, "type":"aws_iam_role",
 *      "config":{…what may be shown…}, "sealed":{field: sealed secret}}
 * so that rendering and the vendors read one shape whatever the type. */
#include "uc_clouds.h"
#include "uc_credentials.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_secret.h"

/* A secret of any type fits in this (a 4096-bit RSA key in PEM is about
 * 3.3 KiB). */
#define SECRET_MAX 8192
/* Identifiers, ARNs, resource ids. */
#define FIELD_MAX 2048

static int is_secret(const uc_credential_field_t *f)
{
    return (f->flags & UC_CREDENTIAL_SECRET) != 0;
}

static const uc_credential_field_t *field_of(const uc_credential_type_t *t,
                                             const char *name)
{
    const uc_credential_field_t *f;

    for (f = t->fields; f < t->fields + UC_CREDENTIAL_FIELDS && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

uc_error_t *uc_credential_body_type(uc_call_t *call,
                                    const uc_credential_type_t **type,
                                    json_t **given)
{
    const uc_credential_type_t *t;
    int i;

    *type = NULL;
    for (i = 0; uc_clouds[i]; i++)
        for (t = uc_clouds[i]->types; t && t->name; t++) {
            json_t *v = json_object_get(call->body, t->name);

            if (!v || json_is_null(v))
                continue;
            if (!json_is_object(v))
                return uc_error_invalid(call->pool, "Field '%s' must be an "
                                        "object.", t->name);
            if (*type)
                return uc_error_invalid(call->pool, "A credential has one "
                                        "type: both %s and %s were given.",
                                        (*type)->name, t->name);
            *type = t;
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
                               const uc_credential_type_t *t, const char *key,
                               json_t *value, json_t *config, json_t *sealed)
{
    const uc_credential_field_t *f = field_of(t, key);
    uc_error_t *err;

    if (!f)
        return uc_error_invalid(call->pool, "Unknown field '%s.%s'.",
                                t->name, key);
    if (f->flags & UC_CREDENTIAL_SERVER)
        return NULL;
    if (json_is_null(value)) {
        json_object_set_new(is_secret(f) ? sealed : config, key,
                            json_null());
        return NULL;
    }
    if (!json_is_string(value))
        return uc_error_invalid(call->pool, "Field '%s.%s' must be a "
                                "string.", t->name, key);
    if (json_string_length(value) == 0 ||
        json_string_length(value) > (is_secret(f) ? SECRET_MAX : FIELD_MAX))
        return uc_error_invalid(call->pool, "%s.%s must hold 1 to %d "
                                "bytes.", t->name, key,
                                is_secret(f) ? SECRET_MAX : FIELD_MAX);
    if (f->valid &&
        (err = f->valid(call, t->name, key, json_string_value(value))))
        return err;
    if (is_secret(f))
        return seal_one(call, sec, key, value, sealed);
    json_object_set(config, key, value);
    return NULL;
}

/* What is kept of the credential before, when the request names the same
 * type: every field the request does not mention (it cannot read secrets
 * back to send them again), and none it sets to null. */
static void keep_from(const uc_credential_type_t *t,
                      const uc_credential_t *old, json_t *config,
                      json_t *sealed)
{
    const uc_credential_field_t *f;

    if (!old || strcmp(old->type, t->name) != 0)
        return;
    for (f = t->fields; f < t->fields + UC_CREDENTIAL_FIELDS && f->name; f++) {
        json_t *into = is_secret(f) ? sealed : config;
        json_t *v = json_object_get(is_secret(f) ? old->sealed : old->config,
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

static void make_server_fields(uc_call_t *call,
                               const uc_credential_type_t *t, json_t *config)
{
    const uc_credential_field_t *f;

    for (f = t->fields; f < t->fields + UC_CREDENTIAL_FIELDS && f->name; f++)
        if ((f->flags & UC_CREDENTIAL_SERVER) &&
            !json_object_get(config, f->name))
            json_object_set_new(config, f->name,
                                json_string(uc_uuid4(call->pool)));
}

static uc_error_t *check_required(uc_call_t *call,
                                  const uc_credential_type_t *t,
                                  json_t *config, json_t *sealed)
{
    const uc_credential_field_t *f;

    for (f = t->fields; f < t->fields + UC_CREDENTIAL_FIELDS && f->name; f++)
        if ((f->flags & UC_CREDENTIAL_REQUIRED) &&
            !json_object_get(is_secret(f) ? sealed : config, f->name))
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
    return uc_credential_config(cred->config, field);
}

uc_error_t *uc_credential_secret(uc_call_t *call, const uc_credential_t *cred,
                                 const char *field, const char **value)
{
    const char *sealed = uc_credential_config(cred->sealed, field);
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
    const uc_cloud_t *cloud = uc_clouds_of_type(type, NULL);

    return cloud && cloud == uc_clouds_of_url(url);
}
const char *uc_credential_type_list(apr_pool_t *pool)
{
    const uc_credential_type_t *t;
    const char *list = NULL, *last = NULL;
    int i;

    for (i = 0; uc_clouds[i]; i++)
        for (t = uc_clouds[i]->types; t && t->name; t++) {
            if (last)
                list = list ? apr_pstrcat(pool, list, ", ", last, NULL)
                            : last;
            last = t->name;
        }
    return list ? apr_pstrcat(pool, list, " or ", last, NULL) : last;
}

const char *uc_credential_config(json_t *config, const char *field)
{
    return json_string_value(json_object_get(config, field));
}
