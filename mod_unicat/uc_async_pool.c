/* SPDX-License-Identifier: Apache-2.0 */
/* The child's pool of threads that prepare the sharing server's
 * asynchronous queries (src/sharing/uc_sharing_async.c): made in
 * child_init, two threads under a threaded MPM and one under prefork.
 * Under a threaded MPM a job that marks a query ready takes a database
 * connection of mod_dbd's; under prefork the child's one connection is
 * its request's, so a job only reads the snapshot. */
#include "uc_glue.h"

#include <ap_mpm.h>
#include <apr_dbd.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <mod_dbd.h>
#include <unistd.h>

#include "../src/sharing/uc_sharing_api.h"
#include "../src/store/uc_store.h"

/* Threads, and the jobs that may wait for one. */
#define THREADS_THREADED 2
#define THREADS_PREFORK 1
#define BACKLOG 16

static apr_thread_pool_t *threads;
static const char *process;
/* Whether mod_dbd keeps a pool of connections (a threaded MPM) that the
 * pool's threads may take from; under prefork it keeps one, the
 * request's, which no other thread may touch. */
static int lends_connections;
static APR_OPTIONAL_FN_TYPE(ap_dbd_open) *dbd_open;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) *dbd_close;

typedef struct lent {
    server_rec *s;
    ap_dbd_t *dbd;
} lent_t;

static apr_status_t give_back(void *data)
{
    lent_t *lent = data;

    dbd_close(lent->s, lent->dbd);
    return APR_SUCCESS;
}

/* A connection of the server's mod_dbd, given back when `pool` goes. */
static uc_error_t *store_open(void *baton, apr_pool_t *pool,
                              struct uc_store **out)
{
    lent_t *lent = apr_pcalloc(pool, sizeof(*lent));

    lent->s = baton;
    if (!dbd_open || !dbd_close || !(lent->dbd = dbd_open(pool, lent->s)))
        return uc_error_unavailable(pool);
    apr_pool_cleanup_register(pool, lent, give_back, apr_pool_cleanup_null);
    return uc_store_attach(pool, lent->dbd->driver, lent->dbd->handle,
                           lent->dbd->pool, lent->dbd->prepared, NULL, NULL,
                           out);
}

/* Last of the child_init hooks: the pool's threads are joined when
 * pchild goes, before mod_dbd's connections (made before them) are. */
static void child_init(apr_pool_t *pchild, server_rec *s)
{
    int threaded = 0;
    char host[256];
    apr_status_t rv;

    dbd_open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    dbd_close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    if (ap_mpm_query(AP_MPMQ_IS_THREADED, &threaded) != APR_SUCCESS)
        threaded = 0;
    lends_connections = threaded != AP_MPMQ_NOT_SUPPORTED;
    if (apr_gethostname(host, sizeof(host), pchild) != APR_SUCCESS)
        apr_cpystrn(host, "localhost", sizeof(host));
    process = apr_psprintf(pchild, "%s/%ld/%" APR_TIME_T_FMT, host,
                           (long)getpid(), apr_time_now());
    rv = apr_thread_pool_create(&threads, 0, threaded ? THREADS_THREADED
                                                      : THREADS_PREFORK,
                                pchild);
    if (rv != APR_SUCCESS) {
        threads = NULL;
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, "UC0118: no threads to "
                     "prepare asynchronous sharing queries: they are "
                     "answered at once");
    }
}

const uc_sharing_async_env_t *uc_glue_async_env(request_rec *r,
                                                const uc_dir_config_t *conf)
{
    uc_sharing_async_env_t *env;

    if (!threads || !dbd_open || conf->async_wait == UC_ASYNC_OFF)
        return NULL;
    env = apr_pcalloc(r->pool, sizeof(*env));
    env->threads = threads;
    env->backlog = BACKLOG;
    env->process = lends_connections ? process : NULL;
    env->wait = apr_time_from_msec(conf->async_wait == UC_UNSET
                                   ? UC_DEFAULT_ASYNC_WAIT_MS
                                   : conf->async_wait);
    env->lifetime = conf->async_lifetime == UC_UNSET
                    ? UC_DEFAULT_ASYNC_LIFETIME : conf->async_lifetime;
    env->store_open = lends_connections ? store_open : NULL;
    env->baton = r->server;
    return env;
}

void uc_async_pool_register_hooks(void)
{
    ap_hook_child_init(child_init, NULL, NULL, APR_HOOK_LAST);
}
