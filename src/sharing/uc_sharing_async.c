/* SPDX-License-Identifier: Apache-2.0 */
/* Asynchronous queries (PROTOCOL.md "Query Table" with asyncquery=true,
 * and "Get Query Info"). A client that states asyncquery=true and an
 * idempotency key may be told that its query is prepared: one line
 * {"queryStatus":{"queryId","status":"pending"}}; it then polls
 * POST …/queries/{id} until the answer is the query's own, paged there.
 *
 * What is slow in a query is reading the table's log into a snapshot: a
 * thread of the process's pool (uc_sharing_async_env_t) reads the latest
 * one into the snapshot cache while the submit waits at most
 * UnicatSharingAsyncWait. Ready by then, the query is answered at once,
 * as the protocol allows; else a row in the database (store/
 * uc_sharing_queries.h) holds the query's parameters as submitted, so
 * that any child or node answers its polls, and the thread marks it ready
 * with the version it read. A poll of a ready query, or of one another
 * process prepares, runs the query here, on the version pinned, through
 * the same code as the synchronous query (uc_sharing_query_answer); its
 * errors are that query's. Only a latest snapshot's first page is
 * prepared: versions, timestamps, startingVersion, pages and refresh
 * tokens are answered at once (the cache keeps latest snapshots only). */
#include "uc_shared.h"
#include "uc_sharing_api.h"

#include <string.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

#include "../core/uc_bytes.h"
#include "../core/uc_digest.h"
#include "../core/uc_json.h"
#include "../core/uc_secret.h"
#include "../http/uc_out.h"
#include "../store/uc_sharing_queries.h"

/* The longest idempotency key taken (Spark's are UUIDs). */
#define KEY_MAX 256
/* The live queries a recipient may have; beyond, its queries are answered
 * at once. */
#define QUERIES_PER_RECIPIENT 64
/* A query pending in this process for longer is read by its next poll:
 * its thread could not say it was done. */
#define PREPARE_SECONDS 300
/* The query id: 18 random bytes, 24 base64url characters. */
#define ID_BYTES 18

/* A snapshot read by a thread of the pool. The submit waits for it, then
 * either takes it back (it is done) or hands it over: the thread then
 * marks the query ready and frees the job. Who frees it is decided under
 * `lock`. */
typedef struct job {
    apr_pool_t *pool;
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *finished;
    int done, handed_over;
    struct uc_delta_cache *cache;
    uc_delta_table_t *delta;
    apr_int64_t version;           /* read; UC_DELTA_NONE when it failed */
    /* The row to mark once handed over ("": none). Not in `pool`, which
     * only the thread that owns the job allocates from. */
    char query_id[2 * ID_BYTES];
    uc_error_t *(*store_open)(void *baton, apr_pool_t *pool,
                              struct uc_store **out);
    void *baton;
} job_t;

static uc_error_t *idempotency_key(uc_call_t *call, const char **key)
{
    json_t *k = json_object_get(call->body, "idempotencyKey");

    if (!k || json_is_null(k))
        k = json_object_get(call->body, "idempotency_key");
    *key = json_is_string(k) ? json_string_value(k) : NULL;
    if (!*key || !**key)
        return uc_error_invalid(call->pool, "idempotency_key is required "
                                "for async query.");
    if (strlen(*key) > KEY_MAX)
        return uc_error_invalid(call->pool, "idempotency_key is longer "
                                "than %d characters.", KEY_MAX);
    return NULL;
}

/* Whether the query reads the latest snapshot from its first page: the
 * one kind the snapshot cache prepares. */
static int preparable(const uc_sharing_query_t *q)
{
    return !q->has_version && !q->timestamp && !q->has_starting &&
           !q->refresh_token && uc_sharing_first_page(q);
}

static const char *sha256_hex(apr_pool_t *pool, const char *text)
{
    unsigned char digest[UC_SHA256_BYTES];
    char *hex = apr_palloc(pool, 2 * UC_SHA256_BYTES + 1);

    uc_digest_sha256(text, strlen(text), digest);
    uc_hex_encode(digest, UC_SHA256_BYTES, hex);
    return hex;
}

/* What the result is computed from, as one text with its keys sorted:
 * the body without what names the query or a page, the capabilities and
 * the fileidhash of the submit. */
