#include "uc_storage.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"
#include "../core/uc_validate.h"
#include "../store/uc_securables.h"

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
        return uc_error_make(call->pool, 400, UC_ERR_FAILED_PRECONDITION,
                             "No managed storage for a %s in %s.%s: give the "
                             "schema or the catalog a storage_root, or the "
                             "server a UnicatManagedStorageRoot.", what,
                             catalog->name, schema->name);
    *out = apr_pstrcat(call->pool, base, "/", segment, "/", id, NULL);
    return NULL;
}

/* Where the path of a normalised URL starts: after "scheme://authority". */
static const char *path_of(const char *url)
{
    const char *p = strstr(url, "://");

    if (!p)
        return url;
    p += 3;
    if (strncmp(url, "file:", 5) == 0)
        return p;
    p = strchr(p, '/');
    return p ? p : url + strlen(url);
}

/* The location and each of its ancestors below the root, as a JSON array
 * for the overlap query. */
static const char *with_ancestors(uc_call_t *call, const char *url,
                                  const char *path)
{
    uc_jw_t *w = uc_jw_make(call->pool, 4 * strlen(url) + 16);
    char *copy = apr_pstrdup(call->pool, url);
    char *start = copy + (path - url), *slash;

    uc_jw_begin_array(w);
    uc_jw_string(w, copy);
    while ((slash = strrchr(start, '/')) && slash > start) {
        *slash = '\0';
        uc_jw_string(w, copy);
    }
    uc_jw_end_array(w);
    return uc_jw_text(w);
}

uc_error_t *uc_storage_external_location(uc_call_t *call, const char *field,
                                         const char *url, const char *kind,
                                         const char **out)
{
    const char *location, *path, *found_kind, *found;
    uc_error_t *err;

    if ((err = uc_validate_storage_url(call->pool, field, url, &location)))
        return err;
    path = path_of(location);
    if (!*path || strcmp(path, "/") == 0)
        return uc_error_invalid(call->pool, "External %s storage location "
                                "must include a non-empty path prefix: %s",
                                kind, location);
    /* Once external locations are registered (storage governance), the
     * location must lie under one on which the caller holds CREATE
     * EXTERNAL TABLE or CREATE EXTERNAL VOLUME (or owns it); that check
     * belongs here, before the overlap check below. */
    if ((err = uc_securable_storage_overlap(call->store, call->pool, location,
                                            with_ancestors(call, location,
                                                           path),
                                            &found_kind, &found)))
        return err;
    if (found_kind) {
        if (strstr(found, "/__unitystorage") ||
            strcmp(found_kind, "staging table") == 0)
            return uc_error_invalid(call->pool, "Input path '%s' overlaps "
                                    "with managed storage.", location);
        return uc_error_invalid(call->pool, "Input path '%s' overlaps with "
                                "the storage of an existing %s.", location,
                                found_kind);
    }
    *out = location;
    return NULL;
}
