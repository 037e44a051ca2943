/* SPDX-License-Identifier: Apache-2.0 */
/* The APIs the module serves, each the route sets of the rooms below
 * assembled in one place: the Unity Catalog API (every resource family of
 * api/), the Delta Sharing API (what recipients read, and the spec's share
 * management), and the authorization API (the batch-check). The glue
 * mounts each under its handler name; the route listing and the tests
 * walk the same tables. */
#ifndef UC_MOUNTS_H
#define UC_MOUNTS_H

#include <jansson.h>

#include "../call/uc_call.h"
#include "../http/uc_render.h"

/* Each API's route tables, NULL-ended, in the order the router tries
 * them. */
extern const uc_route_t *const uc_catalog_api[];
extern const uc_route_t *const uc_sharing_api[];
extern const uc_route_t *const uc_authz_api[];

/* The paths of a mount (relative to it) that are `prefix` or lie below
 * it and answer errors in a dialect of their own: the UC Delta API, under the
 * catalog API's mount. */
typedef struct uc_mount_area {
    const char *prefix;
    const uc_error_dialect_t *errors;
} uc_mount_area_t;

typedef struct uc_mount {
    const char *handler;           /* SetHandler's name: unicat-catalog */
    const char *name;              /* as the audit log and metrics say */
    const uc_route_t *const *routes;
    /* The dialect of its error answers (http/uc_render.h), and the areas
     * that have another (ended by one without a prefix; NULL: none). */
    const uc_error_dialect_t *errors;
    const uc_mount_area_t *areas;
    /* Its callers are Delta Sharing recipients (AuthType UnicatBearer),
     * and principals only where another authentication names them. */
    int recipients;
} uc_mount_t;

enum { UC_MOUNT_CATALOG, UC_MOUNT_AUTHZ, UC_MOUNT_SHARING, UC_MOUNT_COUNT };

extern const uc_mount_t uc_mounts[UC_MOUNT_COUNT];

/* The dialect errors of `path` (relative to the mount, NULL when not
 * known) are answered in. */
const uc_error_dialect_t *uc_mount_errors(const uc_mount_t *mount,
                                          const char *path);

#endif