static const char *submitted_params(uc_call_t *call)
{
    static const char *const not_params[] = {
        "pageToken", "idempotencyKey", "idempotency_key", "queryId"
    };
    json_t *body = uc_json_own(call->pool, json_deep_copy(call->body));
    json_t *all = uc_json_own(call->pool, json_object());
    const char *caps = apr_table_get(call->headers_in,
                                     "delta-sharing-capabilities");
    const char *hash = apr_table_get(call->headers_in, "fileidhash");
    char *text;
    const char *copy;
    size_t i;

    for (i = 0; i < sizeof(not_params) / sizeof(not_params[0]); i++)
        json_object_del(body, not_params[i]);
    json_object_set(all, "body", body);
    json_object_set_new(all, "capabilities", uc_json_string_or_null(caps));
    json_object_set_new(all, "fileidhash", uc_json_string_or_null(hash));
    text = json_dumps(all, JSON_COMPACT | JSON_SORT_KEYS);
    copy = apr_pstrdup(call->pool, text ? text : "");
    free(text);
    return copy;
}

static const char *now_ms(uc_call_t *call)
{
    return apr_psprintf(call->pool, "%" APR_TIME_T_FMT,
                        apr_time_as_msec(call->now));
}

/* Answers what is known of a query still prepared: its id, in one line,
 * with the version pinned (0 while none is: Spark needs the header). */
static uc_error_t *answer_status(uc_shared_t *s,
                                 const uc_sharing_query_row_t *row,
                                 const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    uc_sharing_format_t format = caps->wants_parquet ? UC_SHARING_PARQUET
                                                     : UC_SHARING_DELTA;

    uc_sharing_answer_headers(call, row->version ? apr_atoi64(row->version)
                                                 : 0, format, caps, 0);
    apr_table_set(call->headers_out, "delta-sharing-capabilities",
                  apr_pstrcat(call->pool,
                              uc_sharing_caps_answer(call->pool, format,
                                                     NULL),
                              ";asyncquery=true", NULL));
    uc_jw_begin_object(call->out->jw);
    uc_jw_key(call->out->jw, "queryStatus");
    uc_jw_begin_object(call->out->jw);
    uc_jw_field_string(call->out->jw, "queryId", row->id);
    uc_jw_field_string(call->out->jw, "status", "pending");
    uc_jw_end_object(call->out->jw);
    uc_jw_end_object(call->out->jw);
    return uc_out_end_line(call->out);
}

/* --- the job ------------------------------------------------------------ */

static void mark_ready(job_t *job, struct uc_store *store)
{
    const char *version = job->version == UC_DELTA_NONE
                          ? NULL
                          : apr_psprintf(job->pool, "%" APR_INT64_T_FMT,
                                         job->version);

    /* A failure leaves the query pending: its polls read it themselves
     * after PREPARE_SECONDS. */
    (void)uc_sharing_queries_ready(store, job->query_id, version);
}

static void *APR_THREAD_FUNC job_run(apr_thread_t *thread, void *data)
{
    job_t *job = data;
    uc_delta_snapshot_t *snap;
    struct uc_store *store = NULL;
    int handed_over;

    (void)thread;
    job->version = UC_DELTA_NONE;
    if (!uc_delta_cache_latest(job->cache, job->delta, &snap)) {
        job->version = snap->version;
        uc_delta_snapshot_release(snap);
    }
    apr_thread_mutex_lock(job->lock);
    job->done = 1;
    handed_over = job->handed_over;
    apr_thread_cond_signal(job->finished);
    apr_thread_mutex_unlock(job->lock);
    if (!handed_over)
        return NULL;
    if (*job->query_id && job->store_open &&
        !job->store_open(job->baton, job->pool, &store))
        mark_ready(job, store);
    apr_pool_destroy(job->pool);
    return NULL;
}

static job_t *job_make(uc_shared_t *s, apr_pool_t *pool)
{
    const uc_sharing_async_env_t *env = s->call->async;
    job_t *job = apr_pcalloc(pool, sizeof(*job));

    job->pool = pool;
    job->cache = s->call->snapshots;
    job->store_open = env->store_open;
    job->baton = env->baton;
    if (apr_thread_mutex_create(&job->lock, APR_THREAD_MUTEX_DEFAULT,
                                pool) != APR_SUCCESS ||
        apr_thread_cond_create(&job->finished, pool) != APR_SUCCESS ||
        uc_table_log_reopen(&s->log, pool, &job->delta))
        return NULL;
    return job;
}

/* A job reading the latest snapshot on the pool, or NULL when the pool
 * has enough waiting already (or cannot take it). */
static job_t *job_start(uc_shared_t *s)
{
    const uc_sharing_async_env_t *env = s->call->async;
    apr_pool_t *pool;
    job_t *job;

    if (!s->call->snapshots ||
        apr_thread_pool_tasks_count(env->threads) >= env->backlog ||
        apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS)
        return NULL;
    if (!(job = job_make(s, pool)) ||
        apr_thread_pool_push(env->threads, job_run, job,
                             APR_THREAD_TASK_PRIORITY_NORMAL, NULL)
        != APR_SUCCESS) {
        apr_pool_destroy(pool);
        return NULL;
    }
    return job;
}

