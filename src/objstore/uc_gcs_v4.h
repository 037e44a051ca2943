/* SPDX-License-Identifier: Apache-2.0 */
/* Google Cloud Storage V4 signed URLs (GOOG4-RSA-SHA256,
 * cloud.google.com/storage/docs/access-control/signing-urls-manually): a
 * URL that lets its holder make one kind of request on an object until it
 * expires, signed with a service account's RSA key. */
#ifndef UC_GCS_V4_H
#define UC_GCS_V4_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

#include "../core/uc_error.h"

/* The longest a V4 signed URL may stay valid: 7 days. */
#define UC_GCS_V4_MAX_EXPIRES 604800

typedef enum uc_gcs_style {
    UC_GCS_PATH_STYLE,          /* <endpoint>/<bucket>/<object> */
    UC_GCS_VIRTUAL_HOSTED,      /* <bucket>.<endpoint host>/<object> */
    UC_GCS_BUCKET_BOUND         /* <bucket_host>/<object> (a CNAME) */
} uc_gcs_style_t;

/* A header or query parameter the URL is signed with. */
typedef struct uc_gcs_pair {
    const char *name;
    const char *value;
} uc_gcs_pair_t;

typedef struct uc_gcs_v4 {
    const char *method;             /* "GET" */
    /* scheme://host[:port]; NULL for https://storage.googleapis.com. The
     * signed host is the host without its port. */
    const char *endpoint;
    uc_gcs_style_t style;
    const char *bucket_host;        /* UC_GCS_BUCKET_BOUND's host */
    const char *bucket;
    const char *object;             /* NULL: the bucket itself */
    const apr_array_header_t *headers;  /* uc_gcs_pair_t, or NULL */
    const apr_array_header_t *query;    /* uc_gcs_pair_t, or NULL */
    apr_time_t now;
    apr_int64_t expires;            /* seconds, 1 to 7 days */
    const char *client_email;       /* the service account */
    const char *private_key_pem;    /* its RSA key, PKCS#8 PEM */
} uc_gcs_v4_t;

/* The signed URL; *canonical and *to_sign (may be NULL) receive the
 * canonical request and the string to sign, for tests and diagnostics.
 * A bad request or key is a 400 that never quotes the key. */
uc_error_t *uc_gcs_v4_sign(apr_pool_t *pool, const uc_gcs_v4_t *req,
                           const char **url, const char **canonical,
                           const char **to_sign);

#endif
