/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the tests that run under t/s3/with-s3.sh and use vended
 * credentials: the harness's variables, an s3:// store opened with given
 * keys, writes signed with them and what they may write, and a port
 * nobody listens on. */
#ifndef UC_TEST_S3_H
#define UC_TEST_S3_H

#include "uc_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../src/cloud/uc_cloud_http.h"
#include "../../src/cloud/uc_sts.h"
#include "../../src/objstore/uc_objstore.h"
#include "../../src/objstore/uc_sigv4.h"

/* A variable the harness sets. */
static inline const char *env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL || *v == '\0')
        fail_msg("%s is not set: run this test under t/s3/with-s3.sh", name);
    return v;
}

/* The s3:// store of `suffix` in the harness's bucket, with `keys`. */
static inline uc_objstore_t *open_vended(apr_pool_t *pool,
                                         const char *suffix,
                                         const uc_aws_keys_t *keys)
{
    uc_objstore_config_t c;
    uc_objstore_t *store = NULL;

    memset(&c, 0, sizeof(c));
    c.endpoint = env("UNICAT_S3_ENDPOINT");
    c.region = env("UNICAT_S3_REGION");
    c.path_style = 1;
    c.access_key_id = keys->access_key_id;
    c.secret_access_key = keys->secret_access_key;
    c.session_token = keys->session_token;
    c.timeout_ms = 10000;
    assert_ok(uc_objstore_open(pool, apr_pstrcat(pool, "s3://",
                                                 env("UNICAT_S3_BUCKET"), "/",
                                                 suffix, NULL), &c, &store));
    return store;
}

/* A refusal by the proxy, as the store reports it. */
static inline void assert_refused(uc_error_t *err, const char *s3_code)
{
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, s3_code);
}

/* A PUT or DELETE of `key` signed with `keys` (the store only reads): its
 * status, 403 only when the session policy refused it (the proxy's
 * message for that, so that a signature it found wrong cannot pass for a
 * refusal). */
static inline long s3_call(apr_pool_t *pool, const uc_aws_keys_t *keys,
                           const char *method, const char *key,
                           const char *body)
{
    char sha[UC_SIGV4_HEX_SIZE];
    const char *headers[4];
    uc_cloud_request_t call = {
        .service = "S3", .method = method, .headers = headers,
        .body = body, .body_len = strlen(body),
        .aws_sigv4 = apr_pstrcat(pool, "aws:amz:", env("UNICAT_S3_REGION"),
                                 ":s3", NULL),
        .aws_key = keys->access_key_id,
        .aws_secret = keys->secret_access_key, .timeout_ms = 10000,
    };
    uc_cloud_answer_t answer;

    /* S3 wants the payload's hash signed; libcurl 7.88 leaves it out. */
    uc_sigv4_hash(body, strlen(body), sha);
    headers[0] = apr_pstrcat(pool, "X-Amz-Content-Sha256: ", sha, NULL);
    headers[1] = apr_pstrcat(pool, "X-Amz-Security-Token: ",
                             keys->session_token, NULL);
    headers[2] = "Content-Type: application/octet-stream";
    headers[3] = NULL;
    call.url = apr_pstrcat(pool, env("UNICAT_S3_ENDPOINT"), "/",
                           env("UNICAT_S3_BUCKET"), "/", key, NULL);
    assert_ok(uc_cloud_call(pool, &call, &answer));
    if (answer.status != 200 && answer.status != 204
        && !(answer.status == 403
             && strstr(answer.body, "<Code>AccessDenied</Code><Message>"
                       "Access Denied</Message>")))
        fail_msg("%s %s: %ld %s", method, key, answer.status, answer.body);
    return answer.status;
}

/* Keys vended for `prefix`: the read ones cannot write there, the write
 * ones write, read back (through the read ones) and delete there, and
 * write nowhere else ("paging/<other>", "<prefix>-other/x"). */
static inline void assert_writes_scoped(apr_pool_t *pool,
                                        const uc_aws_keys_t *reader,
                                        const uc_aws_keys_t *writer,
                                        const char *prefix,
                                        const char *other)
{
    const char *name = apr_psprintf(pool, "%d.txt", (int)getpid());
    const char *key = apr_pstrcat(pool, prefix, "/", name, NULL);
    uc_objstore_t *store;
    char *data = NULL;
    apr_size_t len = 0;

    assert_int_equal(s3_call(pool, reader, "PUT", key, "read"), 403);
    assert_int_equal(s3_call(pool, writer, "PUT", key, "written"), 200);
    assert_int_equal(s3_call(pool, writer, "PUT",
                             apr_pstrcat(pool, "paging/", other, NULL),
                             "no"), 403);
    assert_int_equal(s3_call(pool, writer, "PUT",
                             apr_pstrcat(pool, prefix, "-other/x", NULL),
                             "no"), 403);
    store = open_vended(pool, prefix, reader);
    assert_ok(uc_objstore_read(store, pool, name, 0, -1, &data, &len));
    assert_string_equal(data, "written");
    assert_int_equal(s3_call(pool, reader, "DELETE", key, ""), 403);
    assert_int_equal(s3_call(pool, writer, "DELETE", key, ""), 204);
    assert_err(uc_objstore_read(store, pool, name, 0, -1, &data, &len), 404,
               "NOT_FOUND");
}

/* A local port nobody listens on. */
static inline int closed_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

#endif
