/* SPDX-License-Identifier: Apache-2.0 */
/* The reader of request bodies (uc_json_read_body) against jansson's
 * json_loadb(JSON_REJECT_DUPLICATES), edge by edge: every input is read by
 * both, from a heap block of exactly its length (AddressSanitizer sees a
 * read past it); both must give the verdict the test expects and, when
 * they take it, equal values written out alike (key order, integers and
 * reals, -0.0). The reader's pool tree (uc_json_tree_read) reads every
 * input too: the same verdict, error and values. */
#include "uc_test.h"

#include <locale.h>
#include <math.h>

#include "../../src/core/uc_json.h"
#include "../../src/core/uc_json_read.h"
#include "../../src/core/uc_json_tree.h"
#include "uc_json_tree_same.h"

/* The input for a failure message: bytes outside printable ASCII as
 * \xNN, cut at 200. */
static const char *shown(const char *text, size_t len)
{
    static char out[1024];
    size_t i, o = 0;

    for (i = 0; i < len && o < 200; i++) {
        unsigned char c = (unsigned char)text[i];
        o += (size_t)snprintf(out + o, sizeof(out) - o,
                              c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
    }
    out[o] = '\0';
    return out;
}

static char *dumped(const json_t *value)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

    assert_non_null(text);
    return text;
}

/* The pool tree of the input: the verdict and error of the jansson
 * builder (`got`, `err`), the values of jansson's own reader (`want`). */
static void check_tree(const char *copy, size_t len, const json_t *want,
                       const json_t *got, const uc_json_read_error_t *err,
                       int line)
{
    apr_pool_t *pool;
    uc_json_read_error_t tree_err = { 0, 0, NULL };
    const uc_json_tree_t *tree;
    const char *why;

    apr_pool_create(&pool, uc_test_global_pool);
    tree = uc_json_tree_read(pool, copy, len, &tree_err);
    if (!tree != !got)
        fail_msg("line %d: the pool tree %s '%s'", line,
                 tree ? "took" : "refused", shown(copy, len));
    if (tree && (why = uc_json_tree_differs(want, tree)))
        fail_msg("line %d: '%s' in a pool tree: %s", line,
                 shown(copy, len), why);
    if (!tree && (tree_err.line != err->line ||
                  tree_err.column != err->column ||
                  strcmp(tree_err.reason, err->reason) != 0))
        fail_msg("line %d: '%s' refused by the pool tree at %d:%d (%s), "
                 "by jansson's builder at %d:%d (%s)", line,
                 shown(copy, len), tree_err.line, tree_err.column,
                 tree_err.reason, err->line, err->column, err->reason);
    apr_pool_destroy(pool);
}

/* Reads the input with both readers and the pool tree; returns
 * uc_json_read_body's value (the caller releases it), NULL when refused. */
static json_t *check(const char *text, size_t len, int taken, int line)
{
    char *copy = malloc(len ? len : 1);
    json_error_t jerr;
    uc_json_read_error_t err = { 0, 0, NULL };
    json_t *want, *got;

    memcpy(copy, text, len);
    want = json_loadb(copy, len, JSON_REJECT_DUPLICATES, &jerr);
    got = uc_json_read_body(copy, len, &err);
    check_tree(copy, len, want, got, &err, line);
    free(copy);
    if (!want != !taken)
        fail_msg("line %d: jansson %s '%s' (%s)", line,
                 want ? "took" : "refused", shown(text, len), jerr.text);
    if (!got != !taken)
        fail_msg("line %d: uc_json_read_body %s '%s' (%s)", line,
                 got ? "took" : "refused", shown(text, len),
                 got ? "" : err.reason);
    if (got) {
        char *a = dumped(want), *b = dumped(got);

        if (!json_equal(want, got) || strcmp(a, b) != 0)
            fail_msg("line %d: '%s' read as %s, jansson reads %s", line,
                     shown(text, len), b, a);
        free(a);
        free(b);
    } else if (!err.reason || err.line < 1 || err.column < 1) {
        fail_msg("line %d: '%s' refused without a reason or a place", line,
                 shown(text, len));
    }
    json_decref(want);
    return got;
}

/* Literals may hold NULs: their size, not strlen. */
#define TAKEN(lit) json_decref(check(lit, sizeof(lit) - 1, 1, __LINE__))
#define REFUSED(lit) check(lit, sizeof(lit) - 1, 0, __LINE__)

