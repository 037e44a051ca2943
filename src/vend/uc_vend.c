/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_vend.h"
#include "uc_clouds.h"
#include "uc_storage.h"

#include <string.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../core/uc_answer_cache.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../store/uc_catalog_version.h"

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

/* What the cache's fetch is given: the request, and the credential's row
 * (its id and update stamp, the key of what is kept), whose credential is
 * read when no one needed it before. */
typedef struct fetching {
    uc_vend_request_t req;
    const char *id, *stamp;        /* NULL: a local path needs none */
    const uc_securable_t *row;     /* NULL until read */
} fetching_t;

static uc_error_t *no_credential(uc_call_t *call, const char *url)
{
    return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION, "The "
                         "external location covering '%s' has no "
                         "credential.", url);
}

/* The credential, from its row, which is read now when its key came from
 * the memo: a credential changed since is the one anyone who looks now
 * is given. */
static uc_error_t *read_credential(fetching_t *f)
{
    uc_call_t *call = f->req.call;
    uc_securable_t *row;
    uc_credential_t *cred;
    uc_error_t *err;

    if (!f->row) {
        if ((err = uc_securable_by_id(call->store, call->pool, f->id,
                                      &row)))
            return err;
        if (!row)
            return no_credential(call, f->req.url);
        f->row = row;
    }
    if ((err = uc_credential_of(call, f->row, &cred)))
        return err;
    f->req.cred = cred;
    return NULL;
}

/* The credential's cloud makes them, the route's group of reads ended
 * first: what was read is read, and the cloud's answer may take seconds. */
