/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog API handler: turns a request_rec into a uc_call_t, runs it
 * through the core and writes the JSON answer. */
#include "uc_glue.h"

#include <http_core.h>
#include <http_protocol.h>
#include <http_request.h>
#include <apr_dbd.h>
#include <mod_dbd.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <util_filter.h>
#include <malloc.h>
#include <sys/socket.h>
#ifdef __linux__
#include <sys/ioctl.h>
#include <linux/sockios.h>
#endif

#include "../src/authz/uc_access.h"
#include "../src/authz/uc_rules.h"
#include "../src/core/uc_json.h"
#include "../src/core/uc_ratelimit.h"
#include "../src/http/uc_out.h"
#include "../src/http/uc_query.h"
#include "../src/http/uc_render.h"
#include "../src/http/uc_router.h"
#include "../src/http/uc_run.h"
#include "../src/mounts/uc_mounts.h"
#include "../src/store/uc_store.h"

static APR_OPTIONAL_FN_TYPE(ap_dbd_acquire) *dbd_acquire;

void uc_glue_retrieve_dbd(void)
{
    dbd_acquire = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire);
}

/* One write with a Content-Length: the body is complete before anything is
 * sent, so keep-alive works for every client. The buffer lives in the
 * request pool, which outlasts the writing of the response, so it goes
 * down the filters as a pool bucket, without a copy (pages run to
 * megabytes). */
static void set_headers(request_rec *r, int status, const char *type)
{
    r->status = status;
    ap_set_content_type(r, type);
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "X-Content-Type-Options", "nosniff");
}

#define JSON_TYPE "application/json"
#define NDJSON_TYPE "application/x-ndjson; charset=utf-8"

static int send_typed_body(request_rec *r, int status, const char *type,
                           const uc_jw_t *body)
{
    apr_bucket_brigade *bb;

    set_headers(r, status, type);
    ap_set_content_length(r, (apr_off_t)body->len);
    if (r->header_only || !body->len)
        return OK;
    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_pool_create(
        body->buf, body->len, r->pool, r->connection->bucket_alloc));
    /* A failure here is the client going away: nothing left to answer. */
    ap_pass_brigade(r->output_filters, bb);
    return OK;
}

static int send_body(request_rec *r, int status, const uc_jw_t *body)
{
    return send_typed_body(r, status, JSON_TYPE, body);
}

/* A streamed answer: each block of NDJSON lines goes down the output
 * filters with a flush, so the client reads while the operation writes
 * (chunked, without a Content-Length). */
typedef struct stream {
    request_rec *r;
    apr_bucket_brigade *bb;
} stream_t;

static apr_status_t stream_send(void *baton, const char *data,
                                apr_size_t len)
{
    stream_t *s = baton;
    request_rec *r = s->r;
    apr_bucket_alloc_t *ba = r->connection->bucket_alloc;
    apr_status_t rv;

    if (!s->bb) {
        set_headers(r, HTTP_OK, NDJSON_TYPE);
        s->bb = apr_brigade_create(r->pool, ba);
    }
    /* Transient: the writer reuses its buffer; a filter that keeps the
     * data sets it aside (copies it) itself. */
    APR_BRIGADE_INSERT_TAIL(s->bb, apr_bucket_transient_create(data, len,
                                                               ba));
    APR_BRIGADE_INSERT_TAIL(s->bb, apr_bucket_flush_create(ba));
    rv = ap_pass_brigade(r->output_filters, s->bb);
    apr_brigade_cleanup(s->bb);
    if (rv == APR_SUCCESS && r->connection->aborted)
        rv = APR_ECONNABORTED;
    return rv;
}

/* The status line is gone: what httpd does for a backend that broke
 * mid-response (mod_proxy_http). A 502 error bucket makes the chunk filter
 * leave out the last chunk, and the connection closes, so the client sees
 * a broken response, never a short complete one. */
