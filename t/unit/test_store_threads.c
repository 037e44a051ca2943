/* SPDX-License-Identifier: Apache-2.0 */
/* The store in SQLite's multi-thread mode (uc_store_sqlite_setup), its
 * connections lent to threads as mod_dbd lends them under the event MPM,
 * through an apr_reslist: each thread writes schemas in transactions and
 * reads pages through whichever connection it gets, and every row written
 * is read back. make test runs it plain, under AddressSanitizer and under
 * ThreadSanitizer. */
#include "uc_test.h"

#include <apr_reslist.h>
#include <apr_thread_proc.h>

#include "../../src/core/uc_id.h"
#include "../../src/store/uc_securables.h"
#include "../../src/store/uc_store.h"

#define THREADS 6
#define CONNECTIONS 3
#define ROUNDS 30
/* A write that finds the database busy past the store's own wait (503)
 * is tried again, as a client would; this many times at most. */
#define TRIES 20

typedef struct shared {
    uc_test_db_t *db;
    apr_reslist_t *conns;
    const char *catalog_id;
} shared_t;

typedef struct worker {
    shared_t *shared;
    apr_pool_t *pool;
    int index;
    int written;
    int pages;
    const char *failure;
} worker_t;

static apr_status_t conn_open(void **out, void *params, apr_pool_t *pool)
{
    shared_t *shared = params;

    (void)pool;
    *out = uc_test_db_connect(shared->db);
    return APR_SUCCESS;
}

static apr_status_t conn_close(void *conn, void *params, apr_pool_t *pool)
{
    shared_t *shared = params;

    (void)pool;
    uc_test_db_disconnect(shared->db, conn);
    return APR_SUCCESS;
}

static uc_store_t *attach(apr_pool_t *call, uc_test_db_t *db,
                          uc_test_conn_t *c)
{
    uc_store_t *store = NULL;
    uc_error_t *err = uc_store_attach(call, db->driver, c->handle, c->pool,
                                      c->prepared, NULL, NULL, &store);

    return err ? NULL : store;
}

static uc_securable_t *schema(apr_pool_t *pool, const char *parent_id,
                              const char *name)
{
    uc_securable_t *s = apr_pcalloc(pool, sizeof(*s));

    s->id = uc_uuid4(pool);
    s->kind = UC_KIND_SCHEMA;
    s->parent_id = parent_id;
    s->name = name;
    s->owner = s->created_by = s->updated_by = "alice";
    s->created_at = s->updated_at = "1000";
    return s;
}

/* One schema written in a transaction, then the first page read. */
static const char *one_round(worker_t *w, uc_store_t *store, apr_pool_t *call,
                             int round)
{
    const char *name = apr_psprintf(call, "w%d_r%02d", w->index, round);
    apr_array_header_t *rows = NULL;
    uc_page_t page = { 0 };
    uc_error_t *err;
    int more = 0;

    err = uc_store_begin(store);
    if (!err)
        err = uc_store_end(store, uc_securable_insert(
                                      store, schema(call, w->shared->catalog_id,
                                                    name)));
    if (err)
        return err->status == 503 ? "busy" : err->message;
    w->written++;
    page.limit = 50;
    err = uc_securable_page(store, call, w->shared->catalog_id,
                            UC_KIND_SCHEMA, NULL, &page, &rows, &more);
    if (err)
        return err->message;
    if (rows->nelts < 1 || rows->nelts > 50)
        return "a page of the wrong size";
    w->pages++;
    return NULL;
}

static void *APR_THREAD_FUNC work(apr_thread_t *thread, void *data)
{
    worker_t *w = data;
    int round, tries = 0;

    (void)thread;
    for (round = 0; round < ROUNDS && !w->failure;) {
        uc_test_conn_t *c;
        apr_pool_t *call;
        uc_store_t *store;
        const char *failure;

        if (apr_reslist_acquire(w->shared->conns, (void **)&c)
            != APR_SUCCESS) {
            w->failure = "no connection lent";
            break;
        }
        apr_pool_create(&call, w->pool);
        store = attach(call, w->shared->db, c);
        failure = store ? one_round(w, store, call, round) : "attach failed";
        apr_pool_destroy(call);
        apr_reslist_release(w->shared->conns, c);
        if (failure && strcmp(failure, "busy") == 0 && ++tries < TRIES)
            continue;
        w->failure = failure;
        round++;
    }
    return NULL;
}

