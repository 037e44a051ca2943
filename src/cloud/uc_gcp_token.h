/* SPDX-License-Identifier: Apache-2.0 */
/* Google access tokens for the GCS credentials Unity Catalog vends: one
 * for a service account, from its key (the JWT bearer grant of RFC 7523),
 * then a downscoped one (a Credential Access Boundary,
 * cloud.google.com/iam/docs/downscoping-short-lived-credentials) that can
 * read, or read and write, the objects under one prefix of one bucket. */
#ifndef UC_GCP_TOKEN_H
#define UC_GCP_TOKEN_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

#define UC_GCP_TOKEN_URI "https://oauth2.googleapis.com/token"
#define UC_GCP_STS_URI "https://sts.googleapis.com/v1/token"
#define UC_GCP_READ_ONLY_SCOPE \
    "https://www.googleapis.com/auth/devstorage.read_only"
/* The longest life Google grants an assertion, and so a token: 1 hour. */
#define UC_GCP_JWT_LIFETIME 3600

typedef struct uc_gcp_token_request {
    const char *token_uri;      /* NULL: UC_GCP_TOKEN_URI */
    const char *client_email;   /* the service account */
    const char *private_key_id; /* the JWT header's kid; NULL: none */
    /* Its RSA key in PEM, PKCS#8 ("BEGIN PRIVATE KEY") as in Google's JSON
     * key files. */
    const char *private_key;
    /* NULL: UC_GCP_READ_ONLY_SCOPE. A token to be downscoped for writing
     * needs a scope that writes (devstorage.read_write, cloud-platform):
     * a boundary only takes permissions away. */
    const char *scope;
    long timeout_ms;            /* the call; 0: uc_cloud_call's default */
    const char *ca_file;        /* NULL: the system's authorities */
    apr_time_t now;             /* the assertion's iat; 0: apr_time_now() */
} uc_gcp_token_request_t;

typedef struct uc_gcp_token {
    /* From the caller's pool, wiped when that pool is cleared. */
    const char *access_token;
    apr_time_t expires;
} uc_gcp_token_t;

/* A token for the service account: a JWT {"alg":"RS256","typ":"JWT",
 * "kid"} . {"iss","scope","aud":token_uri,"iat","exp":iat + 1 h} signed
 * with its key, exchanged at the token endpoint; it expires expires_in
 * seconds after `now`. A key that is not an RSA PEM is a 400, the
 * endpoint's refusals are uc_cloud_refused's errors with its OAuth error
 * code ("invalid_grant"), an endpoint that cannot be reached or does not
 * answer in time a 503. No error quotes the key, the assertion or the
 * answer. */
uc_error_t *uc_gcp_access_token(apr_pool_t *pool,
                                const uc_gcp_token_request_t *req,
                                uc_gcp_token_t *out);

/* Exchanges `source` at Google's STS (`sts_uri`, NULL: UC_GCP_STS_URI) for
 * a token that can only read (roles/storage.objectViewer), or with
 * `write` read and write (roles/storage.objectAdmin), the objects of
 * `bucket` whose names start with `prefix` + "/", and list them (a list
 * whose prefix starts so). An empty or NULL prefix is the whole bucket.
 * The token expires when STS says, never after `source` (which it
 * inherits when STS does not say). A bucket name that is not one, or a
 * prefix with control characters, is a 400; STS's refusals and
 * silences are as for uc_gcp_access_token. */
uc_error_t *uc_gcp_downscope(apr_pool_t *pool, const char *sts_uri,
                             const uc_gcp_token_t *source,
                             const char *bucket, const char *prefix,
                             int write, long timeout_ms,
                             const char *ca_file, uc_gcp_token_t *out);

#endif