static void check_all(const char *const *texts, int taken)
{
    int i;

    for (i = 0; texts[i]; i++)
        json_decref(check(texts[i], strlen(texts[i]), taken, i));
}

static void test_structure(void **state)
{
    static const char *const taken[] = {
        "{}", "[]", " \t\r\n{} \t\r\n", "[{}]", "{\"a\":[]}", "[[],[[]],{}]",
        "{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }", "[\n1,\r\n2\t]", NULL
    };
    static const char *const refused[] = {
        "", " ", "\n\t\r ", "1", "-1", "\"s\"", "true", "null", "{", "[",
        "}", "]", "[}", "{]", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{1:2}",
        "{'a':1}", "{a:1}", "{\"a\":1,}", "[1,]", "[,1]", "[1 2]",
        "{\"a\":1 \"b\":2}", "{} {}", "[]x", "[],", "{}\x0b", "\x0c{}",
        "\xef\xbb\xbf{}", "\xc2\xa0{}", "[\x0b]", "[1,,2]", "{,}", "[:]",
        "{\"a\"::1}", "{\"a\":1:2}", "[/**/]", "[1]//", NULL
    };

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
}

/* n arrays around `inner`. */
static void nested(size_t n, const char *inner, int taken, int line)
{
    size_t len = 2 * n + strlen(inner), i;
    char *text = malloc(len + 1);

    for (i = 0; i < n; i++) {
        text[i] = '[';
        text[len - 1 - i] = ']';
    }
    memcpy(text + n, inner, strlen(inner));
    json_decref(check(text, len, taken, line));
    free(text);
}

/* Every value counts towards jansson's limit of 2048, scalars too. */
static void test_depth(void **state)
{
    (void)state;
    nested(UC_JSON_READ_MAX_DEPTH, "", 1, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH - 1, "1", 1, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH - 1, "{}", 1, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH - 2, "{\"a\":1}", 1, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH, "1", 0, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH, "\"\"", 0, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH, "{}", 0, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH - 1, "{\"a\":1}", 0, __LINE__);
    nested(UC_JSON_READ_MAX_DEPTH + 1, "", 0, __LINE__);
    /* Far past it: refused without going deeper. */
    nested(1000000, "", 0, __LINE__);
}

static void test_strings(void **state)
{
    static const char *const taken[] = {
        "[\"\"]", "[\"plain\"]", "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
        "[\"\\u0041\\u00e9\\u00E9\\u4e2d\\uFFFF\\uffff\\u0001\\u001f\"]",
        "[\"\\ud83d\\ude00\"]", "[\"\\uD800\\uDC00\\uDBFF\\uDFFF\"]",
        "[\"a\\u0020b\"]", "[\"\x7f\"]", "[\"'\"]",
        /* Runs longer than a block of sixteen, escapes at its edges. */
        "[\"0123456789abcdef\"]", "[\"0123456789abcde\\n\"]",
        "[\"0123456789abcdef\\n0123456789abcdef\\\"0123456789abcdef\"]",
        "[\"\\n0123456789abcdef0123456789abcdef0123456789abcdef0\"]",
        "{\"0123456789abcdef0123456789abcdef\":\"x\\ty\"}", NULL
    };
    static const char *const refused[] = {
        "[\"a]", "[\"a\\\"]", "[\"\\", "[\"\\u", "[\"\\u12", "[\"\\u12\"]",
        "[\"\\u12g4\"]", "[\"\\x41\"]", "[\"\\'\"]", "[\"\\U0041\"]",
        "[\"\\a\"]", "[\"\\0\"]", "[\"\\ \"]", "[\"a\nb\"]", "[\"a\tb\"]",
        "[\"a\rb\"]", "[\"\x01\"]", "[\"\x1f\"]", "[\"\\u0000\"]",
        "{\"\\u0000\":1}", "{\"a\\u0000\":1}", "[\"\\ud800\"]",
        "[\"\\udbff\"]", "[\"\\udc00\"]", "[\"\\udfff\\ud800\"]",
        "[\"\\ud800\\u0041\"]", "[\"\\ud800\\ud800\"]", "[\"\\ud800x\"]",
        "[\"\\ud800\\n\"]", "[\"\\ud800\\", "[\"\\ud800\\u", "[\"\\ud800\\udc",
        "['a']", "[\"0123456789abcdef0123456789abcdef\x1f\"]",
        "[\"0123456789abcdef0123456789abcdef", NULL
    };

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
    /* A NUL byte is a control character, as bytes or in a key. */
    REFUSED("[\"a\0b\"]");
    REFUSED("{\"a\0\":1}");
    REFUSED("[\"0123456789abcdef0123456789\0abcdef\"]");
}

