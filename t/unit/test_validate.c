/* SPDX-License-Identifier: Apache-2.0 */
/* Identifiers, full names, storage URLs and query booleans. */
#include "uc_test.h"

#include "../../src/core/uc_id.h"
#include "../../src/core/uc_validate.h"
#include "../../src/vend/uc_storage_url.h"

static const char *name_ok(apr_pool_t *pool, const char *name)
{
    const char *out = NULL;
    uc_error_t *err = uc_validate_name(pool, "name", name, &out);
    if (err)
        fail_msg("name '%s' refused: %s", name, err->message);
    assert_non_null(out);
    return out;
}

static void name_bad(apr_pool_t *pool, const char *name)
{
    const char *out = "untouched";
    uc_error_t *err = uc_validate_name(pool, "catalog name", name, &out);
    if (!err)
        fail_msg("name '%s' accepted as '%s'", name, out);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_contains(err->message, "catalog name");
}

static void test_name_valid(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(name_ok(pool, "abc"), "abc");
    assert_string_equal(name_ok(pool, "a_b"), "a_b");
    assert_string_equal(name_ok(pool, "a__b"), "a__b");
    assert_string_equal(name_ok(pool, "a1"  "0"), "a10");
    assert_string_equal(name_ok(pool, "abc_123"), "abc_123");
    assert_string_equal(name_ok(pool, "z9z"), "z9z");
}

static void test_name_lowercase(void **state)
{
    apr_pool_t *pool = *state;
    const char *in = "MyCatalog_1";
    const char *out = name_ok(pool, in);

    assert_string_equal(out, "mycatalog_1");
    /* The input is not modified in place. */
    assert_string_equal(in, "MyCatalog_1");
    assert_string_equal(name_ok(pool, "ABC"), "abc");
    assert_string_equal(name_ok(pool, "A_B_C"), "a_b_c");
}

static void test_name_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "", "a", "ab",                /* too short */
        "1ab", "_ab", "9_a",          /* first character */
        "ab_", "abc_",                /* last character */
        "a-b", "a.b", "a b", "a/b", "a%b", "ab\xc3\xa9", "caf\xc3\xa9s",
        "a\tb", "abc\n", "a$b", "a*b", "\xc3\xa9t\xc3\xa9",
        NULL
    };
    int i;

    for (i = 0; bad[i]; i++)
        name_bad(pool, bad[i]);
}

static void test_name_length(void **state)
{
    apr_pool_t *pool = *state;
    char buf[UC_NAME_MAX + 2];

    memset(buf, 'a', UC_NAME_MAX);
    buf[UC_NAME_MAX] = '\0';
    assert_int_equal(strlen(name_ok(pool, buf)), UC_NAME_MAX);
    buf[UC_NAME_MAX] = 'b';
    buf[UC_NAME_MAX + 1] = '\0';
    name_bad(pool, buf);
    assert_string_equal(name_ok(pool, "ab1"), "ab1");
}

static void test_name_with(void **state)
{
    apr_pool_t *pool = *state;
    const char *out = NULL;

    assert_ok(uc_validate_name_with(pool, "provider_name", "My-Provider_1",
                                    "_-", &out));
    assert_string_equal(out, "my-provider_1");
    assert_ok(uc_validate_name_with(pool, "provider_name", "a--b", "_-",
                                    &out));
    assert_string_equal(out, "a--b");
    /* '-' is still an inner character only. */
    assert_invalid(uc_validate_name_with(pool, "provider_name", "-ab", "_-",
                                         &out));
    assert_invalid(uc_validate_name_with(pool, "provider_name", "ab-", "_-",
                                         &out));
    assert_invalid(uc_validate_name_with(pool, "provider_name", "a.b", "_-",
                                         &out));
    assert_invalid(uc_validate_name_with(pool, "provider_name", "ab", "_-",
                                         &out));
    /* Without '-' in the set it is refused, and plain names refuse it. */
    assert_invalid(uc_validate_name_with(pool, "x", "a-b", "_", &out));
    assert_invalid(uc_validate_name(pool, "x", "a-b", &out));
    {
        uc_error_t *err = uc_validate_name_with(pool, "provider_name",
                                                "a b", "_-", &out);
        assert_invalid(err);
        assert_contains(err->message, "provider_name");
    }
}

