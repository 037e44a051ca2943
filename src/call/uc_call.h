/* SPDX-License-Identifier: Apache-2.0 */
/* What every layer needs of a call: the parsed call as the core sees it
 * (no httpd types cross this line), who makes it and what it may do, the
 * operation that answers it and the route that leads there. The router
 * (http/), authorization (authz/) and the operations (api/) all speak it
 * without including each other. */
#ifndef UC_CALL_H
#define UC_CALL_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include <jansson.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"
#include "../core/uc_log.h"
#include "uc_privileges.h"
#include "../store/uc_securables.h"

struct uc_store;
struct uc_out;
struct uc_api_family;
struct uc_secret_keys;
struct uc_cloud_settings;
struct uc_delta_cache;
struct uc_metrics;
struct uc_sharing_async_env;
struct uc_answer_cache;

typedef enum uc_method {
    UC_GET = 0, UC_POST, UC_PUT, UC_PATCH, UC_DELETE, UC_METHOD_COUNT
} uc_method_t;

typedef struct uc_principal {
    const char *name;
    apr_array_header_t *groups;    /* const char * */
    int admin;                     /* a metastore admin */
    const char *json;              /* ["name","group",...] for SQL */
} uc_principal_t;

/* Levels of the hierarchy, top down. */
enum {
    UC_LEVEL_METASTORE,
    UC_LEVEL_CATALOG,
    UC_LEVEL_SCHEMA,
    UC_LEVEL_OBJECT,
    UC_LEVELS
};

/* The securable a call is about and its ancestors: sec[0] is the metastore,
 * sec[n - 1] the target. */
typedef struct uc_chain {
    int n;
    uc_securable_t *sec[UC_LEVELS];
    uc_securable_type_t type[UC_LEVELS];
} uc_chain_t;

typedef struct uc_access {
    int admin;
    /* The highest level the caller owns (ownership covers everything below
     * it); UC_LEVELS when it owns none. */
    int owns_from;
    /* Privileges in force at each level: granted there or above, expanded
     * and limited to what the level's type accepts. */
    uc_privset_t effective[UC_LEVELS];
} uc_access_t;

typedef struct uc_call {
    apr_pool_t *pool;            /* request lifetime */
    uc_method_t method;
    const char *path;            /* relative to the mount, starts with '/' */
    apr_table_t *query;          /* decoded query parameters */
    json_t *body;                /* parsed JSON object, NULL without a body */
    /* The JSON object of the body of a UC_ROUTE_BODY_TREE route (body is
     * NULL then), NULL elsewhere. */
    const struct uc_json_tree *tree;
    /* The fields of an application/x-www-form-urlencoded body
     * (UC_ROUTE_FORM), NULL otherwise. */
    apr_table_t *form;
    /* The Authorization header as sent, for the open routes that
     * authenticate their callers themselves (NULL elsewhere). */
    const char *authorization;
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
    /* The column of the chain's table a tagged entity names (as the
     * caller spelled it), NULL for any other entity. */
    const char *column;
    /* What the call changed, as the audit log names it, when that is not
     * the chain's target (a create names what it made); NULL otherwise. */
    const char *audit_type;
    const char *audit_name;
    uc_access_t access;          /* the caller's rights on that chain */
    /* The rule let the call through on BROWSE alone: answers show metadata
     * only. */
    int browse_only;
    /* The metastore's managed storage root (normalised), NULL when none is
     * configured. */
    const char *storage_root;
    /* Where the answer goes: operations write into out->jw (the writer
     * they are given); streaming ones end their lines through uc_out.h. */
    struct uc_out *out;
    /* The keys stored secrets are sealed with (core/uc_secret.h). */
    const struct uc_secret_keys *secrets;
    /* How the clouds are reached (cloud/uc_cloud_settings.h); never NULL
     * in a call the glue makes. */
    const struct uc_cloud_settings *cloud;
    /* The absolute URL of the API's mount as its clients reach it
     * (uc_call_api_url): set when the caller knows it, else made by
     * api_url_of from api_url_baton when a call names it, which few do
     * (the glue: from the request's Host). Then the public base URL of
     * the Delta Sharing endpoint recipients are sent to
     * (UnicatSharingEndpoint, NULL when not set). */
    const char *api_url;
    const char *(*api_url_of)(void *baton);
    void *api_url_baton;
    const char *sharing_endpoint;
    /* Whether providers' sharing servers and token endpoints may be at
     * loopback, private, link-local or unspecified addresses
     * (UnicatProviderPrivateAddresses). */
    int provider_private_addresses;
    uc_log_t log;                /* diagnostics, with their causes */
    /* The Delta Sharing recipient whose bearer token authenticated the
     * call (its securable id and name), NULL on the other APIs; and the
     * client's address, for access lists. */
    const char *recipient_id;
    const char *recipient_name;
    const char *client_ip;
    /* The request's headers (Delta Sharing's capabilities), and the
     * response headers an operation adds (Delta-Table-Version). */
    const apr_table_t *headers_in;
    apr_table_t *headers_out;
    /* A HEAD request: the route of a GET runs, its headers are the
     * answer. */
    int head_only;
    /* The answer's status when it is not 200 with the JSON written: 204,
     * an answer without a body (the UC Delta API's). */
    int status;
    /* The process's cache of latest Delta snapshots, NULL when the reader
     * could not be set up. */
    struct uc_delta_cache *snapshots;
    /* Seconds the data-file URLs the sharing server hands out stay
     * valid (UnicatSharingUrlLifetime). */
    int url_lifetime;
    /* The server's shared counters (core/uc_metrics.h), NULL when they
     * are off. */
    struct uc_metrics *metrics;
    /* Where the sharing server prepares asynchronous queries
     * (sharing/uc_sharing_api.h), NULL when it answers every query at
     * once. */
    const struct uc_sharing_async_env *async;
    /* The most commits of a catalog-managed Delta table that may wait to
     * be backfilled (UnicatDeltaMaxUnbackfilledCommits); 0: the
     * default. */
    int max_unbackfilled_commits;
    /* The process's answer cache (core/uc_answer_cache.h), NULL when it
     * is off; and where the call is answered from (the database and the
     * configuration the glue gives the call: the address of the glue's
     * server), part of every key, so that two such places never share an
     * answer. */
    struct uc_answer_cache *answers;
    const void *answers_scope;
    /* Where the threads of the process share their readings of the
     * catalog's version of the call's database (core/uc_read_gate.h), NULL
     * for none. */
    struct uc_read_gate *version_gate;
} uc_call_t;

