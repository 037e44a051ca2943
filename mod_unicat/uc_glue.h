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

#include "../src/core/uc_log.h"
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
} uc_dir_config_t;

/* The child's cache of latest Delta snapshots, made in child_init; NULL
 * when the reader could not be set up (the error log says why). */
uc_delta_cache_t *uc_glue_snapshots(void);

/* The keys of UnicatSecretKeyFile (none when it is not set). */
const struct uc_secret_keys *uc_glue_secret_keys(void);

/* How the clouds are reached (the Unicat*Cloud*, Aws*, Azure*, Gcp*
 * directives). */
const struct uc_cloud_settings *uc_glue_cloud(void);

/* The child's limit of requests to the routes open to anyone
 * (UnicatActivationRateLimit); NULL when it could not be made. */
struct uc_ratelimit *uc_glue_open_routes_limit(void);

/* Serves every API of the module, by handler name. */
int uc_handler(request_rec *r);

/* Serves the signed files route of the sharing server (unicat-files). */
int uc_files_handler(request_rec *r);

struct uc_store;
/* The request's database connection (mod_dbd's), as the core's store. */
uc_error_t *uc_glue_attach_store(request_rec *r, uc_log_t *log,
                                 struct uc_store **store);
/* A uc_log_t writer into the request's error log entries (baton: r). */
void uc_glue_log_to_request(void *baton, uc_log_level_t level,
                            apr_status_t cause, const char *message);
void uc_glue_retrieve_dbd(void);

#endif
