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

/* Each API's route tables, NULL-ended, in the order the router tries
 * them. */
extern const uc_route_t *const uc_catalog_api[];
extern const uc_route_t *const uc_sharing_api[];
extern const uc_route_t *const uc_authz_api[];

typedef struct uc_mount {
    const char *handler;           /* SetHandler's name: unicat-catalog */
    const char *name;              /* as the audit log and metrics say */
    const uc_route_t *const *routes;
    /* The dialect of its error bodies (http/uc_render.h). */
    json_t *(*render_error)(apr_pool_t *pool, const uc_error_t *err);
    /* Its callers are Delta Sharing recipients (AuthType UnicatBearer),
     * and principals only where another authentication names them. */
    int recipients;
} uc_mount_t;

enum { UC_MOUNT_CATALOG, UC_MOUNT_AUTHZ, UC_MOUNT_SHARING, UC_MOUNT_COUNT };

extern const uc_mount_t uc_mounts[UC_MOUNT_COUNT];

#endif
