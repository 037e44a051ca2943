/* SPDX-License-Identifier: Apache-2.0 */
/* The table of clouds (vend/uc_clouds.h): each scheme and each credential
 * type belongs to one cloud; a cloud with credential types vends for
 * them; a cloud whose tables the server reads has an object store for
 * each of its schemes; and the lookups by URL, scheme and type, the
 * storage URLs the catalog takes and the credentials that reach them all
 * follow the one table. */
#include "uc_test.h"

#include "../../src/objstore/uc_objstore_provider.h"
#include "../../src/vend/uc_clouds.h"
#include "../../src/vend/uc_storage_url.h"

static void test_one_owner(void **state)
{
    apr_pool_t *pool = *state;
    apr_hash_t *schemes = apr_hash_make(pool), *types = apr_hash_make(pool);
    const uc_credential_type_t *t;
    const char *const *s;
    int i, n = 0;

    for (i = 0; uc_clouds[i]; i++, n++) {
        const uc_cloud_t *c = uc_clouds[i];

        assert_non_null(c->name);
        assert_non_null(c->schemes[0]);
        for (s = c->schemes; *s; s++) {
            assert_null(apr_hash_get(schemes, *s, APR_HASH_KEY_STRING));
            apr_hash_set(schemes, *s, APR_HASH_KEY_STRING, c);
            assert_ptr_equal(uc_clouds_of_scheme(*s), c);
            if (c->table_store)
                assert_non_null(uc_objstore_lookup_provider(*s));
        }
        assert_true(!c->types == !c->vend);
        /* Only what a cloud vends can be scoped to a place. */
        assert_true(!c->vend_scoped || c->vend);
        for (t = c->types; t && t->name; t++) {
            const uc_credential_type_t *found = NULL;

            assert_null(apr_hash_get(types, t->name, APR_HASH_KEY_STRING));
            apr_hash_set(types, t->name, APR_HASH_KEY_STRING, c);
            assert_ptr_equal(uc_clouds_of_type(t->name, &found), c);
            assert_ptr_equal(found, t);
        }
    }
    assert_int_equal(n, 5);
    assert_null(uc_clouds_of_scheme("ftp"));
    assert_null(uc_clouds_of_type("ftp_password", NULL));
}

static void test_lookups(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(uc_clouds_of_url("s3://b/x")->name, "aws");
    assert_string_equal(uc_clouds_of_url("abfss://c@a.dfs.core.windows.net/x")
                        ->name, "azure");
    assert_string_equal(uc_clouds_of_url("gs://b/x")->name, "gcp");
    assert_string_equal(uc_clouds_of_url("r2://b@a.r2.cloudflarestorage.com/x")
                        ->name, "cloudflare");
    assert_string_equal(uc_clouds_of_url("file:///srv/x")->name, "file");
    assert_string_equal(uc_clouds_of_url("/srv/x")->name, "file");
    assert_null(uc_clouds_of_url("s3a://b/x"));
    assert_null(uc_clouds_of_url("s3:/b/x"));
    assert_null(uc_clouds_of_url("averyveryverylongscheme://b/x"));
    assert_true(uc_credential_serves("aws_iam_role", "s3://b/x"));
    assert_true(uc_credential_serves("azure_storage_key", "abfss://c@a.x/y"));
    assert_false(uc_credential_serves("aws_iam_role", "gs://b/x"));
    assert_false(uc_credential_serves("aws_iam_role", "file:///x"));
    assert_false(uc_credential_serves("no_such_type", "s3://b/x"));
    assert_string_equal(uc_credential_type_list(pool),
                        "aws_iam_role, azure_service_principal, "
                        "azure_managed_identity, azure_storage_key, "
                        "cloudflare_api_token or "
                        "databricks_gcp_service_account");
    assert_string_equal(uc_clouds_schemes(pool, NULL),
                        "file://, s3://, abfs://, abfss://, r2://, gs://");
}

/* The storage URLs the catalog takes are the clouds', and '@' parts an
 * account from its bucket only where the cloud's hosts do so. */
static void test_locations_follow_the_clouds(void **state)
{
    apr_pool_t *pool = *state;
    const char *out;
    int i;

    for (i = 0; uc_clouds[i]; i++) {
        const char *url = apr_pstrcat(pool, uc_clouds[i]->schemes[0],
                                      uc_clouds[i]->account_in_host
                                      ? "://b@acct.example/x" : "://b/x",
                                      NULL);

        if (!strcmp(uc_clouds[i]->name, "file"))
            url = "file:///b/x";
        assert_ok(uc_storage_url_check(pool, "url", url, &out));
    }
    assert_invalid(uc_storage_url_check(pool, "url", "s3://u@b/x", &out));
    assert_invalid(uc_storage_url_check(pool, "url", "hdfs://b/x", &out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_one_owner),
        UC_POOL_TEST(test_lookups),
        UC_POOL_TEST(test_locations_follow_the_clouds),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("clouds", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
