/* SPDX-License-Identifier: Apache-2.0 */
/* The signer of an answer's file URLs: the module's signed files route
 * for tables on this server's file system, the store's own pre-signed
 * URLs for cloud ones, valid for UnicatSharingUrlLifetime or until the
 * credentials that sign them expire, whichever comes first. */
#include "uc_shared.h"
#include "uc_file_url.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_percent.h"
#include "../objstore/uc_objstore.h"
#include "../vend/uc_table_store.h"

/* --- signing ----------------------------------------------------------- */

/* Local files go out through the module's signed files route, under the
 * sharing mount, named by their key below the table's root. */
static uc_error_t *local_key(apr_pool_t *pool, const char *log_path,
                             apr_size_t path_len, const char **key,
                             apr_size_t *key_len)
{
    /* Most paths hold no escape: they are their own key. */
    *key = log_path;
    *key_len = path_len;
    if (memchr(log_path, '%', path_len) &&
        (*key = uc_percent_decode(pool, log_path)))
        *key_len = strlen(*key);
    if (!*key || !**key || **key == '/')
        return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION,
                             "table containing absolute paths cannot be "
                             "shared");
    return NULL;
}

static uc_error_t *sign_local(void *baton, apr_pool_t *pool,
                              const char *log_path, apr_size_t path_len,
                              const char **url, apr_size_t *url_len)
{
    const char *key;
    apr_size_t key_len;
    uc_error_t *err = local_key(pool, log_path, path_len, &key, &key_len);

    return err ? err : uc_file_url_sign(baton, pool, key, key_len, url,
                                        url_len);
}

static uc_error_t *sign_local2(void *baton, apr_pool_t *pool,
                               const char *const log_path[2],
                               const apr_size_t path_len[2],
                               const char *url[2], apr_size_t url_len[2])
{
    const char *key[2];
    apr_size_t key_len[2];
    uc_error_t *err;

    if ((err = local_key(pool, log_path[0], path_len[0], &key[0],
                         &key_len[0])) ||
        (err = local_key(pool, log_path[1], path_len[1], &key[1],
                         &key_len[1])))
        return err;
    return uc_file_url_sign2(baton, pool, key, key_len, url, url_len);
}

/* Cloud files go out as the store's own pre-signed URLs. */
typedef struct cloud_signer {
    uc_objstore_t *store;
    apr_int64_t seconds;           /* how long each URL stays valid */
    apr_time_t now;
} cloud_signer_t;

static uc_error_t *sign_cloud(void *baton, apr_pool_t *pool,
                              const char *log_path, apr_size_t path_len,
                              const char **url, apr_size_t *url_len)
{
    const cloud_signer_t *c = baton;
    const char *key;
    uc_error_t *err;

    (void)path_len;
    if ((err = uc_delta_log_data_key(pool, log_path, &key)) ||
        (err = uc_objstore_presign(c->store, pool, key, c->seconds, c->now,
                                   url)))
        return err;
    *url_len = strlen(*url);
    return NULL;
}

/* The first second no file URL of this answer is good at: the server's
 * lifetime for them, cut short by the credentials that sign cloud ones. */
static apr_int64_t urls_expire(const uc_shared_t *s)
{
    apr_int64_t at = apr_time_sec(s->call->now) + s->call->url_lifetime;

    if (s->log.valid_until && apr_time_sec(s->log.valid_until) < at)
        at = apr_time_sec(s->log.valid_until);
    return at;
}

static uc_error_t *make_cloud_signer(uc_shared_t *s, apr_int64_t expires,
                                     uc_sharing_signer_t *signer)
{
    uc_call_t *call = s->call;
    cloud_signer_t *c = apr_pcalloc(call->pool, sizeof(*c));
    uc_error_t *err;

    c->now = call->now;
    c->seconds = expires - apr_time_sec(call->now);
    if (c->seconds < 1)
        return uc_error_make(call->pool, UC_E_UNAVAILABLE, "The table's "
                             "storage credentials are expiring; please "
                             "try again.");
    if ((err = uc_objstore_open(call->pool, s->t->table->storage_location,
                                s->log.config, &c->store)))
        return uc_shared_storage_error(s, err);
    signer->sign = sign_cloud;
    signer->sign2 = NULL;
    signer->baton = c;
    return NULL;
}

const char *uc_sharing_sign_files_base(const uc_call_t *call)
{
    return apr_pstrcat(call->pool, uc_call_api_url(call), "/files", NULL);
}

uc_error_t *uc_sharing_sign_make(uc_shared_t *s, uc_sharing_signer_t *signer)
{
    uc_call_t *call = s->call;
    apr_int64_t expires = urls_expire(s);
    uc_file_url_signer_t *files;
    uc_error_t *err;

    uc_sharing_signer_expire(signer, expires * 1000);
    signer->metrics = call->metrics;
    signer->tally = NULL;
    signer->plain_urls = 0;
    if (strncmp(s->t->table->storage_location, "file:", 5))
        return make_cloud_signer(s, expires, signer);
    if ((err = uc_file_url_signer_make(call->pool, call->secrets,
                                       uc_sharing_sign_files_base(call),
                                       s->t->table->id, expires, &files)))
        return err;
    signer->sign = sign_local;
    signer->sign2 = sign_local2;
    signer->baton = files;
    signer->plain_urls = uc_file_url_signer_plain(files);
    return NULL;
}
