/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_in_order.h"
#include "uc_memory.h"

#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>

#define MAX_THREADS 64
/* Segments rendered ahead of delivery, per thread: one being rendered and
 * one waiting keeps every thread busy while the deliverer writes. */
#define AHEAD_PER_THREAD 2

/* A segment's text, in a pool of its own: whoever claims the segment
 * renders into it, the calling thread delivers from it, and the lock
 * orders the two. */
typedef struct slot {
    apr_pool_t *pool;
    uc_jw_t *jw;
    apr_size_t lines;
    uc_error_t *err;
    int done;
} slot_t;

typedef struct run {
    const uc_in_order_job_t *job;
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *changed;
    slot_t *slots;
    apr_size_t window;
    apr_size_t next_claim;        /* the next segment nobody renders yet */
    apr_size_t next_deliver;
    int stop;
} run_t;

typedef struct worker {
    run_t *run;
    apr_pool_t *pool;
    void *state;
} worker_t;

/* Under the lock: whether a segment is left to render in the window. */
static int claimable(const run_t *run)
{
    return !run->stop && run->next_claim < run->job->segments &&
           run->next_claim < run->next_deliver + run->window;
}

/* Under the lock: a segment this thread may render now, or 0. */
static int claim(run_t *run, apr_size_t *k)
{
    if (!claimable(run))
        return 0;
    *k = run->next_claim++;
    return 1;
}

/* Renders segment `k`, entered and left under the lock. */
static void render(worker_t *w, apr_size_t k)
{
    run_t *run = w->run;
    slot_t *slot = &run->slots[k % run->window];

    apr_thread_mutex_unlock(run->lock);
    uc_jw_reset(slot->jw);
    slot->lines = 0;
    slot->err = run->job->render(w->state, k, slot->jw, slot->pool,
                                 &slot->lines);
    apr_thread_mutex_lock(run->lock);
    slot->done = 1;
    apr_thread_cond_broadcast(run->changed);
}

static void *APR_THREAD_FUNC helper(apr_thread_t *thread, void *data)
{
    worker_t *w = data;
    run_t *run = w->run;
    apr_size_t k;

    (void)thread;
    apr_thread_mutex_lock(run->lock);
    while (!run->stop && run->next_claim < run->job->segments) {
        if (claim(run, &k))
            render(w, k);
        else
            apr_thread_cond_wait(run->changed, run->lock);
    }
    apr_thread_mutex_unlock(run->lock);
    return NULL;
}

/* Delivers the next segment, entered and left under the lock. */
static uc_error_t *deliver(run_t *run, apr_pool_t *pool)
{
    slot_t *slot = &run->slots[run->next_deliver % run->window];
    uc_error_t *err;

    apr_thread_mutex_unlock(run->lock);
    err = run->job->deliver(run->job->baton, slot->jw->buf, slot->jw->len,
                            slot->lines);
    if (!err && slot->err)
        err = slot->err;
    if (err)
        err = uc_error_copy(pool, err);
    apr_thread_mutex_lock(run->lock);
    slot->done = 0;
    run->next_deliver++;
    apr_thread_cond_broadcast(run->changed);
    return err;
}

/* Whether delivering the next segment now would wait for the client to
 * read; asked without the lock (a system call or two). Entered and left
 * under the lock. */
static int client_slow(run_t *run)
{
    int slow;

    if (!run->job->ready)
        return 0;
    apr_thread_mutex_unlock(run->lock);
    slow = !run->job->ready(run->job->baton);
    apr_thread_mutex_lock(run->lock);
    return slow;
}

/* The calling thread: delivers in order, rendering while the next segment
 * is not ready, and while the client is slow to read (its delivery would
 * only wait on the client: rendering ahead uses the time). */
static uc_error_t *lead(worker_t *w, apr_pool_t *pool)
{
    run_t *run = w->run;
    uc_error_t *err = NULL;
    apr_size_t k;

    apr_thread_mutex_lock(run->lock);
    while (!err && run->next_deliver < run->job->segments) {
        if (!run->slots[run->next_deliver % run->window].done) {
            if (claim(run, &k))
                render(w, k);
            else
                apr_thread_cond_wait(run->changed, run->lock);
        }
        else if (claimable(run) && client_slow(run) && claim(run, &k))
            render(w, k);
        else
            err = deliver(run, pool);
    }
    run->stop = 1;
    apr_thread_cond_broadcast(run->changed);
    apr_thread_mutex_unlock(run->lock);
    return err;
}

static apr_status_t destroy_pools(void *data)
{
    apr_pool_t **pools = data;

    for (; *pools; pools++)
        apr_pool_destroy(*pools);
    return APR_SUCCESS;
}

/* The slots' and workers' pools in `*pools` (NULL-ended): the job
 * destroys them once its helpers have stopped, or `pool` does when the job
 * cannot start. They come from the process's allocator, which keeps freed
 * memory for the next answers (uc_memory.h): the text of an answer's
 * segments takes megabytes of pages, which fresh would be faulted in
 * again for every answer. */
static void make_pools(apr_pool_t *pool, run_t *run, worker_t *workers,
                       int threads, apr_pool_t ***out)
{
    apr_size_t n = run->window + (apr_size_t)threads, i;
    apr_pool_t **pools = apr_pcalloc(pool, sizeof(*pools) * (n + 1));

    *out = pools;
    apr_pool_cleanup_register(pool, pools, destroy_pools,
                              apr_pool_cleanup_null);
    for (i = 0; i < n; i++)
        pools[i] = uc_memory_pool_create();
    for (i = 0; i < run->window; i++) {
        run->slots[i].pool = pools[i];
        run->slots[i].jw = uc_jw_make(pools[i], run->job->segment_bytes);
    }
    for (i = 0; i < (apr_size_t)threads; i++) {
        workers[i].run = run;
        workers[i].pool = pools[run->window + i];
    }
}

uc_error_t *uc_in_order_run(apr_pool_t *pool, const uc_in_order_job_t *job)
{
    int threads = job->threads < 1 ? 1
        : job->threads > MAX_THREADS ? MAX_THREADS : job->threads;
    apr_thread_t *handles[MAX_THREADS];
    worker_t workers[MAX_THREADS];
    apr_pool_t **pools;
    run_t run = { 0 };
    uc_error_t *err;
    int i, started;

    if ((apr_size_t)threads > job->segments)
        threads = job->segments ? (int)job->segments : 1;
    run.job = job;
    run.window = (apr_size_t)threads * AHEAD_PER_THREAD;
    run.slots = apr_pcalloc(pool, sizeof(*run.slots) * run.window);
    if (apr_thread_mutex_create(&run.lock, APR_THREAD_MUTEX_DEFAULT, pool)
            != APR_SUCCESS ||
        apr_thread_cond_create(&run.changed, pool) != APR_SUCCESS)
        return uc_error_because(pool, uc_error_internal(pool),
                                "no lock for the rendering threads");
    make_pools(pool, &run, workers, threads, &pools);
    for (i = 0; i < threads; i++)
        if ((err = job->start(job->baton, workers[i].pool,
                              &workers[i].state)))
            return uc_error_copy(pool, err);
    for (started = 1; started < threads; started++)
        if (apr_thread_create(&handles[started], NULL, helper,
                              &workers[started], pool) != APR_SUCCESS)
            break;
    err = lead(&workers[0], pool);
    for (i = 1; i < started; i++) {
        apr_status_t rv;

        apr_thread_join(&rv, handles[i]);
    }
    /* The segments' text is sent: its memory goes back now, not with the
     * request. */
    apr_pool_cleanup_run(pool, pools, destroy_pools);
    return err;
}