/* Tag keys and values: any UTF-8 but a few characters, kept as given. */
static void test_tag_text(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const good[] = {
        "pii", "PII Level", "caf\xc3\xa9", "cost-center:eu", "a", "x_1 y",
        NULL
    };
    static const char *const bad[] = {
        "", " lead", "trail ", "a.b", "a/b", "a*b", "a<b", "a>b", "a%b",
        "a&b", "a?b", "a\\b", "a=b", "a\tb", "a\x7f", "a\xc2\x85", "\xff",
        "caf\xc3", NULL
    };
    char long_text[258];
    int i;

    for (i = 0; good[i]; i++)
        assert_null(uc_validate_tag_text(pool, "tag_key", good[i]));
    for (i = 0; bad[i]; i++)
        if (!uc_validate_tag_text(pool, "tag_key", bad[i]))
            fail_msg("tag text '%s' accepted", bad[i]);
    memset(long_text, 'k', 256);
    long_text[256] = '\0';
    assert_null(uc_validate_tag_text(pool, "tag_key", long_text));
    long_text[256] = 'k';
    long_text[257] = '\0';
    assert_err(uc_validate_tag_text(pool, "tag_key", long_text), 400,
               "INVALID_PARAMETER_VALUE");
}

static void test_full_name(void **state)
{
    apr_pool_t *pool = *state;
    const char *names[3] = { NULL, NULL, NULL };

    assert_ok(uc_validate_full_name(pool, "full_name", "Cat.Sch", 2, names));
    assert_string_equal(names[0], "cat");
    assert_string_equal(names[1], "sch");

    memset(names, 0, sizeof(names));
    assert_ok(uc_validate_full_name(pool, "full_name", "main.default.TBL_1",
                                    3, names));
    assert_string_equal(names[0], "main");
    assert_string_equal(names[1], "default");
    assert_string_equal(names[2], "tbl_1");
}

static void test_full_name_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *name; int parts; } bad[] = {
        { "main", 2 }, { "main.a.b", 2 }, { "main.default", 3 },
        { "a.b.c.d", 3 }, { "main.", 2 }, { ".main", 2 }, { "main..x", 3 },
        { "..", 3 }, { ".", 2 }, { "", 2 }, { "main.default.", 3 },
        { "main.x", 2 },      /* second part too short */
        { "main.de-f", 2 },   /* second part invalid */
        { "1ab.abc", 2 },     /* first part invalid */
        { NULL, 0 }
    };
    int i;

    for (i = 0; bad[i].name; i++) {
        const char *names[4] = { NULL, NULL, NULL, NULL };
        uc_error_t *err = uc_validate_full_name(pool, "schema full name",
                                                bad[i].name, bad[i].parts,
                                                names);
        if (!err)
            fail_msg("full name '%s' (%d parts) accepted", bad[i].name,
                     bad[i].parts);
        assert_invalid(err);
        assert_contains(err->message, "schema full name");
        /* Never writes beyond the requested parts. */
        assert_null(names[bad[i].parts]);
    }
}

static const char *url_ok(apr_pool_t *pool, const char *url)
{
    const char *out = NULL;
    uc_error_t *err = uc_storage_url_check(pool, "storage_root", url, &out);
    if (err)
        fail_msg("url '%s' refused: %s", url, err->message);
    assert_non_null(out);
    return out;
}

static void url_bad(apr_pool_t *pool, const char *url)
{
    const char *out = "untouched";
    uc_error_t *err = uc_storage_url_check(pool, "storage_root", url, &out);
    if (!err)
        fail_msg("url '%s' accepted as '%s'", url, out);
    assert_invalid(err);
    assert_contains(err->message, "storage_root");
}