/* Whether the job is done within `wait` (0: not waited for); the
 * submit still owns it. */
static int job_wait(job_t *job, apr_interval_time_t wait)
{
    int done;

    /* No wait: every query is prepared (tests see the pending path). */
    if (wait <= 0)
        return 0;
    apr_thread_mutex_lock(job->lock);
    if (!job->done)
        apr_thread_cond_timedwait(job->finished, job->lock, wait);
    done = job->done;
    apr_thread_mutex_unlock(job->lock);
    return done;
}

/* Gives the job to its thread, which marks query `id` (NULL: none) ready
 * when done; done already, the submit marks it and frees the job. */
static void job_hand_over(job_t *job, uc_call_t *call, const char *id)
{
    int done;

    apr_cpystrn(job->query_id, id ? id : "", sizeof(job->query_id));
    apr_thread_mutex_lock(job->lock);
    done = job->done;
    job->handed_over = !done;
    apr_thread_mutex_unlock(job->lock);
    if (!done)
        return;
    if (id)
        mark_ready(job, call->store);
    apr_pool_destroy(job->pool);
}

/* --- submit ------------------------------------------------------------- */

/* The live query of the same key, recipient and table: the same one when
 * its parameters are the same, else a 400. */
static uc_error_t *known_query(uc_shared_t *s, const char *key_hash,
                               const char *params_hash,
                               uc_sharing_query_row_t **row)
{
    uc_call_t *call = s->call;
    uc_error_t *err = uc_sharing_queries_by_key(call->store, call->pool,
                                                call->recipient_id,
                                                s->t->table->id, key_hash,
                                                now_ms(call), row);

    if (err)
        return err;
    if (*row && strcmp((*row)->params_hash, params_hash))
        return uc_error_invalid(call->pool, "This idempotency_key was used "
                                "for a query with other parameters; use a "
                                "new key for a new query.");
    return NULL;
}

static uc_sharing_query_row_t *new_row(uc_shared_t *s, const char *key_hash,
                                       const char *params,
                                       const char *params_hash)
{
    uc_call_t *call = s->call;
    uc_sharing_query_row_t *row = apr_pcalloc(call->pool, sizeof(*row));

    row->id = uc_secret_random_token(call->pool, ID_BYTES);
    row->recipient_id = call->recipient_id;
    row->table_id = s->t->table->id;
    row->key_hash = key_hash;
    row->params = params;
    row->params_hash = params_hash;
    row->state = "pending";
    row->preparer = call->async->process;
    row->created_at = now_ms(call);
    row->expires_at = apr_psprintf(call->pool, "%" APR_TIME_T_FMT,
                                   apr_time_as_msec(call->now)
                                   + call->async->lifetime * 1000);
    return row;
}

/* Records the query whose snapshot is still read, after the expired ones
 * went: *row NULL when the recipient has too many live queries (it is
 * answered at once). A submit of the same key that raced this one
 * recorded it first: that one is the query. */
static uc_error_t *record(uc_shared_t *s, const char *key_hash,
                          const char *params, uc_sharing_query_row_t **row)
{
    uc_call_t *call = s->call;
    const char *params_hash = sha256_hex(call->pool, params);
    int live;
    uc_error_t *err;

    *row = NULL;
    if ((err = uc_sharing_queries_purge(call->store, now_ms(call))) ||
        (err = uc_sharing_queries_live(call->store, call->pool,
                                       call->recipient_id, now_ms(call),
                                       &live)) ||
        live >= QUERIES_PER_RECIPIENT)
        return err;
    *row = new_row(s, key_hash, params, params_hash);
    if (!(*row)->id)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "no randomness for a query id");
    err = uc_sharing_queries_insert(call->store, *row);
    if (err && uc_store_is_duplicate(err))
        err = known_query(s, key_hash, params_hash, row);
    return err;
}

/* Waits for the snapshot; not read by then, the query is recorded and
 * its job handed over to mark it ready. Too many jobs waiting, or too
 * many of the recipient's queries: answered at once (the protocol lets a
 * server do so; a 429 would only be retried). */
static uc_error_t *prepare(uc_shared_t *s, uc_sharing_query_t *q,
                           const uc_sharing_caps_t *caps,
                           const char *key_hash, const char *params)
{
    uc_call_t *call = s->call;
    uc_sharing_query_row_t *row = NULL;
    job_t *job = job_start(s);
    uc_error_t *err = NULL;

    if (job && !job_wait(job, call->async->wait))
        err = record(s, key_hash, params, &row);
    if (job)
        job_hand_over(job, call, row ? row->id : NULL);
    if (err)
        return err;
    return row ? answer_status(s, row, caps)
               : uc_sharing_query_answer(s, q, caps);
}

