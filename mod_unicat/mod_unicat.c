/* SPDX-License-Identifier: Apache-2.0 */
/* mod_unicat: Unity Catalog, Delta Sharing and authorization services inside
 * Apache httpd. This file holds the module record and its directives; the
 * request handling is in uc_handler.c, the catalog logic in src/. */
#define UC_DECLARES_MODULE
#include "uc_glue.h"

#include <http_request.h>
#include <apr_strings.h>
#include <apr_file_io.h>
#include <http_core.h>
#include <apr_lib.h>
#include <apr_uri.h>

#include "../src/authz/uc_access.h"
#include "../src/cloud/uc_cloud_http.h"
#include "../src/cloud/uc_cloud_settings.h"
#include "../src/cloud/uc_vend_cache.h"
#include "../src/core/uc_answer_cache.h"
#include "../src/core/uc_hash.h"
#include "../src/core/uc_ratelimit.h"
#include "../src/core/uc_read_gate.h"
#include "../src/core/uc_secret.h"
#include "../src/core/uc_validate.h"
#include "../src/vend/uc_storage_url.h"

/* The Delta reader's settings: process-wide, so the directives that set
 * them belong to the main server. They are written while the parent reads
 * the configuration (from the defaults again on every restart) and read by
 * each child as it starts, never by requests. */
static uc_delta_settings_t delta_settings;

/* The keys secrets are sealed with (UnicatSecretKeyFile): read while the
 * parent, still root, reads the configuration, so the files can be
 * readable by root alone; wiped when that configuration goes. */
static uc_secret_keys_t secret_keys;

const uc_secret_keys_t *uc_glue_secret_keys(void)
{
    return &secret_keys;
}

/* How the clouds are reached: process-wide like the keys, set by the main
 * server's directives (from the defaults again on every restart). */
static uc_cloud_settings_t cloud_settings;

#define UC_DEFAULT_CLOUD_TIMEOUT_MS 10000L
#define UC_DEFAULT_CREDENTIAL_LIFETIME 3600
/* Vended credentials a child keeps: one per (credential, location,
 * operation) in use, a few hundred bytes each. */
#define UC_VEND_CACHE_ENTRIES 4096

const uc_cloud_settings_t *uc_glue_cloud(void)
{
    return &cloud_settings;
}

/* Made by each child before its worker threads start; gone with it. */
static uc_delta_cache_t *snapshots;

/* Requests a client address may make of the open routes (activation
 * links) per minute, in each child: a table of this many addresses. */
#define UC_DEFAULT_OPEN_ROUTES_LIMIT 20
#define UC_OPEN_ROUTES_ADDRESSES 1024
static int open_routes_limit;
static uc_ratelimit_t *open_routes;

uc_ratelimit_t *uc_glue_open_routes_limit(void)
{
    return open_routes;
}

/* UnicatAnswerCacheSize, in KiB (0: off): each child keeps answers of
 * list routes in as much. */
#define UC_DEFAULT_ANSWER_CACHE_KIB 4096
static int answer_cache_kib;
static uc_answer_cache_t *answers;

uc_answer_cache_t *uc_glue_answers(void)
{
    return answers;
}

/* Each server's gate to the catalog's version of its database (mod_dbd
 * gives each server its own): made by child_init with the answer cache,
 * only read afterwards. */
static apr_hash_t *version_gates;

uc_read_gate_t *uc_glue_version_gate(server_rec *s)
{
    return version_gates ? apr_hash_get(version_gates, &s, sizeof(s)) : NULL;
}

static apr_status_t make_version_gates(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *gates = apr_hash_make(pchild);
    apr_status_t rv = APR_SUCCESS;

    for (; s && rv == APR_SUCCESS; s = s->next) {
        server_rec **key = apr_palloc(pchild, sizeof(*key));
        uc_read_gate_t *gate;

        *key = s;
        if ((rv = uc_read_gate_create(pchild, &gate)) == APR_SUCCESS)
            apr_hash_set(gates, key, sizeof(*key), gate);
    }
    version_gates = rv == APR_SUCCESS ? gates : NULL;
    return rv;
}

uc_delta_cache_t *uc_glue_snapshots(void)
{
    return snapshots;
}

