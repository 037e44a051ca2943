/* SPDX-License-Identifier: Apache-2.0 */
/* s3:// (and s3a://) tables through libcurl. Requests are signed by
 * libcurl's own SigV4 (CURLOPT_AWS_SIGV4): this file only shapes them so
 * that the canonical request curl derives from them is the one S3 expects,
 * i.e. it sends paths and query strings that are already in canonical
 * form. Pre-signed URLs are signed here (uc_sigv4.h), with the same
 * canonical paths. */
#include "uc_objstore_http.h"
#include "uc_objstore_provider.h"
#include "uc_sigv4.h"

#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "../cloud/uc_xml.h"
#include "../core/uc_percent.h"
#include "../core/uc_time.h"

/* SHA-256 of the empty payload: S3 rejects signed requests without
 * x-amz-content-sha256, and curl 7.88 does not add it on its own. */
#define EMPTY_SHA256 \
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct s3_store {
    const char *bucket;
    const char *root;            /* key prefix, no leading/trailing '/' */
    const char *base_url;        /* where keys are appended after a '/' */
    const char *list_url;        /* ListObjectsV2 target, before '?' */
    const char *sigv4;           /* NULL: anonymous, unsigned requests */
    const char *region;
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;   /* NULL without one */
    uc_objstore_http_t *http;
} s3_store_t;

static uc_error_t *s3_init(apr_pool_t *pool)
{
    return uc_objstore_http_init(pool);
}

/* --- names and URLs ------------------------------------------------------ */

/* S3's URI encoding: what SigV4 signs is the path as sent, so the path must
 * already be the canonical encoding (upper-case hex, unreserved kept);
 * '/' separates key segments in a path but is data in a query value. */
static char *s3_uri_encode(apr_pool_t *pool, const char *s, int keep_slash)
{
    return uc_percent_encode(pool, s, strlen(s), keep_slash ? "/" : "");
}

static int valid_bucket(const char *b, apr_size_t n)
{
    apr_size_t i;

    if (n == 0 || n > 255)
        return 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if (!(uc_is_unreserved(c) && c != '~'))
            return 0;
    }
    return 1;
}

/* Region names end up in the host name and in curl's SigV4 parameter,
 * where ':' would shift the provider:service fields. */
static int valid_region(const char *r)
{
    if (!*r || strlen(r) > 64)
        return 0;
    for (; *r; r++)
        if (!((*r >= 'a' && *r <= 'z') || (*r >= '0' && *r <= '9')
              || *r == '-'))
            return 0;
    return 1;
}

/* Header values go into raw header lines; CR or LF would inject others. */
static int valid_header_value(const char *v)
{
    return strpbrk(v, "\r\n") == NULL;
}

static int is_ip_literal(const char *host, apr_size_t n)
{
    apr_size_t i;

    if (n > 0 && host[0] == '[')
        return 1;
    for (i = 0; i < n; i++)
        if (!((host[i] >= '0' && host[i] <= '9') || host[i] == '.'))
            return 0;
    return n > 0;
}

/* Where objects of `bucket` live: an https AWS host unless `endpoint`
 * names another server. Virtual-hosted style puts the bucket in front of the
 * host name; an IP-literal endpoint has no such names, so it is always
 * addressed path-style. Sets *list_url to the URL ListObjectsV2 is sent to
 * (the bucket root). */
static uc_error_t *s3_build_urls(apr_pool_t *pool, const char *endpoint,
                                 int path_style, const char *bucket,
                                 const char *region, const char **base_url,
                                 const char **list_url)
{
    const char *scheme, *authority, *path, *end;
    apr_size_t alen;
    char *ep;

    if (endpoint == NULL || *endpoint == '\0') {
        if (path_style) {
            *base_url = apr_psprintf(pool, "https://s3.%s.amazonaws.com/%s",
                                     region, bucket);
            *list_url = *base_url;
        } else {
            *base_url = apr_psprintf(pool, "https://%s.s3.%s.amazonaws.com",
                                     bucket, region);
            *list_url = apr_pstrcat(pool, *base_url, "/", NULL);
        }
        return NULL;
    }
    if (strncmp(endpoint, "http://", 7) == 0)
        scheme = "http://";
    else if (strncmp(endpoint, "https://", 8) == 0)
        scheme = "https://";
    else
        return uc_error_invalid(pool, "The S3 endpoint '%s' must start with "
                                "http:// or https://.", endpoint);
    ep = apr_pstrdup(pool, endpoint + strlen(scheme));
    end = ep + strlen(ep);
    while (end > ep && end[-1] == '/')
        end--;
    ep[end - ep] = '\0';
    path = strchr(ep, '/');
    alen = path ? (apr_size_t)(path - ep) : strlen(ep);
    if (!path)
        path = "";
    if (alen == 0 || strpbrk(ep, "?#@ \t\r\n") != NULL)
        return uc_error_invalid(pool, "The S3 endpoint '%s' is not a valid "
                                "http(s)://host[:port] URL.", endpoint);
    authority = apr_pstrmemdup(pool, ep, alen);
    if (path_style || is_ip_literal(authority, strcspn(authority, ":"))) {
        *base_url = apr_pstrcat(pool, scheme, authority, path, "/", bucket,
                                NULL);
        *list_url = *base_url;
    } else {
        *base_url = apr_pstrcat(pool, scheme, bucket, ".", authority, path,
                                NULL);
        *list_url = apr_pstrcat(pool, *base_url, "/", NULL);
    }
    return NULL;
}