static void test_utf8(void **state)
{
    static const char *const taken[] = {
        "[\"\xc2\x80\xdf\xbf\"]", "[\"\xe0\xa0\x80\xef\xbf\xbf\"]",
        "[\"\xed\x9f\xbf\xee\x80\x80\"]",
        "[\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"]",
        "{\"caf\xc3\xa9\":\"\xe4\xb8\xad\xf0\x9f\x98\x80\"}",
        "[\"0123456789abcde\xc3\xa9\"]",
        "[\"0123456789abcdef\xf0\x9f\x98\x80\"]",
        NULL
    };
    static const char *const refused[] = {
        "[\"\x80\"]", "[\"\xbf\"]", "[\"\xc0\x80\"]", "[\"\xc1\xbf\"]",
        "[\"\xe0\x80\x80\"]", "[\"\xe0\x9f\xbf\"]", "[\"\xf0\x80\x80\x80\"]",
        "[\"\xf0\x8f\xbf\xbf\"]", "[\"\xed\xa0\x80\"]", "[\"\xed\xbf\xbf\"]",
        "[\"\xf4\x90\x80\x80\"]", "[\"\xf5\x80\x80\x80\"]",
        "[\"\xf8\x88\x80\x80\x80\"]",
        "[\"\xfe\"]", "[\"\xff\"]", "[\"\xc3\"]", "[\"\xc3", "[\"\xe4\xb8\"]",
        "[\"\xe4\xb8", "[\"\xf0\x9f\x98\"]", "[\"\xf0\x9f\x98",
        "[\"\xc3\x41\"]",
        "[\"\xe4\x41\x80\"]", "[\xc3\xa9]", "[1\xc3\xa9]", "{}\xc3\xa9",
        "\xc3\xa9", "{\"a\":\xff}", NULL
    };

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
}

static void test_numbers(void **state)
{
    static const char *const taken[] = {
        "[0]", "[-0]", "[1]", "[-1]", "[10]", "[1234567890]",
        "[9223372036854775807]", "[-9223372036854775808]",
        "[0.0]", "[-0.0]", "[0.5]", "[1.5]", "[-1.25]", "[0.1]",
        "[1e2]", "[1E2]", "[1e+2]", "[1e-2]", "[1.5e3]", "[0e0]", "[-0e-0]",
        "[1e308]", "[1.7976931348623157e308]", "[-1.7976931348623157e308]",
        "[4.9e-324]", "[2.2250738585072014e-308]", "[1e-400]", "[-1e-400]",
        "[9223372036854775808.0]", "[9223372036854775807e0]",
        "[123456789012345678901234567890.5]", "[1e0000000000000000002]",
        "[0.00000000000000000000000000000000000000000000000000000001]",
        "[1111111111111111111111111111111111111111111111111111111111111111."
        "1111111111111111111111111111111111111111111111111111111111111111e-3]",
        "[1,-2,3.5,-4e1]", "{\"n\":-0}", NULL
    };
    static const char *const refused[] = {
        "[9223372036854775808]", "[-9223372036854775809]",
        "[99999999999999999999]", "[-99999999999999999999]",
        "[1e309]", "[-1e309]", "[1.8e308]", "[1e99999999999999999999]",
        "[01]", "[-01]", "[00]", "[00.5]", "[+1]", "[.5]", "[-.5]", "[1.]",
        "[1.e5]", "[-]", "[--1]", "[1e]", "[1e+]", "[1E-]", "[1e5.5]",
        "[1.5.5]", "[0x10]", "[1_000]", "[NaN]", "[Infinity]",
        "[-Infinity]", "[1 e5]", "[1e 5]", "[- 1]", "[1", "[-", "[1.", "[1e",
        NULL
    };
    json_t *v;

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
    /* -0 is the integer 0, -0.0 a negative zero. */
    v = check("[-0,-0.0]", 9, 1, __LINE__);
    assert_true(json_is_integer(json_array_get(v, 0)));
    assert_true(json_is_real(json_array_get(v, 1)));
    assert_true(signbit(json_real_value(json_array_get(v, 1))));
    json_decref(v);
}

