/* SPDX-License-Identifier: Apache-2.0 */
/* The commit coordinator's rules (uc_commit_plan.h), on a table of rows
 * kept here as the store would keep them: Unity Catalog's own sequences
 * (SdkDeltaCommitsCRUDTest: basic, backfill, limit), then thousands of
 * random requests from writers that replay, race, skip and backfill,
 * checked against what a coordinator must keep true: ratified versions
 * are dense and ratified once, a replay changes nothing, the latest
 * version is never forgotten, the bound holds, a reader is given exactly
 * the commits not backfilled. */
#include "uc_test.h"

#include "../../src/api/uc_commit_plan.h"

typedef struct table {
    apr_array_header_t *rows;      /* uc_ratified_commit_t, oldest first */
} table_t;

static table_t *table_new(apr_pool_t *pool)
{
    table_t *t = apr_pcalloc(pool, sizeof(*t));

    t->rows = apr_array_make(pool, 8, sizeof(uc_ratified_commit_t));
    return t;
}

static const char *file_of(apr_pool_t *pool, apr_int64_t v, int writer)
{
    return apr_psprintf(pool, "%020" APR_INT64_T_FMT ".w%d.json", v, writer);
}

/* A request: commit `v` by `writer` (v 0: none) reporting `b` backfilled
 * (-1: nothing). */
static uc_error_t *request(apr_pool_t *pool, table_t *t, apr_int64_t v,
                           int writer, apr_int64_t b, int limit,
                           uc_commit_plan_t *plan)
{
    uc_ratified_commit_t *c = apr_pcalloc(pool, sizeof(*c));
    uc_commit_request_t req = { v ? c : NULL, b };
    uc_error_t *err;

    c->version = v;
    c->file_name = file_of(pool, v, writer);
    c->timestamp = c->file_mtime = 1700000000000 + v;
    c->file_size = 100;
    err = uc_commit_plan_make(pool, t->rows, &req, limit, plan);
    if (!err)
        t->rows = uc_commit_plan_after(pool, t->rows, c, plan);
    return err;
}

static uc_error_t *commit(apr_pool_t *pool, table_t *t, apr_int64_t v,
                          int writer, apr_int64_t b)
{
    uc_commit_plan_t plan;

    return request(pool, t, v, writer, b, UC_COMMIT_MAX_UNBACKFILLED, &plan);
}

/* "3,2,1": what a reader of [start, end] is given. */
static const char *listed(apr_pool_t *pool, const table_t *t,
                          apr_int64_t start, apr_int64_t end,
                          apr_int64_t *latest)
{
    apr_array_header_t *shown;
    const char *out = "";
    int i;

    uc_commit_plan_listing(pool, t->rows, start, end, &shown, latest);
    for (i = 0; i < shown->nelts; i++)
        out = apr_psprintf(pool, "%s%s%" APR_INT64_T_FMT, out, i ? "," : "",
                           APR_ARRAY_IDX(shown, i,
                                         const uc_ratified_commit_t *)->version);
    return out;
}

static void assert_listed(apr_pool_t *pool, const table_t *t,
                          const char *want, apr_int64_t want_latest)
{
    apr_int64_t latest;

    assert_string_equal(listed(pool, t, 0, -1, &latest), want);
    assert_int_equal(latest, want_latest);
}

static void test_basic(void **state)
{
    apr_pool_t *pool = *state;
    table_t *t = table_new(pool);
    apr_int64_t latest;
    uc_commit_plan_t plan;
    uc_error_t *err;

    assert_listed(pool, t, "", 0);
    assert_invalid(commit(pool, t, 2, 1, -1));
    assert_ok(commit(pool, t, 1, 1, 0));
    assert_ok(request(pool, t, 1, 1, 0, 10, &plan));
    assert_true(plan.replay && !plan.insert);
    err = commit(pool, t, 1, 2, -1);
    assert_err(err, 409, "COMMIT_VERSION_CONFLICT");
    assert_contains(err->message, ".w1.json");
    err = commit(pool, t, 3, 1, -1);
    assert_invalid(err);
    assert_contains(err->message, "latest commit 1, but got 3");
    assert_ok(commit(pool, t, 2, 1, -1));
    assert_ok(commit(pool, t, 3, 1, -1));
    assert_listed(pool, t, "3,2,1", 3);
    assert_string_equal(listed(pool, t, 2, -1, &latest), "3,2");
    assert_string_equal(listed(pool, t, 2, 2, &latest), "2");
    assert_ok(request(pool, t, 1, 1, -1, 10, &plan));
    assert_true(plan.replay);
    assert_err(commit(pool, t, 1, 2, -1), 409, "COMMIT_VERSION_CONFLICT");
    assert_ok(commit(pool, t, 4, 1, 1));
    assert_listed(pool, t, "4,3,2", 4);
    assert_ok(commit(pool, t, 0, 0, 1));
    assert_listed(pool, t, "4,3,2", 4);
    assert_ok(commit(pool, t, 0, 0, 4));
    assert_listed(pool, t, "", 4);
    assert_ok(request(pool, t, 4, 1, -1, 10, &plan));
    assert_true(plan.replay);
    assert_err(commit(pool, t, 2, 1, -1), 500, "COMMIT_STATE_UNKNOWN");
}