static void *create_dir_config(apr_pool_t *p, char *dir)
{
    uc_dir_config_t *conf = apr_pcalloc(p, sizeof(*conf));

    conf->enabled = UC_UNSET;
    conf->max_body = UC_UNSET;
    conf->url_lifetime = UC_UNSET;
    conf->async_wait = UC_UNSET;
    conf->async_lifetime = UC_UNSET;
    conf->max_unbackfilled = UC_UNSET;
    conf->metrics = UC_UNSET;
    conf->answer_cache = UC_UNSET;
    conf->provider_private_addresses = UC_UNSET;
    conf->base = dir;
    return conf;
}

static void *merge_dir_config(apr_pool_t *p, void *basev, void *addv)
{
    uc_dir_config_t *base = basev, *add = addv;
    uc_dir_config_t *conf = apr_pcalloc(p, sizeof(*conf));

    conf->enabled = add->enabled != UC_UNSET ? add->enabled : base->enabled;
    conf->max_body = add->max_body != UC_UNSET ? add->max_body
                                               : base->max_body;
    /* The mount is where `Unicat On` was said, not any nested section. */
    conf->base = add->enabled != UC_UNSET ? add->base : base->base;
    conf->admins = add->admins ? add->admins : base->admins;
    conf->groups_env = add->groups_env ? add->groups_env : base->groups_env;
    conf->group_file = add->group_file ? add->group_file : base->group_file;
    conf->anonymous = add->anonymous ? add->anonymous : base->anonymous;
    conf->storage_root = add->storage_root ? add->storage_root
                                           : base->storage_root;
    conf->sharing_endpoint = add->sharing_endpoint ? add->sharing_endpoint
                                                   : base->sharing_endpoint;
    conf->url_lifetime = add->url_lifetime != UC_UNSET ? add->url_lifetime
                                                       : base->url_lifetime;
    conf->async_wait = add->async_wait != UC_UNSET ? add->async_wait
                                                   : base->async_wait;
    conf->async_lifetime = add->async_lifetime != UC_UNSET
                           ? add->async_lifetime : base->async_lifetime;
    conf->max_unbackfilled = add->max_unbackfilled != UC_UNSET
                             ? add->max_unbackfilled : base->max_unbackfilled;
    conf->metrics = add->metrics != UC_UNSET ? add->metrics : base->metrics;
    conf->answer_cache = add->answer_cache != UC_UNSET ? add->answer_cache
                                                       : base->answer_cache;
    conf->provider_private_addresses =
        add->provider_private_addresses != UC_UNSET
            ? add->provider_private_addresses
            : base->provider_private_addresses;
    conf->console_api = add->console_api ? add->console_api
                                         : base->console_api;
    conf->console_metrics = add->console_metrics ? add->console_metrics
                                                 : base->console_metrics;
    return conf;
}

static const char *set_enabled(cmd_parms *cmd, void *dconf, int flag)
{
    uc_dir_config_t *conf = dconf;
    const ap_directive_t *section = cmd->directive->parent;

    if (!cmd->path || !section ||
        strcasecmp(section->directive, "<Location") != 0 ||
        (section->args && section->args[0] == '~'))
        return "Unicat belongs directly inside a <Location> section: its "
               "path is the mount point of the API";
    conf->enabled = flag;
    conf->base = apr_pstrdup(cmd->pool, cmd->path);
    /* "/api/" and "/api" mount the same API. */
    while (strlen(conf->base) > 1 &&
           conf->base[strlen(conf->base) - 1] == '/')
        ((char *)conf->base)[strlen(conf->base) - 1] = '\0';
    return NULL;
}

static const char *set_max_body(cmd_parms *cmd, void *dconf, const char *arg)
{
    uc_dir_config_t *conf = dconf;
    char *end;
    apr_off_t v;

    (void)cmd;
    if (apr_strtoff(&v, arg, &end, 10) != APR_SUCCESS || *end || v < 1 ||
        v > APR_INT32_MAX)
        return "UnicatMaxBodySize takes a number of bytes from 1 to "
               "2147483647";
    conf->max_body = v;
    return NULL;
}

static const char *add_admin(cmd_parms *cmd, void *dconf, const char *arg)
{
    uc_dir_config_t *conf = dconf;
    const char *name;

    if (uc_principal_normalize(cmd->pool, "UnicatMetastoreAdmin", arg, &name))
        return "UnicatMetastoreAdmin takes user or group names of 1 to 255 "
               "characters, without control characters";
    if (!conf->admins)
        conf->admins = apr_array_make(cmd->pool, 4, sizeof(const char *));
    APR_ARRAY_PUSH(conf->admins, const char *) = name;
    return NULL;
}

