/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP half of the cloud providers (s3://, abfss://, gs://): one libcurl
 * handle per store, reused by its requests so that connections and TLS
 * sessions are too; GETs into memory with a deadline and a bound; and the
 * read of a byte range as uc_objstore_read promises it, whatever the
 * server makes of Range. What a request says is the provider's: its URL,
 * its headers, how it is signed. */
#ifndef UC_OBJSTORE_HTTP_H
#define UC_OBJSTORE_HTTP_H

#include <apr_pools.h>

#include "../core/uc_error.h"

typedef struct uc_objstore_http_options {
    const char *service;            /* "S3", for messages */
    /* "Name: value" lines sent with every request, NULL-ended, or NULL.
     * They may hold secrets: they never reach a message. */
    const char *const *headers;
    /* With all three, libcurl signs every request with SigV4
     * (CURLOPT_AWS_SIGV4 "aws:amz:<region>:<service>"). */
    const char *aws_sigv4;
    const char *aws_key;
    const char *aws_secret;
    long timeout_ms;                /* per request; 0: 30 s */
    const char *ca_file;            /* NULL: the system's authorities */
    /* The store's explanation of an answer it did not serve (a status
     * other than 200, or 206 for a range): its status and body, `what`
     * the target. */
    uc_error_t *(*refused)(apr_pool_t *pool, long status, const char *body,
                           apr_size_t len, const char *what);
} uc_objstore_http_options_t;

typedef struct uc_objstore_http uc_objstore_http_t;

/* libcurl's process-wide set-up (uc_cloud_init), for the providers' init;
 * undone when `pool` is cleaned up. */
uc_error_t *uc_objstore_http_init(apr_pool_t *pool);

/* A handle living as long as `pool`; `opt` is copied. A 500 when
 * uc_objstore_http_init has not run. */
uc_error_t *uc_objstore_http_open(apr_pool_t *pool,
                                  const uc_objstore_http_options_t *opt,
                                  uc_objstore_http_t **out);

/* GETs `url` into memory from `pool`, NUL-terminated: the body of a 200,
 * else the handle's `refused` error. The store not answering in time is
 * a 503 naming the service and `what` (the target, for messages); a body
 * over 2 GiB a 502. */
uc_error_t *uc_objstore_http_get(uc_objstore_http_t *http, apr_pool_t *pool,
                                 const char *url, const char *what,
                                 char **body, apr_size_t *len);

/* `length` bytes (length < 0: to the end) from `offset` of the object at
 * `url` into *data (fewer past the end, none beyond it), else the
 * handle's `refused` error. `offset` is not negative. */
uc_error_t *uc_objstore_http_read(uc_objstore_http_t *http, apr_pool_t *pool,
                                  const char *url, apr_off_t offset,
                                  apr_off_t length, const char *what,
                                  char **data, apr_size_t *len);

/* The Code of the XML error document S3 and Azure answer with
 * (<Error><Code>...</Code>...</Error>), or "HTTP <status>" when the body
 * is no such document (HEAD answers, proxies' HTML pages). Only the code
 * is kept: the other fields can echo the string to sign. */
const char *uc_objstore_http_error_code(apr_pool_t *pool, long status,
                                        const char *body, apr_size_t len);

#endif
