/* SPDX-License-Identifier: Apache-2.0 */
/* One error type for the whole core. The glue renders it in the dialect of
 * the API that was called (Unity Catalog, Delta Sharing, Lakekeeper). */
#ifndef UC_ERROR_H
#define UC_ERROR_H

#include <apr_pools.h>

/* Every error the core answers: its kind, HTTP status, error_code, and the
 * google.rpc.Code (google/rpc/code.proto) the spec's Status carries. */
#define UC_ERROR_KINDS(X) \
    X(INVALID,              400, "INVALID_PARAMETER_VALUE", 3)  \
    X(BAD_REQUEST,          400, "BAD_REQUEST",             3)  \
    X(FAILED_PRECONDITION,  400, "FAILED_PRECONDITION",     9)  \
    X(UNSUPPORTED_OPERATION, 400, "UNSUPPORTED_OPERATION",  3)  \
    /* Not a Delta table: a Delta client falls back to the catalog API. */ \
    X(UNSUPPORTED_TABLE_FORMAT, 400, "UNSUPPORTED_TABLE_FORMAT", 9) \
    X(MALFORMED_DELTA_LOG,  400, "MALFORMED_DELTA_LOG",     3)  \
    X(MALFORMED_PARQUET,    400, "MALFORMED_PARQUET",       3)  \
    X(MALFORMED_REQUEST,    400, "MALFORMED_REQUEST",       3)  \
    X(CATALOG_NOT_EMPTY,    400, "CATALOG_NOT_EMPTY",       9)  \
    X(SCHEMA_NOT_EMPTY,     400, "SCHEMA_NOT_EMPTY",        9)  \
    X(CATALOG_ALREADY_EXISTS, 400, "CATALOG_ALREADY_EXISTS", 6) \
    X(SCHEMA_ALREADY_EXISTS, 400, "SCHEMA_ALREADY_EXISTS",  6)  \
    X(TABLE_ALREADY_EXISTS, 400, "TABLE_ALREADY_EXISTS",    6)  \
    X(RESOURCE_ALREADY_EXISTS, 400, "RESOURCE_ALREADY_EXISTS", 6) \
    X(STORAGE_CREDENTIAL_ALREADY_EXISTS, 400,                       \
      "STORAGE_CREDENTIAL_ALREADY_EXISTS", 6)                       \
    X(EXTERNAL_LOCATION_ALREADY_EXISTS, 400,                        \
      "EXTERNAL_LOCATION_ALREADY_EXISTS", 6)                        \
    X(CLIENT_GONE,          400, "CLIENT_GONE",             3)  \
    X(UNAUTHENTICATED,      401, "UNAUTHENTICATED",         16) \
    X(PERMISSION_DENIED,    403, "PERMISSION_DENIED",       7)  \
    X(NOT_FOUND,            404, "NOT_FOUND",               5)  \
    X(ENDPOINT_NOT_FOUND,   404, "ENDPOINT_NOT_FOUND",      5)  \
    X(CATALOG_NOT_FOUND,    404, "CATALOG_NOT_FOUND",       5)  \
    X(SCHEMA_NOT_FOUND,     404, "SCHEMA_NOT_FOUND",        5)  \
    X(TABLE_NOT_FOUND,      404, "TABLE_NOT_FOUND",         5)  \
    X(RESOURCE_DOES_NOT_EXIST, 404, "RESOURCE_DOES_NOT_EXIST", 5) \
    X(METHOD_NOT_ALLOWED,   405, "METHOD_NOT_ALLOWED",      12) \
    X(REQUEST_TIMEOUT,      408, "REQUEST_TIMEOUT",         4)  \
    X(ALREADY_EXISTS,       409, "ALREADY_EXISTS",          6)  \
    X(ABORTED,              409, "ABORTED",                 10) \
    X(DUPLICATE,            409, "UC_STORE_DUPLICATE",      10) \
    /* The commit coordinator's (Unity Catalog's codes). */            \
    X(COMMIT_VERSION_CONFLICT, 409, "COMMIT_VERSION_CONFLICT", 10) \
    /* A requirement of an update (the table's id, its etag) not met. */ \
    X(UPDATE_REQUIREMENT_CONFLICT, 409, "UPDATE_REQUIREMENT_CONFLICT", 10) \
    X(LENGTH_REQUIRED,      411, "LENGTH_REQUIRED",         3)  \
    X(REQUEST_TOO_LARGE,    413, "REQUEST_TOO_LARGE",       8)  \
    X(URI_TOO_LONG,         414, "URI_TOO_LONG",            3)  \
    X(UNSUPPORTED_MEDIA_TYPE, 415, "UNSUPPORTED_MEDIA_TYPE", 3) \
    X(RANGE_NOT_SATISFIABLE, 416, "RANGE_NOT_SATISFIABLE",  11) \
    X(TOO_MANY_REQUESTS,    429, "REQUEST_LIMIT_EXCEEDED",  8)  \
    X(RESOURCE_EXHAUSTED,   429, "RESOURCE_EXHAUSTED",      8)  \
    X(INTERNAL,             500, "INTERNAL_ERROR",          13) \
    X(COMMIT_STATE_UNKNOWN, 500, "COMMIT_STATE_UNKNOWN",    2)  \
    X(STORAGE,              502, "STORAGE_ERROR",           13) \
    X(UNAVAILABLE,          503, "TEMPORARILY_UNAVAILABLE", 14) \
    /* The batch-check's, in Lakekeeper's vocabulary. */                \
    X(LK_UNPROCESSABLE,     422, "UnprocessableEntity",     3)  \
    X(LK_TOO_MANY_CHECKS,   400, "TooManyChecks",           3)  \
    X(LK_CANNOT_INSPECT,    403, "CannotInspectPermissions", 7) \
    X(LK_NO_SUCH_ROLE,      404, "RoleIdNotFound",          5)  \
    X(LK_NO_SUCH_WAREHOUSE, 404, "NoSuchWarehouseException", 5) \
    X(LK_NO_SUCH_NAMESPACE, 404, "NoSuchNamespaceException", 5) \
    X(LK_NO_SUCH_TABLE,     404, "NoSuchTableException",    5)  \
    X(LK_NO_SUCH_VIEW,      404, "NoSuchViewException",     5)  \
    X(LK_NO_SUCH_GENERIC_TABLE, 404, "NoSuchGenericTableException", 5)

