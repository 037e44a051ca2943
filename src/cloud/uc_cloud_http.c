/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_cloud_http.h"

#include <string.h>
#include <strings.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <curl/curl.h>

#include "../core/uc_ip_list.h"
#include "../core/uc_json.h"
#include "../core/uc_secret.h"

#define DEFAULT_TIMEOUT_MS 10000L
/* How often a probe wakes to let libcurl try the next address (it sets no
 * timer of its own for that). */
#define PROBE_POLL_MS 10

/* How many set-ups are in force: curl_global_init is not safe once threads
 * run, so it is done between a set-up and its cleanup only. */
static int curl_users;

static apr_status_t cloud_cleanup(void *data)
{
    (void)data;
    curl_users--;
    curl_global_cleanup();
    return APR_SUCCESS;
}

uc_error_t *uc_cloud_init(apr_pool_t *pool)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);

    if (rc != CURLE_OK)
        return uc_error_make(pool, UC_E_INTERNAL,
                             "libcurl could not be initialised: %s.",
                             curl_easy_strerror(rc));
    curl_users++;
    apr_pool_cleanup_register(pool, NULL, cloud_cleanup,
                              apr_pool_cleanup_null);
    return NULL;
}

size_t uc_cloud_on_body(char *ptr, size_t size, size_t nmemb, void *body)
{
    uc_cloud_body_t *b = body;
    size_t n = size * nmemb;

    if (n > b->max - b->len) {
        b->too_large = 1;
        return 0;
    }
    if (b->len + n + 1 > b->cap) {
        apr_size_t cap = b->cap ? b->cap : 8192;
        curl_off_t cl = -1;
        char *buf;

        /* The announced length sizes the buffer once: doubling in a pool
         * would leave every smaller copy allocated until the pool dies. */
        if (b->cap == 0 && b->curl
            && curl_easy_getinfo(b->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
                                 &cl) == CURLE_OK
            && cl > 0 && (curl_off_t)cl <= (curl_off_t)b->max)
            cap = (apr_size_t)cl + 1;
        while (cap < b->len + n + 1)
            cap = cap > b->max / 2 ? b->max + 1 : cap * 2;
        buf = apr_palloc(b->pool, cap);
        if (b->len)
            memcpy(buf, b->buf, b->len);
        b->buf = buf;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, ptr, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return n;
}

/* What the address guard of a call (uc_cloud_request_t.public_only) or
 * of a probe (uc_cloud_check_public) saw. */
typedef struct guard {
    int probe;                   /* open no socket: only look */
    int refused;                 /* an internal address was refused */
} guard_t;

/* libcurl asks for a socket for each address it tries, once the host is
 * resolved and just before it connects: what is checked here is what is
 * connected to, whatever the DNS answers the next time. */
static curl_socket_t open_public(void *data, curlsocktype purpose,
                                 struct curl_sockaddr *address)
{
    guard_t *guard = data;

    if (purpose != CURLSOCKTYPE_IPCXN || uc_ip_is_internal(&address->addr)) {
        guard->refused = 1;
        return CURL_SOCKET_BAD;
    }
    if (guard->probe)
        return CURL_SOCKET_BAD;
    return socket(address->family, address->socktype, address->protocol);
}

/* A proxy would resolve the host itself, out of the guard's sight: the
 * guarded calls go direct, whatever http_proxy and its kin say. */
static void set_guard(CURL *c, guard_t *guard)
{
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_public);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, guard);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
}

static uc_error_t *internal_refused(apr_pool_t *pool, uc_error_kind_t kind,
                                    const char *service)
{
    return uc_error_make(pool, kind, "%s is at a loopback, private, "
                         "link-local or unspecified address, which this "
                         "server does not call.", service);
}

/* What is handed to libcurl and holds secrets goes when the call ends. */
typedef struct call_state {
    CURL *curl;
    struct curl_slist *headers;
    char *userpwd;
    guard_t guard;
} call_state_t;

static apr_status_t call_cleanup(void *data)
{
    call_state_t *st = data;

    if (st->curl)
        curl_easy_cleanup(st->curl);
    if (st->headers)
        curl_slist_free_all(st->headers);
    if (st->userpwd)
        uc_secret_wipe(st->userpwd, strlen(st->userpwd));
    return APR_SUCCESS;
}

static uc_error_t *unreachable(apr_pool_t *pool, const uc_cloud_request_t *req,
                               CURLcode rc, long timeout_ms)
{
    uc_error_t *err;

    if (rc == CURLE_OPERATION_TIMEDOUT)
        err = uc_error_make(pool, UC_E_UNAVAILABLE, "%s did not answer "
                            "within %ld ms; try again later.", req->service,
                            timeout_ms);
    else
        err = uc_error_make(pool, UC_E_UNAVAILABLE, "%s could not be "
                            "reached; try again later.", req->service);
    err->cause = apr_pstrdup(pool, curl_easy_strerror(rc));
    err->retry_after = 5;
    return err;
}