static void test_url_normalise(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(url_ok(pool, "/tmp/data"), "file:///tmp/data");
    assert_string_equal(url_ok(pool, "/tmp//data///x/"), "file:///tmp/data/x");
    assert_string_equal(url_ok(pool, "/tmp/data/"), "file:///tmp/data");
    assert_string_equal(url_ok(pool, "file:///tmp/data"), "file:///tmp/data");
    assert_string_equal(url_ok(pool, "file:///tmp//data//"),
                        "file:///tmp/data");
    assert_string_equal(url_ok(pool, "s3://bucket/path/to"),
                        "s3://bucket/path/to");
    assert_string_equal(url_ok(pool, "s3://bucket//path///to//"),
                        "s3://bucket/path/to");
    assert_string_equal(url_ok(pool, "s3://b/"), "s3://b");
    assert_string_equal(url_ok(pool, "s3://b"), "s3://b");
    assert_string_equal(url_ok(pool, "s3://b//"), "s3://b");
    assert_string_equal(url_ok(pool, "gs://bucket/a/"), "gs://bucket/a");
    assert_string_equal(url_ok(pool, "abfs://c@acct.dfs.core.windows.net/p/"),
                        "abfs://c@acct.dfs.core.windows.net/p");
    assert_string_equal(url_ok(pool, "abfss://c@acct.dfs.core.windows.net/p"),
                        "abfss://c@acct.dfs.core.windows.net/p");
    /* Scheme and bucket are case-insensitive and come back lower-cased;
     * the path keeps its case. */
    assert_string_equal(url_ok(pool, "S3://Bucket/Path"), "s3://bucket/Path");
    assert_string_equal(url_ok(pool, "ABFSS://C@Acct.dfs.core.windows.net/P"),
                        "abfss://c@acct.dfs.core.windows.net/P");
}

/* Every spelling of a place is one text: dot segments, escapes of
 * unreserved characters and the other forms of file URLs. */
static void test_url_one_spelling(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *in, *want; } same[] = {
        { "/data/x/../hidden/t", "file:///data/hidden/t" },
        { "/data/hidden/./t", "file:///data/hidden/t" },
        { "file:///data/t/.", "file:///data/t" },
        { "file:///data/t/./", "file:///data/t" },
        { "/data/./././t//.//", "file:///data/t" },
        { "s3://b/a/%2e%2E/c", "s3://b/c" },
        { "s3://b/a/.%2e/c", "s3://b/c" },
        { "s3://b/x/y/../../z", "s3://b/z" },
        { "s3://b/%41%62c", "s3://b/Abc" },
        { "s3://b/%7euser/%5F", "s3://b/~user/_" },
        { "s3://b/t%2B1", "s3://b/t+1" },
        { "s3://b/t+1", "s3://b/t+1" },
        { "s3://b/a%20b", "s3://b/a%20b" },
        { "s3://b/caf\xc3\xa9", "s3://b/caf%C3%A9" },
        { "s3://b/caf%c3%a9", "s3://b/caf%C3%A9" },
        { "s3://b/100%25", "s3://b/100%25" },
        { "s3://b/a%5cb", "s3://b/a%5Cb" },
        { "s3://b/a\\b", "s3://b/a%5Cb" },
        { "file:/tmp/x", "file:///tmp/x" },
        { "file://localhost/tmp/x", "file:///tmp/x" },
        { "FILE://LOCALHOST/tmp", "file:///tmp" },
        { "/", "file:///" },
        { "file:///", "file:///" },
        { "/a/..", "file:///" },
        { "s3://b/a/..", "s3://b" },
        { NULL, NULL }
    };
    static const char *const bad[] = {
        "/..", "/a/../..", "s3://b/..", "file:///../etc", "s3://b/%2e%2e",
        "/tmp/%00x", "/tmp/%0a", "/tmp/x%7F", "/tmp/%zz", "/tmp/50%",
        "/tmp/%2", "s3://b/a%2fb", "s3://b/a%2F..%2Fc",
        "s3://b/__UNITYSTORAGE/x", "s3://b/%5f_unitystorage",
        "/a/x/../__UnityStorage", "s3://x__unitystorage/y", "s3://b%41/x",
        "s3://b$/x", "file://otherhost/x", "file:relative", NULL
    };
    int i;

    for (i = 0; same[i].in; i++) {
        const char *got = url_ok(pool, same[i].in);
        if (strcmp(got, same[i].want) != 0)
            fail_msg("'%s' -> '%s', expected '%s'", same[i].in, got,
                     same[i].want);
        /* The normal form is its own normal form. */
        assert_string_equal(url_ok(pool, got), got);
    }
    for (i = 0; bad[i]; i++)
        url_bad(pool, bad[i]);
}

