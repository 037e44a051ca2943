/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_storage.h"
#include "uc_storage_url.h"

#include <string.h>
#include <apr_strings.h>

#include "../authz/uc_authz.h"
#include "../core/uc_error.h"
#include "../core/uc_jw.h"
#include "../core/uc_validate.h"
#include "../store/uc_locations.h"

uc_error_t *uc_storage_managed_location(uc_call_t *call, const char *segment,
                                        const char *id, const char *what,
                                        const char **out)
{
    const uc_securable_t *schema = call->chain.sec[UC_LEVEL_SCHEMA];
    const uc_securable_t *catalog = call->chain.sec[UC_LEVEL_CATALOG];
    const char *base = schema->storage_location
                       ? schema->storage_location
                       : catalog->storage_location;

    if (!base && call->storage_root)
        base = apr_pstrcat(call->pool, call->storage_root, "/__unitystorage",
                           NULL);
    if (!base)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "No managed storage for a %s in %s.%s: give the "
                             "schema or the catalog a storage_root, or the "
                             "server a UnicatManagedStorageRoot.", what,
                             catalog->name, schema->name);
    *out = apr_pstrcat(call->pool, base, "/", segment, "/", id, NULL);
    return NULL;
}

const char *uc_storage_path_of(const char *url)
{
    const char *p = strstr(url, "://") + 3;

    if (strncmp(url, "file:", 5) == 0)
        return p;
    p = strchr(p, '/');
    return p ? p : url + strlen(url);
}

const char *uc_storage_ancestors(uc_call_t *call, const char *url,
                                 const char *path)
{
    uc_jw_t *w = uc_jw_make(call->pool, 4 * strlen(url) + 16);
    char *copy = apr_pstrdup(call->pool, url);
    char *start = copy + (path - url), *slash;

    uc_jw_begin_array(w);
    uc_jw_string(w, copy);
    while ((slash = strrchr(start, '/')) &&
           (slash > start || strncmp(url, "file:", 5) != 0)) {
        *slash = '\0';
        uc_jw_string(w, copy);
    }
    uc_jw_end_array(w);
    return uc_jw_text(w);
}

uc_error_t *uc_storage_covering(uc_call_t *call, const char *location,
                                uc_securable_t **found, uc_access_t *access)
{
    const char *ancestors = uc_storage_ancestors(
        call, location, uc_storage_path_of(location));
    uc_chain_t chain;
    uc_error_t *err = uc_location_covering(call->store, call->pool,
                                           ancestors, found);

    if (err || !*found || !access)
        return err;
    if ((err = uc_authz_resolve(call, "metastore", NULL, UC_LOCK_SHARE,
                                &chain)))
        return err;
    chain.n = 2;
    chain.sec[UC_LEVEL_CATALOG] = *found;
    chain.type[UC_LEVEL_CATALOG] = UC_TYPE_EXTERNAL_LOCATION;
    if ((err = uc_authz_evaluate(call, &chain, access)))
        return err;
    if (!uc_access_sees(access, &chain, 1))
        *found = NULL;
    return NULL;
}

/* Outside of what an admin does, data goes only where an external location
 * lets the caller put it: the location covering it (the longest one) must
 * be the caller's or grant it `priv`. */
static uc_error_t *check_governed(uc_call_t *call, const char *location,
                                  uc_privilege_t priv)
{
    uc_securable_t *covering;
    uc_access_t access;
    uc_error_t *err;

    if (call->who->admin)
        return NULL;
    if ((err = uc_storage_covering(call, location, &covering, &access)))
        return err;
    if (!covering)
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "No "
                             "external location covers '%s' for the "
                             "caller: a metastore admin must create one or "
                             "grant %s on it.", location,
                             uc_privilege_name(priv));
    if (!uc_access_has(&access, UC_LEVEL_CATALOG, UC_PRIV(priv)))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access "
                             "denied: %s needed on external_location '%s', "
                             "which covers '%s'.", uc_privilege_name(priv),
                             covering->name, location);
    return NULL;
}