static uc_error_t *set_up(apr_pool_t *pool, const uc_cloud_request_t *req,
                          call_state_t *st, uc_cloud_body_t *answer,
                          long timeout_ms)
{
    CURL *c = st->curl;
    const char *const *h;

    for (h = req->headers; h && *h; h++) {
        struct curl_slist *more = curl_slist_append(st->headers, *h);
        if (!more)
            return uc_error_internal(pool);
        st->headers = more;
    }
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "mod_unicat");
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, uc_cloud_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
    if (req->ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
    if (st->headers)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, st->headers);
    if (req->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)req->body_len);
    }
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
    if (req->public_only)
        set_guard(c, &st->guard);
    if (req->aws_sigv4 && req->aws_key && req->aws_secret) {
        st->userpwd = apr_pstrcat(pool, req->aws_key, ":", req->aws_secret,
                                  NULL);
        curl_easy_setopt(c, CURLOPT_AWS_SIGV4, req->aws_sigv4);
        curl_easy_setopt(c, CURLOPT_USERPWD, st->userpwd);
    }
    return NULL;
}

uc_error_t *uc_cloud_call(apr_pool_t *pool, const uc_cloud_request_t *req,
                          uc_cloud_answer_t *out)
{
    long timeout_ms = req->timeout_ms > 0 ? req->timeout_ms
                                          : DEFAULT_TIMEOUT_MS;
    uc_cloud_body_t answer = { NULL, pool, UC_CLOUD_MAX_ANSWER, NULL, 0, 0,
                               0 };
    call_state_t *st = apr_pcalloc(pool, sizeof(*st));
    CURLcode rc;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    if (curl_users == 0)
        return uc_error_make(pool, UC_E_INTERNAL, "Calls to %s are not set "
                             "up in this process (uc_cloud_init was not "
                             "called).", req->service);
    if ((st->curl = curl_easy_init()) == NULL)
        return uc_error_internal(pool);
    apr_pool_cleanup_register(pool, st, call_cleanup, apr_pool_cleanup_null);
    if ((err = set_up(pool, req, st, &answer, timeout_ms)))
        return err;
    rc = curl_easy_perform(st->curl);
    if (answer.too_large)
        return uc_error_make(pool, UC_E_STORAGE, "%s answered with more "
                             "than %d bytes.", req->service,
                             UC_CLOUD_MAX_ANSWER);
    /* Refused before any connection to the address: the same answer
     * whether anything listens there or not. */
    if (rc != CURLE_OK && st->guard.refused)
        return internal_refused(pool, UC_E_FAILED_PRECONDITION,
                                req->service);
    if (rc != CURLE_OK)
        return unreachable(pool, req, rc, timeout_ms);
    curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &out->status);
    out->body = answer.buf ? answer.buf : apr_pstrdup(pool, "");
    out->len = answer.len;
    return NULL;
}

uc_error_t *uc_cloud_check_public(apr_pool_t *pool, const char *what,
                                  const char *url, long timeout_ms)
{
    guard_t guard = { 1, 0 };
    CURL *c = curl_easy_init();
    CURLM *multi = curl_multi_init();
    int running = 1;

    if (c && multi) {
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                         timeout_ms > 0 ? timeout_ms : DEFAULT_TIMEOUT_MS);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        set_guard(c, &guard);
        curl_multi_add_handle(multi, c);
        while (curl_multi_perform(multi, &running) == CURLM_OK && running)
            curl_multi_poll(multi, NULL, 0, PROBE_POLL_MS, NULL);
        curl_multi_remove_handle(multi, c);
    }
    curl_multi_cleanup(multi);
    curl_easy_cleanup(c);
    if (!c || !multi)
        return uc_error_internal(pool);
    return guard.refused ? internal_refused(pool, UC_E_INVALID, what) : NULL;
}

static int is_token(const char *s)
{
    const char *p;

    if (!s || !*s || strlen(s) > 64)
        return 0;
    for (p = s; *p; p++)
        if (!(apr_isalnum(*p) || *p == '.' || *p == '_' || *p == '-'))
            return 0;
    return 1;
}

uc_error_t *uc_cloud_refused(apr_pool_t *pool, const char *service,
                             long status, const char *code)
{
    int later = status == 429 || status >= 500;
    uc_error_t *err = uc_error_make(
        pool, later ? UC_E_UNAVAILABLE : UC_E_STORAGE,
        "%s refused the request (HTTP %ld%s%s)%s", service, status,
        is_token(code) ? ", " : "", is_token(code) ? code : "",
        later ? "; try again later." : ".");

    if (later)
        err->retry_after = 5;
    return err;
}

int uc_cloud_is_header_value(const char *s)
{
    for (; *s; s++)
        if (apr_iscntrl(*s))
            return 0;
    return 1;
}

int uc_cloud_is_key_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        apr_size_t n = uc_utf8_sequence(p);
        if (!n || *p < 0x20 || *p == 0x7f)
            return 0;
        p += n;
    }
    return 1;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* The host ends at a port, a path, a query or the URL's end (strchr finds
 * the NUL too); "127.0.0.1.example.com" or "localhost@example.com" are not
 * loopback. */
static int is_loopback_host(const char *host)
{
    static const char *const loopback[] = { "127.0.0.1", "localhost",
                                            "[::1]", NULL };
    const char *const *l;

    for (l = loopback; *l; l++)
        if (starts_with(host, *l) && strchr(":/?", host[strlen(*l)]))
            return 1;
    return 0;
}

int uc_cloud_url_for_secrets(const char *url)
{
    if (!url)
        return 0;
    if (starts_with(url, "https://"))
        return url[8] != '\0';
    return starts_with(url, "http://") && is_loopback_host(url + 7);
}
