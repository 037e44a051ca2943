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

/* The error httpd itself raised (authentication, body limits) for status. */
uc_error_t *uc_render_httpd_error(apr_pool_t *pool, int status);

#endif
