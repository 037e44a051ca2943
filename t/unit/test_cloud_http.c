/* SPDX-License-Identifier: Apache-2.0 */
/* The address guard of the calls whose URL a client chose (providers'
 * sharing servers and token endpoints): every spelling libcurl takes of
 * an internal address is refused without a connection, by the probe made
 * when a provider is created and as a call connects, with the same answer
 * whether a port is open or closed. */
#include "uc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../../src/cloud/uc_cloud_http.h"

/* A socket on 127.0.0.1 that takes connections but never answers; its
 * port in *port. */
static int listener(int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
        fcntl(fd, F_SETFL, O_NONBLOCK) != 0)
        fail_msg("no listening socket: %s", strerror(errno));
    *port = ntohs(a.sin_port);
    return fd;
}

/* Whether a connection reached the listener (and takes it). */
static int was_reached(int fd)
{
    int c = accept(fd, NULL, NULL);

    if (c < 0)
        return 0;
    close(c);
    return 1;
}

/* A port of 127.0.0.1 nothing listens on. */
static int closed_port(void)
{
    int port, fd = listener(&port);

    close(fd);
    return port;
}

static void test_probe(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const internal[] = {
        "http://127.0.0.1:%d/", "http://2130706433:%d/", "http://0x7f.1:%d/",
        "http://017700000001:%d/", "http://127.1:%d/", "http://0:%d/",
        "http://0.0.0.0:%d/", "http://localhost:%d/", "http://LocalHost:%d/",
        "http://[::1]:%d/", "http://[::ffff:127.0.0.1]:%d/",
        "http://[::ffff:7f00:1]:%d/", "https://u:p@127.0.0.1:%d/x",
        "https://10.0.0.1:%d/", "https://172.31.5.4:%d/",
        "https://192.168.0.1:%d/", "https://100.64.0.1:%d/",
        "https://169.254.169.254:%d/", "https://[fe80::1]:%d/",
        "https://[fd00::1]:%d/", "https://[64:ff9b::a9fe:a9fe]:%d/",
        "https://[::]:%d/", NULL
    };
    static const char *const public[] = {
        "https://192.0.2.1/ds/", "https://[2001:db8::1]/ds/",
        "https://172.32.0.1/", "https://100.128.0.1/", "https://8.8.8.8/",
        "https://sharing.invalid/ds/", NULL
    };
    int port, fd = listener(&port), i;

    for (i = 0; internal[i]; i++) {
        const char *url = apr_psprintf(pool, internal[i], port);
        uc_error_t *err = uc_cloud_check_public(pool, "The profile's "
                                                "endpoint", url, 2000);
        if (!err)
            fail_msg("%s passed", url);
        assert_invalid(err);
        assert_contains(err->message, "The profile's endpoint is at a "
                        "loopback, private, link-local or unspecified "
                        "address");
    }
    for (i = 0; public[i]; i++)
        assert_ok(uc_cloud_check_public(pool, "endpoint", public[i], 2000));
    assert_false(was_reached(fd));
    close(fd);
}

static uc_error_t *get(apr_pool_t *pool, const char *url, int public_only,
                       long timeout_ms)
{
    uc_cloud_request_t req = {
        .service = "The sharing server", .method = "GET", .url = url,
        .public_only = public_only, .timeout_ms = timeout_ms
    };
    uc_cloud_answer_t answer;

    return uc_cloud_call(pool, &req, &answer);
}

/* Where the call connects, whatever the name resolved to before: an open
 * port and a closed one answer alike, and nothing is connected to. */
static void test_call_guard(void **state)
{
    apr_pool_t *pool = *state;
    int port, fd = listener(&port);
    const char *open_url = apr_psprintf(pool, "http://localhost:%d/", port);
    const char *closed_url = apr_psprintf(pool, "http://127.0.0.1:%d/",
                                          closed_port());
    uc_error_t *open_err = get(pool, open_url, 1, 2000);
    uc_error_t *closed_err = get(pool, closed_url, 1, 2000);

    assert_err(open_err, 400, "FAILED_PRECONDITION");
    assert_err(closed_err, 400, "FAILED_PRECONDITION");
    assert_string_equal(open_err->message, closed_err->message);
    assert_contains(open_err->message, "The sharing server is at a "
                    "loopback");
    assert_false(was_reached(fd));
    /* Without the guard the same calls go out: the open port is reached
     * (and never answers), the closed one is not. */
    assert_err(get(pool, open_url, 0, 300), 503, "TEMPORARILY_UNAVAILABLE");
    assert_true(was_reached(fd));
    assert_err(get(pool, closed_url, 0, 2000), 503,
               "TEMPORARILY_UNAVAILABLE");
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_probe),
        UC_POOL_TEST(test_call_guard),
    };
    int rc;

    uc_test_init();
    if (uc_cloud_init(uc_test_global_pool) != NULL) {
        fprintf(stderr, "libcurl cannot be set up\n");
        return 2;
    }
    rc = cmocka_run_group_tests_name("cloud_http", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