/* The decimal point is '.' whatever the locale: httpd may share the
 * process with a module that set one where it is ','. */
static void test_locale_independent(void **state)
{
    static const char *const comma[] = {
        "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE",
        NULL
    };
    uc_json_read_error_t err;
    json_t *v;
    int i;

    (void)state;
    for (i = 0; comma[i] && !setlocale(LC_NUMERIC, comma[i]); i++)
        ;
    if (!comma[i])
        skip();
    v = uc_json_read_body("[1.5,2e-1]", 10, &err);
    setlocale(LC_NUMERIC, "C");
    assert_non_null(v);
    assert_true(json_real_value(json_array_get(v, 0)) == 1.5);
    assert_true(json_real_value(json_array_get(v, 1)) == 0.2);
    json_decref(v);
}

static void test_literals(void **state)
{
    static const char *const taken[] = {
        "[true]", "[false]", "[null]", "[true,false,null]",
        "{\"t\":true,\"f\":false,\"n\":null}", "[ true ]", NULL
    };
    static const char *const refused[] = {
        "[tru]", "[truee]", "[true1]", "[True]", "[TRUE]", "[nul]",
        "[nulll]", "[NULL]", "[fals]", "[falsey]", "[t]", "[n]", "[f]",
        "[undefined]", "[true", "[nu", "[truefalse]", "[null null]", NULL
    };

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
}

static void test_objects(void **state)
{
    static const char *const taken[] = {
        "{\"\":1}", "{\"a\":1,\"A\":2}", "{\"z\":1,\"a\":2,\"m\":3}",
        "{\"a\":{\"a\":{\"a\":1}}}", "{\"a\":1,\"b\":{\"a\":1}}",
        "{\"a\\\"b\":1,\"a\\\\b\":2,\"\\u00e9\":3,\"\xc3\xa9x\":4}",
        "{\"\\ud83d\\ude00\":[],\"a\\nb\":{}}",
        /* Escaped keys stay unescaped while their values are read. */
        "{\"a\\n\":{\"b\\t\":{\"c\\r\":\"d\\n\",\"e\\\"\":[\"f\\/\"]},"
        "\"g\\b\":1}}",
        NULL
    };
    static const char *const refused[] = {
        "{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":2,\"a\":3}",
        "{\"a\":1,\"\\u0061\":2}", "{\"\\u00e9\":1,\"\xc3\xa9\":2}",
        "{\"\":1,\"\":2}", "{\"p\":{\"k\":1,\"k\":2}}",
        "{\"a\":[],\"a\":[]}", "{\"a\":1,\"a\":}", NULL
    };
    char *text = malloc(20000), *p = text;
    int i;

    (void)state;
    check_all(taken, 1);
    check_all(refused, 0);
    /* Many keys (the table grows), in their order; then one twice. */
    p += sprintf(p, "{");
    for (i = 0; i < 1000; i++)
        p += sprintf(p, "%s\"k%d\\t%d\":%d", i ? "," : "", (i * 7919) % 1000,
                     i, i);
    strcpy(p, "}");
    json_decref(check(text, strlen(text), 1, __LINE__));
    strcpy(p, ",\"k0\\t0\":0}");
    json_decref(check(text, strlen(text), 0, __LINE__));
    free(text);
}

/* jansson's oddity: it reads a number or a literal one byte too far and
 * loses a NUL it puts back, so one NUL right after such a token is
 * skipped. Its verdicts are kept, NULs anywhere else are refused. */
static void test_nul_after_token(void **state)
{
    (void)state;
    TAKEN("[1\0]");
    TAKEN("[1\0 ]");
    TAKEN("[-0\0,2.5\0,1e3\0]");
    TAKEN("[true\0,false\0,null\0]");
    TAKEN("{\"a\":1\0}");
    TAKEN("{\"a\":null\0,\"b\":2}");
    REFUSED("[1\0\0]");
    REFUSED("[1 \0]");
    REFUSED("[\0]");
    REFUSED("[\0 1]");
    REFUSED("[\"a\"\0]");
    REFUSED("[[]\0]");
    REFUSED("[{}\0]");
    REFUSED("{\"a\"\0:1}");
    REFUSED("{\"a\":\0 1}");
    REFUSED("[1,\0 2]");
    REFUSED("{}\0");
    REFUSED("[]\0");
    REFUSED("\0[]");
    REFUSED("[tr\0ue]");
    REFUSED("[1\0");
}