/* Where the metastore's managed objects go, NULL without a root. */
static const char *metastore_managed(uc_call_t *call)
{
    return call->storage_root
           ? apr_pstrcat(call->pool, call->storage_root, "/__unitystorage",
                         NULL)
           : NULL;
}

static uc_error_t *overlaps_managed(uc_call_t *call, const char *location)
{
    return uc_error_invalid(call->pool, "Input path '%s' overlaps with "
                            "managed storage.", location);
}

/* The data of tables, volumes, models, skills and open reservations: none
 * may be `location`, lie above it or below it. */
static uc_error_t *check_data_overlap(uc_call_t *call, const char *location,
                                      const char *ancestors, int containers)
{
    const char *kind, *found;
    uc_error_t *err = uc_securable_storage_overlap(
        call->store, call->pool, location, ancestors, containers, &kind,
        &found);

    if (err || !kind)
        return err;
    if (strstr(found, "/__unitystorage") || !strcmp(kind, "staging table"))
        return overlaps_managed(call, location);
    return uc_error_invalid(call->pool, "Input path '%s' overlaps with the "
                            "storage of an existing %s.", location, kind);
}

uc_error_t *uc_storage_external_location(uc_call_t *call, const char *field,
                                         const char *url, const char *kind,
                                         const char **out)
{
    const char *location, *path, *managed = metastore_managed(call);
    uc_error_t *err;

    if ((err = uc_storage_url_check(call->pool, field, url, &location)))
        return err;
    path = uc_storage_path_of(location);
    if (!*path || strcmp(path, "/") == 0)
        return uc_error_invalid(call->pool, "External %s storage location "
                                "must include a non-empty path prefix: %s",
                                kind, location);
    if (managed && uc_storage_url_within(managed, location))
        return overlaps_managed(call, location);
    if ((err = check_governed(call, location,
                              strcmp(kind, "table") == 0
                              ? UC_PRIV_CREATE_EXTERNAL_TABLE
                              : UC_PRIV_CREATE_EXTERNAL_VOLUME)) ||
        (err = check_data_overlap(call, location,
                                  uc_storage_ancestors(call, location, path),
                                  1)))
        return err;
    *out = location;
    return NULL;
}

uc_error_t *uc_storage_managed_root(uc_call_t *call, const char *field,
                                    const char *url, const char **out)
{
    const char *root, *path, *ancestors, *kind, *found;
    uc_error_t *err;

    if ((err = uc_storage_url_check(call->pool, field, url, &root)))
        return err;
    path = uc_storage_path_of(root);
    /* The file system's root and its top directories (/etc, /var, /srv)
     * belong to the system, not to a catalog. */
    if (!strncmp(root, "file:", 5) && !strchr(path + 1, '/'))
        return uc_error_invalid(call->pool, "Invalid %s '%s': a file-system "
                                "root or a directory directly under it "
                                "cannot be managed storage.", field, root);
    ancestors = uc_storage_ancestors(call, root, path);
    if ((err = check_data_overlap(call, root, ancestors, 0)))
        return err;
    /* Managed storage is shared only by what one owner holds: admins own
     * the metastore's, owners their catalogs' and schemas'. */
    if (!call->who->admin) {
        if (call->storage_root &&
            (uc_storage_url_within(root, call->storage_root) ||
             uc_storage_url_within(call->storage_root, root)))
            return uc_error_invalid(call->pool, "Input path '%s' overlaps "
                                    "with the metastore's managed "
                                    "storage.", root);
        if ((err = uc_securable_root_overlap(call->store, call->pool, root,
                                             ancestors, call->who->json,
                                             &kind, &found)))
            return err;
        if (kind)
            return uc_error_invalid(call->pool, "Input path '%s' overlaps "
                                    "with the managed storage of a %s the "
                                    "caller does not own.", root, kind);
    }
    if ((err = check_governed(call, root, UC_PRIV_CREATE_MANAGED_STORAGE)))
        return err;
    *out = root;
    return NULL;
}
