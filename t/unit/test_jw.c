/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON writer: separators, escaping, integers from text, embedded
 * jansson values, and that every output parses back. */
#include "uc_test.h"

#include <jansson.h>

#include "../../src/core/uc_jw.h"

static const char *text(uc_jw_t *w)
{
    return apr_pstrmemdup(w->pool, w->buf, w->len);
}

static void assert_parses(uc_jw_t *w)
{
    json_error_t err;
    json_t *v = json_loadb(w->buf, w->len, JSON_DECODE_ANY, &err);

    if (!v)
        fail_msg("not JSON (%s): %s", err.text, text(w));
    json_decref(v);
}

static void test_nesting_and_separators(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 1);   /* forces growth */

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "a", "x");
    uc_jw_key(w, "list");
    uc_jw_begin_array(w);
    uc_jw_int(w, 1);
    uc_jw_begin_object(w);
    uc_jw_end_object(w);
    uc_jw_begin_array(w);
    uc_jw_end_array(w);
    uc_jw_null(w);
    uc_jw_bool(w, 1);
    uc_jw_bool(w, 0);
    uc_jw_end_array(w);
    uc_jw_field_raw(w, "raw", "{\"k\":\"v\"}");
    uc_jw_field_string(w, "none", NULL);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"a\":\"x\",\"list\":[1,{},[],null,true,"
                                 "false],\"raw\":{\"k\":\"v\"},\"none\":null}");
    assert_parses(w);
}

static void test_escaping(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 64);

    uc_jw_string(w, "q\"b\\s/\n\t\r\x01\x1f");
    assert_string_equal(text(w), "\"q\\\"b\\\\s/\\n\\t\\r\\u0001\\u001f\"");
    uc_jw_reset(w);
    uc_jw_string(w, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    assert_string_equal(text(w), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    assert_parses(w);
}

/* Every byte at every offset of a long plain run (the eight-byte scan's
 * words and the tail after them) is escaped as it is alone. */
static void test_escaping_in_runs(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 64), *alone = uc_jw_make(*state, 64);
    char s[24];
    int b, at;

    for (b = 0; b < 256; b++)
        for (at = 0; at < (int)sizeof(s); at++) {
            memset(s, 'a', sizeof(s));
            s[at] = (char)b;
            uc_jw_reset(w);
            uc_jw_string_n(w, s, sizeof(s));
            uc_jw_reset(alone);
            uc_jw_string_n(alone, s + at, 1);
            /* The run around the byte, then the byte as it is escaped
             * alone (without the quotes of its own string). */
            assert_int_equal(w->len, alone->len + sizeof(s) - 1);
            assert_memory_equal(w->buf + 1 + at, alone->buf + 1,
                                alone->len - 2);
            assert_memory_equal(w->buf + 1, s, (size_t)at);
        }
}

/* Two bytes to escape at every pair of offsets of a run (sixteen bytes
 * are scanned at once, and may hold several): the text decodes back to
 * itself, each byte escaped as it is alone. */
static void test_escaping_pairs(void **state)
{
    static const char special[] = { '"', '\\', '\n', '\x01' };
    uc_jw_t *w = uc_jw_make(*state, 64);
    char s[40];
    int i, j, a, b;

    for (i = 0; i < (int)sizeof(s); i++)
        for (j = i + 1; j < (int)sizeof(s); j++)
            for (a = 0; a < 4; a++)
                for (b = 0; b < 4; b++) {
                    json_t *v;
                    apr_size_t want = sizeof(s) + 2;

                    memset(s, 'a', sizeof(s));
                    s[i] = special[a];
                    s[j] = special[b];
                    want += a == 3 ? 5 : 1;
                    want += b == 3 ? 5 : 1;
                    uc_jw_reset(w);
                    uc_jw_string_n(w, s, sizeof(s));
                    assert_int_equal(w->len, want);
                    v = json_loadb(w->buf, w->len, JSON_DECODE_ANY, NULL);
                    assert_non_null(v);
                    assert_int_equal(json_string_length(v), sizeof(s));
                    assert_memory_equal(json_string_value(v), s, sizeof(s));
                    json_decref(v);
                }
}