/* Only `len` bytes are read, whatever follows them. */
static void test_length_bound(void **state)
{
    uc_json_read_error_t err;
    json_t *v;

    (void)state;
    v = uc_json_read_body("{\"a\":1}garbage", 7, &err);
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
    json_decref(v);
    assert_null(uc_json_read_body("{\"a\":1}", 6, &err));
    assert_null(uc_json_read_body("[12]", 3, &err));
    assert_null(uc_json_read_body("[1.5]", 4, &err));
}

/* A line and a column, and a fixed reason: never the text of the body. */
static void test_error(void **state)
{
    apr_pool_t *pool = *state;
    static const char body[] =
        "{\"user\":\"u\",\n  \"secret\":\"hunter2\" \"x\":1}";
    uc_json_read_error_t err;
    json_t *obj = NULL;
    uc_error_t *e;

    assert_null(uc_json_read_body(body, sizeof(body) - 1, &err));
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 22);
    assert_string_equal(err.reason, "',' or '}' expected");
    assert_null(uc_json_read_body("[\"caf\xc3\xa9\",\xc3\xa9]", 12, &err));
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 9);
    assert_null(uc_json_read_body("", 0, &err));
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 1);
    assert_null(uc_json_read_body("[1e309]", 7, &err));
    assert_string_equal(err.reason, "real number overflow");
    assert_null(uc_json_read_body("[-9223372036854775809]", 22, &err));
    assert_string_equal(err.reason, "too big negative integer");
    assert_null(uc_json_read_body("[01]", 4, &err));
    assert_string_equal(err.reason, "invalid number");
    e = uc_json_parse_object(pool, body, sizeof(body) - 1, &obj);
    assert_invalid(e);
    assert_string_equal(e->message, "Malformed JSON in the request body at "
                        "line 2, column 22: ',' or '}' expected");
    e = uc_json_parse_object(pool, "{\"k\":\"hunter2\x01\"}", 16, &obj);
    assert_invalid(e);
    assert_null(strstr(e->message, "hunter2"));
}

/* The pool tree's accessors, on what they are meant for and on what they
 * are not. */
static void test_tree_accessors(void **state)
{
    static const char text[] = "{\"s\":\"a\\u00e9\",\"i\":-7,\"r\":2.5,"
        "\"t\":true,\"f\":false,\"n\":null,\"a\":[1,\"x\"],\"o\":{}}";
    uc_json_read_error_t err;
    const uc_json_tree_t *t, *a;

    t = uc_json_tree_read(*state, text, sizeof(text) - 1, &err);
    assert_true(uc_json_tree_is(t, UC_JSON_TREE_OBJECT));
    assert_int_equal(uc_json_tree_size(t), 8);
    assert_string_equal(uc_json_tree_string(uc_json_tree_member(t, "s")),
                        "a\xc3\xa9");
    assert_int_equal(uc_json_tree_member(t, "s")->length, 3);
    assert_true(uc_json_tree_member(t, "i")->u.integer == -7);
    assert_true(uc_json_tree_member(t, "r")->u.real == 2.5);
    assert_true(uc_json_tree_is(uc_json_tree_member(t, "t"),
                                UC_JSON_TREE_TRUE));
    assert_true(uc_json_tree_is(uc_json_tree_member(t, "f"),
                                UC_JSON_TREE_FALSE));
    assert_true(uc_json_tree_is(uc_json_tree_member(t, "n"),
                                UC_JSON_TREE_NULL));
    assert_int_equal(uc_json_tree_size(uc_json_tree_member(t, "o")), 0);
    assert_null(uc_json_tree_member(t, "x"));
    assert_null(uc_json_tree_member(t, ""));
    assert_null(uc_json_tree_string(uc_json_tree_member(t, "i")));
    assert_string_equal(uc_json_tree_member_at(t, 7)->key, "o");
    assert_null(uc_json_tree_member_at(t, 8));
    assert_null(uc_json_tree_item(t, 0));
    a = uc_json_tree_member(t, "a");
    assert_int_equal(uc_json_tree_size(a), 2);
    assert_string_equal(uc_json_tree_string(uc_json_tree_item(a, 1)), "x");
    assert_null(uc_json_tree_item(a, 2));
    assert_null(uc_json_tree_member(a, "x"));
    assert_null(uc_json_tree_member_at(a, 0));
    assert_int_equal(uc_json_tree_size(uc_json_tree_item(a, 0)), 0);
    assert_null(uc_json_tree_member(NULL, "s"));
    assert_false(uc_json_tree_is(NULL, UC_JSON_TREE_NULL));
    assert_int_equal(uc_json_tree_size(NULL), 0);
}

