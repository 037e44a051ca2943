/* SPDX-License-Identifier: Apache-2.0 */
/* IP access lists: what parses, what is refused and which addresses a
 * list lets in, for IPv4, IPv6 and IPv4-mapped IPv6 callers; and which
 * addresses are internal (the ends of each block and just outside). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../src/core/uc_ip_list.h"

static apr_pool_t *pool;

static uc_ip_list_t *parse_ok(const char *text)
{
    uc_ip_list_t *list = NULL;
    uc_error_t *err = uc_ip_list_parse(pool, "ip_access_list", text, &list);

    if (err)
        fail_msg("'%s' refused: %s", text, err->message);
    return list;
}

static void refused(const char *text, const char *named)
{
    uc_ip_list_t *list = NULL;
    uc_error_t *err = uc_ip_list_parse(pool, "ip_access_list", text, &list);

    if (!err)
        fail_msg("'%s' was accepted", text);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "ip_access_list"));
    if (named && !strstr(err->message, named))
        fail_msg("'%s': the message does not name '%s': %s", text, named,
                 err->message);
}

static void test_ipv4(void **state)
{
    uc_ip_list_t *l = parse_ok("10.0.0.0/8, 192.0.2.7 ,198.51.100.0/24");

    (void)state;
    assert_true(uc_ip_list_allows(l, "10.255.3.4"));
    assert_true(uc_ip_list_allows(l, "192.0.2.7"));
    assert_true(uc_ip_list_allows(l, "198.51.100.200"));
    assert_false(uc_ip_list_allows(l, "192.0.2.8"));
    assert_false(uc_ip_list_allows(l, "11.0.0.1"));
    assert_false(uc_ip_list_allows(l, "198.51.101.1"));
    assert_true(uc_ip_list_allows(l, "::ffff:10.1.1.1"));
    assert_false(uc_ip_list_allows(l, "::ffff:11.1.1.1"));
    assert_false(uc_ip_list_allows(l, "::a00:1"));
    assert_false(uc_ip_list_allows(l, "not an address"));
    assert_false(uc_ip_list_allows(l, NULL));
}

static void test_ipv6_and_edges(void **state)
{
    uc_ip_list_t *l = parse_ok("2001:db8::/32,::1");
    uc_ip_list_t *all = parse_ok("0.0.0.0/0");
    uc_ip_list_t *odd = parse_ok("192.0.2.128/25");

    (void)state;
    assert_true(uc_ip_list_allows(l, "2001:db8:1::5"));
    assert_true(uc_ip_list_allows(l, "::1"));
    assert_false(uc_ip_list_allows(l, "2001:db9::1"));
    assert_false(uc_ip_list_allows(l, "127.0.0.1"));
    assert_true(uc_ip_list_allows(all, "203.0.113.9"));
    assert_false(uc_ip_list_allows(all, "2001:db8::1"));
    assert_true(uc_ip_list_allows(odd, "192.0.2.129"));
    assert_false(uc_ip_list_allows(odd, "192.0.2.127"));
}

static void test_refused(void **state)
{
    char *many = apr_pstrdup(pool, "10.0.0.1");
    int i;

    (void)state;
    refused("", NULL);
    refused(" , ,", NULL);
    refused("10.0.0.0/33", "10.0.0.0/33");
    refused("10.1.2.3/8", "10.1.2.3/8");
    refused("10.0.0.0/", "10.0.0.0/");
    refused("10.0.0.0/-1", NULL);
    refused("10.0.0.0/+8", NULL);
    refused("10.0.0.0/8x", NULL);
    refused("2001:db8::/129", NULL);
    refused("example.com", "example.com");
    refused("10.0.0.1, 300.0.0.1", "300.0.0.1");
    for (i = 1; i < UC_IP_LIST_MAX; i++)
        many = apr_pstrcat(pool, many, ",10.0.0.1", NULL);
    parse_ok(many);
    refused(apr_pstrcat(pool, many, ",10.0.0.2", NULL), "more than");
}

/* `text` as the socket address libcurl would hand over. */
static int is_internal(const char *text)
{
    struct sockaddr_in v4 = { .sin_family = AF_INET };
    struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };

    if (inet_pton(AF_INET, text, &v4.sin_addr) == 1)
        return uc_ip_is_internal((struct sockaddr *)&v4);
    if (inet_pton(AF_INET6, text, &v6.sin6_addr) != 1)
        fail_msg("'%s' is no address", text);
    return uc_ip_is_internal((struct sockaddr *)&v6);
}

static void test_internal(void **state)
{
    static const char *const internal[] = {
        "0.0.0.0", "0.255.255.255", "10.0.0.0", "10.255.255.255",
        "100.64.0.0", "100.127.255.255", "127.0.0.1", "127.255.255.254",
        "169.254.169.254", "169.254.0.0", "172.16.0.0", "172.31.255.255",
        "192.168.0.0", "192.168.255.255", "::", "::1", "fe80::1",
        "febf:ffff::1", "fec0::1", "fc00::", "fd12:3456::1",
        "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254",
        "::ffff:0.0.0.0", "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", NULL
    };
    static const char *const public[] = {
        "1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255",
        "100.128.0.0", "126.255.255.255", "128.0.0.0", "169.253.255.255",
        "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255",
        "192.169.0.0", "192.0.2.1", "8.8.8.8", "::2", "2001:db8::1",
        "fe7f::1", "ff02::1", "fbff::1", "fe00::1", "::ffff:8.8.8.8",
        "64:ff9b::808:808", "64:ff9a::127.0.0.1", NULL
    };
    struct sockaddr unix_like = { .sa_family = AF_UNIX };
    int i;

    (void)state;
    for (i = 0; internal[i]; i++)
        if (!is_internal(internal[i]))
            fail_msg("%s is not internal", internal[i]);
    for (i = 0; public[i]; i++)
        if (is_internal(public[i]))
            fail_msg("%s is internal", public[i]);
    assert_true(uc_ip_is_internal(&unix_like));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4),
        cmocka_unit_test(test_ipv6_and_edges),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_internal),
    };
    int rc;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