static const char *set_groups_env(cmd_parms *cmd, void *dconf,
                                  const char *arg)
{
    ((uc_dir_config_t *)dconf)->groups_env = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

/* Read once at start-up (and on every reload), like AuthGroupFile's users
 * expect their changes to need a graceful restart here. */
static const char *set_group_file(cmd_parms *cmd, void *dconf,
                                  const char *arg)
{
    const char *path = ap_server_root_relative(cmd->pool, arg);
    apr_file_t *file;
    apr_finfo_t info;
    char *text;
    apr_size_t len;

    if (!path ||
        apr_file_open(&file, path, APR_FOPEN_READ, APR_OS_DEFAULT, cmd->pool)
        != APR_SUCCESS ||
        apr_file_info_get(&info, APR_FINFO_SIZE, file) != APR_SUCCESS)
        return apr_psprintf(cmd->pool, "UnicatGroupFile: cannot read %s",
                            arg);
    if (info.size > 16 * 1024 * 1024)
        return apr_psprintf(cmd->pool, "UnicatGroupFile: %s is larger than "
                            "16 MiB", arg);
    len = (apr_size_t)info.size;
    text = apr_palloc(cmd->pool, len + 1);
    if (len && apr_file_read_full(file, text, len, &len) != APR_SUCCESS)
        return apr_psprintf(cmd->pool, "UnicatGroupFile: cannot read %s",
                            arg);
    text[len] = '\0';
    apr_file_close(file);
    ((uc_dir_config_t *)dconf)->group_file =
        uc_groups_from_file_text(cmd->pool, text);
    return NULL;
}

static const char *set_anonymous(cmd_parms *cmd, void *dconf, const char *arg)
{
    const char *name;

    if (uc_principal_normalize(cmd->pool, "UnicatAnonymousPrincipal", arg,
                               &name))
        return "UnicatAnonymousPrincipal takes a name of 1 to 255 "
               "characters, without control characters";
    ((uc_dir_config_t *)dconf)->anonymous = name;
    return NULL;
}

static const char *set_storage_root(cmd_parms *cmd, void *dconf,
                                    const char *arg)
{
    const char *root;
    uc_error_t *err = uc_storage_url_check(cmd->pool,
                                           "UnicatManagedStorageRoot", arg,
                                           &root);
    if (err)
        return err->message;
    ((uc_dir_config_t *)dconf)->storage_root = root;
    return NULL;
}

/* The public base URL recipients' profiles name: an absolute http or
 * https URL, kept with one trailing slash (Delta Sharing clients append
 * "shares" to it). */
static const char *set_sharing_endpoint(cmd_parms *cmd, void *dconf,
                                        const char *arg)
{
    apr_uri_t uri;
    size_t n = strlen(arg);

    if (apr_uri_parse(cmd->temp_pool, arg, &uri) != APR_SUCCESS ||
        !uri.scheme || !uri.hostname || uri.query || uri.fragment ||
        (strcasecmp(uri.scheme, "https") && strcasecmp(uri.scheme, "http")))
        return apr_psprintf(cmd->pool, "UnicatSharingEndpoint takes an "
                            "http:// or https:// URL, not '%s'", arg);
    ((uc_dir_config_t *)dconf)->sharing_endpoint =
        n && arg[n - 1] == '/' ? apr_pstrdup(cmd->pool, arg)
                               : apr_pstrcat(cmd->pool, arg, "/", NULL);
    return NULL;
}

/* A URL path of this server (the console's Content-Security-Policy lets
 * it call no other origin), without a trailing slash; NULL when it is
 * not one. */
static const char *console_path(apr_pool_t *pool, const char *arg)
{
    size_t n = strlen(arg);

    if (arg[0] != '/' || strpbrk(arg, "?#\"\\<> ") || strstr(arg, "//"))
        return NULL;
    return n > 1 && arg[n - 1] == '/' ? apr_pstrndup(pool, arg, n - 1)
                                      : apr_pstrdup(pool, arg);
}

/* UnicatConsoleApi and UnicatConsoleMetrics: the paths config.json
 * gives the console, at the offset of the member cmd->info names. */
static const char *set_console_path(cmd_parms *cmd, void *dconf,
                                    const char *arg)
{
    const char *path = console_path(cmd->pool, arg);

    if (!path)
        return apr_psprintf(cmd->pool, "%s takes a URL path of this "
                            "server such as /api/2.1/unity-catalog, not '%s'",
                            cmd->cmd->name, arg);
    *(const char **)((char *)dconf + (apr_size_t)cmd->info) = path;
    return NULL;
}

/* A number of `unit` from `min` to `max` into *out; or the reason not. */
static const char *number_from(cmd_parms *cmd, const char *arg, int min,
                               int max, const char *unit, int *out)
{
    apr_int64_t v;
    char *end;

    v = apr_strtoi64(arg, &end, 10);
    if (!*arg || *end || v < min || v > max)
        return apr_psprintf(cmd->pool, "%s takes a number of %s from %d "
                            "to %d, not '%s'", cmd->cmd->name, unit, min,
                            max, arg);
    *out = (int)v;
    return NULL;
}

/* The same for a directive of the main server. */
static const char *number_in(cmd_parms *cmd, const char *arg, int min,
                             int max, const char *unit, int *out)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    return err ? err : number_from(cmd, arg, min, max, unit, out);
}

