/* SPDX-License-Identifier: Apache-2.0 */
/* The audit log's line of a call that changes something (a route with an
 * audit name), whatever its outcome: one JSON object naming who, from
 * where, what and on which securable. Nothing the request or the answer
 * carried goes in: no body, no query, no path (an activation link's path
 * is its secret), no error message. */
#ifndef UC_AUDIT_LINE_H
#define UC_AUDIT_LINE_H

#include "../call/uc_call.h"

/* What a call did, taken from it when it is over: it outlives the call. */
typedef struct uc_audit_event {
    const char *principal;      /* NULL on the open routes */
    int recipient;              /* the principal is a sharing recipient */
    const char *client_address;
    const char *operation;      /* the route's audit name */
    const char *route;          /* "PATCH /catalogs/{name}" */
    const char *securable_type;
    const char *full_name;
    const char *error_code;     /* NULL when the call succeeded */
} uc_audit_event_t;

void uc_audit_event_of(apr_pool_t *pool, const uc_call_t *call,
                       const uc_route_t *route, const uc_error_t *err,
                       uc_audit_event_t *ev);

/* What only the server knows once the answer has gone. */
typedef struct uc_audit_context {
    const char *api;            /* "catalog", "authz", "sharing" */
    const char *request_id;     /* UNIQUE_ID or the log id; NULL for none */
    apr_time_t time;            /* when the request came */
    int status;                 /* the HTTP status answered */
} uc_audit_context_t;

/* The line, ending in "\n", from `pool`. A call succeeded when it was
 * answered below 400 without an error. */
const char *uc_audit_line(apr_pool_t *pool, const uc_audit_event_t *ev,
                          const uc_audit_context_t *ctx, apr_size_t *len);

#endif
