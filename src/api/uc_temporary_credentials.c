/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary credentials (/temporary-*-credentials): short-lived cloud
 * credentials for the data of a table, a volume, a model version or a
 * path, for a caller allowed to read it (or to write it). The answer has
 * Java Unity Catalog's shape: the three cloud objects, all but one null
 * (all of them for local paths, which need none), expiration_time in
 * epoch milliseconds and the url. */
#include "uc_temporary_credentials.h"
#include "../vend/uc_storage.h"
#include "../vend/uc_vend.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_locations.h"
#include "../store/uc_model_versions.h"
#include "../vend/uc_storage_url.h"

#define P UC_PRIV

static const char *const cloud_objects[] = {
    "aws_temp_credentials", "azure_user_delegation_sas", "gcp_oauth_token",
    NULL
};

static void write_vended(uc_jw_t *out, const uc_vended_t *v)
{
    int i;

    uc_jw_key(out, v->kind);
    uc_jw_begin_object(out);
    for (i = 0; i < UC_VENDED_VALUES && v->names[i]; i++)
        uc_jw_field_string(out, v->names[i], v->values[i]);
    uc_jw_end_object(out);
}

/* Java's three objects always, the one vended filled; R2's (the spec's)
 * only when it is the one. */
static void render(uc_jw_t *out, const char *url, const uc_vended_t *v)
{
    const char *const *kind;
    int listed = 0;

    uc_jw_begin_object(out);
    for (kind = cloud_objects; *kind; kind++) {
        if (v->kind && !strcmp(v->kind, *kind)) {
            write_vended(out, v);
            listed = 1;
            continue;
        }
        uc_jw_key(out, *kind);
        uc_jw_null(out);
    }
    if (v->kind && !listed)
        write_vended(out, v);
    uc_jw_key(out, "expiration_time");
    uc_jw_int(out, (apr_int64_t)apr_time_as_msec(v->expires));
    uc_jw_field_string(out, "url", url);
    uc_jw_end_object(out);
}

/* The body's operation, one of `values`: its index. */
static uc_error_t *operation(uc_call_t *call, const char *const *values,
                             int *index)
{
    const char *op = NULL;
    uc_error_t *err = uc_json_enum_field(call->pool, call->body, "operation",
                                         values, 1, &op);

    for (*index = 0; !err && strcmp(values[*index], op) != 0; (*index)++)
        ;
    return err;
}

static uc_error_t *denied(uc_call_t *call, const char *what,
                          const char *name)
{
    return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access denied: "
                         "%s needed on '%s' for credentials that write.",
                         what, name);
}

/* Vends for the data of the call's target and answers. */
static uc_error_t *vend_target(uc_call_t *call, uc_jw_t *out,
                               const char *location, int write)
{
    uc_vended_t v;
    uc_error_t *err;

    if (!location)
        return uc_error_invalid(call->pool, "'%s' has no storage of its own "
                                "to vend credentials for.",
                                UC_TARGET_OF(call)->name);
    if ((err = uc_vend_for(call, location, write, &v)))
        return err;
    render(out, location, &v);
    return NULL;
}

static uc_error_t *table_credentials(uc_call_t *call, uc_jw_t *out)
{
    static const char *const ops[] = { "READ", "READ_WRITE", NULL };
    const uc_securable_t *t = UC_TARGET_OF(call);
    int op;
    uc_error_t *err = operation(call, ops, &op);

    if (err)
        return err;
    if (op == 1 && !uc_access_has(&call->access, UC_LEVEL_OBJECT,
                                  P(UC_PRIV_MODIFY)))
        return denied(call, "MODIFY", t->name);
    return vend_target(call, out, t->storage_location, op == 1);
}

static uc_error_t *volume_credentials(uc_call_t *call, uc_jw_t *out)
{
    static const char *const ops[] = { "READ_VOLUME", "WRITE_VOLUME", NULL };
    const uc_securable_t *v = UC_TARGET_OF(call);
    int op;
    uc_error_t *err = operation(call, ops, &op);

    if (err)
        return err;
    if (op == 1 && !uc_access_has(&call->access, UC_LEVEL_OBJECT,
                                  P(UC_PRIV_WRITE_VOLUME)))
        return denied(call, "WRITE VOLUME", v->name);
    return vend_target(call, out, v->storage_location, op == 1);
}

/* A version's files are written while it is being registered, read once
 * it is ready; a failed one has nothing to read. */