/* The numbers a section may set: the member of uc_dir_config_t, in what
 * and within which bounds (the directive's cmd->info, which httpd types
 * as not const: none of them is ever written). */
typedef struct dir_number {
    apr_size_t offset;
    int min, max;
    const char *unit;
} dir_number_t;

/* UnicatSharingUrlLifetime: from a minute to a week (the longest a
 * pre-signed URL of the clouds lives). */
static dir_number_t url_lifetime = {
    APR_OFFSETOF(uc_dir_config_t, url_lifetime), 60, 604800, "seconds" };
/* UnicatSharingAsyncWait (or Off): up to a minute. */
static dir_number_t async_wait = {
    APR_OFFSETOF(uc_dir_config_t, async_wait), 0, 60000, "milliseconds" };
/* UnicatSharingAsyncLifetime: a second to a day. */
static dir_number_t async_lifetime = {
    APR_OFFSETOF(uc_dir_config_t, async_lifetime), 1, 86400, "seconds" };
/* UnicatDeltaMaxUnbackfilledCommits: at least one, at most what a reader
 * is given in one answer. */
static dir_number_t max_unbackfilled = {
    APR_OFFSETOF(uc_dir_config_t, max_unbackfilled), 1, 1000, "commits" };

static const char *set_dir_number(cmd_parms *cmd, void *dconf,
                                  const char *arg)
{
    const dir_number_t *n = cmd->info;

    return number_from(cmd, arg, n->min, n->max, n->unit,
                       (int *)((char *)dconf + n->offset));
}

/* A submit that never waits for its snapshot: Off. */
static const char *set_async_wait(cmd_parms *cmd, void *dconf,
                                  const char *arg)
{
    if (!strcasecmp(arg, "off")) {
        ((uc_dir_config_t *)dconf)->async_wait = UC_ASYNC_OFF;
        return NULL;
    }
    return set_dir_number(cmd, dconf, arg);
}

static const char *set_decode_threads(cmd_parms *cmd, void *dconf,
                                      const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 1, UC_DELTA_MAX_DECODE_THREADS, "threads",
                     &delta_settings.decode_threads);
}

static const char *set_request_threads(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 1, UC_DELTA_MAX_REQUEST_THREADS, "threads",
                     &delta_settings.request_threads);
}

static const char *set_answer_threads(cmd_parms *cmd, void *dconf,
                                      const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 1, UC_DELTA_MAX_ANSWER_THREADS, "threads",
                     &delta_settings.answer_threads);
}

static const char *add_secret_key_file(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *path = ap_server_root_relative(cmd->temp_pool, arg);
    uc_secret_key_t key;
    uc_error_t *failed;

    (void)dconf;
    if (err)
        return err;
    if (!path)
        return apr_psprintf(cmd->pool, "UnicatSecretKeyFile: bad path %s",
                            arg);
    failed = uc_secret_key_read(cmd->temp_pool, path, &key);
    if (!failed)
        failed = uc_secret_keys_add(cmd->pool, &secret_keys, &key);
    uc_secret_wipe(&key, sizeof(key));
    return failed ? apr_pstrcat(cmd->pool, "UnicatSecretKeyFile: ",
                                failed->message, NULL)
                  : NULL;
}

