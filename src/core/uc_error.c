/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_error.h"

#include <stdarg.h>
#include <apr_strings.h>

static const struct {
    int status;
    const char *code;
    int rpc;
} kinds[UC_E_COUNT] = {
#define UC_ERROR_KIND_ROW(name, status, code, rpc) { status, code, rpc },
    UC_ERROR_KINDS(UC_ERROR_KIND_ROW)
#undef UC_ERROR_KIND_ROW
};

void uc_error_recast(uc_error_t *err, uc_error_kind_t kind)
{
    err->kind = kind;
    err->status = kinds[kind].status;
    err->code = kinds[kind].code;
}

static uc_error_t *make(apr_pool_t *pool, uc_error_kind_t kind,
                        const char *fmt, va_list ap)
{
    uc_error_t *err = apr_pcalloc(pool, sizeof(*err));

    uc_error_recast(err, kind);
    err->message = apr_pvsprintf(pool, fmt, ap);
    return err;
}

uc_error_t *uc_error_make(apr_pool_t *pool, uc_error_kind_t kind,
                          const char *fmt, ...)
{
    uc_error_t *err;
    va_list ap;

    va_start(ap, fmt);
    err = make(pool, kind, fmt, ap);
    va_end(ap);
    return err;
}

uc_error_t *uc_error_invalid(apr_pool_t *pool, const char *fmt, ...)
{
    uc_error_t *err;
    va_list ap;

    va_start(ap, fmt);
    err = make(pool, UC_E_INVALID, fmt, ap);
    va_end(ap);
    return err;
}

uc_error_t *uc_error_copy(apr_pool_t *pool, const uc_error_t *err)
{
    uc_error_t *copy = apr_pmemdup(pool, err, sizeof(*err));

    copy->message = apr_pstrdup(pool, err->message);
    copy->cause = err->cause ? apr_pstrdup(pool, err->cause) : NULL;
    return copy;
}

uc_error_t *uc_error_because(apr_pool_t *pool, uc_error_t *err,
                             const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err->cause = apr_pvsprintf(pool, fmt, ap);
    va_end(ap);
    return err;
}

uc_error_t *uc_error_internal(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_INTERNAL,
                         "The request could not be completed because of a "
                         "server error; see the server log.");
}

uc_error_t *uc_error_unavailable(apr_pool_t *pool)
{
    uc_error_t *err = uc_error_make(pool, UC_E_UNAVAILABLE,
                                    "The catalog database is busy; retry "
                                    "shortly.");
    err->retry_after = 1;
    return err;
}

int uc_error_kind_status(uc_error_kind_t kind)
{
    return kinds[kind].status;
}

int uc_error_rpc_code(const uc_error_t *err)
{
    return kinds[err->kind].rpc;
}

/* google.rpc.Code NOT_FOUND (google/rpc/code.proto). */
#define RPC_NOT_FOUND 5

int uc_error_is_missing(const uc_error_t *err)
{
    return kinds[err->kind].rpc == RPC_NOT_FOUND;
}
