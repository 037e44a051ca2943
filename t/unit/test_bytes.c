/* SPDX-License-Identifier: Apache-2.0 */
/* Bytes as text (uc_bytes.h): hex digits, sixteen bytes of which are
 * encoded at once, agree with the C library's for every byte at every
 * offset of every length a block can start, end or stop short in; base64
 * round trips. */
#include "uc_test.h"

#include "../../src/core/uc_bytes.h"

#define MAX_BYTES 40

static void test_hex_every_byte_at_every_offset(void **state)
{
    unsigned char bytes[MAX_BYTES];
    char got[2 * MAX_BYTES + 2], want[2 * MAX_BYTES + 1];
    apr_size_t n, at, i;
    int b;

    (void)state;
    for (n = 0; n <= MAX_BYTES; n++)
        for (b = 0; b < 256; b++)
            for (at = 0; at < (n ? n : 1); at++) {
                for (i = 0; i < n; i++)
                    bytes[i] = (unsigned char)(i * 37 + 11);
                if (n)
                    bytes[at] = (unsigned char)b;
                for (i = 0; i < n; i++)
                    sprintf(want + 2 * i, "%02x", bytes[i]);
                want[2 * n] = '\0';
                memset(got, '#', sizeof(got));
                uc_hex_encode(bytes, n, got);
                if (strcmp(got, want) != 0)
                    fail_msg("%u bytes, %d at %u: %s, not %s", (unsigned)n,
                             b, (unsigned)at, got, want);
                /* Nothing written past the NUL. */
                assert_int_equal(got[2 * n + 1], '#');
            }
}

static void test_base64_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    unsigned char bytes[MAX_BYTES], *back;
    apr_size_t n, len, i;

    for (n = 0; n <= MAX_BYTES; n++) {
        for (i = 0; i < n; i++)
            bytes[i] = (unsigned char)(255 - i * 7);
        assert_int_equal(uc_base64_decode(pool, uc_base64_encode(pool, bytes,
                                                                 n),
                                          &back, &len), 0);
        assert_int_equal(len, n);
        assert_memory_equal(back, bytes, n);
        assert_int_equal(uc_base64url_decode(
                             pool, uc_base64url_encode(pool, bytes, n),
                             &back, &len), 0);
        assert_int_equal(len, n);
        assert_memory_equal(back, bytes, n);
    }
    assert_string_equal(uc_base64url_encode(pool, (const unsigned char *)
                                            "\xfb\xff", 2), "-_8");
    assert_int_equal(uc_base64_decode(pool, "abc", &back, &len), -1);
    /* base64url as it is written: no padding, no '+' or '/', no length
     * of 4k+1. */
    assert_int_equal(uc_base64url_decode(pool, "-_8", &back, &len), 0);
    assert_memory_equal(back, "\xfb\xff", 2);
    assert_int_equal(uc_base64url_decode(pool, "-_8=", &back, &len), -1);
    assert_int_equal(uc_base64url_decode(pool, "+/8", &back, &len), -1);
    assert_int_equal(uc_base64url_decode(pool, "abcde", &back, &len), -1);
    assert_int_equal(uc_base64url_decode(pool, "ab c", &back, &len), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_every_byte_at_every_offset),
        UC_POOL_TEST(test_base64_round_trip),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("bytes", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
