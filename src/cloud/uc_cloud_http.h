/* SPDX-License-Identifier: Apache-2.0 */
/* One HTTPS call to a cloud's identity or storage service (STS, Azure AD,
 * Google's token endpoint, a storage account): libcurl with a deadline, a
 * bounded answer, and errors that say which service failed and how without
 * quoting what was sent (requests carry secrets) or the raw answer. */
#ifndef UC_CLOUD_HTTP_H
#define UC_CLOUD_HTTP_H

#include <apr_pools.h>

#include "../core/uc_error.h"

/* Answers larger than this are refused: identity services answer in a few
 * kilobytes. */
#define UC_CLOUD_MAX_ANSWER (256 * 1024)

typedef struct uc_cloud_request {
    const char *service;         /* "AWS STS", for messages */
    const char *method;          /* "POST", "GET", "PUT" */
    const char *url;
    /* "Name: value" lines, NULL-ended, NULL for none. They may hold
     * secrets: libcurl's copies are freed and the list is never logged. */
    const char *const *headers;
    const char *body;            /* NULL: no body */
    apr_size_t body_len;
    /* With both set, libcurl signs the request with AWS SigV4
     * (CURLOPT_AWS_SIGV4 "aws:amz:<region>:<service>"), the key and secret
     * as user name and password. */
    const char *aws_sigv4;
    const char *aws_key;
    const char *aws_secret;
    /* Set when a client chose the URL: libcurl may connect to no
     * internal address (uc_ip_is_internal), checked as it opens each
     * socket, and uses no proxy. */
    int public_only;
    long timeout_ms;             /* the whole call; 0: 10 s */
    const char *ca_file;         /* NULL: the system's authorities */
} uc_cloud_request_t;

typedef struct uc_cloud_answer {
    long status;                 /* HTTP status */
    char *body;                  /* NUL-terminated, from the pool */
    apr_size_t len;
} uc_cloud_answer_t;

/* An answer collected from libcurl into a pool, at most `max` bytes,
 * always NUL-terminated: the write callback (uc_cloud_on_body) of every
 * call the server makes to a cloud. Set `pool`, `max` and, for a buffer
 * sized once by the announced Content-Length, `curl` (a CURL *); the
 * rest starts at zero. */
typedef struct uc_cloud_body {
    void *curl;
    apr_pool_t *pool;
    apr_size_t max;
    char *buf;                   /* NULL until a byte came */
    apr_size_t len, cap;
    int too_large;               /* the answer was cut off at `max` */
} uc_cloud_body_t;

size_t uc_cloud_on_body(char *ptr, size_t size, size_t nmemb, void *body);

/* libcurl's process-wide start-up, before any thread runs; undone when
 * `pool` is cleared. Nested set-ups are counted. */
uc_error_t *uc_cloud_init(apr_pool_t *pool);

/* Makes the call. A service that cannot be reached or does not answer in
 * time is a 503 (UC_E_UNAVAILABLE) naming the service; an answer too large
 * a 502 (UC_E_STORAGE); a public_only call whose host is at an internal
 * address a 400 (UC_E_FAILED_PRECONDITION), with no connection made. Any
 * HTTP status is returned in `out` for the caller to read:
 * uc_cloud_refused() turns the others into errors. */
uc_error_t *uc_cloud_call(apr_pool_t *pool, const uc_cloud_request_t *req,
                          uc_cloud_answer_t *out);

/* Refuses a URL a client chose whose host is or resolves to an internal
 * address (uc_ip_is_internal), as libcurl reads and resolves it for a
 * call (2130706433, 0x7f.1 and [::ffff:7f00:1] are 127.0.0.1): a 400
 * naming `what` when any address libcurl would try is internal. Nothing
 * is connected to; resolving takes at most `timeout_ms` (0: 10 s). A host
 * that does not resolve passes: the call checks again as it connects. */
uc_error_t *uc_cloud_check_public(apr_pool_t *pool, const char *what,
                                  const char *url, long timeout_ms);

/* Whether `url` may carry a secret (a client secret, a bearer token):
 * https, or http to the loopback host, where only local emulators run. */
int uc_cloud_url_for_secrets(const char *url);

/* Whether `s` may be sent as a header value: no control character, so no
 * line break could end the header early. */
int uc_cloud_is_header_value(const char *s);

/* Whether `s` is UTF-8 without control characters (C0 and DEL), as object
 * names and prefixes sent to a cloud's storage service must be. */
int uc_cloud_is_key_text(const char *s);

/* The error for an answer that is not a success: 503 for 429 and 5xx (the
 * service may answer later), 502 otherwise, naming the service, the status
 * and `code` (the service's own error code, NULL when unknown), which is
 * kept only when it is a short token of letters, digits, '.', '_' and
 * '-' (it comes from outside). */
uc_error_t *uc_cloud_refused(apr_pool_t *pool, const char *service,
                             long status, const char *code);

#endif
