/* SPDX-License-Identifier: Apache-2.0 */
/* UnicatAuditLog: every call that changes something, one JSON line each,
 * into a file or a piped program, as httpd's own logs are. The line is
 * written when the transaction is logged, so it carries the status the
 * client really got. */
#include "uc_glue.h"

#include <http_core.h>
#include <http_protocol.h>
#include <apr_strings.h>

#include "../src/http/uc_audit_line.h"

/* The main server's: one destination for the process, opened by the
 * parent (still root) on every configuration load, inherited by the
 * children. */
static const char *destination;
static apr_file_t *audit_file;

#define EVENT_KEY "unicat-audit-event"

typedef struct pending {
    uc_audit_event_t event;
    const char *api;
} pending_t;

const char *uc_audit_log_set(cmd_parms *cmd, void *dconf, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dconf;
    if (err)
        return err;
    if (!*arg || (*arg == '|' && !arg[1]))
        return "UnicatAuditLog takes a file or a |program";
    destination = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

static int reset(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    destination = NULL;
    audit_file = NULL;
    return OK;
}

static int open_audit_log(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp, server_rec *s)
{
    const char *path;
    apr_status_t rv;

    (void)plog;
    (void)ptemp;
    if (!destination)
        return OK;
    if (*destination == '|') {
        piped_log *pl = ap_open_piped_log(pconf, destination + 1);

        if (!pl) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, "UC0112: "
                         "UnicatAuditLog: cannot start %s", destination + 1);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        audit_file = ap_piped_log_write_fd(pl);
        return OK;
    }
    path = ap_server_root_relative(pconf, destination);
    rv = path ? apr_file_open(&audit_file, path, APR_FOPEN_WRITE |
                              APR_FOPEN_APPEND | APR_FOPEN_CREATE |
                              APR_FOPEN_LARGEFILE, APR_FPROT_UREAD |
                              APR_FPROT_UWRITE | APR_FPROT_GREAD, pconf)
              : APR_EBADPATH;
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, rv, s, "UC0116: "
                     "UnicatAuditLog: cannot open %s", destination);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

void uc_glue_audit(request_rec *r, const char *api, const uc_call_t *call,
                   const uc_route_t *route, const uc_error_t *err)
{
    pending_t *p;

    if (!audit_file || !route || !route->audit)
        return;
    p = apr_palloc(r->pool, sizeof(*p));
    uc_audit_event_of(r->pool, call, route, err, &p->event);
    p->api = api;
    apr_pool_userdata_setn(p, EVENT_KEY, NULL, r->pool);
}

/* The status of the last request of an internal redirect (an ErrorDocument
 * that answered for httpd). */
static int final_status(const request_rec *r)
{
    while (r->next)
        r = r->next;
    return r->status;
}

/* One write of the whole line: appends to a file do not interleave, nor
 * writes to a pipe below PIPE_BUF, whatever the processes and threads. */
static int write_audit_line(request_rec *r)
{
    void *data = NULL;
    const pending_t *p;
    uc_audit_context_t ctx;
    const char *line;
    apr_size_t len;
    apr_status_t rv;

    if (!audit_file ||
        apr_pool_userdata_get(&data, EVENT_KEY, r->pool) != APR_SUCCESS ||
        !data)
        return DECLINED;
    p = data;
    ctx.api = p->api;
    ctx.request_id = apr_table_get(r->subprocess_env, "UNIQUE_ID");
    if (!ctx.request_id)
        ctx.request_id = r->log_id;
    ctx.time = r->request_time;
    ctx.status = final_status(r);
    line = uc_audit_line(r->pool, &p->event, &ctx, &len);
    rv = apr_file_write_full(audit_file, line, len, NULL);
    if (rv != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, "UC0113: the audit "
                      "line of %s %s could not be written", r->method,
                      p->event.route);
    return OK;
}

void uc_audit_log_register_hooks(void)
{
    ap_hook_pre_config(reset, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_open_logs(open_audit_log, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_log_transaction(write_audit_line, NULL, NULL, APR_HOOK_MIDDLE);
}
