/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_objstore_http.h"

#include <string.h>
#include <apr_strings.h>
#include <curl/curl.h>

#include "../cloud/uc_cloud_http.h"
#include "../cloud/uc_xml.h"

/* A Delta object is never this large; a bigger body is a corrupt length or
 * the wrong object, and buffering it would exhaust the process. */
#define MAX_BODY ((apr_size_t)2 << 30)

#define DEFAULT_TIMEOUT_MS 30000L

struct uc_objstore_http {
    uc_objstore_http_options_t opt;
    struct curl_slist *headers;
    CURL *curl;
    char errbuf[CURL_ERROR_SIZE];
};

static int http_ready;

static apr_status_t http_global_cleanup(void *data)
{
    (void)data;
    http_ready--;
    return APR_SUCCESS;
}

uc_error_t *uc_objstore_http_init(apr_pool_t *pool)
{
    uc_error_t *err = uc_cloud_init(pool);

    if (err)
        return err;
    http_ready++;
    apr_pool_cleanup_register(pool, NULL, http_global_cleanup,
                              apr_pool_cleanup_null);
    return NULL;
}

static apr_status_t http_cleanup(void *data)
{
    uc_objstore_http_t *h = data;

    if (h->curl)
        curl_easy_cleanup(h->curl);
    h->curl = NULL;
    if (h->headers)
        curl_slist_free_all(h->headers);
    h->headers = NULL;
    return APR_SUCCESS;
}

uc_error_t *uc_objstore_http_open(apr_pool_t *pool,
                                  const uc_objstore_http_options_t *opt,
                                  uc_objstore_http_t **out)
{
    uc_objstore_http_t *h = apr_pcalloc(pool, sizeof(*h));
    int i;

    if (http_ready == 0)
        return uc_error_make(pool, UC_E_INTERNAL, "%s stores are not set up "
                             "in this process (uc_objstore_init was not "
                             "called).", opt->service);
    h->opt = *opt;
    if (h->opt.timeout_ms <= 0)
        h->opt.timeout_ms = DEFAULT_TIMEOUT_MS;
    if (!(h->curl = curl_easy_init()))
        return uc_error_internal(pool);
    apr_pool_cleanup_register(pool, h, http_cleanup, apr_pool_cleanup_null);
    for (i = 0; opt->headers && opt->headers[i]; i++) {
        struct curl_slist *more = curl_slist_append(h->headers,
                                                    opt->headers[i]);

        if (!more)
            return uc_error_internal(pool);
        h->headers = more;
    }
    *out = h;
    return NULL;
}

/* The GET itself: any status is the caller's to judge. */
static uc_error_t *get(uc_objstore_http_t *h, apr_pool_t *pool,
                       const char *url, const char *range, const char *what,
                       long *status, char **body, apr_size_t *len)
{
    CURL *c = h->curl;
    uc_cloud_body_t b = { c, pool, MAX_BODY, NULL, 0, 0, 0 };
    CURLcode rc;

    /* A reset keeps the connection cache, so requests still reuse TLS
     * sessions, and leaves no option of the previous request behind. */
    curl_easy_reset(c);
    h->errbuf[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->opt.timeout_ms);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "mod_unicat");
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(c, CURLOPT_PROTOCOLS,
                     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)MAX_BODY);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, uc_cloud_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    if (h->opt.ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, h->opt.ca_file);
    if (h->headers)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    if (h->opt.aws_sigv4) {
        curl_easy_setopt(c, CURLOPT_AWS_SIGV4, h->opt.aws_sigv4);
        /* Separate options: a ':' in the key id would split USERPWD. */
        curl_easy_setopt(c, CURLOPT_USERNAME, h->opt.aws_key);
        curl_easy_setopt(c, CURLOPT_PASSWORD, h->opt.aws_secret);
    }
    /* An option, not a header line: the header list is built once per
     * store and shared by every request. */
    if (range)
        curl_easy_setopt(c, CURLOPT_RANGE, range);

    rc = curl_easy_perform(c);
    if (rc == CURLE_FILESIZE_EXCEEDED || (rc == CURLE_WRITE_ERROR
                                          && b.too_large))
        return uc_error_make(pool, UC_E_STORAGE,
                             "%s is larger than 2 GiB.", what);
    if (rc != CURLE_OK) {
        uc_error_t *err = uc_error_make(
            pool, UC_E_UNAVAILABLE, "Cannot reach %s for %s: %s.",
            h->opt.service, what,
            h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc));
        err->retry_after = 1;
        return err;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    *body = b.buf ? b.buf : apr_pcalloc(pool, 1);
    *len = b.len;
    return NULL;
}