/* The full object key of `key` (relative to the table root). */
static const char *full_key(apr_pool_t *pool, const s3_store_t *s3,
                            const char *key)
{
    return *s3->root ? apr_pstrcat(pool, s3->root, "/", key, NULL) : key;
}

/* --- requests ------------------------------------------------------------ */

static uc_error_t *status_error(apr_pool_t *pool, long status,
                                const char *body, apr_size_t len,
                                const char *what)
{
    const char *code = uc_objstore_http_error_code(pool, status, body, len);

    if (status == 404)
        return uc_error_make(pool, UC_E_NOT_FOUND,
                             strcmp(code, "NoSuchBucket") == 0
                             ? "The bucket of %s does not exist."
                             : "%s does not exist.", what);
    return uc_error_make(pool, UC_E_STORAGE,
                         "S3 answered %ld %s for %s.", status, code, what);
}

/* --- operations ---------------------------------------------------------- */

/* One ListObjectsV2 page (uc_objstore_page_fn): appends its objects to
 * `out`, sets *next to the continuation token when there are more pages.
 * Servers differ in how they treat start-after; the listing does not. */
static uc_error_t *list_page(void *backend, apr_pool_t *pool,
                             apr_pool_t *page_pool, const char *prefix,
                             const char *start_after, const char *token,
                             apr_array_header_t *out, const char **next)
{
    s3_store_t *s3 = backend;
    const char *what = apr_psprintf(page_pool, "'%s' in s3://%s", prefix,
                                    s3->bucket);
    const char *url, *query, *truncated;
    apr_size_t prefix_len = strlen(prefix), len;
    const apr_xml_elem *e, *t;
    apr_xml_doc *doc;
    char *body;
    uc_error_t *err;

    /* Parameters in byte order with canonical encoding: curl 7.88 signs the
     * query string exactly as given, and S3 signs the sorted one. */
    query = apr_pstrcat(page_pool,
                        token ? "continuation-token=" : "",
                        token ? s3_uri_encode(page_pool, token, 0) : "",
                        token ? "&" : "",
                        "delimiter=%2F&list-type=2&prefix=",
                        s3_uri_encode(page_pool, prefix, 0),
                        start_after && !token ? "&start-after=" : "",
                        start_after && !token
                        ? s3_uri_encode(page_pool, start_after, 0) : "",
                        NULL);
    url = apr_pstrcat(page_pool, s3->list_url, "?", query, NULL);
    if ((err = uc_objstore_http_get(s3->http, page_pool, url, what, &body,
                                    &len)))
        return uc_error_copy(pool, err);
    doc = uc_xml_parse(page_pool, body, len);
    if (doc == NULL || doc->root == NULL
        || strcmp(doc->root->name, "ListBucketResult") != 0)
        return uc_error_make(pool, UC_E_STORAGE,
                             "S3 answered the listing of %s with something "
                             "other than a ListBucketResult.", what);
    for (e = doc->root->first_child; e; e = e->next) {
        const char *key, *name, *size;
        apr_int64_t mtime = 0;
        uc_object_t *obj;
        char *endp;

        if (strcmp(e->name, "Contents") != 0)
            continue;
        key = (t = uc_xml_child(e, "Key")) ? uc_xml_text(page_pool, t) : NULL;
        size = (t = uc_xml_child(e, "Size")) ? uc_xml_text(page_pool, t) : NULL;
        if (key == NULL || size == NULL)
            return uc_error_make(pool, UC_E_STORAGE,
                                 "S3 listed an object without Key or Size "
                                 "in %s.", what);
        /* A key equal to the prefix is a "directory marker" some tools
         * write; with the delimiter, no listed name contains '/'. */
        if (strncmp(key, prefix, prefix_len) != 0)
            continue;
        name = key + prefix_len;
        if (*name == '\0' || strchr(name, '/'))
            continue;
        obj = apr_array_push(out);
        obj->name = apr_pstrdup(pool, name);
        obj->size = apr_strtoi64(size, &endp, 10);
        if (*size == '\0' || *endp != '\0' || obj->size < 0)
            return uc_error_make(pool, UC_E_STORAGE,
                                 "S3 listed '%s' with an invalid Size.", key);
        t = uc_xml_child(e, "LastModified");
        if (t && !uc_time_parse_iso8601(uc_xml_text(page_pool, t), &mtime))
            return uc_error_make(pool, UC_E_STORAGE,
                                 "S3 listed '%s' with an invalid "
                                 "LastModified.", key);
        obj->mtime_ms = mtime;
    }
    truncated = (t = uc_xml_child(doc->root, "IsTruncated"))
                ? uc_xml_text(page_pool, t) : "false";
    *next = NULL;
    if (strcmp(truncated, "true") == 0) {
        t = uc_xml_child(doc->root, "NextContinuationToken");
        if (t == NULL || *uc_xml_text(page_pool, t) == '\0')
            return uc_error_make(pool, UC_E_STORAGE,
                                 "S3 truncated the listing of %s without a "
                                 "continuation token.", what);
        *next = apr_pstrdup(pool, uc_xml_text(page_pool, t));
    }
    return NULL;
}