static void stream_abort(void *baton, const uc_error_t *err)
{
    stream_t *s = baton;
    request_rec *r = s->r;
    apr_bucket_alloc_t *ba = r->connection->bucket_alloc;

    ap_log_rerror(APLOG_MARK, err->status >= 500 ? APLOG_ERR : APLOG_INFO,
                  0, r, "UC0107: %s %s stopped after %" APR_OFF_T_FMT
                  " bytes of its answer: %s", r->method,
                  uc_glue_uri_for_log(r), r->bytes_sent, err->message);
    r->connection->keepalive = AP_CONN_CLOSE;
    if (r->connection->aborted)
        return;
    APR_BRIGADE_INSERT_TAIL(s->bb, ap_bucket_error_create(HTTP_BAD_GATEWAY,
                                                          NULL, r->pool,
                                                          ba));
    APR_BRIGADE_INSERT_TAIL(s->bb, apr_bucket_eos_create(ba));
    ap_pass_brigade(r->output_filters, s->bb);
}

/* Whether the connection takes a block now without the write waiting for
 * the client to read (in the core output filter): its socket's send
 * buffer a quarter full at most (Linux: the bytes not yet acknowledged,
 * against the buffer's size). Elsewhere, or when the socket does not say:
 * always. */
static int stream_ready(void *baton)
{
#ifdef SIOCOUTQ
    stream_t *s = baton;
    apr_socket_t *sock = ap_get_conn_socket(s->r->connection);
    apr_os_sock_t fd;
    int queued, size;
    socklen_t n = sizeof(size);

    if (sock && apr_os_sock_get(&fd, sock) == APR_SUCCESS &&
        ioctl(fd, SIOCOUTQ, &queued) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &n) == 0)
        return queued <= size / 4;
#endif
    (void)baton;
    return 1;
}

static const uc_out_sink_t stream_sink = { stream_send, stream_abort,
                                           stream_ready };

static uc_out_t *out_for(request_rec *r, const uc_route_t *route)
{
    stream_t *s;

    if (!route || !(route->flags & UC_ROUTE_STREAM))
        return uc_out_buffered(r->pool, 8192);
    s = apr_pcalloc(r->pool, sizeof(*s));
    s->r = r;
    return uc_out_streaming(r->pool, &stream_sink, s, UC_OUT_FLUSH_AT);
}

static int send_json(request_rec *r, int status, const json_t *value)
{
    uc_jw_t *body = uc_jw_make(r->pool, 512);

    uc_jw_json(body, value);
    return send_body(r, status, body);
}

/* `path`: the call's, relative to the mount (NULL when not known), which
 * says the dialect of the answer. */
static int send_error(request_rec *r, const uc_mount_t *api,
                      const char *path, const uc_error_t *err)
{
    const uc_error_dialect_t *dialect = uc_mount_errors(api, path);

    if (api->recipients && err->status == 401)
        apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                       apr_psprintf(r->pool, "Bearer realm=\"%s\"",
                                    ap_auth_name(r) ? ap_auth_name(r)
                                                    : "Delta Sharing"));
    if (err->retry_after)
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_itoa(r->pool, err->retry_after));
    /* The cause stays in the log; the client gets the message. */
    if (err->status >= 500 || err->cause)
        ap_log_rerror(APLOG_MARK, err->status >= 500 ? APLOG_ERR : APLOG_INFO,
                      0, r, "UC0101: %s %s answered %d %s: %s", r->method,
                      uc_glue_uri_for_log(r), err->status, err->code,
                      err->cause ? err->cause : err->message);
    return send_json(r, uc_render_status(dialect, err),
                     dialect->render(r->pool, err));
}

/* The core's diagnostics, in the request's error log entries. */
static void log_to_request(void *baton, uc_log_level_t level,
                           apr_status_t cause, const char *message)
{
    static const int ap_levels[] = {
        [UC_LOG_ERROR] = APLOG_ERR, [UC_LOG_WARNING] = APLOG_WARNING,
        [UC_LOG_INFO] = APLOG_INFO, [UC_LOG_DEBUG] = APLOG_DEBUG
    };

    ap_log_rerror(APLOG_MARK, ap_levels[level], cause, (request_rec *)baton,
                  "%s", message);
}

void uc_glue_request_log(request_rec *r, uc_log_t *log)
{
    log->write = log_to_request;
    log->baton = r;
}

