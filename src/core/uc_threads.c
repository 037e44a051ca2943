/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_threads.h"

#include <apr_thread_proc.h>

typedef struct task {
    uc_work_fn *work;
    void *item;
} task_t;

static void *APR_THREAD_FUNC run_task(apr_thread_t *thread, void *data)
{
    task_t *task = data;

    (void)thread;
    task->work(task->item);
    return NULL;
}

void uc_threads_run(apr_pool_t *pool, void *items, int n, apr_size_t size,
                    uc_work_fn *work)
{
    task_t *tasks;
    apr_thread_t **handles;
    int i, started;

    if (n < 1)
        return;
    tasks = apr_palloc(pool, sizeof(*tasks) * (apr_size_t)n);
    handles = apr_palloc(pool, sizeof(*handles) * (apr_size_t)n);
    for (i = 0; i < n; i++) {
        tasks[i].work = work;
        tasks[i].item = (char *)items + (apr_size_t)i * size;
    }
    for (started = 1; started < n; started++)
        if (apr_thread_create(&handles[started], NULL, run_task,
                              &tasks[started], pool) != APR_SUCCESS)
            break;
    work(items);
    for (i = 1; i < started; i++) {
        apr_status_t rv;

        apr_thread_join(&rv, handles[i]);
    }
    for (i = started; i < n; i++)
        work(tasks[i].item);
}
