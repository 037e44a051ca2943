/* SPDX-License-Identifier: Apache-2.0 */
/* Percent-encoding and decoding (uc_percent.h): every byte at every
 * offset of a run of unreserved ones (sixteen are judged at once) is
 * encoded as it is alone, kept characters stay, and decoding gives the
 * text back. */
#include "uc_test.h"

#include "../../src/core/uc_percent.h"

/* The rule, a byte at a time. */
static const char *encoded_alone(apr_pool_t *pool, unsigned char c,
                                 const char *keep)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
        c == '~' || (c && strchr(keep, c)))
        return apr_psprintf(pool, "%c", c);
    return apr_psprintf(pool, "%%%02X", c);
}

static void test_every_byte_at_every_offset(void **state)
{
    apr_pool_t *pool = *state;
    char s[40];
    int b, at;

    for (b = 0; b < 256; b++)
        for (at = 0; at < (int)sizeof(s); at++) {
            const char *want;
            char *got;

            memset(s, 'a', sizeof(s));
            s[at] = (char)b;
            want = apr_pstrcat(pool, apr_pstrndup(pool, s, (apr_size_t)at),
                               encoded_alone(pool, (unsigned char)b, "/"),
                               apr_pstrndup(pool, s + at + 1,
                                            sizeof(s) - (apr_size_t)at - 1),
                               NULL);
            got = uc_percent_encode(pool, s, sizeof(s), "/");
            if (strcmp(got, want) != 0)
                fail_msg("byte %d at %d: %s, not %s", b, at, got, want);
        }
}

static void test_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    const char *path = "p=1/part-00001 a=b~x_y.snappy.parquet/caf\xc3\xa9"
                       "/0123456789abcdefABCDEF-0123456789abcdef.parquet";
    const char *enc = uc_percent_encode(pool, path, strlen(path), "/");

    assert_string_equal(enc, "p%3D1/part-00001%20a%3Db~x_y.snappy.parquet/"
                        "caf%C3%A9/0123456789abcdefABCDEF-0123456789abcdef"
                        ".parquet");
    assert_string_equal(uc_percent_decode(pool, enc), path);
    assert_null(uc_percent_decode(pool, "a%00b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_every_byte_at_every_offset),
        UC_POOL_TEST(test_round_trip),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("percent", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