static uc_error_t *s3_list(uc_objstore_t *store, apr_pool_t *pool,
                           const char *dir, const char *start_after,
                           apr_array_header_t **objects)
{
    s3_store_t *s3 = store->backend;

    return uc_objstore_list_pages(pool, s3->root, dir, start_after,
                                  list_page, s3, objects);
}

static uc_error_t *s3_read(uc_objstore_t *store, apr_pool_t *pool,
                           const char *key, apr_off_t offset,
                           apr_off_t length, char **data, apr_size_t *len)
{
    s3_store_t *s3 = store->backend;
    const char *fkey = full_key(pool, s3, key);

    return uc_objstore_http_read(s3->http, pool,
                                 apr_pstrcat(pool, s3->base_url, "/",
                                             s3_uri_encode(pool, fkey, 1),
                                             NULL),
                                 offset, length,
                                 apr_psprintf(pool, "'%s' in s3://%s", fkey,
                                              s3->bucket),
                                 data, len);
}

/* --- pre-signed URLs ----------------------------------------------------- */

/* The Host header a client sends for `url` (scheme://authority/path), which
 * leaves out a default port, and the path it sends. */
static void host_and_path(apr_pool_t *pool, const char *url,
                          const char **host, const char **path)
{
    const char *authority = strstr(url, "://") + 3;
    const char *port = strncmp(url, "https:", 6) == 0 ? ":443" : ":80";
    apr_size_t n = strcspn(authority, "/"), plen = strlen(port);

    *path = authority[n] ? authority + n : "/";
    if (n > plen && memcmp(authority + n - plen, port, plen) == 0)
        n -= plen;
    *host = apr_pstrmemdup(pool, authority, n);
}

/* Query-string authentication of a GET: the signed parameters, in byte
 * order and S3's encoding, are both the canonical query string and the
 * query sent; only the host is a signed header, and the payload is not
 * signed (the request has none). */
