/* SPDX-License-Identifier: Apache-2.0 */
/* Registered models and their versions. Version numbers come from a
 * counter in the model's details (max_version_number), raised inside the
 * transaction that inserts the version while the model's row is locked, so
 * concurrent creations get 1, 2, 3... and a deleted number never returns. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_model_versions.h"
#include "../vend/uc_storage.h"

#define P UC_PRIV
#define PENDING "PENDING_REGISTRATION"
#define READY "READY"

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_field_string(out, "storage_location",
                       sec->browse_only ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, "id", 0);
}

static const char *model_full_name(uc_call_t *call)
{
    return uc_api_full_name(call, uc_api_parents_of(call),
                            UC_TARGET_OF(call)->name);
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    uc_error_t *err = uc_storage_managed_location(call, "models", sec->id,
                                                  "registered model",
                                                  &sec->storage_location);
    if (err)
        return err;
    sec->details = "{\"max_version_number\":0}";
    return NULL;
}

/* Versions go with their model (force=true) or keep it (409 ABORTED). */
static uc_error_t *check_delete(uc_call_t *call)
{
    int force = 0, has = 0;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "force", &force)) ||
        (!force && (err = uc_model_has_versions(call->store,
                                                UC_TARGET_OF(call)->id,
                                                &has))))
        return err;
    if (has)
        return uc_error_make(call->pool, UC_E_ABORTED,
                             "Unable to delete a registered model with "
                             "existing model versions: %s; use force=true "
                             "to delete them too.", model_full_name(call));
    return NULL;
}

/* Listed without catalog_name and schema_name: every model of the
 * metastore the caller may see, across catalogs. */
static const uc_api_family_t models;
const uc_api_family_t *const uc_model_family = &models;

static const uc_api_family_t models = {
    UC_FAMILY_IN_SCHEMA_LISTED_AT(UC_TYPE_REGISTERED_MODEL,
                                  UC_PRIV_CREATE_MODEL, P(UC_PRIV_EXECUTE),
                                  UC_TARGET_SCHEMA_QUERY_OR_METASTORE),
    .label = "Registered model", .plural = "registered_models",
    .exists = UC_E_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render, .prepare_create = prepare_create,
    .check_delete = check_delete
};

/* --- versions ----------------------------------------------------------- */

static void render_version(uc_call_t *call, uc_jw_t *out,
                           const uc_model_version_t *v, int browse)
{
    const uc_api_parents_t *parents = uc_api_parents_of(call);

    uc_jw_begin_object(out);
    uc_jw_field_string(out, "model_name", UC_TARGET_OF(call)->name);
    uc_jw_field_string(out, "catalog_name", parents->catalog);
    uc_jw_field_string(out, "schema_name", parents->schema);
    uc_jw_key(out, "version");
    uc_jw_int_text(out, v->version);
    /* Where the version's files came from is a location too. */
    uc_jw_field_string(out, "source", browse ? NULL : v->source);
    uc_jw_field_string(out, "run_id", v->run_id);
    uc_jw_field_string(out, "status", v->status);
    uc_jw_field_string(out, "storage_location",
                       browse ? NULL : v->storage_location);
    uc_jw_field_string(out, "comment", v->comment);
    uc_jw_field_int_text(out, "created_at", v->created_at);
    uc_jw_field_string(out, "created_by", v->created_by);
    uc_jw_field_int_text(out, "updated_at", v->updated_at);
    uc_jw_field_string(out, "updated_by", v->updated_by);
    uc_jw_field_string(out, "id", v->id);
    uc_jw_field_string(out, "metastore_id",
                       uc_store_metastore_id(call->store));
    uc_jw_key(out, "browse_only");
    uc_jw_bool(out, browse);
    uc_jw_end_object(out);
}