/* The member of cloud_settings a URL directive sets. */
#define CLOUD_MEMBER(member) \
    ((void *)APR_OFFSETOF(uc_cloud_settings_t, member))

/* A cloud endpoint: an absolute http or https URL without a query, into
 * the member of cloud_settings at the command's offset. */
static const char *set_cloud_url(cmd_parms *cmd, void *dconf,
                                 const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    apr_uri_t uri;

    (void)dconf;
    if (err)
        return err;
    if (apr_uri_parse(cmd->temp_pool, arg, &uri) != APR_SUCCESS ||
        !uri.scheme || !uri.hostname || uri.query || uri.fragment ||
        (strcasecmp(uri.scheme, "https") && strcasecmp(uri.scheme, "http")))
        return apr_psprintf(cmd->pool, "%s takes an http:// or https:// URL, "
                            "not '%s'", cmd->cmd->name, arg);
    if (cmd->info == CLOUD_MEMBER(azure_blob_endpoint) &&
        !strstr(arg, "{account}"))
        return "UnicatAzureBlobEndpoint must say where the storage "
               "account's name goes: {account}";
    *(const char **)((char *)&cloud_settings + (apr_size_t)cmd->info) =
        apr_pstrdup(cmd->pool, arg);
    return NULL;
}

/* UnicatS3Endpoint URL [path-style|virtual-host]: the URL is checked as
 * every cloud endpoint is; AWS's own addressing, virtual-host, unless
 * told (MinIO and most S3-compatible stores want path-style). */
static const char *set_s3_endpoint(cmd_parms *cmd, void *dconf,
                                   const char *url, const char *style)
{
    const char *err = set_cloud_url(cmd, dconf, url);

    if (err)
        return err;
    if (style && strcasecmp(style, "path-style") &&
        strcasecmp(style, "virtual-host"))
        return apr_psprintf(cmd->pool, "UnicatS3Endpoint addresses buckets "
                            "path-style or virtual-host, not '%s'", style);
    cloud_settings.s3_path_style = style && !strcasecmp(style, "path-style");
    return NULL;
}

static const char *set_aws_iam_arn(cmd_parms *cmd, void *dconf,
                                   const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *p;

    (void)dconf;
    if (err)
        return err;
    for (p = arg; *p && !apr_isspace(*p) && !apr_iscntrl(*p); p++)
        ;
    if (strncmp(arg, "arn:", 4) != 0 || *p || strlen(arg) > 2048)
        return "UnicatAwsIamArn takes the ARN of the server's own AWS "
               "identity (arn:aws:iam::<account>:role/<name>)";
    cloud_settings.aws_iam_arn = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

static const char *set_cloud_ca_file(cmd_parms *cmd, void *dconf,
                                     const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *path = ap_server_root_relative(cmd->pool, arg);
    apr_finfo_t info;
    apr_file_t *file;

    (void)dconf;
    if (err)
        return err;
    if (!path || apr_stat(&info, path, APR_FINFO_TYPE, cmd->temp_pool)
                 != APR_SUCCESS || info.filetype != APR_REG ||
        apr_file_open(&file, path, APR_FOPEN_READ, APR_OS_DEFAULT,
                      cmd->temp_pool) != APR_SUCCESS)
        return apr_psprintf(cmd->pool, "UnicatCloudCAFile: %s is not a "
                            "readable file", arg);
    apr_file_close(file);
    cloud_settings.ca_file = path;
    return NULL;
}

static const char *set_cloud_timeout(cmd_parms *cmd, void *dconf,
                                     const char *arg)
{
    int v = 0;
    const char *err = number_in(cmd, arg, 1, 300, "seconds", &v);

    (void)dconf;
    if (!err)
        cloud_settings.timeout_ms = 1000L * v;
    return err;
}

static const char *set_credential_lifetime(cmd_parms *cmd, void *dconf,
                                           const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 900, 43200, "seconds",
                     &cloud_settings.lifetime_s);
}


static const char *set_open_routes_limit(cmd_parms *cmd, void *dconf,
                                         const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 1, 100000, "requests", &open_routes_limit);
}

static const char *set_answer_cache_size(cmd_parms *cmd, void *dconf,
                                         const char *arg)
{
    (void)dconf;
    return number_in(cmd, arg, 0, 1048576, "KiB", &answer_cache_kib);
}

