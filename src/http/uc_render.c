/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_render.h"

#include "../core/uc_json.h"

json_t *uc_render_catalog_error(apr_pool_t *pool, const uc_error_t *err)
{
    return uc_json_own(pool, json_pack(
        "{sssos[{ssssss}]si}",
        "error_code", err->code,
        "message", uc_json_text(pool, err->message),
        "details",
            "@type", "type.googleapis.com/google.rpc.ErrorInfo",
            "reason", err->code,
            "domain", "unity-catalog",
        "code", uc_error_rpc_code(err)));
}

json_t *uc_render_lakekeeper_error(apr_pool_t *pool, const uc_error_t *err)
{
    return uc_json_own(pool, json_pack("{s{sosssi}}", "error",
                                       "message",
                                       uc_json_text(pool, err->message),
                                       "type", err->code,
                                       "code", err->status));
}

json_t *uc_render_sharing_error(apr_pool_t *pool, const uc_error_t *err)
{
    return uc_json_own(pool, json_pack("{ssso}", "errorCode", err->code,
                                       "message",
                                       uc_json_text(pool, err->message)));
}

/* The errors httpd can raise before or around the module. */
static const struct {
    uc_error_kind_t kind;
    const char *message;
} httpd_errors[] = {
    { UC_E_INVALID, "The request is malformed." },
    { UC_E_UNAUTHENTICATED, "Authentication is required." },
    { UC_E_PERMISSION_DENIED, "Access denied." },
    { UC_E_ENDPOINT_NOT_FOUND, "No such endpoint." },
    { UC_E_METHOD_NOT_ALLOWED, "Method not allowed." },
    { UC_E_REQUEST_TIMEOUT, "The request took too long to arrive." },
    { UC_E_LENGTH_REQUIRED, "A Content-Length is required." },
    { UC_E_REQUEST_TOO_LARGE,
      "The request body is larger than the server accepts." },
    { UC_E_URI_TOO_LONG, "The request URI is too long." },
    { UC_E_UNSUPPORTED_MEDIA_TYPE,
      "Request bodies must be application/json." },
    { UC_E_RANGE_NOT_SATISFIABLE,
      "The requested range starts after the end of the file." },
};

uc_error_t *uc_render_httpd_error(apr_pool_t *pool, int status)
{
    size_t i;

    for (i = 0; i < sizeof(httpd_errors) / sizeof(httpd_errors[0]); i++)
        if (uc_error_kind_status(httpd_errors[i].kind) == status)
            return uc_error_make(pool, httpd_errors[i].kind, "%s",
                                 httpd_errors[i].message);
    if (status == 503)
        return uc_error_unavailable(pool);
    if (status >= 400 && status < 500) {
        /* A refusal of httpd's without a kind of its own keeps its
         * status. */
        uc_error_t *err = uc_error_make(pool, UC_E_BAD_REQUEST,
                                        "The request was refused.");
        err->status = status;
        return err;
    }
    return uc_error_internal(pool);
}