static int method_of(request_rec *r, uc_method_t *out)
{
    switch (r->method_number) {
    case M_GET: *out = UC_GET; return 1;
    case M_POST: *out = UC_POST; return 1;
    case M_PUT: *out = UC_PUT; return 1;
    case M_PATCH: *out = UC_PATCH; return 1;
    case M_DELETE: *out = UC_DELETE; return 1;
    default: return 0;
    }
}

static int is_json_content_type(const char *ct)
{
    static const char json[] = "application/json";
    size_t n = sizeof(json) - 1;

    return ct && strncasecmp(ct, json, n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* A body left unread cannot be told from the next request: the connection
 * closes after the answer, and httpd does not try to read the rest. */
static uc_error_t *unread_body(request_rec *r, int status)
{
    r->connection->keepalive = AP_CONN_CLOSE;
    return uc_render_httpd_error(r->pool, status);
}

/* httpd's input filters answered the request themselves (a body over
 * LimitRequestBody, broken chunking): nothing more may be sent. */
static uc_error_t answered_by_httpd = { .message = "" };

/* The answer to a body that could not be read, from the status httpd maps
 * the failure to: a client that stopped sending (mod_reqtimeout, Timeout)
 * is told 408, not that its request was malformed. */
static uc_error_t *body_unreadable(request_rec *r, int status)
{
    switch (status) {
    case AP_FILTER_ERROR:
        return &answered_by_httpd;
    case HTTP_REQUEST_ENTITY_TOO_LARGE:
    case HTTP_REQUEST_TIME_OUT:
        return unread_body(r, status);
    default:
        return unread_body(r, HTTP_BAD_REQUEST);
    }
}

/* A body this large is parsed into megabytes from malloc, in the arena of
 * the thread that serves it. Under a threaded MPM each thread's arena
 * keeps what it freed, so a few such bodies spread over a child's threads
 * would hold that much again per thread for the child's life; the memory
 * goes back to the system when the request ends instead. Such bodies are
 * rare (a catalog's are a few kB), so the trim's cost is too. */
#define LARGE_BODY (64 * 1024)

/* One trim at a time per process: a trim locks each arena in turn while it
 * walks it, so trims of answers that end together would wait on each
 * other and hold up the threads that allocate there. What the one under
 * way misses, the next large request's gives back. */
static int trimming;

static apr_status_t trim_heap(void *unused)
{
    (void)unused;
    if (!__atomic_exchange_n(&trimming, 1, __ATOMIC_ACQUIRE)) {
        malloc_trim(0);
        __atomic_store_n(&trimming, 0, __ATOMIC_RELEASE);
    }
    return APR_SUCCESS;
}

/* A streamed answer this long (about 15,000 lines of files) made its
 * lines with the C library's memory too: JSON values of the files' stats
 * (limitHint), partition values and predicates judged a file at a time,
 * made and freed by the thousand in the arenas of the threads that wrote
 * them, which keep the freed pages. The trim, a walk over the arenas, is
 * little beside the tens of milliseconds such an answer takes. */
#define LARGE_ANSWER (8 << 20)

/* Registered before the call runs, so it runs after what the call made in
 * the request's pool is freed. */
static apr_status_t trim_after_long_answer(void *out)
{
    return ((const uc_out_t *)out)->sent >= LARGE_ANSWER ? trim_heap(NULL)
                                                          : APR_SUCCESS;
}

/* Reads the whole body, refusing more than `limit` bytes whether it comes
 * with a Content-Length or chunked. */
static uc_error_t *read_body(request_rec *r, apr_off_t limit, char **data,
                             apr_size_t *len)
{
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    apr_bucket_brigade *bb = apr_brigade_create(r->pool,
                                                r->connection->bucket_alloc);
    apr_bucket_brigade *all = apr_brigade_create(r->pool,
                                                 r->connection->bucket_alloc);
    apr_off_t total = 0;
    int seen_eos = 0;

    if (cl && apr_atoi64(cl) > limit)
        return unread_body(r, 413);
    while (!seen_eos) {
        apr_status_t rv = ap_get_brigade(r->input_filters, bb,
                                         AP_MODE_READBYTES, APR_BLOCK_READ,
                                         HUGE_STRING_LEN);
        apr_bucket *b;

        if (rv != APR_SUCCESS)
            return body_unreadable(r, ap_map_http_request_error(
                                          rv, HTTP_BAD_REQUEST));
        for (b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb);
             b = APR_BUCKET_NEXT(b))
            if (APR_BUCKET_IS_EOS(b))
                seen_eos = 1;
        {
            apr_off_t n = 0;
            apr_brigade_length(bb, 1, &n);
            total += n;
        }
        if (total > limit)
            return unread_body(r, 413);
        APR_BRIGADE_CONCAT(all, bb);
    }
    if (apr_brigade_pflatten(all, data, len, r->pool) != APR_SUCCESS)
        return uc_render_httpd_error(r->pool, 400);
    /* Registered before the body's JSON is, so it runs after that is
     * freed. */
    if (*len >= LARGE_BODY)
        apr_pool_cleanup_register(r->pool, NULL, trim_heap,
                                  apr_pool_cleanup_null);
    return NULL;
}

/* The routes of each mount, indexed at every (re)start. */
static const uc_router_t *routers[UC_MOUNT_COUNT];

void uc_glue_make_routers(apr_pool_t *pconf)
{
    int a;

    for (a = 0; a < UC_MOUNT_COUNT; a++)
        routers[a] = uc_router_make(pconf, uc_mounts[a].routes);
}

/* The API a handler serves; NULL for none of the module's. */
static const uc_mount_t *api_named(const char *handler)
{
    int a;

    for (a = 0; handler && a < UC_MOUNT_COUNT; a++)
        if (strcmp(handler, uc_mounts[a].handler) == 0)
            return &uc_mounts[a];
    return NULL;
}

/* The path of a request below the mount of its location, NULL outside
 * one. */
static const char *mount_path(request_rec *r)
{
    const uc_dir_config_t *conf = ap_get_module_config(r->per_dir_config,
                                                       &unicat_module);
    size_t n = conf && conf->base ? strlen(conf->base) : 0;

    if (!n || !r->uri || strncmp(r->uri, conf->base, n) != 0 ||
        (r->uri[n] && r->uri[n] != '/'))
        return NULL;
    return r->uri + n;
}

/* The request was redirected here by ErrorDocument: answer the original
 * error in JSON, in the dialect of the API its URL names (the files
 * route's is the sharing server's), else in this location's. */
static int error_document(request_rec *r, const uc_mount_t *api)
{
    const char *status = apr_table_get(r->subprocess_env, "REDIRECT_STATUS");
    int code = status ? atoi(status) : r->prev->status;
    const char *handler = uc_glue_handler_of(uc_glue_original(r));
    const uc_mount_t *of_url = handler &&
                               strcmp(handler, UC_FILES_HANDLER) == 0
                               ? &uc_mounts[UC_MOUNT_SHARING]
                               : api_named(handler);

    if (of_url)
        api = of_url;
    return send_json(r, r->status,
                     uc_mount_errors(api, mount_path(uc_glue_original(r)))
                     ->render(r->pool, uc_render_httpd_error(r->pool, code)));
}

/* Another principal's groups, as far as the group file knows them. */
static apr_array_header_t *groups_in_file(void *baton, const char *name)
{
    return apr_hash_get(baton, name, APR_HASH_KEY_STRING);
}

/* The caller: httpd's user (or the configured anonymous principal), its
 * groups from the request environment and the group file, and whether it
 * administers the metastore. */
static uc_error_t *identify(request_rec *r, const uc_dir_config_t *conf,
                            uc_call_t *call)
{
    const char *name = r->user ? r->user : conf->anonymous;
    apr_array_header_t *groups = apr_array_make(r->pool, 4,
                                                sizeof(const char *));

    if (!name || !*name)
        return uc_render_httpd_error(r->pool, 401);
    if (uc_principal_normalize(r->pool, "user", name, &name))
        return uc_error_make(r->pool, UC_E_UNAUTHENTICATED,
                             "The authenticated user name cannot name a "
                             "principal: it is blank, too long, not UTF-8 "
                             "or holds control or invisible format "
                             "characters.");
    if (conf->groups_env)
        uc_groups_from_claim(r->pool, apr_table_get(r->subprocess_env,
                                                    conf->groups_env),
                             groups);
    if (conf->group_file) {
        apr_array_header_t *listed = apr_hash_get(conf->group_file, name,
                                                  APR_HASH_KEY_STRING);
        int i;
        for (i = 0; listed && i < listed->nelts; i++)
            APR_ARRAY_PUSH(groups, const char *) =
                APR_ARRAY_IDX(listed, i, const char *);
    }
    call->principal = name;
    call->who = uc_principal_make(r->pool, name, groups, conf->admins);
    call->admins = conf->admins;
    if (conf->group_file) {
        call->groups_of = groups_in_file;
        call->groups_baton = conf->group_file;
    }
    return NULL;
}

/* The caller of the sharing API: a recipient, whom UnicatBearer
 * authentication found, or a catalog principal that another httpd
 * authentication named (the API's share management is theirs). A mount
 * with neither has no caller it could name. */
static uc_error_t *identify_sharing_caller(request_rec *r,
                                           const uc_dir_config_t *conf,
                                           uc_call_t *call)
{
    const uc_glue_recipient_t *rec = uc_glue_recipient(r);

    if (!rec && r->user)
        return identify(r, conf, call);
    if (!rec) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "UC0108: %s is served "
                      "without a caller: its <Location> needs AuthType "
                      "UnicatBearer (recipients) or another authentication "
                      "(share management), and Require valid-user",
                      uc_glue_uri_for_log(r));
        return uc_error_make(r->pool, UC_E_UNAUTHENTICATED, "A recipient's "
                             "bearer token is required.");
    }
    call->recipient_id = rec->id;
    call->recipient_name = rec->name;
    call->principal = rec->name;
    return NULL;
}