/* A long string is escaped in pieces: a UTF-8 sequence across the edge
 * of one stays whole, and so does every escape. */
static void test_escaping_long_text(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 64);
    char s[10001];
    int i;

    s[0] = 'x';
    for (i = 1; i + 1 < (int)sizeof(s); i += 2)
        memcpy(s + i, "\xc3\xa9", 2);
    uc_jw_string_n(w, s, sizeof(s));
    assert_int_equal(w->len, sizeof(s) + 2);
    assert_memory_equal(w->buf + 1, s, sizeof(s));
    memset(s, '"', sizeof(s));
    uc_jw_reset(w);
    uc_jw_string_n(w, s, sizeof(s));
    assert_int_equal(w->len, 2 * sizeof(s) + 2);
    assert_parses(w);
}

static void test_invalid_utf8_replaced(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 64);

    /* A lone continuation byte, a truncated sequence, an overlong '/', a
     * surrogate: each becomes U+FFFD and the output stays valid. */
    uc_jw_string(w, "a\x80" "b\xc3" "c\xc0\xaf" "d\xed\xa0\x80" "e");
    assert_parses(w);
    assert_non_null(strstr(text(w), "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c"));
    assert_null(strchr(text(w), 0x80));
}

static void test_int_text(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 64);

    uc_jw_begin_array(w);
    uc_jw_int_text(w, "1795990814393");
    uc_jw_int_text(w, "-7");
    uc_jw_int_text(w, NULL);
    uc_jw_int_text(w, "");
    uc_jw_int_text(w, "12a");
    uc_jw_int_text(w, "-");
    uc_jw_int(w, -9223372036854775807LL - 1);
    uc_jw_end_array(w);
    assert_string_equal(text(w), "[1795990814393,-7,null,null,null,null,"
                                 "-9223372036854775808]");
}

/* Digits two at a time: every count of digits, both sides of each power
 * of ten, and the extremes, as the C library writes them. */
static void test_digits(void **state)
{
    apr_pool_t *pool = *state;
    apr_int64_t values[200], power = 1;
    int n = 0, i;

    values[n++] = 0;
    values[n++] = INT64_MAX;
    values[n++] = INT64_MIN;
    for (i = 0; i < 19; i++) {
        values[n++] = power - 1;
        values[n++] = power;
        values[n++] = power + 1;
        values[n++] = power * 3 + 7;
        values[n++] = -power;
        values[n++] = -(power * 9 + 1);
        if (i < 18)
            power *= 10;
    }
    for (i = 0; i < n; i++) {
        uc_jw_t *w = uc_jw_make(pool, 8);
        char want[32];

        uc_jw_text_n(w, "x", 1);
        uc_jw_digits(w, values[i]);
        snprintf(want, sizeof(want), "x%" APR_INT64_T_FMT, values[i]);
        assert_string_equal(text(w), want);
    }
    for (i = 0; i < 1000; i++) {
        uc_jw_t *w = uc_jw_make(pool, 8);
        char want[16];

        uc_jw_digits(w, i);
        snprintf(want, sizeof(want), "%d", i);
        assert_string_equal(text(w), want);
    }
}

static void test_embedded_jansson(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 8);
    json_t *v = json_pack("{s[iis]}", "k", 1, 2, "three");

    uc_jw_begin_array(w);
    uc_jw_json(w, v);
    uc_jw_string(w, "after");
    uc_jw_end_array(w);
    json_decref(v);
    assert_string_equal(text(w), "[{\"k\":[1,2,\"three\"]},\"after\"]");
}

static void test_reset(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 8);

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "half", "way");
    uc_jw_reset(w);
    assert_int_equal(w->len, 0);
    uc_jw_begin_array(w);
    uc_jw_int(w, 1);
    uc_jw_end_array(w);
    assert_string_equal(text(w), "[1]");
}

