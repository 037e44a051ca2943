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

/* The error model of the REST catalogs Iceberg's defined, which both
 * Lakekeeper and the UC Delta API speak. */
static json_t *rest_error(apr_pool_t *pool, const uc_error_t *err,
                          const char *type, int status)
{
    return uc_json_own(pool, json_pack("{s{sosssi}}", "error",
                                       "message",
                                       uc_json_text(pool, err->message),
                                       "type", type, "code", status));
}

json_t *uc_render_lakekeeper_error(apr_pool_t *pool, const uc_error_t *err)
{
    return rest_error(pool, err, err->code, err->status);
}

/* The kinds the UC Delta API has a type of its own for. */
static const struct {
    uc_error_kind_t kind;
    const char *type;
} delta_types[] = {
    { UC_E_INVALID, "InvalidParameterValueException" },
    { UC_E_FAILED_PRECONDITION, "InvalidParameterValueException" },
    { UC_E_UNSUPPORTED_TABLE_FORMAT, "UnsupportedTableFormatException" },
    { UC_E_UNAUTHENTICATED, "NotAuthorizedException" },
    { UC_E_PERMISSION_DENIED, "PermissionDeniedException" },
    { UC_E_CATALOG_NOT_FOUND, "NoSuchCatalogException" },
    { UC_E_SCHEMA_NOT_FOUND, "NoSuchSchemaException" },
    { UC_E_TABLE_NOT_FOUND, "NoSuchTableException" },
    { UC_E_COMMIT_VERSION_CONFLICT, "CommitVersionConflictException" },
    { UC_E_UPDATE_REQUIREMENT_CONFLICT,
      "UpdateRequirementConflictException" },
    { UC_E_RESOURCE_EXHAUSTED, "ResourceExhaustedException" },
    { UC_E_TOO_MANY_REQUESTS, "TooManyRequestsException" },
    { UC_E_COMMIT_STATE_UNKNOWN, "CommitStateUnknownException" },
};

/* google.rpc.Code ALREADY_EXISTS (google/rpc/code.proto). */
#define RPC_ALREADY_EXISTS 6

static const char *delta_type(const uc_error_t *err)
{
    size_t i;

    for (i = 0; i < sizeof(delta_types) / sizeof(delta_types[0]); i++)
        if (delta_types[i].kind == err->kind)
            return delta_types[i].type;
    if (uc_error_rpc_code(err) == RPC_ALREADY_EXISTS)
        return "AlreadyExistsException";
    if (uc_error_is_missing(err))
        return "NotFoundException";
    return err->status >= 500 ? "InternalServerErrorException"
                              : "BadRequestException";
}

int uc_render_delta_status(const uc_error_t *err)
{
    return uc_error_rpc_code(err) == RPC_ALREADY_EXISTS ? 409 : err->status;
}

json_t *uc_render_delta_error(apr_pool_t *pool, const uc_error_t *err)
{
    return rest_error(pool, err, delta_type(err),
                      uc_render_delta_status(err));
}

int uc_render_status(const uc_error_dialect_t *dialect, const uc_error_t *err)
{
    return dialect->status ? dialect->status(err) : err->status;
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
