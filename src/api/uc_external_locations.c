/* SPDX-License-Identifier: Apache-2.0 */
/* External locations (/external-locations): a storage URL and the
 * credential the server reads it with. They govern where data outside
 * managed storage may go (uc_storage.c) and with which identity temporary
 * credentials are vended for it. A row keeps its URL as storage_root and
 * {"credential_id":…, "read_only":…} as details. file:// locations need no
 * credential: the server reads local paths as itself. */
#include "uc_api.h"
#include "../vend/uc_credentials.h"
#include "../vend/uc_storage.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_locations.h"
#include "../vend/uc_storage_url.h"

#define P UC_PRIV

/* The name of a location's credential, found through its id: a renamed
 * credential shows its new name. */
static const char *credential_name(uc_call_t *call, const char *id)
{
    uc_credential_t *cred;

    if (!id || uc_credential_by_id(call, id, &cred) || !cred)
        return NULL;
    return cred->sec->name;
}

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    json_t *details = uc_api_details(call, sec);
    const char *cred = json_string_value(json_object_get(details,
                                                         "credential_id"));

    (void)context;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "url", sec->storage_root);
    uc_jw_field_string(out, "credential_name", credential_name(call, cred));
    uc_jw_field_string(out, "credential_id", cred);
    uc_jw_key(out, "read_only");
    uc_jw_bool(out, json_is_true(json_object_get(details, "read_only")));
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, "external_location_id", 0);
}

/* Storage of one kind is read with a credential of that kind. */
static uc_error_t *check_credential_kind(uc_call_t *call, const char *url,
                                         const uc_credential_t *cred)
{
    if (!strcmp(cred->purpose, "STORAGE") &&
        uc_credential_serves(cred->type, url))
        return NULL;
    if (strcmp(cred->purpose, "STORAGE") != 0)
        return uc_error_invalid(call->pool, "Credential '%s' is a %s "
                                "credential; an external location needs a "
                                "STORAGE one.", cred->sec->name,
                                cred->purpose);
    return uc_error_invalid(call->pool, "Credential '%s' (%s) cannot read "
                            "'%s'.", cred->sec->name, cred->type, url);
}

/* The credential a location reads with, which the caller must own or hold
 * CREATE EXTERNAL LOCATION on (or be an admin). One the body `named` is
 * as missing when the caller may not know of it; the one a location
 * keeps shows in the location, so its manager knows of it. */
static uc_error_t *usable_credential(uc_call_t *call, const char *name,
                                     int named, const char *url,
                                     uc_credential_t **out)
{
    uc_chain_t chain;
    uc_access_t access;
    uc_error_t *err;

    if ((err = uc_authz_resolve_named(call, "credential", name,
                                      UC_LOCK_SHARE, &chain, &access)) ||
        (named && (err = uc_authz_unseen(call, &chain, &access))))
        return err;
    if (!uc_access_has(&access, UC_LEVEL_CATALOG,
                       P(UC_PRIV_CREATE_EXTERNAL_LOCATION)))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access "
                             "denied: CREATE EXTERNAL LOCATION needed on "
                             "credential '%s'.",
                             chain.sec[UC_LEVEL_CATALOG]->name);
    if ((err = uc_credential_of(call, chain.sec[UC_LEVEL_CATALOG], out)))
        return err;
    return check_credential_kind(call, url, *out);
}

/* The URL, normalised; a file system's root would hand out every file. */
static uc_error_t *read_url(uc_call_t *call, const char *given,
                            const char **url)
{
    uc_error_t *err = uc_storage_url_check(call->pool, "url", given, url);

    if (err)
        return err;
    if (!strcmp(*url, "file:///"))
        return uc_error_invalid(call->pool, "An external location cannot "
                                "be the file system's root.");
    return NULL;
}

static uc_error_t *overlaps_managed(uc_call_t *call, const char *url,
                                    const char *what)
{
    return uc_error_invalid(call->pool, "Input path '%s' overlaps with "
                            "managed storage (%s).", url, what);
}

/* The refusal of a URL that overlaps location `name` (at `url`), which
 * names it only to a caller that may know of it. */