static uc_error_t *s3_presign(uc_objstore_t *store, apr_pool_t *pool,
                              const char *key, apr_int64_t expires,
                              apr_time_t now, const char **out)
{
    s3_store_t *s3 = store->backend;
    const char *url = apr_pstrcat(pool, s3->base_url, "/",
                                  s3_uri_encode(pool, full_key(pool, s3, key),
                                                1), NULL);
    const char *host, *path, *date, *scope, *query, *request;
    char signature[UC_SIGV4_HEX_SIZE];
    apr_time_exp_t t;

    if (s3->sigv4 == NULL) {
        *out = url;
        return NULL;
    }
    if (apr_time_exp_gmt(&t, now) != APR_SUCCESS)
        return uc_error_internal(pool);
    date = apr_psprintf(pool, "%04d%02d%02dT%02d%02d%02dZ", t.tm_year + 1900,
                        t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min,
                        t.tm_sec);
    scope = apr_psprintf(pool, "%.8s/%s/s3/aws4_request", date, s3->region);
    query = apr_pstrcat(pool,
                        "X-Amz-Algorithm=" UC_SIGV4_ALGORITHM
                        "&X-Amz-Credential=",
                        s3_uri_encode(pool, apr_pstrcat(pool,
                                                        s3->access_key_id,
                                                        "/", scope, NULL), 0),
                        "&X-Amz-Date=", date,
                        "&X-Amz-Expires=",
                        apr_psprintf(pool, "%" APR_INT64_T_FMT, expires),
                        s3->session_token ? "&X-Amz-Security-Token=" : "",
                        s3->session_token
                        ? s3_uri_encode(pool, s3->session_token, 0) : "",
                        "&X-Amz-SignedHeaders=host", NULL);
    host_and_path(pool, url, &host, &path);
    request = apr_pstrcat(pool, "GET\n", path, "\n", query, "\nhost:", host,
                          "\n\nhost\nUNSIGNED-PAYLOAD", NULL);
    uc_sigv4_sign(pool, s3->secret_access_key, apr_pstrndup(pool, date, 8),
                  s3->region, "s3",
                  uc_sigv4_string_to_sign(pool, date, scope, request),
                  signature);
    *out = apr_pstrcat(pool, url, "?", query, "&X-Amz-Signature=", signature,
                       NULL);
    return NULL;
}

/* --- opening ------------------------------------------------------------- */

static uc_error_t *s3_open(apr_pool_t *pool, const char *location,
                           const uc_objstore_url_t *url,
                           const uc_objstore_config_t *config,
                           uc_objstore_t *store)
{
    s3_store_t *s3 = apr_pcalloc(pool, sizeof(*s3));
    const char *headers[3] = { NULL, NULL, NULL };
    uc_objstore_http_options_t http;
    const char *region;
    uc_error_t *err;

    if (url->authority == NULL
        || !valid_bucket(url->authority, strlen(url->authority)))
        return uc_error_invalid(pool, "The location '%s' does not name a "
                                "valid S3 bucket.", location);
    s3->bucket = url->authority;
    if ((err = uc_objstore_url_root(pool, location, url, &s3->root)))
        return err;

    region = config->region && *config->region ? config->region
                                               : "us-east-1";
    if (!valid_region(region))
        return uc_error_invalid(pool, "'%s' is not a valid S3 region.",
                                region);
    s3->region = apr_pstrdup(pool, region);
    err = s3_build_urls(pool, config->endpoint, config->path_style,
                        s3->bucket, region, &s3->base_url, &s3->list_url);
    if (err)
        return err;
    if ((config->access_key_id && *config->access_key_id)
        != (config->secret_access_key && *config->secret_access_key))
        return uc_error_invalid(pool, "S3 credentials need both an access "
                                "key id and a secret access key.");
    if (config->access_key_id && *config->access_key_id) {
        if (!valid_header_value(config->access_key_id)
            || (config->session_token
                && !valid_header_value(config->session_token)))
            return uc_error_invalid(pool, "The S3 credentials contain a "
                                    "line break.");
        s3->sigv4 = apr_psprintf(pool, "aws:amz:%s:s3", region);
        s3->access_key_id = apr_pstrdup(pool, config->access_key_id);
        s3->secret_access_key = apr_pstrdup(pool, config->secret_access_key);
        if (config->session_token && *config->session_token)
            s3->session_token = apr_pstrdup(pool, config->session_token);
    }

    /* Unsigned requests need no payload hash, and a token without
     * keys could not be signed. */
    if (s3->sigv4) {
        headers[0] = "x-amz-content-sha256: " EMPTY_SHA256;
        if (s3->session_token)
            headers[1] = apr_pstrcat(pool, "x-amz-security-token: ",
                                     s3->session_token, NULL);
    }
    memset(&http, 0, sizeof(http));
    http.service = "S3";
    http.refused = status_error;
    http.headers = headers;
    http.aws_sigv4 = s3->sigv4;
    http.aws_key = s3->access_key_id;
    http.aws_secret = s3->secret_access_key;
    http.timeout_ms = config->timeout_ms;
    http.ca_file = config->ca_file;
    if ((err = uc_objstore_http_open(pool, &http, &s3->http)))
        return err;

    store->location = apr_pstrcat(pool, url->scheme, "://", s3->bucket,
                                  *s3->root ? "/" : "", s3->root, NULL);
    store->backend = s3;
    return NULL;
}

static const char *const s3_schemes[] = { "s3", "s3a", NULL };

const uc_objstore_provider_t uc_objstore_s3_provider = {
    s3_schemes, s3_init, s3_open, s3_list, s3_read, NULL, s3_presign
};
