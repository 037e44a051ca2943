/* SPDX-License-Identifier: Apache-2.0 */
/* The signed files route of the Delta Sharing server (SetHandler
 * unicat-files): the files of file:// tables, volumes and agent skills,
 * for whoever holds a URL or a grant the sharing server signed
 * (src/sharing/uc_file_url.h). The signature is the authorization, so the
 * route needs no other (Require all granted); once it holds, the bytes go
 * out as httpd sends a static file: a file bucket with Last-Modified,
 * ETag and a length, so that its own filters answer HEAD, conditional
 * requests and Range (206) exactly as for any file. A grant's directory
 * answers its JSON listing (src/sharing/uc_file_list.h). */
#include "uc_glue.h"

#include <http_core.h>
#include <http_protocol.h>
#include <http_request.h>
#include <apr_strings.h>

#include "../src/core/uc_json.h"
#include "../src/core/uc_log.h"
#include "../src/core/uc_jw.h"
#include "../src/http/uc_render.h"
#include "../src/sharing/uc_file_list.h"
#include "../src/sharing/uc_file_url.h"

static int send_error(request_rec *r, const uc_error_t *err)
{
    uc_jw_t *body = uc_jw_make(r->pool, 256);

    /* The URL's signature stays out of the log: only the path is named. */
    ap_log_rerror(APLOG_MARK, err->status >= 500 ? APLOG_ERR : APLOG_INFO,
                  0, r, "UC0801: %s %s answered %d %s: %s", r->method,
                  uc_glue_uri_for_log(r), err->status, err->code,
                  err->cause ? err->cause : err->message);
    uc_jw_json(body, uc_render_sharing_error(r->pool, err));
    r->status = err->status;
    ap_set_content_type(r, "application/json");
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    ap_set_content_length(r, (apr_off_t)body->len);
    if (!r->header_only)
        ap_rwrite(body->buf, (int)body->len, r);
    return OK;
}

/* The request's path after the route's mount, as the client sent it:
 * httpd decodes r->uri and r->parsed_uri.path in place, and the key must
 * be decoded segment by segment (an encoded '/' is no separator). */
static const char *raw_path_after(request_rec *r, const char *base)
{
    const char *path = r->unparsed_uri, *scheme_end;
    apr_size_t n = strlen(base);

    /* An absolute-form request line: the path starts after the host. */
    if (path && *path != '/' && (scheme_end = strstr(path, "://")))
        path = strchr(scheme_end + 3, '/');
    if (!path || strncmp(path, base, n) != 0 || path[n] != '/')
        return NULL;
    return apr_pstrndup(r->pool, path + n, strcspn(path + n, "?#"));
}

/* Where what the URL names lies: its securable (by id, still of a kind
 * the URL may open) and the place inside that securable's root. */
static uc_error_t *locate(request_rec *r, const uc_file_target_t *target,
                          const char **path, const char **root)
{
    uc_log_t log;
    struct uc_store *store;
    uc_error_t *err;

    uc_glue_request_log(r, &log);
    if ((err = uc_glue_store(r, &log, &store)))
        return err;
    return uc_file_url_path(store, r->pool, target, path, root);
}

static uc_error_t *open_file(request_rec *r, const char *path,
                             apr_file_t **fd)
{
    apr_status_t rv;

    r->filename = apr_pstrdup(r->pool, path);
    rv = apr_stat(&r->finfo, r->filename, APR_FINFO_MIN, r->pool);
    if (rv == APR_SUCCESS)
        rv = apr_file_open(fd, r->filename, APR_READ | APR_BINARY |
                           APR_SENDFILE_ENABLED, 0, r->pool);
    if (rv != APR_SUCCESS)
        return uc_error_make(r->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                             "No such file.");
    return NULL;
}

static int send_listing(request_rec *r, const uc_file_target_t *target,
                        const char *dir, const char *root)
{
    uc_jw_t *body = uc_jw_make(r->pool, 8192);
    uc_error_t *err = uc_file_list(r->pool, uc_glue_secret_keys(), target,
                                   dir, root, r->args, r->request_time, body);

    if (err)
        return send_error(r, err);
    ap_set_content_type(r, "application/json");
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    ap_set_content_length(r, (apr_off_t)body->len);
    if (!r->header_only)
        ap_rwrite(body->buf, (int)body->len, r);
    return OK;
}

static int send_file(request_rec *r, apr_file_t *fd)
{
    apr_bucket_brigade *bb;
    int status;

    ap_set_content_type(r, "application/octet-stream");
    ap_update_mtime(r, r->finfo.mtime);
    ap_set_last_modified(r);
    ap_set_etag(r);
    apr_table_setn(r->headers_out, "Accept-Ranges", "bytes");
    ap_set_content_length(r, r->finfo.size);
    if ((status = ap_meets_conditions(r)) != OK) {
        apr_file_close(fd);
        return status;
    }
    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    apr_brigade_insert_file(bb, fd, 0, r->finfo.size, r->pool);
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(
                                    r->connection->bucket_alloc));
    return ap_pass_brigade(r->output_filters, bb) == APR_SUCCESS
           ? OK : AP_FILTER_ERROR;
}

int uc_files_handler(request_rec *r)
{
    const uc_dir_config_t *conf;
    const char *path, *local, *root;
    uc_file_target_t target;
    apr_file_t *fd;
    uc_error_t *err;

    if (!r->handler || strcmp(r->handler, UC_FILES_HANDLER) != 0)
        return DECLINED;
    conf = ap_get_module_config(r->per_dir_config, &unicat_module);
    if (!conf || conf->enabled != 1 || !conf->base)
        return send_error(r, uc_error_make(r->pool, UC_E_ENDPOINT_NOT_FOUND,
                                           "No files route is mounted here: "
                                           "it needs 'Unicat On'."));
    if (r->method_number != M_GET) {
        r->allowed = AP_METHOD_BIT << M_GET;
        apr_table_setn(r->err_headers_out, "Allow", "GET, HEAD");
        return send_error(r, uc_error_make(r->pool, UC_E_METHOD_NOT_ALLOWED,
                                           "The files route serves GET and "
                                           "HEAD only."));
    }
    if (ap_discard_request_body(r) != OK)
        return HTTP_BAD_REQUEST;
    if (!(path = raw_path_after(r, conf->base)))
        return send_error(r, uc_error_make(r->pool,
                                           UC_E_RESOURCE_DOES_NOT_EXIST,
                                           "No such file."));
    if ((err = uc_file_url_verify(r->pool, uc_glue_secret_keys(), path,
                                  r->args, r->request_time, &target)) ||
        (err = locate(r, &target, &local, &root)))
        return send_error(r, err);
    if (target.listing)
        return send_listing(r, &target, local, root);
    if ((err = open_file(r, local, &fd)))
        return send_error(r, err);
    return send_file(r, fd);
}
