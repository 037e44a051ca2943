/* SPDX-License-Identifier: Apache-2.0 */
/* The tables of uc_hash.h: every key found again whatever its length (the
 * hash reads eight bytes a step, then the rest), keys given with their
 * length as well as NUL-ended, keys that differ only past eight bytes or
 * only in length kept apart, and the count and iteration of APR's table
 * unchanged. */
#include "uc_test.h"

#include <apr_strings.h>

#include "../../src/core/uc_hash.h"

static void test_every_length_found(void **state)
{
    apr_pool_t *pool = *state;
    apr_hash_t *h = uc_hash_make(pool);
    char key[41];
    int n, seen = 0;
    apr_hash_index_t *hi;

    uc_hash_seed();
    for (n = 0; n <= 40; n++) {
        memset(key, 'k', (size_t)n);
        key[n] = '\0';
        apr_hash_set(h, apr_pstrdup(pool, key), APR_HASH_KEY_STRING,
                     apr_itoa(pool, n));
    }
    assert_int_equal(apr_hash_count(h), 41);
    for (n = 0; n <= 40; n++) {
        memset(key, 'k', (size_t)n);
        key[n] = '\0';
        assert_string_equal(apr_hash_get(h, key, APR_HASH_KEY_STRING),
                            apr_itoa(pool, n));
        assert_string_equal(apr_hash_get(h, key, n), apr_itoa(pool, n));
    }
    for (hi = apr_hash_first(pool, h); hi; hi = apr_hash_next(hi))
        seen++;
    assert_int_equal(seen, 41);
}

static void test_late_differences_kept_apart(void **state)
{
    apr_pool_t *pool = *state;
    apr_hash_t *h = uc_hash_make(pool);
    const char *a = "0f5c2a1e-7b3d-4c8e-9a6f-1d2e3f4a5b6c";
    const char *b = "0f5c2a1e-7b3d-4c8e-9a6f-1d2e3f4a5b6d";

    apr_hash_set(h, a, APR_HASH_KEY_STRING, "a");
    apr_hash_set(h, b, APR_HASH_KEY_STRING, "b");
    apr_hash_set(h, "schema/x", 6, "prefix");
    assert_string_equal(apr_hash_get(h, a, APR_HASH_KEY_STRING), "a");
    assert_string_equal(apr_hash_get(h, b, APR_HASH_KEY_STRING), "b");
    assert_string_equal(apr_hash_get(h, "schema", APR_HASH_KEY_STRING),
                        "prefix");
    assert_null(apr_hash_get(h, "schema/x", APR_HASH_KEY_STRING));
    assert_null(apr_hash_get(h, "0f5c2a1e-7b3d-4c8e-9a6f-1d2e3f4a5b6e",
                             APR_HASH_KEY_STRING));
    assert_int_equal(apr_hash_count(h), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_every_length_found),
        UC_POOL_TEST(test_late_differences_kept_apart),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("hash", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
