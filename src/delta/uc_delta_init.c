/* SPDX-License-Identifier: Apache-2.0 */
/* The reader's process-wide set-up. The settings are written here only,
 * before the threads that read them exist. */
#include "uc_delta_internal.h"

#include "../core/uc_memory.h"

#define DEFAULT_DECODE_THREADS 2
#define DEFAULT_REQUEST_THREADS 8
#define DEFAULT_ANSWER_THREADS 2
/* Enough for the scratch of a checkpoint of about 100,000 files. */
#define DEFAULT_RETAINED ((apr_size_t)64 << 20)

static uc_delta_settings_t settings = {
    DEFAULT_DECODE_THREADS, DEFAULT_REQUEST_THREADS, DEFAULT_ANSWER_THREADS,
    DEFAULT_RETAINED
};

void uc_delta_settings_default(uc_delta_settings_t *out)
{
    out->decode_threads = DEFAULT_DECODE_THREADS;
    out->request_threads = DEFAULT_REQUEST_THREADS;
    out->answer_threads = DEFAULT_ANSWER_THREADS;
    out->retained_memory = DEFAULT_RETAINED;
}

static apr_status_t restore_settings(void *before)
{
    settings = *(const uc_delta_settings_t *)before;
    return APR_SUCCESS;
}

/* A thread count out of [1, max]: a 400 naming the setting. */
static uc_error_t *check_threads(apr_pool_t *pool, int value, int max,
                                 const char *what)
{
    if (value >= 1 && value <= max)
        return NULL;
    return uc_error_invalid(pool, "%s 1 to %d threads, not %d.", what, max,
                            value);
}

uc_error_t *uc_delta_init(apr_pool_t *pool, const uc_delta_settings_t *want)
{
    uc_delta_settings_t *before;
    uc_error_t *err;

    if ((err = check_threads(pool, want->decode_threads,
                             UC_DELTA_MAX_DECODE_THREADS,
                             "The Delta reader decodes with")) ||
        (err = check_threads(pool, want->request_threads,
                             UC_DELTA_MAX_REQUEST_THREADS,
                             "A request works with")) ||
        (err = check_threads(pool, want->answer_threads,
                             UC_DELTA_MAX_ANSWER_THREADS,
                             "A sharing answer is rendered by")))
        return err;
    uc_memory_init(pool, want->retained_memory);
    if ((err = uc_objstore_init(pool)))
        return err;
    before = apr_palloc(pool, sizeof(*before));
    *before = settings;
    settings = *want;
    apr_pool_cleanup_register(pool, before, restore_settings,
                              apr_pool_cleanup_null);
    return NULL;
}

int uc_delta_load_threads(void)
{
    return settings.decode_threads < settings.request_threads
           ? settings.decode_threads : settings.request_threads;
}

int uc_delta_answer_threads(void)
{
    return settings.answer_threads < settings.request_threads
           ? settings.answer_threads : settings.request_threads;
}
