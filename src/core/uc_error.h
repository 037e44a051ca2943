/* One error type for the whole core. The glue renders it in the dialect of
 * the API that was called (Unity Catalog, Delta Sharing, Lakekeeper). */
#ifndef UC_ERROR_H
#define UC_ERROR_H

#include <apr_pools.h>

typedef struct uc_error {
    int status;            /* HTTP status */
    const char *code;      /* error_code, e.g. CATALOG_NOT_FOUND */
    const char *message;   /* human readable, never contains secrets or SQL */
    int retry_after;       /* seconds for Retry-After, 0 = none */
} uc_error_t;

uc_error_t *uc_error_make(apr_pool_t *pool, int status, const char *code,
                          const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Shorthands for the errors every resource uses. */
uc_error_t *uc_error_invalid(apr_pool_t *pool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
uc_error_t *uc_error_internal(apr_pool_t *pool);
uc_error_t *uc_error_unavailable(apr_pool_t *pool);

/* The google.rpc.Code number the spec's Status carries for an error code. */
int uc_error_rpc_code(const uc_error_t *err);

#define UC_ERR_INVALID "INVALID_PARAMETER_VALUE"
/* The request is valid but the catalog is not in a state to honour it
 * (no managed storage, a staging table already used). */
#define UC_ERR_FAILED_PRECONDITION "FAILED_PRECONDITION"

#endif
