/* SPDX-License-Identifier: Apache-2.0 */
/* httpd glue shared by the module's files. */
#ifndef UC_GLUE_H
#define UC_GLUE_H

#include <httpd.h>
#include <http_config.h>
#include <http_log.h>
#include <apr_hash.h>
#include <apr_tables.h>

/* mod_unicat.c declares the module itself, which implies this. */
#ifndef UC_DECLARES_MODULE
APLOG_USE_MODULE(unicat);
#endif

#include "../src/delta/uc_delta.h"

#define UC_DEFAULT_MAX_BODY (1024 * 1024)
/* The memory budget of a child's Delta snapshot cache. */
#define UC_SNAPSHOT_CACHE_BYTES ((apr_size_t)256 << 20)
#define UC_UNSET -1

typedef struct uc_dir_config {
    int enabled;              /* Unicat On|Off */
    const char *base;         /* the <Location> path the API is mounted at */
    apr_off_t max_body;       /* UnicatMaxBodySize */
    apr_array_header_t *admins;      /* UnicatMetastoreAdmin */
    const char *groups_env;          /* UnicatGroupsFromEnv */
    apr_hash_t *group_file;          /* UnicatGroupFile: user → groups */
    const char *anonymous;           /* UnicatAnonymousPrincipal */
    const char *storage_root;        /* UnicatManagedStorageRoot */
    const char *sharing_endpoint;    /* UnicatSharingEndpoint */
    int url_lifetime;                /* UnicatSharingUrlLifetime, seconds */
    int async_wait;                  /* UnicatSharingAsyncWait, ms, or
                                      * UC_ASYNC_OFF */
    int async_lifetime;              /* UnicatSharingAsyncLifetime, s */
    int max_unbackfilled;            /* UnicatDeltaMaxUnbackfilledCommits */
    int metrics;                     /* UnicatMetrics On|Off */
    int answer_cache;                /* UnicatAnswerCache On|Off */
    int provider_private_addresses;  /* UnicatProviderPrivateAddresses */
    const char *console_api;         /* UnicatConsoleApi */
    const char *console_metrics;     /* UnicatConsoleMetrics */
} uc_dir_config_t;

#define UC_DEFAULT_URL_LIFETIME 3600
#define UC_DEFAULT_ASYNC_WAIT_MS 50
#define UC_DEFAULT_ASYNC_LIFETIME 3600
#define UC_ASYNC_OFF -2

/* The Delta Sharing recipient the UnicatBearer authentication found for
 * the request; NULL when none did. */
typedef struct uc_glue_recipient {
    const char *id;
    const char *name;
} uc_glue_recipient_t;

const uc_glue_recipient_t *uc_glue_recipient(request_rec *r);

struct uc_store;
struct uc_log;
/* The request's database connection as the core's store; diagnostics go
 * to `log`. */
struct uc_error *uc_glue_store(request_rec *r, const struct uc_log *log,
                               struct uc_store **out);
/* A log that writes into the request's error log entries. */
void uc_glue_request_log(request_rec *r, struct uc_log *log);

/* AuthType UnicatBearer: the check_authn hook that finds the recipient of
 * a Delta Sharing bearer token. */
void uc_bearer_register_hooks(void);

/* The child's cache of latest Delta snapshots, made in child_init; NULL
 * when the reader could not be set up (the error log says why). */
uc_delta_cache_t *uc_glue_snapshots(void);

struct uc_answer_cache;
struct uc_read_gate;
/* The child's answer cache (UnicatAnswerCacheSize), made in child_init;
 * NULL when it is off. */
struct uc_answer_cache *uc_glue_answers(void);
/* The process's gate to the catalog's version of `s`'s database
 * (core/uc_read_gate.h), NULL when answers are not kept. */
struct uc_read_gate *uc_glue_version_gate(server_rec *s);

/* The keys of UnicatSecretKeyFile (none when it is not set). */
const struct uc_secret_keys *uc_glue_secret_keys(void);

/* How the clouds are reached (the Unicat*Cloud*, Aws*, Azure*, Gcp*
 * directives). */
const struct uc_cloud_settings *uc_glue_cloud(void);

/* The child's limit of requests to the routes open to anyone
 * (UnicatActivationRateLimit); NULL when it could not be made. */
struct uc_ratelimit *uc_glue_open_routes_limit(void);

struct uc_call;
struct uc_route;
/* UnicatAuditLog: the directive, and the hooks that open the log and
 * write a line when a transaction is logged. */
const char *uc_audit_log_set(cmd_parms *cmd, void *dconf, const char *arg);
void uc_audit_log_register_hooks(void);
/* Keeps what the audit line of a call on `route` of `api` says, when the
 * route changes something and the log is on; NULL `call` fields (no
 * caller, no chain) are what a call refused early leaves. */
void uc_glue_audit(request_rec *r, const char *api,
                   const struct uc_call *call, const struct uc_route *route,
                   const struct uc_error *err);

/* The server's metrics (uc_status.c): the handler unicat-status, the
 * shared block (NULL when it could not be made), the child's slot, and
 * what a request adds: its API index, route (NULL: none matched), status,
 * database work (`store` may be NULL), when its answer was streamed its
 * bytes, and when it read Delta tables the child's cache figures. */
struct uc_metrics;
void uc_status_register_hooks(void);
struct uc_metrics *uc_glue_metrics(void);
void uc_glue_metrics_child_init(apr_pool_t *pchild);
void uc_glue_metrics_count(request_rec *r, int api,
                           const struct uc_route *route, int status,
                           const struct uc_store *store, int streamed,
                           int read_tables);

/* Serves every API of the module, by handler name. */
int uc_handler(request_rec *r);

/* Serves the signed files route of the sharing server. */
#define UC_FILES_HANDLER "unicat-files"
int uc_files_handler(request_rec *r);

/* Serves the web console's files (uc_console.c); the console calls the
 * catalog API at UnicatConsoleApi, by default where the shipped
 * configurations mount it. */
#define UC_CONSOLE_HANDLER "unicat-console"
#define UC_CONSOLE_API "/api/2.1/unity-catalog"
int uc_console_handler(request_rec *r);

/* httpd's own refusals on the mounts (uc_refusals.c): the hook that makes
 * them while a mount's ErrorDocuments apply; the request as the client
 * sent it, with its URL's <Location>s applied even when httpd refused it
 * before it walked them; and the handler httpd gives a request, or would
 * have given it (NULL: none). */
void uc_refusals_register_hooks(void);
request_rec *uc_glue_original(request_rec *r);
const char *uc_glue_handler_of(request_rec *r);

/* What httpd's logs say of a request (uc_log_redact.c): the hook that
 * takes the secrets out of its URL before the access logs write it, and
 * its path as the module's own error lines name it. */
void uc_log_redact_register_hooks(void);
const char *uc_glue_uri_for_log(request_rec *r);

void uc_glue_retrieve_dbd(void);
/* The routers of the mounts, in the configuration's pool. */
void uc_glue_make_routers(apr_pool_t *pconf);

/* The pool of threads that prepare asynchronous sharing queries
 * (uc_async_pool.c): the child_init hook that makes it, and what a request
 * of `conf` lends the core of it, NULL when queries are all answered at
 * once. */
struct uc_sharing_async_env;
void uc_async_pool_register_hooks(void);
const struct uc_sharing_async_env *uc_glue_async_env(
    request_rec *r, const uc_dir_config_t *conf);

#endif
