/* SPDX-License-Identifier: Apache-2.0 */
/* Error bodies in the dialect of each API. */
#ifndef UC_RENDER_H
#define UC_RENDER_H

#include <jansson.h>
#include "../core/uc_error.h"

/* Unity Catalog: {"error_code","message","details":[ErrorInfo],"code"}. */
json_t *uc_render_catalog_error(apr_pool_t *pool, const uc_error_t *err);

/* Lakekeeper (the authorization API): {"error":{"message","type","code"}}. */
json_t *uc_render_lakekeeper_error(apr_pool_t *pool, const uc_error_t *err);

/* Delta Sharing: {"errorCode","message"}, the code being the kind's. */
json_t *uc_render_sharing_error(apr_pool_t *pool, const uc_error_t *err);

/* The UC Delta API (/delta/v1): {"error":{"message","type","code"}}, the
 * type one of its DeltaErrorType names; and its status, which for a name
 * already taken is 409 (the catalog API's is 400). */
json_t *uc_render_delta_error(apr_pool_t *pool, const uc_error_t *err);
int uc_render_delta_status(const uc_error_t *err);

/* How an API answers errors: the body, and the status when it is not the
 * error's own (NULL). */
typedef struct uc_error_dialect {
    json_t *(*render)(apr_pool_t *pool, const uc_error_t *err);
    int (*status)(const uc_error_t *err);
} uc_error_dialect_t;

/* The status `dialect` answers `err` with. */
int uc_render_status(const uc_error_dialect_t *dialect, const uc_error_t *err);

/* The error httpd itself raised (authentication, body limits) for status. */
uc_error_t *uc_render_httpd_error(apr_pool_t *pool, int status);

#endif
