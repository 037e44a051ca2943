/* SPDX-License-Identifier: Apache-2.0 */
/* httpd's own refusals of requests to the mounts, in the dialect of the
 * API the refused URL names. httpd refuses some requests before it has
 * applied the <Location>s (a malformed request line or header, TRACE),
 * when only the server's ErrorDocuments can render them: one location for
 * every API. Its error document therefore answers in the dialect of the
 * API the original URL names, found as httpd would have found it
 * (uc_glue_original, uc_glue_handler_of). A path httpd cannot decode it
 * refuses after it has set the <Location>s aside again: on a mount that
 * refusal is made here first, while the mount's own ErrorDocuments
 * apply. */
#include "uc_glue.h"

#include <http_core.h>
#include <http_request.h>
#include <ap_expr.h>
#include <apr_strings.h>

request_rec *uc_glue_original(request_rec *r)
{
    while (r->prev)
        r = r->prev;
    /* Refused before the <Location> walk: walked now, as httpd would have
     * (a request without a path has none to walk). */
    if (r->per_dir_config == r->server->lookup_defaults && r->uri &&
        r->uri[0] == '/')
        ap_location_walk(r);
    return r;
}

/* What core's fixups would set: SetHandler's expression evaluated, for a
 * request refused before they ran (a 401 or 403 of Require, say). */
const char *uc_glue_handler_of(request_rec *r)
{
    const core_dir_config *core;
    const char *err = NULL, *name;

    if (r->handler)
        return r->handler;
    core = ap_get_core_module_config(r->per_dir_config);
    if (!core->expr_handler)
        return core->handler;
    name = ap_expr_str_exec(r, core->expr_handler, &err);
    return err ? NULL : name;
}

/* A path with an encoded slash or NUL (404) or a broken escape (400):
 * refused with what httpd's own decoding answers, under the server's
 * AllowEncodedSlashes as httpd's is. */
static int refuse_undecodable_path(request_rec *r)
{
    const uc_dir_config_t *conf = ap_get_module_config(r->per_dir_config,
                                                       &unicat_module);
    const core_dir_config *server =
        ap_get_core_module_config(r->server->lookup_defaults);
    unsigned int flags = AP_UNESCAPE_URL_KEEP_UNRESERVED;
    int status;

    if (!conf || conf->enabled != 1 || !r->parsed_uri.path)
        return DECLINED;
    if (!server->allow_encoded_slashes)
        flags |= AP_UNESCAPE_URL_FORBID_SLASHES;
    else if (!server->decode_encoded_slashes)
        flags |= AP_UNESCAPE_URL_KEEP_SLASHES;
    status = ap_unescape_url_ex(apr_pstrdup(r->pool, r->parsed_uri.path),
                                flags);
    if (status == OK)
        return DECLINED;
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "UC0115: %s refused (%d): "
                  "its path holds an encoded slash or NUL, or a broken "
                  "escape", uc_glue_uri_for_log(r), status);
    return status;
}

void uc_refusals_register_hooks(void)
{
    ap_hook_pre_translate_name(refuse_undecodable_path, NULL, NULL,
                               APR_HOOK_MIDDLE);
}
