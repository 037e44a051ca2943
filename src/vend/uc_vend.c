/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_vend.h"
#include "uc_clouds.h"
#include "uc_storage.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"

void uc_vend_split(apr_pool_t *pool, const char *url, const char **bucket,
                   const char **prefix)
{
    const char *start = strstr(url, "://") + 3;
    const char *slash = strchr(start, '/');

    *bucket = slash ? apr_pstrndup(pool, start, (apr_size_t)(slash - start))
                    : apr_pstrdup(pool, start);
    *prefix = slash ? apr_pstrdup(pool, slash + 1) : "";
}

void uc_vend_keys(uc_vended_t *out, const char *kind,
                  const uc_aws_session_t *session)
{
    out->kind = kind;
    out->names[0] = "access_key_id";
    out->values[0] = session->keys.access_key_id;
    out->names[1] = "secret_access_key";
    out->values[1] = session->keys.secret_access_key;
    out->names[2] = "session_token";
    out->values[2] = session->keys.session_token;
    out->expires = session->expires;
}

const char *uc_vended_value(const uc_vended_t *v, const char *name)
{
    int i;

    for (i = 0; i < UC_VENDED_VALUES; i++)
        if (v->names[i] && !strcmp(v->names[i], name))
            return v->values[i];
    return NULL;
}

/* The credential's cloud makes them. */
static uc_error_t *fetch(apr_pool_t *pool, void *baton, uc_vended_t *out)
{
    const uc_vend_request_t *req = baton;
    const uc_cloud_t *cloud = uc_clouds_of_type(req->cred->type, NULL);

    if (!cloud || !cloud->vend)
        return uc_error_make(pool, UC_E_INTERNAL, "Credential '%s' is of "
                             "the type '%s', which no cloud vends for.",
                             req->cred->sec->name, req->cred->type);
    return cloud->vend(req, pool, out);
}

/* No cloud identity reads local paths: the URL alone, good for the
 * lifetime vended credentials would have. */
static void local(uc_call_t *call, uc_vended_t *out)
{
    memset(out, 0, sizeof(*out));
    out->expires = call->now +
                   apr_time_from_sec(call->cloud->lifetime_s);
}

/* The location and credential are named by the data they cover: those
 * who may use the data need not know of them (a table's reader holds
 * nothing on its location), and a refusal does not name what they may
 * not know of. */
static uc_error_t *refused_write(uc_call_t *call, const char *what,
                                 const char *url)
{
    return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "%s covering "
                         "'%s' is read-only: no credentials that write are "
                         "vended through it.", what, url);
}

uc_error_t *uc_vend_credential(uc_call_t *call, const char *url, int write,
                               uc_credential_t **cred)
{
    int is_file = strncmp(url, "file:", 5) == 0;
    uc_securable_t *loc;
    json_t *details;
    const char *id;
    uc_error_t *err;

    *cred = NULL;
    if ((err = uc_storage_covering(call, url, &loc, NULL)))
        return err;
    if (!loc && is_file)
        return NULL;
    if (!loc)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION, "No "
                             "external location covers '%s': a metastore "
                             "admin must create one with a credential that "
                             "can read it.", url);
    details = uc_json_own(call->pool, uc_json_stored_object(loc->details));
    if (write && json_is_true(json_object_get(details, "read_only")))
        return refused_write(call, "The external location", url);
    id = json_string_value(json_object_get(details, "credential_id"));
    if (id && (err = uc_credential_by_id(call, id, cred)))
        return err;
    if (!*cred && !is_file)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "The external location covering '%s' has no "
                             "credential.", url);
    if (*cred && write && (*cred)->read_only)
        return refused_write(call, "The credential of the external location",
                             url);
    return NULL;
}

static uc_error_t *vend_request(uc_call_t *call, const char *url, int write,
                                int scoped, uc_vended_t *out,
                                const uc_credential_t **found);

uc_error_t *uc_vend_for(uc_call_t *call, const char *url, int write,
                        uc_vended_t *out)
{
    const uc_credential_t *cred;

    return vend_request(call, url, write, 0, out, &cred);
}

uc_error_t *uc_vend_for_credential(uc_call_t *call, const char *url,
                                   int write, uc_vended_t *out,
                                   const uc_credential_t **found)
{
    return vend_request(call, url, write, 0, out, found);
}

uc_error_t *uc_vend_scoped(uc_call_t *call, const char *url, uc_vended_t *out)
{
    const uc_credential_t *cred;

    return vend_request(call, url, 0, 1, out, &cred);
}

static uc_error_t *vend_request(uc_call_t *call, const char *url, int write,
                                int scoped, uc_vended_t *out,
                                const uc_credential_t **found)
{
    uc_vend_request_t *req = apr_pcalloc(call->pool, sizeof(*req));
    const char *path = uc_storage_path_of(url), *key;
    uc_credential_t *cred;
    int hit;
    uc_error_t *err;

    *found = NULL;
    if (!*path || !strcmp(path, "/"))
        return uc_error_invalid(call->pool, "No credentials are vended for "
                                "a bucket root: '%s'.", url);
    if ((err = uc_vend_credential(call, url, write, &cred)))
        return err;
    *found = cred;
    if (!cred) {
        local(call, out);
        return NULL;
    }
    req->call = call;
    req->cred = cred;
    req->url = url;
    req->write = write;
    req->scoped = scoped;
    /* A changed credential is another identity: its update stamp is in the
     * key. */
    key = apr_pstrcat(call->pool, cred->sec->id, "@", cred->sec->updated_at,
                      write ? " rw " : scoped ? " r scoped " : " r ", url,
                      NULL);
    err = uc_vend_cache_get(call->cloud->cache, call->pool, key, call->now,
                            call->cloud->timeout_ms * 1000, fetch, req, out,
                            &hit);
    if (!err)
        uc_metrics_add(call->metrics, hit ? UC_M_VEND_HITS : UC_M_VEND_MISSES,
                       1);
    return err;
}