const char *uc_objstore_http_error_code(apr_pool_t *pool, long status,
                                        const char *body, apr_size_t len)
{
    apr_xml_doc *doc = len ? uc_xml_parse(pool, body, len) : NULL;
    const apr_xml_elem *code;

    if (doc && doc->root && strcmp(doc->root->name, "Error") == 0
        && (code = uc_xml_child(doc->root, "Code")) != NULL
        && *uc_xml_text(pool, code))
        return uc_xml_text(pool, code);
    return apr_psprintf(pool, "HTTP %ld", status);
}

static void nothing(apr_pool_t *pool, char **data, apr_size_t *len)
{
    *data = apr_pcalloc(pool, 1);
    *len = 0;
}

static uc_error_t *refused(uc_objstore_http_t *h, apr_pool_t *pool,
                           long status, const char *body, apr_size_t len,
                           const char *what)
{
    return h->opt.refused ? h->opt.refused(pool, status, body, len, what)
                          : uc_error_make(pool, UC_E_STORAGE, "%s answered "
                                          "%ld for %s.", h->opt.service,
                                          status, what);
}

uc_error_t *uc_objstore_http_get(uc_objstore_http_t *h, apr_pool_t *pool,
                                 const char *url, const char *what,
                                 char **body, apr_size_t *len)
{
    long status = 0;
    uc_error_t *err = get(h, pool, url, NULL, what, &status, body, len);

    if (err || status == 200)
        return err;
    return refused(h, pool, status, *body, *len, what);
}

uc_error_t *uc_objstore_http_read(uc_objstore_http_t *h, apr_pool_t *pool,
                                  const char *url, apr_off_t offset,
                                  apr_off_t length, const char *what,
                                  char **data, apr_size_t *len)
{
    const char *range = NULL;
    char *body;
    apr_size_t blen;
    long status = 0;
    uc_error_t *err;

    if (length == 0) {
        nothing(pool, data, len);
        return NULL;
    }
    if (length > 0 && length - 1 > APR_INT64_MAX - offset)
        return uc_error_invalid(pool, "The read of %s is out of range.",
                                what);
    /* A whole read sends no Range, which servers serve as-is even for an
     * empty object (where "bytes=0-" is unsatisfiable). */
    if (length > 0)
        range = apr_psprintf(pool, "%" APR_OFF_T_FMT "-%" APR_OFF_T_FMT,
                             offset, offset + length - 1);
    else if (offset > 0)
        range = apr_psprintf(pool, "%" APR_OFF_T_FMT "-", offset);
    if ((err = get(h, pool, url, range, what, &status, &body, &blen)))
        return err;
    if (status == 416) {
        nothing(pool, data, len);
        return NULL;
    }
    /* A server that ignores Range answers 200 with the whole object. */
    if (status == 200 && range) {
        apr_size_t skip = (apr_uint64_t)offset < blen ? (apr_size_t)offset
                                                      : blen;

        body += skip;
        blen -= skip;
        if (length > 0 && (apr_uint64_t)length < blen)
            blen = (apr_size_t)length;
        body[blen] = '\0';
    }
    if (status != 200 && status != 206)
        return refused(h, pool, status, body, blen, what);
    *data = body;
    *len = blen;
    return NULL;
}