/* A route open to anyone (an activation link): it needs no caller. */
static int is_open(const uc_route_t *route)
{
    return route->rule && route->rule->target == UC_TARGET_PUBLIC;
}

/* Open routes are limited per client address, so that their links cannot
 * be guessed at speed. */
static uc_error_t *within_limit(request_rec *r)
{
    uc_ratelimit_t *rl = uc_glue_open_routes_limit();
    uc_error_t *err;
    int wait;

    if (!rl)
        return uc_error_unavailable(r->pool);
    wait = uc_ratelimit_hit(rl, r->useragent_ip, r->request_time);
    if (!wait)
        return NULL;
    err = uc_error_make(r->pool, UC_E_TOO_MANY_REQUESTS, "Too many "
                        "requests from this address: try again in %d "
                        "seconds.", wait);
    err->retry_after = wait;
    return err;
}

static apr_off_t body_limit(const uc_dir_config_t *conf)
{
    return conf->max_body == UC_UNSET ? UC_DEFAULT_MAX_BODY : conf->max_body;
}

/* An application/x-www-form-urlencoded body into call->form. */
static uc_error_t *read_form(request_rec *r, const uc_dir_config_t *conf,
                             uc_call_t *call)
{
    static const char form[] = "application/x-www-form-urlencoded";
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    char *data = NULL;
    apr_size_t len = 0;
    uc_error_t *err;

    if (!ct || strncasecmp(ct, form, sizeof(form) - 1) != 0 ||
        (ct[sizeof(form) - 1] && ct[sizeof(form) - 1] != ';'))
        return uc_error_make(r->pool, UC_E_UNSUPPORTED_MEDIA_TYPE,
                             "The request body must be %s.", form);
    if ((err = read_body(r, body_limit(conf), &data, &len)))
        return err;
    if (len && memchr(data, '\0', len))
        return uc_error_invalid(r->pool, "The form holds a NUL byte.");
    return uc_query_parse(r->pool, apr_pstrmemdup(r->pool, data ? data : "",
                                                  len), &call->form);
}

