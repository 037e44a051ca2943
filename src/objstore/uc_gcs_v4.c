/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_gcs_v4.h"

#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "uc_sigv4.h"
#include "../core/uc_bytes.h"
#include "../core/uc_percent.h"
#include "../core/uc_rsa.h"

#define ALGORITHM "GOOG4-RSA-SHA256"
#define DEFAULT_ENDPOINT "https://storage.googleapis.com"

/* A header value as it is signed: trimmed, runs of blanks made one
 * space. */
static char *canonical_value(apr_pool_t *pool, const char *value)
{
    char *out = apr_palloc(pool, strlen(value) + 1), *o = out;
    const char *p = value;

    while (*p == ' ' || *p == '\t')
        p++;
    while (*p) {
        if (*p == ' ' || *p == '\t') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p)
                *o++ = ' ';
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const uc_gcs_pair_t *)a)->name,
                  ((const uc_gcs_pair_t *)b)->name);
}

static const char *encode(apr_pool_t *pool, const char *s, const char *keep)
{
    return uc_percent_encode(pool, s, strlen(s), keep);
}

/* Where the URL goes (scheme://host[:port]), the host it is signed for,
 * and the path of the object there. */
static uc_error_t *locate(apr_pool_t *pool, const uc_gcs_v4_t *req,
                          const char **base, const char **host,
                          const char **path)
{
    const char *endpoint = req->endpoint ? req->endpoint : DEFAULT_ENDPOINT;
    const char *sep = strstr(endpoint, "://"), *authority, *colon;
    const char *scheme, *object = req->object
        ? apr_pstrcat(pool, "/", encode(pool, req->object, "/"), NULL) : "";

    if (!sep || strchr(sep + 3, '/'))
        return uc_error_invalid(pool, "The GCS endpoint must be "
                                "scheme://host[:port].");
    scheme = apr_pstrndup(pool, endpoint, (apr_size_t)(sep - endpoint));
    authority = sep + 3;
    colon = strrchr(authority, ':');
    *host = colon ? apr_pstrndup(pool, authority,
                                 (apr_size_t)(colon - authority))
                  : authority;
    switch (req->style) {
    case UC_GCS_VIRTUAL_HOSTED:
        *host = apr_pstrcat(pool, req->bucket, ".", *host, NULL);
        authority = apr_pstrcat(pool, req->bucket, ".", authority, NULL);
        *path = *object ? object : "/";
        break;
    case UC_GCS_BUCKET_BOUND:
        if (!req->bucket_host || !*req->bucket_host)
            return uc_error_invalid(pool, "A bucket-bound URL needs the "
                                    "bucket's host name.");
        *host = authority = req->bucket_host;
        *path = *object ? object : "/";
        break;
    default:
        *path = apr_pstrcat(pool, "/", encode(pool, req->bucket, ""),
                            object, NULL);
    }
    *base = apr_pstrcat(pool, scheme, "://", authority, NULL);
    return NULL;
}

/* The signed headers (host and the request's, by lower-case name), as
 * "name:value\n" lines and as "a;b;c". */