static void test_large_page(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 16);
    int i;

    uc_jw_begin_object(w);
    uc_jw_key(w, "items");
    uc_jw_begin_array(w);
    for (i = 0; i < 5000; i++) {
        uc_jw_begin_object(w);
        uc_jw_field_string(w, "name", apr_psprintf(*state, "n%04d", i));
        uc_jw_field_int_text(w, "at", "123");
        uc_jw_end_object(w);
    }
    uc_jw_end_array(w);
    uc_jw_end_object(w);
    assert_parses(w);
    assert_true(w->len > 5000 * 20);
}

/* Stored members spliced into an object, with or without some keys; the
 * scan is not fooled by brackets, commas and quotes inside values. */
static void test_members(void **state)
{
    uc_jw_t *w = uc_jw_make(*state, 16);
    static const char stored[] =
        "{\"a\":\"x,}\\\"{\",\"b\":[1,{\"c\":\"]\"}],\"d\":null,"
        "\"e\":{\"f\":[]},\"g\":-1.5e3}";
    static const char *const no_b[] = { "b", NULL };
    static const char *const no_ends[] = { "a", "g", "zz", NULL };
    static const char *const all[] = { "a", "b", "d", "e", "g", NULL };
    static const char *const no_nested[] = { "c", "x", "zz", NULL };

    uc_jw_begin_object(w);
    uc_jw_field_string(w, "first", "1");
    uc_jw_members(w, stored, NULL);
    uc_jw_field_string(w, "last", "2");
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"first\":\"1\",\"a\":\"x,}\\\"{\","
                        "\"b\":[1,{\"c\":\"]\"}],\"d\":null,\"e\":{\"f\":[]},"
                        "\"g\":-1.5e3,\"last\":\"2\"}");
    assert_parses(w);

    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, stored, no_b);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"a\":\"x,}\\\"{\",\"d\":null,"
                        "\"e\":{\"f\":[]},\"g\":-1.5e3}");
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, stored, no_ends);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"b\":[1,{\"c\":\"]\"}],\"d\":null,"
                        "\"e\":{\"f\":[]}}");
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, stored, all);
    uc_jw_field_string(w, "only", "me");
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"only\":\"me\"}");

    /* Keys named only inside values ("c" in a nested object, "x" a
     * string value) or nowhere ("zz") leave every member in. */
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, stored, no_nested);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"a\":\"x,}\\\"{\",\"b\":[1,{\"c\":\"]\"}],"
                        "\"d\":null,\"e\":{\"f\":[]},\"g\":-1.5e3}");
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, "{\"a\":\"x\",\"b\":{\"c\":1}}", no_nested);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{\"a\":\"x\",\"b\":{\"c\":1}}");

    /* Nothing to splice, and text that is no object, add nothing. */
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_members(w, "{}", NULL);
    uc_jw_members(w, "{}", no_b);
    uc_jw_members(w, NULL, NULL);
    uc_jw_members(w, "[1]", NULL);
    uc_jw_members(w, "{\"cut\":", no_b);
    uc_jw_members(w, "{\"cut", no_b);
    uc_jw_end_object(w);
    assert_string_equal(text(w), "{}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_nesting_and_separators),
        UC_POOL_TEST(test_escaping),
        UC_POOL_TEST(test_escaping_in_runs),
        UC_POOL_TEST(test_escaping_pairs),
        UC_POOL_TEST(test_escaping_long_text),
        UC_POOL_TEST(test_invalid_utf8_replaced),
        UC_POOL_TEST(test_int_text),
        UC_POOL_TEST(test_digits),
        UC_POOL_TEST(test_embedded_jansson),
        UC_POOL_TEST(test_reset),
        UC_POOL_TEST(test_large_page),
        UC_POOL_TEST(test_members),
    };
    uc_test_init();
    {
        int rc = cmocka_run_group_tests_name("jw", tests, NULL, NULL);
        uc_test_fini();
        return rc;
    }
}