static void test_location_within(void **state)
{
    (void)state;
    assert_true(uc_storage_url_within("s3://b/a", "s3://b/a"));
    assert_true(uc_storage_url_within("s3://b/a/c", "s3://b/a"));
    assert_true(uc_storage_url_within("s3://b/a", "s3://b"));
    assert_false(uc_storage_url_within("s3://b/ab", "s3://b/a"));
    assert_false(uc_storage_url_within("s3://bc/a", "s3://b"));
    assert_false(uc_storage_url_within("s3://b", "s3://b/a"));
    assert_true(uc_storage_url_within("file:///etc", "file:///"));
    assert_true(uc_storage_url_within("file:///", "file:///"));
    assert_false(uc_storage_url_within("s3://b/x", "file:///"));
}

static void test_url_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "s3a://bucket/path", "s3n://bucket/x", "http://host/x",
        "https://host/x", "hdfs://nn/x", "ftp://h/x", "wasbs://c@a/x",
        "relative/path", "bucket/path", "tmp", "", "s3:/bucket/x",
        "s3://", "s3:///path", "file://relative/x", "file://",
        "/tmp/__unitystorage/x", "s3://b/__unitystorage",
        "s3://b/a/__unitystorage/catalogs/x",
        "s3://b/a b", " /tmp/x", "/tmp/x ", "s3://b/x?y=1", "s3://b/x#f",
        "/tmp/a\nb", "/tmp/a\tb", "/tmp/a\rb", "s3://b/\x7f", "/tmp/\x01",
        NULL
    };
    int i;

    for (i = 0; bad[i]; i++)
        url_bad(pool, bad[i]);
}

/* No port and no user name in the bucket or host; '@' parts an Azure
 * container or an R2 bucket from its account, once. */
static void test_url_authority(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "s3://bucket:443/base", "s3://bucket:/x", "s3://:443/x",
        "s3://user@bucket/x", "s3://user:pw@bucket/x", "gs://u@bucket/x",
        "gs://bucket:80/x", "s3://@bucket/x",
        "abfss://c@acct.dfs.core.windows.net:443/x",
        "abfss://u@c@acct.dfs.core.windows.net/x",
        "abfss://@acct.dfs.core.windows.net/x", "abfss://c@/x",
        "abfs://c@acct.dfs.core.windows.net:1/x",
        "r2://b@acct.r2.cloudflarestorage.com:443/x", "r2://u@b@acct/x",
        NULL
    };
    int i;

    for (i = 0; bad[i]; i++)
        url_bad(pool, bad[i]);
    assert_string_equal(url_ok(pool, "R2://B@Acct.r2.cloudflarestorage.com/"
                                     "p"),
                        "r2://b@acct.r2.cloudflarestorage.com/p");
    assert_string_equal(url_ok(pool, "s3://my-bucket.with.dots_x/p"),
                        "s3://my-bucket.with.dots_x/p");
}

