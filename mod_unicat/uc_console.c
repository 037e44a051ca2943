/* SPDX-License-Identifier: Apache-2.0 */
/* SetHandler unicat-console: the web console's files, embedded in the
 * module (src/console/), under the <Location> that says `Unicat On`.
 * The console calls the catalog API as the browser's user, so the
 * location's authentication is the API's: these files hold no data. */
#include "uc_glue.h"

#include <http_protocol.h>
#include <http_request.h>
#include <apr_strings.h>

#include "../src/console/uc_console.h"

static void add_headers(request_rec *r)
{
    const uc_console_header_t *h;

    for (h = uc_console_headers; h->name; h++)
        apr_table_setn(r->err_headers_out, h->name, h->value);
}

static int send_bytes(request_rec *r, const char *type, const void *bytes,
                apr_size_t len)
{
    ap_set_content_type(r, type);
    ap_set_content_length(r, (apr_off_t)len);
    if (!r->header_only)
        ap_rwrite(bytes, (int)len, r);
    return OK;
}

/* Revalidated on every use (a 304 is cheap), so a new module's console
 * is never mixed with the files of the old one. */
static int send_file(request_rec *r, const uc_console_file_t *file)
{
    int status;

    apr_table_setn(r->headers_out, "ETag", file->etag);
    apr_table_setn(r->headers_out, "Cache-Control", "no-cache");
    status = ap_meets_conditions(r);
    if (status != OK)
        return status;
    return send_bytes(r, uc_console_type(file->name), file->bytes, file->len);
}

static int send_config(request_rec *r, const uc_dir_config_t *conf)
{
    uc_console_paths_t paths = {
        conf->console_api ? conf->console_api : UC_CONSOLE_API,
        conf->console_metrics
    };
    const char *json = uc_console_config(r->pool, &paths, r->user);

    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    return send_bytes(r, "application/json", json, strlen(json));
}

int uc_console_handler(request_rec *r)
{
    const uc_dir_config_t *conf;
    const uc_console_file_t *file;
    const char *rel;

    if (!r->handler || strcmp(r->handler, UC_CONSOLE_HANDLER) != 0)
        return DECLINED;
    conf = ap_get_module_config(r->per_dir_config, &unicat_module);
    if (!conf || conf->enabled != 1 || !conf->base) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "UC0117: no console is "
                      "mounted here: a <Location> with SetHandler %s "
                      "serves one only with 'Unicat On'", r->handler);
        return HTTP_NOT_FOUND;
    }
    add_headers(r);
    r->allowed |= (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;
    rel = r->uri + strlen(conf->base);
    if (strncmp(r->uri, conf->base, strlen(conf->base)) != 0)
        return HTTP_NOT_FOUND;
    /* Its files name each other relative to the mount's folder. */
    if (*rel == '\0' && strcmp(conf->base, "/") != 0) {
        apr_table_setn(r->headers_out, "Location",
                       apr_pstrcat(r->pool, r->uri, "/", NULL));
        return HTTP_MOVED_PERMANENTLY;
    }
    if (*rel == '/')
        rel++;
    else if (strcmp(conf->base, "/") != 0)
        return HTTP_NOT_FOUND;
    if (strcmp(rel, "config.json") == 0)
        return send_config(r, conf);
    file = uc_console_find(rel);
    return file ? send_file(r, file) : HTTP_NOT_FOUND;
}
