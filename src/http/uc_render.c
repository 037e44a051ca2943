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

uc_error_t *uc_error_for_status(apr_pool_t *pool, int status)
{
    switch (status) {
    case 400:
        return uc_error_invalid(pool, "The request is malformed.");
    case 401:
        return uc_error_make(pool, 401, "UNAUTHENTICATED",
                             "Authentication is required.");
    case 403:
        return uc_error_make(pool, 403, "PERMISSION_DENIED",
                             "Access denied.");
    case 404:
        return uc_error_make(pool, 404, "ENDPOINT_NOT_FOUND",
                             "No such endpoint.");
    case 405:
        return uc_error_make(pool, 405, "METHOD_NOT_ALLOWED",
                             "Method not allowed.");
    case 408:
        return uc_error_make(pool, 408, "REQUEST_TIMEOUT",
                             "The request took too long to arrive.");
    case 411:
        return uc_error_make(pool, 411, "LENGTH_REQUIRED",
                             "A Content-Length is required.");
    case 413:
        return uc_error_make(pool, 413, "REQUEST_TOO_LARGE",
                             "The request body is larger than the server "
                             "accepts.");
    case 414:
        return uc_error_make(pool, 414, "URI_TOO_LONG",
                             "The request URI is too long.");
    case 415:
        return uc_error_make(pool, 415, "UNSUPPORTED_MEDIA_TYPE",
                             "Request bodies must be application/json.");
    case 503:
        return uc_error_unavailable(pool);
    default:
        if (status >= 400 && status < 500)
            return uc_error_make(pool, status, "BAD_REQUEST",
                                 "The request was refused.");
        return uc_error_internal(pool);
    }
}