static void test_url_length(void **state)
{
    apr_pool_t *pool = *state;
    char *url = apr_palloc(pool, UC_URL_MAX + 2);

    memcpy(url, "s3://b/", 7);
    memset(url + 7, 'x', UC_URL_MAX - 7);
    url[UC_URL_MAX] = '\0';
    assert_int_equal(strlen(url_ok(pool, url)), UC_URL_MAX);
    url[UC_URL_MAX] = 'y';
    url[UC_URL_MAX + 1] = '\0';
    url_bad(pool, url);
}

/* `cp` as UTF-8 after `prefix`, then `suffix`. */
static const char *with_code_point(apr_pool_t *pool, const char *prefix,
                                   unsigned cp, const char *suffix)
{
    char u[5] = { 0 };

    if (cp < 0x80)
        u[0] = (char)cp;
    else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
    }
    else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
    }
    else {
        u[0] = (char)(0xf0 | cp >> 18);
        u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
    }
    return apr_pstrcat(pool, prefix, u, suffix, NULL);
}

/* Principals' names: no format character (Unicode 15's category Cf, each
 * range's ends and the code points just outside them), valid UTF-8, and
 * the label's rules. */
static void test_principal_name(void **state)
{
    apr_pool_t *pool = *state;
    /* The ends of each range of format characters. */
    static const unsigned format[] = {
        0x00ad, 0x0600, 0x0605, 0x061c, 0x06dd, 0x070f, 0x0890, 0x0891,
        0x08e2, 0x180e, 0x200b, 0x200f, 0x202a, 0x202e, 0x2060, 0x2064,
        0x2066, 0x206f, 0xfeff, 0xfff9, 0xfffb, 0x110bd, 0x110cd, 0x13430,
        0x1343f, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a, 0xe0001, 0xe0020,
        0xe007f
    };
    /* Next to a range, yet no format character. */
    static const unsigned others[] = {
        0x00ac, 0x00ae, 0x05ff, 0x0606, 0x061b, 0x061d, 0x088f, 0x0892,
        0x200a, 0x2010, 0x2029, 0x202f, 0x205f, 0x2065, 0x2070, 0xfefe,
        0xff00, 0xfff8, 0xfffc, 0x110bc, 0x1342f, 0x13440, 0x1d172,
        0x1d17b, 0xe0000, 0xe0002, 0xe001f, 0xe0080, 0xe9, 0x7528
    };
    static const char *const invalid[] = {
        "bob\xff", "bob\xc0\xaf", "bob\xe0\x80\x8b", "bob\xed\xa0\x80",
        "bob\x80", "bob\xe2\x80", "bob\xf4\x90\x80\x80", NULL
    };
    size_t i;
    uc_error_t *err;

    for (i = 0; i < sizeof(format) / sizeof(format[0]); i++) {
        const char *name = with_code_point(pool, "bob", format[i], "");
        err = uc_validate_principal_name(pool, "owner", name);
        if (!err)
            fail_msg("U+%04X accepted", format[i]);
        assert_invalid(err);
        assert_contains(err->message, "owner");
        assert_contains(err->message, apr_psprintf(pool, "U+%04X",
                                                   format[i]));
    }
    for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        assert_ok(uc_validate_principal_name(
            pool, "owner", with_code_point(pool, "a", others[i], "b")));
    for (i = 0; invalid[i]; i++) {
        err = uc_validate_principal_name(pool, "principal", invalid[i]);
        if (!err)
            fail_msg("invalid UTF-8 #%zu accepted", i);
        assert_invalid(err);
        assert_contains(err->message, "UTF-8");
    }
    assert_ok(uc_validate_principal_name(pool, "owner", "jos\xc3\xa9@x.org"));
    assert_invalid(uc_validate_principal_name(pool, "owner", "a\x1b[2J"));
    assert_invalid(uc_validate_principal_name(pool, "owner", "  "));
}