/* The JSON object of a route's body (UC_ROUTE_BODY and its modifiers)
 * into call->body, or call->tree (UC_ROUTE_BODY_TREE). httpd reads a body
 * whatever the method, a GET's too. */
static uc_error_t *read_json_body(request_rec *r, const uc_dir_config_t *conf,
                                  const uc_route_t *route, uc_call_t *call)
{
    unsigned flags = route->flags;
    char *data = NULL;
    apr_size_t len = 0;
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    int optional = flags & UC_ROUTE_BODY_OPTIONAL;
    int or_query = flags & UC_ROUTE_BODY_OR_QUERY;
    uc_error_t *err;

    if (!is_json_content_type(ct) && !((optional || or_query) && !ct))
        return uc_render_httpd_error(r->pool, 415);
    if ((err = read_body(r, body_limit(conf), &data, &len)))
        return err;
    if (or_query && !len)
        return uc_query_object(r->pool, call->query, &call->body);
    if (or_query && !ct)
        return uc_render_httpd_error(r->pool, 415);
    if (optional && !len)
        call->body = uc_json_own(r->pool, json_object());
    else if ((err = uc_call_read_body(route, call, data, len))) {
        /* Delta Sharing's word for a body that is not a JSON object. */
        if (optional)
            uc_error_recast(err, UC_E_MALFORMED_REQUEST);
        return err;
    }
    return NULL;
}