static uc_error_t *overlaps_location(uc_call_t *call, const char *name,
                                     const char *url)
{
    uc_chain_t chain;
    uc_access_t access;
    uc_error_t *err = uc_authz_resolve_named(call, "external_location", name,
                                             UC_LOCK_SHARE, &chain, &access);

    if (err)
        return err;
    if (!uc_access_sees(&access, &chain, 1))
        return uc_error_invalid(call->pool, "Cannot accept an external "
                                "location that duplicates or overlaps with "
                                "an existing external location.");
    return uc_error_invalid(call->pool, "Cannot accept an external location "
                            "that duplicates or overlaps with existing "
                            "external location '%s' (%s).", name, url);
}

/* The overlap rules: no other location at, above or inside it; not inside
 * managed storage nor around the metastore's; not inside the data of an
 * object (a location may hold objects, not lie within one). */
static uc_error_t *check_overlaps(uc_call_t *call, const char *url,
                                  const char *self_id)
{
    const char *ancestors = uc_storage_ancestors(call, url,
                                                 uc_storage_path_of(url));
    const char *name, *found, *kind;
    json_t *above;
    uc_error_t *err;

    if ((err = uc_location_overlap(call->store, call->pool, url, ancestors,
                                   self_id, &name, &found)))
        return err;
    if (name)
        return overlaps_location(call, name, found);
    if (call->storage_root &&
        (uc_storage_url_within(url, call->storage_root) ||
         uc_storage_url_within(call->storage_root, url)))
        return overlaps_managed(call, url, "the metastore's root");
    if ((err = uc_location_managed_above(call->store, call->pool, ancestors,
                                         &kind, &found)))
        return err;
    if (kind)
        return overlaps_managed(call, url, apr_pstrcat(
            call->pool, "the storage root of a ", kind, NULL));
    /* The ancestors without the location itself. */
    above = uc_json_own(call->pool, json_loads(ancestors, 0, NULL));
    json_array_remove(above, 0);
    if ((err = uc_location_data_at(call->store, call->pool,
                                   uc_json_dump(call->pool, above), &kind,
                                   &found)))
        return err;
    if (kind)
        return uc_error_invalid(call->pool, "Input path '%s' lies inside "
                                "the storage of an existing %s (%s).", url,
                                kind, found);
    return NULL;
}

/* credential_name (which the body `named`, or the location keeps) and the
 * URL it must read, into details. */
static uc_error_t *set_credential(uc_call_t *call, json_t *details,
                                  const char *name, int named,
                                  const char *url)
{
    uc_credential_t *cred;
    uc_error_t *err;

    if (!name) {
        if (strncmp(url, "file:", 5) != 0)
            return uc_error_invalid(call->pool, "Field 'credential_name' is "
                                    "required for '%s'.", url);
        json_object_del(details, "credential_id");
        return NULL;
    }
    if ((err = usable_credential(call, name, named, url, &cred)))
        return err;
    json_object_set_new(details, "credential_id",
                        json_string(cred->sec->id));
    return NULL;
}

static uc_error_t *read_flags(uc_call_t *call, json_t *details)
{
    int read_only = json_is_true(json_object_get(details, "read_only"));
    int skip = 0;
    uc_error_t *err;

    /* Nothing to skip: credentials are tried when first used. */
    if ((err = uc_json_bool_field(call->pool, call->body, "skip_validation",
                                  &skip)) ||
        (err = uc_json_bool_field(call->pool, call->body, "read_only",
                                  &read_only)))
        return err;
    json_object_set_new(details, "read_only", json_boolean(read_only));
    return NULL;
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    json_t *details = uc_json_own(call->pool, json_object());
    const char *url = NULL, *credential = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "url", 1,
                                    &url)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "credential_name", 0, &credential)) ||
        (err = read_url(call, url, &url)) ||
        (err = read_flags(call, details)) ||
        (err = set_credential(call, details, credential, 1, url)) ||
        (err = check_overlaps(call, url, "")))
        return err;
    sec->storage_root = url;
    uc_api_set_details(call, sec, details);
    return NULL;
}