static void test_text(void **state)
{
    apr_pool_t *pool = *state;
    uc_error_t *err;

    assert_ok(uc_validate_text(pool, "comment", NULL, 5));
    assert_ok(uc_validate_text(pool, "comment", "12345", 5));
    err = uc_validate_text(pool, "comment", "123456", 5);
    assert_invalid(err);
    assert_contains(err->message, "comment");
}

static void test_query_bool(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *in; int dflt, want; } ok[] = {
        { NULL, 0, 0 }, { NULL, 1, 1 }, { "", 0, 0 }, { "", 1, 1 },
        { "true", 0, 1 }, { "TRUE", 0, 1 }, { "True", 0, 1 }, { "1", 0, 1 },
        { "false", 1, 0 }, { "FALSE", 1, 0 }, { "False", 1, 0 },
        { "0", 1, 0 },
        { NULL, -1, 0 }
    };
    static const char *const bad[] = {
        "yes", "no", "2", "-1", "t", "f", "truee", "true ", " true", "01",
        "on", NULL
    };
    int i, out;

    for (i = 0; ok[i].dflt >= 0; i++) {
        out = 42;
        assert_ok(uc_validate_query_bool(pool, "force", ok[i].in, ok[i].dflt,
                                         &out));
        if (out != ok[i].want)
            fail_msg("'%s' (default %d) → %d, expected %d",
                     ok[i].in ? ok[i].in : "(null)", ok[i].dflt, out,
                     ok[i].want);
    }
    for (i = 0; bad[i]; i++) {
        uc_error_t *err;
        out = 42;
        err = uc_validate_query_bool(pool, "force", bad[i], 0, &out);
        if (!err)
            fail_msg("'%s' accepted as %d", bad[i], out);
        assert_invalid(err);
        assert_contains(err->message, "force");
    }
}

/* Ids in the canonical form only, either case; nothing past the end of
 * a short string is read (AddressSanitizer would tell). */
static void test_uuid(void **state)
{
    static const char *const bad[] = {
        "", "0", "123e4567-e89b-12d3-a456-42661417400",
        "123e4567-e89b-12d3-a456-4266141740000",
        "123e4567e89b-12d3-a456-4266141740000",
        "123e4567-e89b-12d3-a456_426614174000",
        "123e4567-e89b-12d3-a456-42661417400g",
        "g23e4567-e89b-12d3-a456-426614174000",
        "{23e4567-e89b-12d3-a456-426614174000", NULL };
    apr_pool_t *pool = *state;
    int i;

    assert_true(uc_is_uuid("123e4567-e89b-12d3-a456-426614174000"));
    assert_true(uc_is_uuid("123E4567-E89B-12D3-A456-426614174FFF"));
    assert_true(uc_is_uuid(uc_uuid4(pool)));
    assert_false(uc_is_uuid(NULL));
    for (i = 0; bad[i]; i++)
        if (uc_is_uuid(apr_pstrdup(pool, bad[i])))
            fail_msg("'%s' taken for a UUID", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_name_valid),
        UC_POOL_TEST(test_name_lowercase),
        UC_POOL_TEST(test_name_invalid),
        UC_POOL_TEST(test_name_length),
        UC_POOL_TEST(test_name_with),
        UC_POOL_TEST(test_tag_text),
        UC_POOL_TEST(test_full_name),
        UC_POOL_TEST(test_full_name_invalid),
        UC_POOL_TEST(test_url_normalise),
        UC_POOL_TEST(test_url_one_spelling),
        UC_POOL_TEST(test_location_within),
        UC_POOL_TEST(test_url_invalid),
        UC_POOL_TEST(test_url_authority),
        UC_POOL_TEST(test_url_length),
        UC_POOL_TEST(test_principal_name),
        UC_POOL_TEST(test_text),
        UC_POOL_TEST(test_query_bool),
        UC_POOL_TEST(test_uuid),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("validate", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