static void canonical_headers(apr_pool_t *pool, const uc_gcs_v4_t *req,
                              const char *host, const char **lines,
                              const char **names, const char **payload)
{
    int n = req->headers ? req->headers->nelts : 0, i;
    uc_gcs_pair_t *h = apr_palloc(pool, sizeof(*h) * (apr_size_t)(n + 1));
    char *l = "", *s = "";

    *payload = "UNSIGNED-PAYLOAD";
    h[0].name = "host";
    h[0].value = host;
    for (i = 0; i < n; i++) {
        const uc_gcs_pair_t *in = &APR_ARRAY_IDX(req->headers, i,
                                                 uc_gcs_pair_t);
        char *name = apr_pstrdup(pool, in->name), *c;

        for (c = name; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        h[i + 1].name = name;
        h[i + 1].value = canonical_value(pool, in->value);
        if (!strcmp(name, "x-goog-content-sha256"))
            *payload = h[i + 1].value;
    }
    qsort(h, (size_t)n + 1, sizeof(*h), by_name);
    for (i = 0; i <= n; i++) {
        l = apr_pstrcat(pool, l, h[i].name, ":", h[i].value, "\n", NULL);
        s = apr_pstrcat(pool, s, i ? ";" : "", h[i].name, NULL);
    }
    *lines = l;
    *names = s;
}

/* Every query parameter, the signature's own included, encoded and sorted
 * by encoded name. */
static const char *canonical_query(apr_pool_t *pool, const uc_gcs_v4_t *req,
                                   const uc_gcs_pair_t *own, int n_own)
{
    int n = req->query ? req->query->nelts : 0, i;
    uc_gcs_pair_t *q = apr_palloc(pool, sizeof(*q) * (apr_size_t)(n + n_own));
    char *out = "";

    for (i = 0; i < n_own + n; i++) {
        const uc_gcs_pair_t *in = i < n_own ? &own[i]
            : &APR_ARRAY_IDX(req->query, i - n_own, uc_gcs_pair_t);
        q[i].name = encode(pool, in->name, "");
        q[i].value = encode(pool, in->value ? in->value : "", "");
    }
    qsort(q, (size_t)(n + n_own), sizeof(*q), by_name);
    for (i = 0; i < n + n_own; i++)
        out = apr_pstrcat(pool, out, i ? "&" : "", q[i].name, "=",
                          q[i].value, NULL);
    return out;
}

/* The signature of `text`, in hex as V4 URLs carry it. */
static uc_error_t *rsa_sign(apr_pool_t *pool, const char *pem,
                            const char *text, const char **hex_out)
{
    unsigned char *sig;
    apr_size_t len;
    char *hex;
    uc_error_t *err = uc_rsa_sha256_sign(pool, pem, text, strlen(text),
                                         &sig, &len);

    if (err)
        return err;
    hex = apr_palloc(pool, 2 * len + 1);
    uc_hex_encode(sig, len, hex);
    *hex_out = hex;
    return NULL;
}

uc_error_t *uc_gcs_v4_sign(apr_pool_t *pool, const uc_gcs_v4_t *req,
                           const char **url, const char **canonical,
                           const char **to_sign)
{
    char stamp[17], date[9], digest[UC_SIGV4_HEX_SIZE];
    const char *base = NULL, *host = NULL, *path = NULL, *lines, *names;
    const char *payload, *query, *signature = NULL;
    const char *scope, *request, *text;
    uc_gcs_pair_t own[5];
    apr_time_exp_t t;
    apr_size_t len;
    uc_error_t *err;

    if (!req->bucket || !*req->bucket || !req->client_email ||
        !req->private_key_pem || !req->method)
        return uc_error_invalid(pool, "A GCS signed URL needs a method, a "
                                "bucket and a service account.");
    if (req->expires < 1 || req->expires > UC_GCS_V4_MAX_EXPIRES)
        return uc_error_invalid(pool, "A GCS signed URL lives 1 to %d "
                                "seconds.", UC_GCS_V4_MAX_EXPIRES);
    if ((err = locate(pool, req, &base, &host, &path)))
        return err;
    apr_time_exp_gmt(&t, req->now);
    apr_strftime(stamp, &len, sizeof(stamp), "%Y%m%dT%H%M%SZ", &t);
    memcpy(date, stamp, 8);
    date[8] = '\0';
    scope = apr_pstrcat(pool, date, "/auto/storage/goog4_request", NULL);
    canonical_headers(pool, req, host, &lines, &names, &payload);
    own[0] = (uc_gcs_pair_t){ "X-Goog-Algorithm", ALGORITHM };
    own[1] = (uc_gcs_pair_t){ "X-Goog-Credential",
                              apr_pstrcat(pool, req->client_email, "/",
                                          scope, NULL) };
    own[2] = (uc_gcs_pair_t){ "X-Goog-Date", stamp };
    own[3] = (uc_gcs_pair_t){ "X-Goog-Expires",
                              apr_ltoa(pool, (long)req->expires) };
    own[4] = (uc_gcs_pair_t){ "X-Goog-SignedHeaders", names };
    query = canonical_query(pool, req, own, 5);
    request = apr_pstrcat(pool, req->method, "\n", path, "\n", query, "\n",
                          lines, "\n", names, "\n", payload, NULL);
    uc_sigv4_hash(request, strlen(request), digest);
    text = apr_pstrcat(pool, ALGORITHM "\n", stamp, "\n", scope, "\n",
                       digest, NULL);
    if ((err = rsa_sign(pool, req->private_key_pem, text, &signature)))
        return err;
    *url = apr_pstrcat(pool, base, path, "?", query, "&X-Goog-Signature=",
                       signature, NULL);
    if (canonical)
        *canonical = request;
    if (to_sign)
        *to_sign = text;
    return NULL;
}