/* The URL of the request's mount, as the client named the server. */
static const char *api_url_of(void *baton)
{
    request_rec *r = baton;
    const uc_dir_config_t *conf = ap_get_module_config(r->per_dir_config,
                                                       &unicat_module);

    return ap_construct_url(r->pool, conf->base, r);
}

static uc_error_t *prepare_call(request_rec *r, const uc_mount_t *api,
                                const uc_dir_config_t *conf,
                                uc_call_t *call, uc_route_match_t *match)
{
    uc_method_t method;
    const char *rel;
    int status;
    uc_error_t *err, *unidentified;

    call->pool = r->pool;
    call->now = r->request_time;
    uc_glue_request_log(r, &call->log);
    call->storage_root = conf->storage_root;
    call->secrets = uc_glue_secret_keys();
    call->cloud = uc_glue_cloud();
    call->api_url_of = api_url_of;
    call->api_url_baton = r;
    call->sharing_endpoint = conf->sharing_endpoint;
    call->provider_private_addresses = conf->provider_private_addresses == 1;
    call->client_ip = r->useragent_ip;
    call->headers_in = r->headers_in;
    call->head_only = r->header_only;
    call->headers_out = r->headers_out;
    call->snapshots = uc_glue_snapshots();
    /* Kept answers are the server's: mod_dbd gives each server its own
     * database. What a section sets that such an answer depends on (the
     * caller's name, groups, being an admin) is in the key already. */
    call->answers = conf->answer_cache != 0 ? uc_glue_answers() : NULL;
    call->answers_scope = r->server;
    call->version_gate = call->answers ? uc_glue_version_gate(r->server)
                                       : NULL;
    call->max_unbackfilled_commits = conf->max_unbackfilled == UC_UNSET
                                     ? 0 : conf->max_unbackfilled;
    call->url_lifetime = conf->url_lifetime == UC_UNSET
                         ? UC_DEFAULT_URL_LIFETIME : conf->url_lifetime;
    call->async = api->recipients ? uc_glue_async_env(r, conf) : NULL;
    if (!method_of(r, &method))
        method = UC_METHOD_COUNT;
    call->method = method;
    if (!(rel = mount_path(r)))
        return uc_error_make(r->pool, UC_E_ENDPOINT_NOT_FOUND,
                             "No such endpoint: %s", r->uri);
    call->path = *rel ? rel : "/";
    /* Refused after the route is known: an open one needs no caller. */
    unidentified = api->recipients ? identify_sharing_caller(r, conf, call)
                                   : identify(r, conf, call);

    uc_router_match(r->pool, routers[api - uc_mounts], method, call->path,
                    match);
    if (unidentified && !(match->route && is_open(match->route)))
        return unidentified;
    if (!match->route) {
        if (!match->allowed)
            return uc_error_make(r->pool, UC_E_ENDPOINT_NOT_FOUND,
                                 "No such endpoint: %s %s", r->method,
                                 call->path);
        apr_table_setn(r->err_headers_out, "Allow",
                       uc_router_allow_header(r->pool, match->allowed));
        return uc_error_make(r->pool, UC_E_METHOD_NOT_ALLOWED,
                             "Method %s is not allowed on %s.", r->method,
                             call->path);
    }
    call->params = match->params;
    if (is_open(match->route) && (err = within_limit(r)))
        return err;
    if ((err = uc_query_parse(r->pool, r->args, &call->query)))
        return err;

    if (is_open(match->route))
        call->authorization = apr_table_get(r->headers_in, "Authorization");
    if (match->route->flags & UC_ROUTE_FORM)
        return read_form(r, conf, call);
    if (match->route->flags & UC_ROUTE_BODY)
        return read_json_body(r, conf, match->route, call);
    status = ap_discard_request_body(r);
    return status == OK ? NULL : body_unreadable(r, status);
}