uc_error_t *uc_sharing_async_submit(uc_shared_t *s, uc_sharing_query_t *q,
                                    const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    const char *key, *params, *key_hash;
    uc_sharing_query_row_t *row;
    uc_error_t *err;

    if ((err = idempotency_key(call, &key)))
        return err;
    if (!call->async || !call->recipient_id || !preparable(q))
        return uc_sharing_query_answer(s, q, caps);
    params = submitted_params(call);
    key_hash = sha256_hex(call->pool, key);
    if ((err = known_query(s, key_hash, sha256_hex(call->pool, params),
                           &row)))
        return err;
    /* The same query again: its id, whatever its state, so that its
     * pages are read where its result is. */
    if (row)
        return answer_status(s, row, caps);
    return prepare(s, q, caps, key_hash, params);
}

/* --- poll --------------------------------------------------------------- */

static uc_error_t *query_not_found(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "Query '%s' does not exist or has expired.",
                         call->params[3]);
}

/* The parameters of the query as submitted, with the page the poll asks
 * for: the call's body and capabilities become the submit's. */
static uc_error_t *restore(uc_call_t *call, const uc_sharing_query_row_t *row,
                           uc_sharing_caps_t *caps)
{
    json_t *poll = call->body, *all, *body;
    const char *field[] = { "maxFiles", "pageToken" };
    uc_error_t *err;
    size_t i;

    memset(caps, 0, sizeof(*caps));
    if ((err = uc_json_parse_object(call->pool, row->params,
                                    strlen(row->params), &all)))
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "stored query %s: %s", row->id,
                                err->message);
    body = json_object_get(all, "body");
    for (i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
        json_t *v = poll ? json_object_get(poll, field[i]) : NULL;
        if (v && !json_is_null(v))
            json_object_set(body, field[i], v);
    }
    /* The refresh token comes with the first page only: the later ones are
     * read as a client pages the synchronous query, without asking. */
    if (json_object_get(body, "pageToken"))
        json_object_del(body, "includeRefreshToken");
    call->body = body;
    if ((err = uc_sharing_caps_parse(call->pool, json_string_value(
                                         json_object_get(all,
                                                         "capabilities")),
                                     caps)))
        return err;
    return uc_sharing_fileidhash_parse(call->pool, json_string_value(
                                           json_object_get(all,
                                                           "fileidhash")),
                                       caps);
}

/* Whether this process's thread still reads the query's snapshot. */
static int preparing_here(const uc_call_t *call,
                          const uc_sharing_query_row_t *row)
{
    return !strcmp(row->state, "pending") && row->preparer &&
           call->async && call->async->process &&
           !strcmp(row->preparer, call->async->process) &&
           apr_time_as_msec(call->now) - apr_atoi64(row->created_at)
           < (apr_int64_t)PREPARE_SECONDS * 1000;
}

/* The version the query reads: the one pinned, or the latest now, which
 * is pinned then (unless another process pinned one first). */
static uc_error_t *pin(uc_shared_t *s, const uc_sharing_query_row_t *row,
                       uc_sharing_query_t *q)
{
    uc_call_t *call = s->call;
    const char *version = row->version;
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (!version &&
        ((err = uc_shared_latest(s, &snap)) ||
         (err = uc_sharing_queries_pin(call->store, call->pool, row,
                                       apr_psprintf(call->pool, "%"
                                                    APR_INT64_T_FMT,
                                                    snap->version),
                                       &version))))
        return err;
    q->has_pinned = 1;
    q->pinned = apr_atoi64(version);
    q->query_id = row->id;
    return NULL;
}

uc_error_t *uc_sharing_table_query_poll(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_query_row_t *row = NULL;
    uc_sharing_caps_t caps;
    uc_sharing_query_t q;
    uc_shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = uc_shared_open(call, &s)))
        return err;
    if (call->recipient_id &&
        (err = uc_sharing_queries_get(call->store, call->pool,
                                      call->params[3], call->recipient_id,
                                      s.t->table->id, now_ms(call), &row)))
        return err;
    if (!row)
        return query_not_found(call);
    if ((err = restore(call, row, &caps)))
        return err;
    if (preparing_here(call, row))
        return answer_status(&s, row, &caps);
    if ((err = uc_sharing_query_read(call, &q)) || (err = pin(&s, row, &q)))
        return err;
    return uc_sharing_query_answer(&s, &q, &caps);
}
