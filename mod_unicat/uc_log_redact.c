/* SPDX-License-Identifier: Apache-2.0 */
/* What httpd's logs say of a request to a mount: its URL without the
 * secrets it can carry (src/http/uc_redact.h). Before mod_log_config
 * writes the request, every field its formats take the URL from (%r, %U,
 * %q, %f, of the original request and of the final one) is replaced by
 * its redacted copy, so that every access log keeps them out whatever its
 * LogFormat: Debian's combined as well as a custom one (as httpd itself
 * hides a URL's password in %r). The request is done by then: the
 * handler saw the URL as it was sent. */
#include "uc_glue.h"

#include <http_protocol.h>

#include "../src/http/uc_redact.h"

const char *uc_glue_uri_for_log(request_rec *r)
{
    return uc_redact_path(r->pool, r->uri);
}

/* Whether the URL the client asked for may hold one of the module's
 * secrets: it is on a mount, or httpd refused it before it had mapped it
 * to anything (it has no file name), when none can tell whose it was. */
static int may_hold_secrets(request_rec *orig)
{
    const uc_dir_config_t *conf = ap_get_module_config(orig->per_dir_config,
                                                       &unicat_module);

    return !orig->filename || (conf && conf->enabled == 1);
}

static void redact(request_rec *r)
{
    apr_pool_t *p = r->pool;

    r->the_request = (char *)uc_redact_request_line(p, r->the_request);
    r->unparsed_uri = (char *)uc_redact_target(p, r->unparsed_uri);
    r->uri = (char *)uc_redact_path(p, r->uri);
    r->filename = (char *)uc_redact_path(p, r->filename);
    r->args = (char *)uc_redact_query(p, r->args);
    /* What %r is rebuilt from when the URL names a password. */
    r->parsed_uri.path = (char *)uc_redact_path(p, r->parsed_uri.path);
    r->parsed_uri.query = (char *)uc_redact_query(p, r->parsed_uri.query);
}

static int redact_for_logs(request_rec *r)
{
    while (r->prev)
        r = r->prev;
    if (may_hold_secrets(r))
        for (; r; r = r->next)
            redact(r);
    return DECLINED;
}

void uc_log_redact_register_hooks(void)
{
    static const char *const loggers[] = { "mod_log_config.c", NULL };

    ap_hook_log_transaction(redact_for_logs, NULL, loggers,
                            APR_HOOK_REALLY_FIRST);
}
