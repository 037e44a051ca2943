/* SPDX-License-Identifier: Apache-2.0 */
/* AuthType UnicatBearer: httpd authentication of Delta Sharing recipients
 * by the bearer tokens the catalog issued them. The recipient's name
 * becomes r->user, so that Require and the access log see it; its id
 * waits for the handler in the request's config. A token is never
 * logged. */
#include "uc_glue.h"

#include <http_core.h>
#include <http_protocol.h>
#include <http_request.h>
#include <mod_auth.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../src/core/uc_log.h"
#include "../src/sharing/uc_sharing_auth.h"

#define AUTH_TYPE "UnicatBearer"
/* Issued tokens are 43 characters; anything much longer is not one. */
#define TOKEN_MAX 512

const uc_glue_recipient_t *uc_glue_recipient(request_rec *r)
{
    return ap_get_module_config(r->request_config, &unicat_module);
}

/* The token of "Bearer <token>" (the scheme in any case), or NULL when
 * the header holds none that could be one (RFC 6750's b64token). */
static const char *token_of(const char *header)
{
    const char *p;

    if (!header || strncasecmp(header, "Bearer ", 7) != 0)
        return NULL;
    header += 7;
    while (*header == ' ')
        header++;
    for (p = header; *p && p - header <= TOKEN_MAX; p++)
        if (!apr_isalnum(*p) && !strchr("-._~+/=", *p))
            return NULL;
    return *header && !*p ? header : NULL;
}

static int unauthorized(request_rec *r, const char *why)
{
    const char *realm = ap_auth_name(r);

    apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                   apr_psprintf(r->pool, "Bearer realm=\"%s\"",
                                realm ? realm : "Delta Sharing"));
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "UC0109: Delta Sharing "
                  "request to %s refused: %s", uc_glue_uri_for_log(r),
                  why);
    return HTTP_UNAUTHORIZED;
}

static int failed(request_rec *r, const uc_error_t *err)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "UC0110: the recipient of "
                  "a bearer token cannot be looked up: %s",
                  err->cause ? err->cause : err->message);
    return err->status == 503 ? HTTP_SERVICE_UNAVAILABLE
                              : HTTP_INTERNAL_SERVER_ERROR;
}

static int bearer_authn(request_rec *r)
{
    const char *type = ap_auth_type(r);
    const char *token;
    uc_glue_recipient_t *rec;
    const uc_securable_t *recipient;
    uc_store_t *store;
    uc_log_t log;
    int admitted;
    uc_error_t *err;

    if (!type || strcasecmp(type, AUTH_TYPE) != 0)
        return DECLINED;
    token = token_of(apr_table_get(r->headers_in, "Authorization"));
    if (!token)
        return unauthorized(r, "no bearer token");
    uc_glue_request_log(r, &log);
    if ((err = uc_glue_store(r, &log, &store)) ||
        (err = uc_sharing_authenticate(store, r->pool, uc_glue_secret_keys(),
                                       token, r->request_time,
                                       r->useragent_ip, &recipient,
                                       &admitted)))
        return failed(r, err);
    if (!recipient)
        return unauthorized(r, "unknown or expired bearer token");
    if (!admitted) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "UC0111: recipient %s "
                      "may not call from %s (its ip_access_list)",
                      recipient->name, r->useragent_ip);
        return HTTP_FORBIDDEN;
    }
    rec = apr_pcalloc(r->pool, sizeof(*rec));
    rec->id = recipient->id;
    rec->name = recipient->name;
    ap_set_module_config(r->request_config, &unicat_module, rec);
    r->user = apr_pstrdup(r->pool, recipient->name);
    r->ap_auth_type = AUTH_TYPE;
    return OK;
}

void uc_bearer_register_hooks(void)
{
    ap_hook_check_authn(bearer_authn, NULL, NULL, APR_HOOK_MIDDLE,
                        AP_AUTH_INTERNAL_PER_CONF);
}
