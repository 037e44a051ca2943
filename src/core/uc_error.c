#include "uc_error.h"

#include <stdarg.h>
#include <string.h>
#include <apr_strings.h>

uc_error_t *uc_error_make(apr_pool_t *pool, int status, const char *code,
                          const char *fmt, ...)
{
    uc_error_t *err = apr_pcalloc(pool, sizeof(*err));
    va_list ap;

    va_start(ap, fmt);
    err->message = apr_pvsprintf(pool, fmt, ap);
    va_end(ap);
    err->status = status;
    err->code = code;
    return err;
}

uc_error_t *uc_error_invalid(apr_pool_t *pool, const char *fmt, ...)
{
    uc_error_t *err = apr_pcalloc(pool, sizeof(*err));
    va_list ap;

    va_start(ap, fmt);
    err->message = apr_pvsprintf(pool, fmt, ap);
    va_end(ap);
    err->status = 400;
    err->code = UC_ERR_INVALID;
    return err;
}

uc_error_t *uc_error_internal(apr_pool_t *pool)
{
    return uc_error_make(pool, 500, "INTERNAL_ERROR",
                         "The request could not be completed because of a "
                         "server error; see the server log.");
}

uc_error_t *uc_error_unavailable(apr_pool_t *pool)
{
    uc_error_t *err = uc_error_make(pool, 503, "TEMPORARILY_UNAVAILABLE",
                                    "The catalog database is busy; retry "
                                    "shortly.");
    err->retry_after = 1;
    return err;
}

/* google.rpc.Code values (google/rpc/code.proto). */
enum {
    RPC_INVALID_ARGUMENT = 3,
    RPC_DEADLINE_EXCEEDED = 4,
    RPC_NOT_FOUND = 5,
    RPC_ALREADY_EXISTS = 6,
    RPC_PERMISSION_DENIED = 7,
    RPC_RESOURCE_EXHAUSTED = 8,
    RPC_FAILED_PRECONDITION = 9,
    RPC_ABORTED = 10,
    RPC_UNIMPLEMENTED = 12,
    RPC_INTERNAL = 13,
    RPC_UNAVAILABLE = 14,
    RPC_UNAUTHENTICATED = 16
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int uc_error_rpc_code(const uc_error_t *err)
{
    const char *code = err->code ? err->code : "";

    if (ends_with(code, "NOT_EMPTY") ||
        strcmp(code, UC_ERR_FAILED_PRECONDITION) == 0)
        return RPC_FAILED_PRECONDITION;
    if (ends_with(code, "ALREADY_EXISTS"))
        return RPC_ALREADY_EXISTS;
    if (ends_with(code, "NOT_FOUND") && err->status == 404)
        return RPC_NOT_FOUND;
    switch (err->status) {
    case 400: case 411: case 414: case 415:
        return RPC_INVALID_ARGUMENT;
    case 401: return RPC_UNAUTHENTICATED;
    case 403: return RPC_PERMISSION_DENIED;
    case 404: return RPC_NOT_FOUND;
    case 409: return RPC_ABORTED;
    case 413: case 429: return RPC_RESOURCE_EXHAUSTED;
    case 405: case 501: return RPC_UNIMPLEMENTED;
    case 408: return RPC_DEADLINE_EXCEEDED;
    case 503: return RPC_UNAVAILABLE;
    default: return RPC_INTERNAL;
    }
}