/* Every schema the threads wrote, counted through one connection. */
static int count_schemas(shared_t *shared, apr_pool_t *pool)
{
    uc_test_conn_t *c = uc_test_db_connect(shared->db);
    apr_pool_t *call;
    uc_store_t *store;
    uc_page_t page = { 0 };
    int total = 0, more = 1;

    apr_pool_create(&call, pool);
    store = attach(call, shared->db, c);
    assert_non_null(store);
    page.limit = 100;
    while (more) {
        apr_array_header_t *rows = NULL;

        assert_ok(uc_securable_page(store, call, shared->catalog_id,
                                    UC_KIND_SCHEMA, NULL, &page, &rows,
                                    &more));
        total += rows->nelts;
        if (rows->nelts)
            page.after = APR_ARRAY_IDX(rows, rows->nelts - 1,
                                       uc_securable_t *)->name;
    }
    apr_pool_destroy(call);
    uc_test_db_disconnect(shared->db, c);
    return total;
}

static void test_threads_share_connections(void **state)
{
    apr_pool_t *pool = *state;
    shared_t shared = { 0 };
    worker_t workers[THREADS];
    apr_thread_t *threads[THREADS];
    uc_test_conn_t *first;
    apr_pool_t *call;
    uc_store_t *store;
    uc_securable_t *catalog;
    apr_status_t rv;
    int i, written = 0;

    shared.db = uc_test_db_create(pool);
    /* The database migrated and the catalog made before the threads. */
    first = uc_test_db_connect(shared.db);
    apr_pool_create(&call, pool);
    store = attach(call, shared.db, first);
    assert_non_null(store);
    catalog = schema(pool, uc_store_metastore_id(store), "cat");
    catalog->kind = UC_KIND_CATALOG;
    assert_ok(uc_securable_insert(store, catalog));
    shared.catalog_id = catalog->id;
    apr_pool_destroy(call);
    uc_test_db_disconnect(shared.db, first);

    /* All connections are opened here, as mod_dbd opens DBDMin of them
     * in child_init; the threads only borrow them. */
    assert_int_equal(apr_reslist_create(&shared.conns, CONNECTIONS,
                                        CONNECTIONS, CONNECTIONS, 0,
                                        conn_open, conn_close, &shared, pool),
                     APR_SUCCESS);
    for (i = 0; i < THREADS; i++) {
        memset(&workers[i], 0, sizeof(workers[i]));
        workers[i].shared = &shared;
        workers[i].index = i;
        apr_pool_create(&workers[i].pool, pool);
    }
    for (i = 0; i < THREADS; i++)
        assert_int_equal(apr_thread_create(&threads[i], NULL, work,
                                           &workers[i], pool), APR_SUCCESS);
    for (i = 0; i < THREADS; i++) {
        apr_thread_join(&rv, threads[i]);
        if (workers[i].failure)
            fail_msg("thread %d: %s", i, workers[i].failure);
        assert_int_equal(workers[i].pages, ROUNDS);
        written += workers[i].written;
    }
    assert_int_equal(written, THREADS * ROUNDS);
    apr_reslist_destroy(shared.conns);
    assert_int_equal(count_schemas(&shared, pool), THREADS * ROUNDS);
    uc_test_db_remove(shared.db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_threads_share_connections),
    };
    int failed;

    /* Before SQLite is first used, as the module's pre_config hook. */
    if (!uc_store_sqlite_setup()) {
        fprintf(stderr, "SQLite refused multi-thread mode\n");
        return 1;
    }
    uc_test_init();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    uc_test_fini();
    return failed;
}