static uc_error_t *model_version_credentials(uc_call_t *call, uc_jw_t *out)
{
    static const char *const ops[] = {
        "READ_MODEL_VERSION", "READ_WRITE_MODEL_VERSION", NULL
    };
    const uc_securable_t *m = UC_TARGET_OF(call);
    uc_model_version_t *v;
    apr_int64_t number;
    int op, present;
    uc_error_t *err;

    if ((err = operation(call, ops, &op)) ||
        (err = uc_json_int_field(call->pool, call->body, "version", 1,
                                 APR_INT32_MAX, &number, &present)))
        return err;
    if (!present)
        return uc_error_invalid(call->pool, "Field 'version' is required.");
    if ((err = uc_model_version_get(call->store, call->pool, m->id,
                                    apr_ltoa(call->pool, (long)number), &v)))
        return err;
    if (!v)
        return uc_error_make(call->pool, UC_E_NOT_FOUND, "Model version not "
                             "found: %s/%" APR_INT64_T_FMT, m->name, number);
    if (strcmp(v->status, "READY") != 0 &&
        strcmp(v->status, "PENDING_REGISTRATION") != 0)
        return uc_error_invalid(call->pool, "Model version %" APR_INT64_T_FMT
                                " is %s: its files cannot be used.", number,
                                v->status);
    if (op == 1 && strcmp(v->status, "PENDING_REGISTRATION") != 0)
        return uc_error_invalid(call->pool, "Model version %" APR_INT64_T_FMT
                                " is registered: its files are read only.",
                                number);
    if (op == 1 && !uc_access_has(&call->access, UC_LEVEL_OBJECT,
                                  P(UC_PRIV_MANAGE)))
        return denied(call, "ownership or MANAGE", m->name);
    return vend_target(call, out, v->storage_location, op == 1);
}

/* --- paths ------------------------------------------------------------- */

/* The privileges a path operation needs on the object the path lies in:
 * reads need what reading it needs, writes what writing it needs. */
static uc_privset_t object_needs(uc_securable_type_t type, int write)
{
    switch (type) {
    case UC_TYPE_TABLE:
        return write ? P(UC_PRIV_MODIFY) : P(UC_PRIV_SELECT);
    case UC_TYPE_VOLUME:
    case UC_TYPE_AGENT_SKILL:
        return write ? P(UC_PRIV_WRITE_VOLUME) : P(UC_PRIV_READ_VOLUME);
    default:
        return write ? P(UC_PRIV_MANAGE) : P(UC_PRIV_EXECUTE);
    }
}

/* What a path above data or above a location gets: it would reach what
 * those govern, so it is refused, as Unity Catalog does, naming nothing. */
static uc_error_t *overlaps_others(uc_call_t *call, const char *url)
{
    return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Input path "
                         "'%s' overlaps with other entities.", url);
}

/* Outside of any object: the external location covering the path (one
 * the caller may not know of covers nothing, for it). */
static uc_error_t *authorize_in_location(uc_call_t *call, const char *url,
                                         int op)
{
    static const uc_privset_t needs[] = {
        P(UC_PRIV_READ_FILES),
        P(UC_PRIV_READ_FILES) | P(UC_PRIV_WRITE_FILES),
        P(UC_PRIV_CREATE_EXTERNAL_TABLE)
    };
    uc_securable_t *loc;
    uc_access_t a;
    int p;
    uc_error_t *err = uc_storage_covering(call, url, &loc, &a);

    if (err)
        return err;
    if (!loc)
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "No "
                             "external location covers '%s' for the "
                             "caller.", url);
    for (p = 0; p < UC_PRIV_COUNT; p++)
        if ((needs[op] & P(p)) &&
            !uc_access_has(&a, UC_LEVEL_CATALOG, P(p)))
            return uc_error_make(call->pool, UC_E_PERMISSION_DENIED,
                                 "Access denied: %s needed on "
                                 "external_location '%s'.",
                                 uc_privilege_name((uc_privilege_t)p),
                                 loc->name);
    return NULL;
}

/* Inside the data of one object: what the caller may do on it. One the
 * caller may not know of answers as if it were not there, by the
 * location's rules, except that its data is never vended: where the
 * location would allow the path, it gets what a path above data gets. */
static uc_error_t *authorize_in_object(uc_call_t *call, const char *url,
                                       const uc_securable_t *obj, int op)
{
    int type = uc_securable_type_parse(obj->kind), write = op != 0;
    uc_privset_t need = object_needs((uc_securable_type_t)type, write);
    uc_chain_t chain;
    uc_access_t a;
    uc_error_t *err;

    if ((err = uc_authz_resolve_id(call, obj->id, (uc_securable_type_t)type,
                                   &chain)) ||
        (err = uc_authz_evaluate(call, &chain, &a)))
        return err;
    if (!uc_access_sees(&a, &chain, 1))
        return (err = authorize_in_location(call, url, op))
               ? err : overlaps_others(call, url);
    if (!uc_access_has(&a, UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG)) ||
        !uc_access_has(&a, UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA)) ||
        !uc_access_has(&a, UC_LEVEL_OBJECT, need) ||
        (write && type == UC_TYPE_TABLE &&
         !uc_access_has(&a, UC_LEVEL_OBJECT, P(UC_PRIV_SELECT))))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access "
                             "denied: the path lies in %s '%s.%s.%s', on "
                             "which %s is needed.", obj->kind,
                             chain.sec[UC_LEVEL_CATALOG]->name,
                             chain.sec[UC_LEVEL_SCHEMA]->name, obj->name,
                             apr_array_pstrcat(call->pool,
                                               uc_privileges_names(call->pool,
                                                                   need),
                                               '|'));
    return NULL;
}