uc_error_t *uc_glue_store(request_rec *r, const uc_log_t *log,
                          uc_store_t **out)
{
    ap_dbd_t *dbd;

    if (!dbd_acquire) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "UC0102: mod_dbd is not "
                      "loaded; enable it (a2enmod dbd) and set DBDriver");
        return uc_error_internal(r->pool);
    }
    dbd = dbd_acquire(r);
    if (!dbd) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "UC0103: no database "
                      "connection (check DBDriver and DBDParams)");
        return uc_error_unavailable(r->pool);
    }
    return uc_store_attach(r->pool, dbd->driver, dbd->handle, dbd->pool,
                           dbd->prepared, NULL, log, out);
}

static uc_error_t *attach_store(request_rec *r, uc_call_t *call)
{
    return uc_glue_store(r, &call->log, &call->store);
}

/* A call of a mounted API, from the request to the answer. */
static int serve(request_rec *r, const uc_mount_t *api,
                 const uc_dir_config_t *conf, uc_call_t *call,
                 uc_route_match_t *match)
{
    uc_error_t *err;

    if ((err = prepare_call(r, api, conf, call, match)) ||
        (err = attach_store(r, call))) {
        uc_glue_audit(r, api->name, call, match->route,
                      err == &answered_by_httpd ? NULL : err);
        return err == &answered_by_httpd ? AP_FILTER_ERROR
                                         : send_error(r, api, call->path,
                                                      err);
    }
    call->out = out_for(r, match->route);
    if (call->out->sink)
        apr_pool_cleanup_register(r->pool, call->out, trim_after_long_answer,
                                  apr_pool_cleanup_null);
    err = uc_out_finish(call->out, uc_call_run(match->route, call,
                                                call->out->jw));
    uc_glue_audit(r, api->name, call, match->route, err);
    if (err)
        return send_error(r, api, call->path, err);
    if (uc_out_committed(call->out))
        return OK;
    if (call->status == HTTP_NO_CONTENT) {
        r->status = HTTP_NO_CONTENT;
        return OK;
    }
    return send_typed_body(r, HTTP_OK, call->out->sink ? NDJSON_TYPE
                                                      : JSON_TYPE,
                           call->out->jw);
}

int uc_handler(request_rec *r)
{
    const uc_dir_config_t *conf;
    const uc_mount_t *api = api_named(r->handler);
    int a, status;
    uc_route_match_t match = { 0 };
    uc_call_t call = { 0 };

    if (!api)
        return DECLINED;
    a = (int)(api - uc_mounts);
    if (r->prev && apr_table_get(r->subprocess_env, "REDIRECT_STATUS"))
        return error_document(r, api);
    conf = ap_get_module_config(r->per_dir_config, &unicat_module);
    if (conf && conf->enabled == 0)
        return DECLINED;
    if (!conf || conf->enabled != 1 || !conf->base) {
        /* Also the error location requested directly, not by ErrorDocument. */
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "UC0104: no API is "
                      "mounted here: a <Location> with SetHandler %s serves "
                      "one only with 'Unicat On'", api->handler);
        return send_error(r, api, NULL, uc_render_httpd_error(r->pool,
                                                              404));
    }
    if (conf->metrics != 0)
        call.metrics = uc_glue_metrics();
    status = serve(r, api, conf, &call, &match);
    /* httpd answers what the handler leaves to it (AP_FILTER_ERROR: a
     * body it refused), always a client error. */
    if (call.metrics)
        uc_glue_metrics_count(r, a, match.route,
                              status == OK ? r->status
                              : ap_is_HTTP_VALID_RESPONSE(status) ? status
                              : HTTP_BAD_REQUEST,
                              call.store, call.out && call.out->sink,
                              api->recipients);
    return status;
}
