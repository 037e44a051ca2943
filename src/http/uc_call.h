/* A parsed API call as the core sees it: no httpd types cross this line. */
#ifndef UC_CALL_H
#define UC_CALL_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include <jansson.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"
#include "../authz/uc_access.h"

struct uc_store;
struct uc_api_family;

typedef enum uc_method {
    UC_GET = 0, UC_POST, UC_PUT, UC_PATCH, UC_DELETE, UC_METHOD_COUNT
} uc_method_t;

typedef struct uc_call {
    apr_pool_t *pool;            /* request lifetime */
    uc_method_t method;
    const char *path;            /* relative to the mount, starts with '/' */
    apr_table_t *query;          /* decoded query parameters */
    json_t *body;                /* parsed JSON object, NULL without a body */
    const char *principal;       /* the authenticated caller's name */
    const uc_principal_t *who;   /* the caller with its groups */
    const apr_array_header_t *admins;  /* metastore admins (names) */
    /* The groups of another principal, for checks made on its behalf;
     * NULL when only the caller's groups are known. */
    apr_array_header_t *(*groups_of)(void *baton, const char *name);
    void *groups_baton;
    struct uc_store *store;      /* the database connection of this call */
    apr_time_t now;              /* one clock reading per call */
    const char *const *params;   /* path parameters, in pattern order */
    const struct uc_api_family *family;  /* the route's, NULL for none */
    uc_chain_t chain;            /* what the route's rule resolved */
    uc_access_t access;          /* the caller's rights on that chain */
    /* The rule let the call through on BROWSE alone: answers show metadata
     * only. */
    int browse_only;
    /* The metastore's managed storage root (normalised), NULL when none is
     * configured. */
    const char *storage_root;
} uc_call_t;

/* An operation writes its JSON answer into `out`, or returns an error (and
 * whatever it wrote is dropped). */
typedef uc_error_t *(*uc_operation_fn)(uc_call_t *call, uc_jw_t *out);

#endif