static uc_error_t *create_version(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *model = UC_TARGET_OF(call);
    uc_model_version_t v = { 0 };
    json_t *details = uc_api_details(call, model);
    json_int_t last = json_integer_value(json_object_get(details,
                                                         "max_version_number"));
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "source", 1,
                                    &v.source)) ||
        (err = uc_validate_text(call->pool, "source", v.source, UC_URL_MAX)) ||
        (err = uc_json_string_field(call->pool, call->body, "run_id", 0,
                                    &v.run_id)) ||
        (err = uc_validate_text(call->pool, "run_id", v.run_id,
                                UC_NAME_MAX)) ||
        (err = uc_json_string_field(call->pool, call->body, "comment", 0,
                                    &v.comment)) ||
        (err = uc_validate_text(call->pool, "comment", v.comment,
                                UC_COMMENT_MAX)))
        return err;
    if (!*v.source)
        return uc_error_invalid(call->pool, "Field 'source' must not be "
                                "empty.");
    if (!(v.id = uc_uuid4(call->pool)))
        return uc_error_internal(call->pool);
    /* The model row is locked by the route's transaction, so the counter
     * moves by one per version, whoever else is creating versions. */
    json_object_set_new(details, "max_version_number",
                        json_integer(last + 1));
    uc_api_set_details(call, model, details);
    if ((err = uc_securable_update(call->store, model)))
        return err;
    v.model_id = model->id;
    v.version = apr_psprintf(call->pool, "%" APR_INT64_T_FMT,
                             (apr_int64_t)(last + 1));
    v.status = PENDING;
    v.storage_location = model->storage_location
        ? apr_pstrcat(call->pool, model->storage_location, "/versions/",
                      v.id, NULL) : NULL;
    v.created_at = v.updated_at = uc_epoch_ms_text(call->pool, call->now);
    v.created_by = v.updated_by = call->principal;
    if ((err = uc_model_version_insert(call->store, &v)))
        return err;
    render_version(call, out, &v, 0);
    return NULL;
}

/* The {version} path parameter: a positive decimal number. */
static uc_error_t *version_number(uc_call_t *call, const char **out)
{
    const char *v = call->params[1];

    if (!*v || strlen(v) > 18 || strspn(v, "0123456789") != strlen(v) ||
        v[0] == '0')
        return uc_error_invalid(call->pool, "Invalid model version '%s': a "
                                "version is a positive integer.", v);
    *out = v;
    return NULL;
}

static uc_error_t *find_version(uc_call_t *call, uc_model_version_t **out)
{
    const char *number = NULL;
    uc_error_t *err;

    if ((err = version_number(call, &number)) ||
        (err = uc_model_version_get(call->store, call->pool,
                                    UC_TARGET_OF(call)->id, number, out)))
        return err;
    if (!*out)
        return uc_error_make(call->pool, UC_E_NOT_FOUND,
                             "Model version not found: %s/%s",
                             model_full_name(call), number);
    return NULL;
}