typedef enum uc_error_kind {
#define UC_ERROR_KIND_ENUM(name, status, code, rpc) UC_E_##name,
    UC_ERROR_KINDS(UC_ERROR_KIND_ENUM)
#undef UC_ERROR_KIND_ENUM
    UC_E_COUNT
} uc_error_kind_t;

typedef struct uc_error {
    uc_error_kind_t kind;
    int status;            /* HTTP status: the kind's */
    const char *code;      /* error_code, e.g. CATALOG_NOT_FOUND */
    const char *message;   /* human readable, never contains secrets or SQL */
    /* Why, for the server log only (a driver's message, a system error):
     * never rendered. NULL when the message says it all. */
    const char *cause;
    int retry_after;       /* seconds for Retry-After, 0 = none */
} uc_error_t;

uc_error_t *uc_error_make(apr_pool_t *pool, uc_error_kind_t kind,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same error in another pool (one that outlives the first). */
uc_error_t *uc_error_copy(apr_pool_t *pool, const uc_error_t *err);

/* Makes `err` an error of `kind`, message and cause kept: a lower layer's
 * error in the vocabulary of the layer above. */
void uc_error_recast(uc_error_t *err, uc_error_kind_t kind);

/* Adds why it happened, for the log. Returns `err`. */
uc_error_t *uc_error_because(apr_pool_t *pool, uc_error_t *err,
                             const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Shorthands for the errors every resource uses. */
uc_error_t *uc_error_invalid(apr_pool_t *pool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
uc_error_t *uc_error_internal(apr_pool_t *pool);
uc_error_t *uc_error_unavailable(apr_pool_t *pool);

/* The HTTP status of errors of `kind`. */
int uc_error_kind_status(uc_error_kind_t kind);

/* The google.rpc.Code number the spec's Status carries for an error. */
int uc_error_rpc_code(const uc_error_t *err);

/* Whether `err` says that what was asked for does not exist: a kind of
 * google.rpc.Code NOT_FOUND (NOT_FOUND, CATALOG_NOT_FOUND, ...), whatever
 * HTTP status it is answered with. */
int uc_error_is_missing(const uc_error_t *err);

#endif