/* What tables, volumes, models and skills keep under the location;
 * *kind NULL when nothing. */
static uc_error_t *data_under(uc_call_t *call, const char *url,
                              const char **kind, const char **found)
{
    json_t *self = uc_json_own(call->pool, json_pack("[s]", url));

    return uc_securable_storage_overlap(call->store, call->pool, url,
                                        uc_json_dump(call->pool, self), 0,
                                        kind, found);
}

/* Moving a location away from the data it governs needs force. */
static uc_error_t *check_move(uc_call_t *call, const char *old_url)
{
    const char *kind, *found;
    int force = 0;
    uc_error_t *err;

    if ((err = uc_json_bool_field(call->pool, call->body, "force",
                                  &force)) || force ||
        (err = data_under(call, old_url, &kind, &found)) || !kind)
        return err;
    return uc_error_invalid(call->pool, "External location '%s' holds the "
                            "storage of a %s (%s); change its url with "
                            "force=true.", UC_TARGET_OF(call)->name, kind,
                            found);
}

static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    json_t *details = json_deep_copy(uc_api_details(call, sec));
    const char *url = NULL, *credential = NULL;
    uc_error_t *err;

    uc_json_own(call->pool, details);
    if ((err = uc_json_string_field(call->pool, call->body, "url", 0,
                                    &url)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "credential_name", 0, &credential)) ||
        (url && (err = read_url(call, url, &url))) ||
        (err = read_flags(call, details)))
        return err;
    if (url && strcmp(url, sec->storage_root) != 0) {
        if ((err = check_move(call, sec->storage_root)) ||
            (err = check_overlaps(call, url, sec->id)))
            return err;
        sec->storage_root = url;
    }
    /* A new URL must still be readable with the credential it keeps. */
    if ((credential || url) &&
        (err = set_credential(call, details, credential
                              ? credential
                              : credential_name(call, json_string_value(
                                    json_object_get(details,
                                                    "credential_id"))),
                              credential != NULL, sec->storage_root)))
        return err;
    *changed = url || credential ||
               json_object_get(call->body, "read_only") != NULL;
    uc_api_set_details(call, sec, details);
    return NULL;
}

static uc_error_t *check_delete(uc_call_t *call)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    const char *kind, *found;
    int force = 0;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "force", &force)) || force ||
        (err = data_under(call, sec->storage_root, &kind, &found)) || !kind)
        return err;
    return uc_error_invalid(call->pool, "External location '%s' is used by "
                            "a %s (%s); delete it with force=true.",
                            sec->name, kind, found);
}

/* Privileges that give more than the metadata of a location. */
#define FULL (P(UC_PRIV_ALL_PRIVILEGES) | P(UC_PRIV_READ_FILES) | \
              P(UC_PRIV_WRITE_FILES) | P(UC_PRIV_CREATE_EXTERNAL_TABLE) | \
              P(UC_PRIV_CREATE_EXTERNAL_VOLUME) | \
              P(UC_PRIV_CREATE_MANAGED_STORAGE) | P(UC_PRIV_MANAGE))

static uc_visibility_t *visible_locations(uc_call_t *call, int include_browse)
{
    return uc_api_visibility(call, 0, 0,
                             include_browse ? FULL | P(UC_PRIV_BROWSE) : FULL,
                             FULL);
}

static const uc_api_family_t locations = {
    .type = UC_TYPE_EXTERNAL_LOCATION, .level = UC_LEVEL_CATALOG,
    .rules = UC_RULES_ON_METASTORE(UC_TYPE_EXTERNAL_LOCATION,
                                   UC_PRIV_CREATE_EXTERNAL_LOCATION, FULL,
                                   UC_BROWSE_ON_REQUEST),
    .read = FULL,
    .label = "External location", .plural = "external_locations",
    .exists = UC_E_EXTERNAL_LOCATION_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render, .prepare_create = prepare_create,
    .prepare_update = prepare_update, .check_delete = check_delete,
    .visibility = visible_locations
};

const uc_route_t uc_external_location_routes[] = {
    UC_FAMILY_ROUTES(locations, "/external-locations",
                     "/external-locations/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