/* A large object is looked up by its index: every key found with its
 * value, and no other; a key twice is refused however far apart. */
static void test_tree_large_object(void **state)
{
    char *text = malloc(100000), *p = text;
    uc_json_read_error_t err;
    const uc_json_tree_t *t;
    char key[16];
    int i;

    p += sprintf(p, "{");
    for (i = 0; i < 5000; i++)
        p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", i, i);
    strcpy(p, "}");
    t = uc_json_tree_read(*state, text, strlen(text), &err);
    assert_non_null(t);
    assert_non_null(t->index);
    for (i = 0; i < 5000; i++) {
        sprintf(key, "k%d", i);
        assert_true(uc_json_tree_member(t, key)->u.integer == i);
    }
    assert_null(uc_json_tree_member(t, "k5000"));
    assert_null(uc_json_tree_member(t, "k"));
    strcpy(p, ",\"k4999\":1,\"k0\":0}");
    assert_null(uc_json_tree_read(*state, text, strlen(text), &err));
    assert_string_equal(err.reason, "duplicate object key");
    assert_int_equal(err.column, (int)(p - text) + 2);
    free(text);
}

/* A body read into a tree is refused as one read into jansson's values:
 * the same status and message. */
static void test_parse_tree(void **state)
{
    static const char *const bodies[] = {
        "", " ", "[]", "\"s\"", "{", "{\"a\":1,\"a\":2}", "{\"a\":[1,}",
        "{\"k\":\"hunter2\x01\"}", "{}", "{\"a\":[1]}", NULL
    };
    const uc_json_tree_t *tree;
    json_t *object;
    uc_error_t *want, *got;
    int i;

    for (i = 0; bodies[i]; i++) {
        want = uc_json_parse_object(*state, bodies[i], strlen(bodies[i]),
                                    &object);
        got = uc_json_parse_tree(*state, bodies[i], strlen(bodies[i]), &tree);
        assert_true(!want == !got);
        if (want) {
            assert_int_equal(got->status, want->status);
            assert_string_equal(got->code, want->code);
            assert_string_equal(got->message, want->message);
        } else {
            assert_null(uc_json_tree_differs(object, tree));
        }
    }
}

/* A batch-check of a thousand checks, as the authorization API takes. */
static void test_large_body(void **state)
{
    apr_pool_t *pool = *state;
    apr_size_t cap = 1 << 20, n = 0;
    char *text = apr_palloc(pool, cap);
    int i;

    n += (apr_size_t)sprintf(text + n, "{\"checks\":[");
    for (i = 0; i < 1000; i++)
        n += (apr_size_t)sprintf(text + n, "%s{\"id\":\"c%d\",\"operation\":"
            "{\"table\":{\"action\":{\"action\":\"get_metadata\"},"
            "\"warehouse-id\":\"440e07b8-e0e6-4af8-857d-6b3bf59d0344\","
            "\"namespace\":[\"s%06d\",\"t\\u00e9\"],\"table\":\"tbl %d\","
            "\"n\":%d,\"x\":%d.5}}}", i ? "," : "", i, i, i, i - 500, i);
    n += (apr_size_t)sprintf(text + n, "],\"error-on-not-found\":true}");
    json_decref(check(text, n, 1, __LINE__));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_structure),
        UC_POOL_TEST(test_depth),
        UC_POOL_TEST(test_strings),
        UC_POOL_TEST(test_utf8),
        UC_POOL_TEST(test_numbers),
        UC_POOL_TEST(test_locale_independent),
        UC_POOL_TEST(test_literals),
        UC_POOL_TEST(test_objects),
        UC_POOL_TEST(test_nul_after_token),
        UC_POOL_TEST(test_length_bound),
        UC_POOL_TEST(test_error),
        UC_POOL_TEST(test_large_body),
        UC_POOL_TEST(test_tree_accessors),
        UC_POOL_TEST(test_tree_large_object),
        UC_POOL_TEST(test_parse_tree),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("json_read", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