static uc_error_t *fetch(apr_pool_t *pool, void *baton, uc_vended_t *out)
{
    fetching_t *f = baton;
    const uc_cloud_t *cloud;
    uc_error_t *err;

    if ((err = uc_store_end_reads(f->req.call->store)) ||
        (!f->req.cred && (err = read_credential(f))))
        return err;
    cloud = uc_clouds_of_type(f->req.cred->type, NULL);
    if (!cloud || !cloud->vend)
        return uc_error_make(pool, UC_E_INTERNAL, "Credential '%s' is of "
                             "the type '%s', which no cloud vends for.",
                             f->row->name, f->req.cred->type);
    return cloud->vend(&f->req, pool, out);
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

/* The row of the credential of the external location covering `url`,
 * with the location's refusals; NULL for a local path that no location
 * (or one without a credential) covers. */
static uc_error_t *covering_credential(uc_call_t *call, const char *url,
                                       int write, uc_securable_t **row)
{
    int is_file = strncmp(url, "file:", 5) == 0;
    uc_securable_t *loc;
    json_t *details;
    const char *id;
    uc_error_t *err;

    *row = NULL;
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
    if (id && (err = uc_securable_by_id(call->store, call->pool, id, row)))
        return err;
    return !*row && !is_file ? no_credential(call, url) : NULL;
}

/* The credential of `row`, which must not be read-only for `write`. */
static uc_error_t *credential_of(uc_call_t *call, const char *url,
                                 int write, const uc_securable_t *row,
                                 uc_credential_t **cred)
{
    uc_error_t *err = uc_credential_of(call, row, cred);

    if (err)
        return err;
    if (write && (*cred)->read_only)
        return refused_write(call, "The credential of the external location",
                             url);
    return NULL;
}

uc_error_t *uc_vend_credential(uc_call_t *call, const char *url, int write,
                               uc_credential_t **cred)
{
    uc_securable_t *row;
    uc_error_t *err;

    *cred = NULL;
    if ((err = covering_credential(call, url, write, &row)) || !row)
        return err;
    return credential_of(call, url, write, row, cred);
}

/* Which credential reads of a place are vended with, as the catalog said
 * at one version, is kept beside the catalog's answers (uc_answer_cache.h)
 * for the reads that follow at that version: "<id> <update stamp>" of its
 * row, "-" for none (a local path). The keys of answers open with a
 * length (uc_run.c), these with a letter. */
static const char *memo_key(uc_call_t *call, const char *url)
{
    return apr_pstrcat(call->pool, "vend ", url, NULL);
}

static int recall(uc_call_t *call, const char *url, apr_int64_t version,
                  fetching_t *f)
{
    const char *key = memo_key(call, url), *text, *space;
    apr_size_t len;

    text = uc_answer_cache_get(call->answers, key, strlen(key), version,
                               call->pool, &len);
    if (!text)
        return 0;
    text = apr_pstrmemdup(call->pool, text, len);
    if ((space = strchr(text, ' '))) {
        f->id = apr_pstrmemdup(call->pool, text, (apr_size_t)(space - text));
        f->stamp = space + 1;
    }
    return 1;
}

static void remember(uc_call_t *call, const char *url, apr_int64_t version,
                     const fetching_t *f)
{
    const char *key = memo_key(call, url);
    const char *text = f->id ? apr_pstrcat(call->pool, f->id, " ", f->stamp,
                                           NULL)
                             : "-";

    uc_answer_cache_put(call->answers, key, strlen(key), version, text,
                        strlen(text));
}

/* The credential of the external location covering `url`, into f: its
 * row's id and stamp, the row when it was read, and the credential itself
 * for a write or a caller that `needs` it. A read that needs the key alone
 * takes it from the memo at the catalog's version, when the mount keeps
 * answers. */
static uc_error_t *find_credential(uc_call_t *call, const char *url,
                                   int write, int needs, fetching_t *f)
{
    int memo = !write && !needs && call->answers;
    apr_int64_t version = 0;
    uc_securable_t *row;
    uc_credential_t *cred;
    uc_error_t *err;

    if (memo) {
        if ((err = uc_catalog_version_read(call->store, call->pool,
                                           &version)))
            return err;
        if (recall(call, url, version, f))
            return NULL;
    }
    if ((err = covering_credential(call, url, write, &row)))
        return err;
    f->row = row;
    f->id = row ? row->id : NULL;
    f->stamp = row ? row->updated_at : NULL;
    if (memo)
        remember(call, url, version, f);
    if (!row || !(write || needs))
        return NULL;
    if ((err = credential_of(call, url, write, row, &cred)))
        return err;
    f->req.cred = cred;
    return NULL;
}

static uc_error_t *vend_request(uc_call_t *call, const char *url, int write,
                                int scoped, uc_vended_t *out,
                                const uc_credential_t **found);

uc_error_t *uc_vend_for(uc_call_t *call, const char *url, int write,
                        uc_vended_t *out)
{
    return vend_request(call, url, write, 0, out, NULL);
}

uc_error_t *uc_vend_for_credential(uc_call_t *call, const char *url,
                                   int write, uc_vended_t *out,
                                   const uc_credential_t **found)
{
    *found = NULL;
    return vend_request(call, url, write, 0, out, found);
}

uc_error_t *uc_vend_scoped(uc_call_t *call, const char *url, uc_vended_t *out)
{
    return vend_request(call, url, 0, 1, out, NULL);
}

/* `found` NULL: the caller does not need the credential. */
static uc_error_t *vend_request(uc_call_t *call, const char *url, int write,
                                int scoped, uc_vended_t *out,
                                const uc_credential_t **found)
{
    fetching_t *f = apr_pcalloc(call->pool, sizeof(*f));
    const char *path = uc_storage_path_of(url), *key;
    int hit;
    uc_error_t *err;

    if (!*path || !strcmp(path, "/"))
        return uc_error_invalid(call->pool, "No credentials are vended for "
                                "a bucket root: '%s'.", url);
    f->req.call = call;
    f->req.url = url;
    f->req.write = write;
    f->req.scoped = scoped;
    /* Its details (with the sealed secrets) are read when they are needed:
     * to refuse a write, for a caller that uses the credential, or to make
     * new credentials. Those kept are found by its row's key alone. */
    if ((err = find_credential(call, url, write, found != NULL, f)))
        return err;
    if (!f->id) {
        local(call, out);
        return NULL;
    }
    if (found)
        *found = f->req.cred;
    /* A changed credential is another identity: its update stamp is in the
     * key. */
    key = apr_pstrcat(call->pool, f->id, "@", f->stamp,
                      write ? " rw " : scoped ? " r scoped " : " r ", url,
                      NULL);
    err = uc_vend_cache_get(call->cloud->cache, call->pool, key, call->now,
                            call->cloud->timeout_ms * 1000, fetch, f, out,
                            &hit);
    if (!err)
        uc_metrics_add(call->metrics, hit ? UC_M_VEND_HITS : UC_M_VEND_MISSES,
                       1);
    return err;
}