/* A path above data or above a location would reach what those govern. */
static uc_error_t *check_not_above(uc_call_t *call, const char *url)
{
    const char *kind, *found, *name = NULL;
    uc_error_t *err;

    if ((err = uc_securable_storage_overlap(call->store, call->pool, url,
                                            "[]", 1, &kind, &found)) ||
        (!kind && (err = uc_location_overlap(call->store, call->pool, url,
                                             "[]", "", &name, &found))))
        return err;
    return kind || name ? overlaps_others(call, url) : NULL;
}

static uc_error_t *authorize_path(uc_call_t *call, const char *url, int op)
{
    const char *ancestors = uc_storage_ancestors(call, url,
                                                 uc_storage_path_of(url));
    apr_array_header_t *holders;
    uc_error_t *err;

    if (call->who->admin)
        return NULL;
    if ((err = check_not_above(call, url)) ||
        (err = uc_location_data_holders(call->store, call->pool, ancestors,
                                        &holders)))
        return err;
    if (holders->nelts > 1)
        return uc_error_invalid(call->pool, "Input path '%s' lies in more "
                                "than one securable.", url);
    if (holders->nelts == 1)
        return authorize_in_object(call, url, APR_ARRAY_IDX(
            holders, 0, uc_securable_t *), op);
    return authorize_in_location(call, url, op);
}

uc_error_t *uc_temporary_path_check(uc_call_t *call, const char *field,
                                     const char *url, int op,
                                     const char **out)
{
    uc_error_t *err = uc_storage_url_check(call->pool, field, url, out);

    if (err)
        return err;
    if (!*uc_storage_path_of(*out) || !strcmp(uc_storage_path_of(*out), "/"))
        return uc_error_invalid(call->pool, "No credentials are vended for "
                                "a bucket root: '%s'.", *out);
    return authorize_path(call, *out, op);
}

static uc_error_t *path_credentials(uc_call_t *call, uc_jw_t *out)
{
    static const char *const ops[] = {
        "PATH_READ", "PATH_READ_WRITE", "PATH_CREATE_TABLE", NULL
    };
    const char *url = NULL;
    int op, dry_run = 0;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "url", 1,
                                    &url)) ||
        (err = operation(call, ops, &op)) ||
        (err = uc_json_bool_field(call->pool, call->body, "dry_run",
                                  &dry_run)) ||
        (err = uc_temporary_path_check(call, "url", url, op, &url)))
        return err;
    /* A dry run checks what it may do and vends nothing. */
    if (dry_run) {
        memset(&v, 0, sizeof(v));
        v.expires = call->now;
    }
    else if ((err = uc_vend_for(call, url, op != 0, &v)))
        return err;
    render(out, url, &v);
    return NULL;
}

/* Reading the data of an object of a schema: what reading it needs. */
#define IN_SCHEMA(privs) \
    { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, { UC_LEVEL_OBJECT, (privs) } }

static const uc_rule_t table_rule = {
    UC_TARGET_OBJECT_ID, IN_SCHEMA(P(UC_PRIV_SELECT)),
    UC_TYPE_TABLE, "table_id" };
static const uc_rule_t volume_rule = {
    UC_TARGET_OBJECT_ID, IN_SCHEMA(P(UC_PRIV_READ_VOLUME)),
    UC_TYPE_VOLUME, "volume_id" };
static const uc_rule_t model_rule = {
    UC_TARGET_OBJECT_FIELDS,
    IN_SCHEMA(P(UC_PRIV_EXECUTE)),
    UC_TYPE_REGISTERED_MODEL, "model_name" };
/* Paths are authorized by what they lie in (authorize_path). */
static const uc_rule_t path_rule = { UC_TARGET_CALLER, { { 0, 0 } } };

const uc_route_t uc_temporary_credential_routes[] = {
    { UC_POST, "/temporary-table-credentials", table_credentials,
      UC_ROUTE_BODY | UC_ROUTE_READS, &table_rule,
      .audit = "GENERATE_TEMPORARY_TABLE_CREDENTIAL" },
    { UC_POST, "/temporary-volume-credentials", volume_credentials,
      UC_ROUTE_BODY | UC_ROUTE_READS, &volume_rule,
      .audit = "GENERATE_TEMPORARY_VOLUME_CREDENTIAL" },
    { UC_POST, "/temporary-model-version-credentials",
      model_version_credentials, UC_ROUTE_BODY | UC_ROUTE_READS, &model_rule,
      .audit = "GENERATE_TEMPORARY_MODEL_VERSION_CREDENTIAL" },
    { UC_POST, "/temporary-path-credentials", path_credentials,
      UC_ROUTE_BODY | UC_ROUTE_READS, &path_rule,
      .audit = "GENERATE_TEMPORARY_PATH_CREDENTIAL" },
    { 0, NULL, NULL, 0, NULL }
};