static inline const char *uc_call_api_url(const uc_call_t *call)
{
    return call->api_url ? call->api_url
                         : call->api_url_of(call->api_url_baton);
}

/* An operation writes its JSON answer into `out`, or returns an error (and
 * whatever it wrote is dropped). */
typedef uc_error_t *(*uc_operation_fn)(uc_call_t *call, uc_jw_t *out);

enum {
    UC_ROUTE_BODY = 1 << 0,   /* the operation reads a JSON request body */
    UC_ROUTE_TXN = 1 << 1,    /* the operation runs in one transaction */
    /* The answer is NDJSON lines streamed as they are written (call->out,
     * uc_out.h), not one buffered JSON document. */
    UC_ROUTE_STREAM = 1 << 2,
    /* The operation reads an application/x-www-form-urlencoded body
     * (call->form): OAuth's token requests. */
    UC_ROUTE_FORM = 1 << 3,
    /* With UC_ROUTE_BODY: a missing body or Content-Type reads as {}
     * (Delta Sharing clients may send either). */
    UC_ROUTE_BODY_OPTIONAL = 1 << 4,
    /* With UC_ROUTE_BODY: an empty body (with or without a Content-Type)
     * reads as the query string, an object of its parameters' strings;
     * for a GET whose body a client or a proxy may not send. */
    UC_ROUTE_BODY_OR_QUERY = 1 << 5,
    /* The operation reads in one read transaction (uc_store_begin_read):
     * what it answers is one view of the database. */
    UC_ROUTE_READ_TXN = 1 << 6,
    /* The answer is made of the database, the caller (its name, its
     * groups, whether it is an admin), the path and the query alone, and
     * the operation adds no header: the answer cache may keep it
     * (uc_run.c). Its rule too reads the database and the caller alone:
     * a kept answer is given without asking the rule again. A route whose
     * answer or rule reads the clock, the configuration or a cloud must
     * not say so. */
    UC_ROUTE_KEPT = 1 << 7,
    /* With UC_ROUTE_BODY: the body is read into call->tree, a tree in the
     * request's pool (core/uc_json_tree.h), not into jansson's values: for
     * a large body read once, no allocation and no release per value. The
     * same verdicts and errors; not with an envelope, _OPTIONAL or
     * _OR_QUERY. */
    UC_ROUTE_BODY_TREE = 1 << 8,
    /* The operation's reads, its rule's included, are grouped where that
     * costs less than running each alone (uc_store_begin_reads): for a
     * route of a few lookups that is called often. */
    UC_ROUTE_READS = 1 << 9
};

typedef struct uc_route {
    uc_method_t method;
    const char *pattern;      /* "/catalogs/{name}": {x} matches one segment */
    uc_operation_fn operation;
    unsigned flags;
    const struct uc_rule *rule;  /* who may call it (authz/uc_rules.h); a
                                  * route without one fails */
    /* The body may come wrapped in an object member of this name
     * ({"function_info": {...}}); the operation sees what is inside. */
    const char *envelope;
    /* The resource family whose generic operation the route runs
     * (src/api/uc_family.h); the call sees it. */
    const struct uc_api_family *family;
    /* The change the audit log names the route's calls by (CREATE,
     * ROTATE_TOKEN); NULL for a route that changes nothing. */
    const char *audit;
} uc_route_t;


#endif