static uc_error_t *list_versions(uc_call_t *call, uc_jw_t *out)
{
    uc_page_t page;
    apr_array_header_t *rows;
    int more, i;
    uc_error_t *err;

    if ((err = uc_api_page(call, &page)))
        return err;
    if (page.after && (!*page.after || strlen(page.after) > 18 ||
                       strspn(page.after, "0123456789") !=
                       strlen(page.after)))
        return uc_error_invalid(call->pool, "Invalid page_token: pass the "
                                "next_page_token of the previous page "
                                "unchanged.");
    if ((err = uc_model_version_page(call->store, call->pool,
                                     UC_TARGET_OF(call)->id, page.after,
                                     page.limit, &rows, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "model_versions");
    uc_jw_begin_array(out);
    for (i = 0; i < rows->nelts; i++)
        render_version(call, out, APR_ARRAY_IDX(rows, i, uc_model_version_t *),
                       call->browse_only);
    uc_jw_end_array(out);
    uc_jw_field_string(out, "next_page_token",
                       more && rows->nelts
                       ? uc_page_token(call->pool,
                                       APR_ARRAY_IDX(rows, rows->nelts - 1,
                                                     uc_model_version_t *)
                                           ->version)
                       : NULL);
    uc_jw_end_object(out);
    return NULL;
}

static uc_error_t *get_version(uc_call_t *call, uc_jw_t *out)
{
    uc_model_version_t *v;
    uc_error_t *err = find_version(call, &v);

    if (err)
        return err;
    render_version(call, out, v, call->browse_only);
    return NULL;
}

/* Stores a changed version with a fresh update stamp and answers it. */
static uc_error_t *store_version(uc_call_t *call, uc_jw_t *out,
                                 uc_model_version_t *v)
{
    uc_error_t *err;

    v->updated_at = uc_epoch_ms_text(call->pool, call->now);
    v->updated_by = call->principal;
    if ((err = uc_model_version_update(call->store, v)))
        return err;
    render_version(call, out, v, 0);
    return NULL;
}

static uc_error_t *update_version(uc_call_t *call, uc_jw_t *out)
{
    const char *comment = NULL;
    uc_model_version_t *v;
    uc_error_t *err;

    if ((err = find_version(call, &v)) ||
        (err = uc_json_string_field(call->pool, call->body, "comment", 0,
                                    &comment)) ||
        (err = uc_validate_text(call->pool, "comment", comment,
                                UC_COMMENT_MAX)))
        return err;
    if (!comment) {
        render_version(call, out, v, 0);
        return NULL;
    }
    v->comment = comment;
    return store_version(call, out, v);
}

static uc_error_t *delete_version(uc_call_t *call, uc_jw_t *out)
{
    uc_model_version_t *v;
    uc_error_t *err;

    if ((err = find_version(call, &v)) ||
        (err = uc_model_version_delete(call->store, v->model_id, v->version)))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

/* The path names the version; a body may repeat it (the Java client sends
 * full_name and version) but may not contradict it. */
static uc_error_t *check_finalize_body(uc_call_t *call,
                                       const uc_model_version_t *v)
{
    const char *full_name = NULL, *names[3];
    apr_int64_t version;
    int present;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "full_name", 0,
                                    &full_name)) ||
        (err = uc_json_int_field(call->pool, call->body, "version", 1,
                                 APR_INT64_MAX, &version, &present)))
        return err;
    if (full_name &&
        (uc_validate_full_name(call->pool, "full_name", full_name, 3, names)
         || strcmp(apr_pstrcat(call->pool, names[0], ".", names[1], ".",
                               names[2], NULL), model_full_name(call)) != 0))
        return uc_error_invalid(call->pool, "Field 'full_name' (%s) differs "
                                "from the model of the path (%s).", full_name,
                                model_full_name(call));
    if (present && apr_atoi64(v->version) != version)
        return uc_error_invalid(call->pool, "Field 'version' (%" 
                                APR_INT64_T_FMT ") differs from the version "
                                "of the path (%s).", version, v->version);
    return NULL;
}

static uc_error_t *finalize_version(uc_call_t *call, uc_jw_t *out)
{
    uc_model_version_t *v;
    uc_error_t *err;

    if ((err = find_version(call, &v)) ||
        (err = check_finalize_body(call, v)))
        return err;
    if (strcmp(v->status, PENDING) != 0)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "Model version not in a pending registration "
                             "state: %s/%s (it is %s)", model_full_name(call),
                             v->version, v->status);
    v->status = READY;
    return store_version(call, out, v);
}

/* Versions are written by those who manage the model. */
static const uc_rule_t create_version_rule = {
    UC_TARGET_OBJECT_FIELDS,
    { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA,
      { UC_LEVEL_OBJECT, P(UC_PRIV_MANAGE) } },
    UC_TYPE_REGISTERED_MODEL, "model_name" };

const uc_route_t uc_model_routes[] = {
    { UC_POST,   "/models/versions", create_version,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &create_version_rule,
      .audit = "CREATE_MODEL_VERSION" },
    UC_FAMILY_ROUTES_KEPT(models, "/models", "/models/{full_name}"),
    { UC_GET,    "/models/{full_name}/versions", list_versions, 0,
      &models.rules.read },
    { UC_GET,    "/models/{full_name}/versions/{version}", get_version, 0,
      &models.rules.read },
    { UC_PATCH,  "/models/{full_name}/versions/{version}", update_version,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &models.rules.manage,
      .audit = "UPDATE_MODEL_VERSION" },
    { UC_DELETE, "/models/{full_name}/versions/{version}", delete_version,
      UC_ROUTE_TXN, &models.rules.manage, .audit = "DELETE_MODEL_VERSION" },
    { UC_PATCH,  "/models/{full_name}/versions/{version}/finalize",
      finalize_version, UC_ROUTE_BODY | UC_ROUTE_TXN, &models.rules.manage,
      .audit = "FINALIZE_MODEL_VERSION" },
    { 0, NULL, NULL, 0, NULL }
};