static void test_backfill(void **state)
{
    apr_pool_t *pool = *state;
    table_t *t = table_new(pool);
    uc_error_t *err;
    int v;

    assert_invalid(commit(pool, t, 0, 0, 0));
    for (v = 1; v <= 5; v++)
        assert_ok(commit(pool, t, v, 1, -1));
    assert_ok(commit(pool, t, 0, 0, 2));
    assert_listed(pool, t, "5,4,3", 5);
    err = commit(pool, t, 0, 0, 9);
    assert_invalid(err);
    assert_contains(err->message, "backfill version 9 while the last version "
                    "committed is 5");
    err = commit(pool, t, 6, 1, 6);
    assert_invalid(err);
    assert_contains(err->message, "Latest backfilled version 6 cannot be "
                    "greater than the last commit version = 5");
    assert_ok(commit(pool, t, 0, 0, 4));
    assert_listed(pool, t, "5", 5);
    assert_ok(commit(pool, t, 0, 0, 5));
    assert_listed(pool, t, "", 5);
    assert_int_equal(t->rows->nelts, 1);
    assert_ok(commit(pool, t, 6, 1, -1));
    assert_listed(pool, t, "6", 6);
    /* A commit reporting what was backfilled before it. */
    assert_ok(commit(pool, t, 7, 1, 6));
    assert_listed(pool, t, "7", 7);
}

static void test_limit(void **state)
{
    apr_pool_t *pool = *state;
    table_t *t = table_new(pool);
    int v;

    for (v = 1; v <= 10; v++)
        assert_ok(commit(pool, t, v, 1, -1));
    assert_err(commit(pool, t, 11, 1, -1), 429, "RESOURCE_EXHAUSTED");
    assert_ok(commit(pool, t, 0, 0, 6));
    for (v = 11; v <= 16; v++)
        assert_ok(commit(pool, t, v, 1, -1));
    assert_err(commit(pool, t, 17, 1, -1), 429, "RESOURCE_EXHAUSTED");
    assert_ok(commit(pool, t, 0, 0, 16));
    /* Backfilled to the latest: ten more, the flagged row not counted. */
    for (v = 17; v <= 26; v++)
        assert_ok(commit(pool, t, v, 1, -1));
    assert_err(commit(pool, t, 27, 1, -1), 429, "RESOURCE_EXHAUSTED");
    /* The report that comes with a commit counts for it. */
    assert_ok(commit(pool, t, 27, 1, 20));
}

/* Writers that race, replay, skip ahead and backfill at random, each
 * request checked against what the coordinator must keep true. */
static void test_random_writers(void **state)
{
    apr_pool_t *pool = *state;
    table_t *t = table_new(pool);
    apr_hash_t *winner = apr_hash_make(pool);   /* version → its file */
    apr_int64_t latest = 0, published = 0;
    int i, limit = 4;

    srand(8);
    for (i = 0; i < 20000; i++) {
        int writer = 1 + rand() % 3, kind = rand() % 10;
        apr_int64_t v = latest + 1 - (kind == 0 ? rand() % 3 : 0)
                        + (kind == 1);
        apr_int64_t b = kind >= 7 ? published : -1;
        const char *won;
        uc_commit_plan_t plan;
        uc_error_t *err;

        if (kind == 9 && published < latest)
            published += 1 + rand() % (latest - published);
        if (kind == 8) {
            err = request(pool, t, 0, 0, published, limit, &plan);
            if (latest == 0)
                assert_invalid(err);
            else
                assert_ok(err);
            continue;
        }
        if (v < 1)
            v = 1;
        err = request(pool, t, v, writer, b, limit, &plan);
        won = apr_hash_get(winner, &v, sizeof(v));
        if (v == latest + 1 && err) {
            /* Refused only past the bound. */
            assert_err(err, 429, "RESOURCE_EXHAUSTED");
            published = latest;
            assert_ok(request(pool, t, 0, 0, published, limit, &plan));
        }
        else if (v == latest + 1) {
            apr_int64_t *key = apr_pmemdup(pool, &v, sizeof(v));

            assert_true(plan.insert);
            apr_hash_set(winner, key, sizeof(*key), file_of(pool, v, writer));
            latest = v;
        }
        else if (v > latest + 1)
            assert_invalid(err);
        else if (!err)
            assert_true(plan.replay && won &&
                        !strcmp(won, file_of(pool, v, writer)));
        else if (err->status == 409)
            assert_true(won && strcmp(won, file_of(pool, v, writer)));
        else
            assert_err(err, 500, "COMMIT_STATE_UNKNOWN");
        /* The rows: contiguous up to the latest, which is never
         * forgotten, each holding its winner; no more than `limit` wait. */
        if (latest) {
            const uc_ratified_commit_t *first =
                &APR_ARRAY_IDX(t->rows, 0, uc_ratified_commit_t);
            int r, waiting = 0;

            for (r = 0; r < t->rows->nelts; r++) {
                const uc_ratified_commit_t *row =
                    &APR_ARRAY_IDX(t->rows, r, uc_ratified_commit_t);
                apr_int64_t rv = row->version;

                assert_int_equal(rv, first->version + r);
                assert_string_equal(row->file_name,
                                    apr_hash_get(winner, &rv, sizeof(rv)));
                waiting += !row->backfilled;
            }
            assert_int_equal(first->version + r - 1, latest);
            assert_true(waiting <= limit);
        }
    }
    assert_true(latest > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_basic),
        UC_POOL_TEST(test_backfill),
        UC_POOL_TEST(test_limit),
        UC_POOL_TEST(test_random_writers),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("commit_plan", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