static const char *set_metrics(cmd_parms *cmd, void *dconf, int flag)
{
    (void)cmd;
    ((uc_dir_config_t *)dconf)->metrics = flag;
    return NULL;
}

static const char *set_answer_cache(cmd_parms *cmd, void *dconf, int flag)
{
    (void)cmd;
    ((uc_dir_config_t *)dconf)->answer_cache = flag;
    return NULL;
}

static const command_rec unicat_directives[] = {
    AP_INIT_FLAG("UnicatMetrics", set_metrics, NULL, ACCESS_CONF,
                 "Whether the requests of this mount are counted in the "
                 "server's metrics (unicat-status); On by default"),
    AP_INIT_FLAG("UnicatAnswerCache", set_answer_cache, NULL, ACCESS_CONF,
                 "Whether the list answers of this mount are kept for their "
                 "next caller (UnicatAnswerCacheSize); On by default"),
    AP_INIT_TAKE1("UnicatAuditLog", uc_audit_log_set, NULL, RSRC_CONF,
                  "A file, or a |program, that takes a JSON line for every "
                  "change made through the APIs"),
    AP_INIT_FLAG("Unicat", set_enabled, NULL, ACCESS_CONF,
                 "On to serve the API of this <Location>'s SetHandler here"),
    AP_INIT_TAKE1("UnicatMaxBodySize", set_max_body, NULL, ACCESS_CONF,
                  "Largest accepted request body in bytes (default 1048576)"),
    AP_INIT_ITERATE("UnicatMetastoreAdmin", add_admin, NULL,
                    RSRC_CONF | ACCESS_CONF,
                    "Users or groups who administer the metastore"),
    AP_INIT_TAKE1("UnicatGroupsFromEnv", set_groups_env, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Request environment variable holding the caller's groups"),
    AP_INIT_TAKE1("UnicatGroupFile", set_group_file, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Group file in AuthGroupFile format"),
    AP_INIT_TAKE1("UnicatAnonymousPrincipal", set_anonymous, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Principal for requests without an authenticated user"),
    AP_INIT_TAKE1("UnicatManagedStorageRoot", set_storage_root, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Managed storage of the metastore (a URL or absolute path)"),
    AP_INIT_TAKE1("UnicatSharingEndpoint", set_sharing_endpoint, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Public base URL of the Delta Sharing endpoint that "
                  "recipients' profiles name"),
    AP_INIT_TAKE1("UnicatConsoleApi", set_console_path,
                  (void *)APR_OFFSETOF(uc_dir_config_t, console_api),
                  ACCESS_CONF,
                  "The URL path of the catalog API the web console calls "
                  "(unicat-console); /api/2.1/unity-catalog by default"),
    AP_INIT_TAKE1("UnicatConsoleMetrics", set_console_path,
                  (void *)APR_OFFSETOF(uc_dir_config_t, console_metrics),
                  ACCESS_CONF,
                  "The URL path of unicat-status, whose metrics the web "
                  "console charts; none by default"),
    AP_INIT_FLAG("UnicatProviderPrivateAddresses", ap_set_flag_slot,
                 (void *)APR_OFFSETOF(uc_dir_config_t,
                                      provider_private_addresses),
                 RSRC_CONF | ACCESS_CONF,
                 "Whether providers' sharing servers and token endpoints "
                 "may be at loopback, private, link-local or unspecified "
                 "addresses; Off by default"),
    AP_INIT_TAKE1("UnicatSharingUrlLifetime", set_dir_number, &url_lifetime,
                  RSRC_CONF | ACCESS_CONF,
                  "Seconds the data file URLs of Delta Sharing answers stay "
                  "valid (default 3600)"),
    AP_INIT_TAKE1("UnicatSharingAsyncWait", set_async_wait, &async_wait,
                  RSRC_CONF | ACCESS_CONF,
                  "Milliseconds a Delta Sharing query of a client that "
                  "allows asynchronous queries waits for its snapshot "
                  "before it answers pending, or Off (default 50)"),
    AP_INIT_TAKE1("UnicatSharingAsyncLifetime", set_dir_number,
                  &async_lifetime,
                  RSRC_CONF | ACCESS_CONF,
                  "Seconds an asynchronous Delta Sharing query can be "
                  "polled (default 3600)"),
    AP_INIT_TAKE1("UnicatDeltaMaxUnbackfilledCommits", set_dir_number,
                  &max_unbackfilled, RSRC_CONF | ACCESS_CONF,
                  "Commits of a catalog-managed Delta table that may wait "
                  "to be backfilled before the next is refused (default "
                  "10)"),
    AP_INIT_TAKE1("UnicatActivationRateLimit", set_open_routes_limit, NULL,
                  RSRC_CONF,
                  "Requests per minute a client address may make of the "
                  "activation links, in each child (default 20)"),
    AP_INIT_TAKE1("UnicatAnswerCacheSize", set_answer_cache_size, NULL,
                  RSRC_CONF,
                  "KiB of list answers each child keeps for their next "
                  "caller, while the catalog does not change (default "
                  "4096; 0 keeps none)"),
    AP_INIT_ITERATE("UnicatSecretKeyFile", add_secret_key_file, NULL,
                    RSRC_CONF,
                    "Files of the keys that seal stored secrets: the first "
                    "seals, all open"),
    AP_INIT_TAKE1("UnicatDeltaDecodeThreads", set_decode_threads, NULL,
                  RSRC_CONF,
                  "Threads that decode a large Delta checkpoint together "
                  "(default 2)"),
    AP_INIT_TAKE1("UnicatRequestThreads", set_request_threads, NULL,
                  RSRC_CONF,
                  "Most threads one request works with at once, its own "
                  "included (default 8)"),
    AP_INIT_TAKE1("UnicatSharingAnswerThreads", set_answer_threads, NULL,
                  RSRC_CONF,
                  "Threads that render a long Delta Sharing answer "
                  "together, the request's own included (default 2)"),
    AP_INIT_TAKE1("UnicatAwsIamArn", set_aws_iam_arn, NULL, RSRC_CONF,
                  "The server's own AWS identity, which credentials' roles "
                  "trust"),
    AP_INIT_TAKE1("UnicatAwsStsEndpoint", set_cloud_url,
                  CLOUD_MEMBER(aws_sts_endpoint), RSRC_CONF,
                  "AWS STS endpoint (default: the region's)"),
    AP_INIT_TAKE12("UnicatS3Endpoint", set_s3_endpoint,
                   CLOUD_MEMBER(s3_endpoint), RSRC_CONF,
                   "S3-compatible store the server reads s3:// tables from, "
                   "then path-style or virtual-host (default: AWS's, "
                   "virtual-host)"),
    AP_INIT_TAKE1("UnicatAzureAuthority", set_cloud_url,
                  CLOUD_MEMBER(azure_authority), RSRC_CONF,
                  "Azure AD authority (default "
                  "https://login.microsoftonline.com)"),
    AP_INIT_TAKE1("UnicatAzureBlobEndpoint", set_cloud_url,
                  CLOUD_MEMBER(azure_blob_endpoint), RSRC_CONF,
                  "Blob endpoint of a storage account, {account} for its "
                  "name"),
    AP_INIT_TAKE1("UnicatGcpTokenUri", set_cloud_url,
                  CLOUD_MEMBER(gcp_token_uri), RSRC_CONF,
                  "Google OAuth token endpoint"),
    AP_INIT_TAKE1("UnicatGcpStsUri", set_cloud_url,
                  CLOUD_MEMBER(gcp_sts_uri), RSRC_CONF,
                  "Google STS endpoint that downscopes tokens"),
    AP_INIT_TAKE1("UnicatGcsEndpoint", set_cloud_url,
                  CLOUD_MEMBER(gcs_endpoint), RSRC_CONF,
                  "Cloud Storage endpoint the server reads gs:// tables "
                  "from and signs their URLs for (default "
                  "https://storage.googleapis.com)"),
    AP_INIT_TAKE1("UnicatCloudflareApiBase", set_cloud_url,
                  CLOUD_MEMBER(cloudflare_api_base), RSRC_CONF,
                  "Cloudflare's API, where R2 temporary credentials are made"),
    AP_INIT_TAKE1("UnicatCloudCAFile", set_cloud_ca_file, NULL, RSRC_CONF,
                  "Certificate authorities for calls to the clouds "
                  "(default: the system's)"),
    AP_INIT_TAKE1("UnicatCloudTimeout", set_cloud_timeout, NULL, RSRC_CONF,
                  "Seconds a call to a cloud may take (default 10)"),
    AP_INIT_TAKE1("UnicatTemporaryCredentialLifetime",
                  set_credential_lifetime, NULL, RSRC_CONF,
                  "Seconds vended credentials live (default 3600)"),
    { NULL }
};

static apr_status_t wipe_secret_keys(void *data)
{
    uc_secret_keys_t *keys = data;

    uc_secret_wipe(keys->keys, sizeof(*keys->keys) * (apr_size_t)keys->n);
    keys->n = 0;
    keys->keys = NULL;
    return APR_SUCCESS;
}

static int pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    (void)ptemp;
    uc_hash_seed();
    if (!uc_store_sqlite_setup())
        ap_log_perror(APLOG_MARK, APLOG_NOTICE, 0, plog, "UC0119: SQLite "
                      "was initialised before the module: its connections "
                      "stay serialised (correct, but slower)");
    uc_delta_settings_default(&delta_settings);
    memset(&cloud_settings, 0, sizeof(cloud_settings));
    cloud_settings.timeout_ms = UC_DEFAULT_CLOUD_TIMEOUT_MS;
    cloud_settings.lifetime_s = UC_DEFAULT_CREDENTIAL_LIFETIME;
    open_routes_limit = UC_DEFAULT_OPEN_ROUTES_LIMIT;
    answer_cache_kib = UC_DEFAULT_ANSWER_CACHE_KIB;
    secret_keys.n = 0;
    secret_keys.keys = NULL;
    uc_glue_make_routers(pconf);
    apr_pool_cleanup_register(pconf, &secret_keys, wipe_secret_keys,
                              apr_pool_cleanup_null);
    return OK;
}

/* libcurl and the caches, once per child and before its threads: none
 * may be set up from a request. */
static void child_init(apr_pool_t *pchild, server_rec *s)
{
    uc_error_t *err = uc_delta_init(pchild, &delta_settings);

    if (!err)
        err = uc_delta_cache_create(pchild, UC_SNAPSHOT_CACHE_BYTES,
                                    &snapshots);
    if (!err)
        err = uc_cloud_init(pchild);
    if (!err)
        err = uc_vend_cache_create(pchild, UC_VEND_CACHE_ENTRIES,
                                   &cloud_settings.cache);
    if (!err && uc_ratelimit_create(pchild, open_routes_limit,
                                    apr_time_from_sec(60),
                                    UC_OPEN_ROUTES_ADDRESSES, &open_routes)
                != APR_SUCCESS)
        err = uc_error_make(pchild, UC_E_INTERNAL, "no mutex for the rate "
                            "limit of the activation links");
    answers = NULL;
    version_gates = NULL;
    if (!err && answer_cache_kib &&
        (uc_answer_cache_create(pchild, (apr_size_t)answer_cache_kib << 10,
                                &answers) != APR_SUCCESS ||
         make_version_gates(pchild, s) != APR_SUCCESS))
        err = uc_error_make(pchild, UC_E_INTERNAL, "no mutex for the "
                            "answer cache");
    if (!err)
        uc_glue_metrics_child_init(pchild);
    if (err)
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, "UC0105: the Delta "
                     "reader, the cloud clients, the rate limit of the "
                     "open routes or the answer cache cannot be set up: %s",
                     err->message);
    else
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s, "UC0106: Delta reader "
                     "set up: %d decode threads, %d answer threads, at "
                     "most %d threads a request",
                     delta_settings.decode_threads,
                     delta_settings.answer_threads,
                     delta_settings.request_threads);
}

static void optional_fn_retrieve(void)
{
    uc_glue_retrieve_dbd();
}

static void register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_pre_config(pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(uc_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(uc_files_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(uc_console_handler, NULL, NULL, APR_HOOK_MIDDLE);
    uc_bearer_register_hooks();
    uc_refusals_register_hooks();
    uc_log_redact_register_hooks();
    uc_audit_log_register_hooks();
    uc_status_register_hooks();
    uc_async_pool_register_hooks();
    ap_hook_optional_fn_retrieve(optional_fn_retrieve, NULL, NULL,
                                 APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(unicat) = {
    STANDARD20_MODULE_STUFF,
    create_dir_config,
    merge_dir_config,
    NULL,
    NULL,
    unicat_directives,
    register_hooks,
    AP_MODULE_FLAG_NONE
};
