/* SPDX-License-Identifier: Apache-2.0 */
/* gs:// tables in Google Cloud Storage, through its JSON API: a listing of
 * the objects under a prefix with the delimiter '/', an object's media
 * with a Range. The store's own requests carry an OAuth token (the
 * location's service account, downscoped to the table's prefix by the
 * caller); the URLs handed out are V4 signed URLs of that account's key,
 * each for one object (uc_gcs_v4.h), so that their holders need no Google
 * identity. */
#include "uc_objstore_http.h"
#include "uc_objstore_provider.h"
#include "uc_gcs_v4.h"

#include <string.h>
#include <apr_strings.h>
#include <jansson.h>

#include "../core/uc_json.h"
#include "../core/uc_percent.h"
#include "../core/uc_time.h"

#define SERVICE "Google Cloud Storage"
#define DEFAULT_ENDPOINT "https://storage.googleapis.com"

typedef struct gcs_store {
    const char *bucket;
    const char *root;            /* object name prefix, no '/' at its ends */
    const char *endpoint;        /* scheme://host[:port], no '/' after */
    const char *api_base;        /* <endpoint>/storage/v1/b/<bucket>/o */
    const char *client_email;    /* NULL: URLs are not signed */
    const char *private_key;
    uc_objstore_http_t *http;
} gcs_store_t;

static uc_error_t *gcs_init(apr_pool_t *pool)
{
    return uc_objstore_http_init(pool);
}

/* Bucket names: 3 to 222 characters of [a-z0-9._-], starting and ending
 * with a letter or digit (Google's rules, without the dotted ones' 63 per
 * component). */
static int is_bucket(const char *s)
{
    apr_size_t n = strlen(s), i;

    if (n < 3 || n > 222)
        return 0;
    for (i = 0; i < n; i++) {
        int alnum = (s[i] >= 'a' && s[i] <= 'z') ||
                    (s[i] >= '0' && s[i] <= '9');
        if (!alnum && ((i == 0 || i == n - 1) ||
                       (s[i] != '-' && s[i] != '_' && s[i] != '.')))
            return 0;
    }
    return 1;
}

static const char *object_name(apr_pool_t *pool, const gcs_store_t *gs,
                               const char *key)
{
    return *gs->root ? apr_pstrcat(pool, gs->root, "/", key, NULL) : key;
}

static const char *what_of(apr_pool_t *pool, const gcs_store_t *gs,
                           const char *name)
{
    return apr_psprintf(pool, "'%s' in bucket %s", name, gs->bucket);
}

/* The JSON API's error: {"error":{"code","message","errors":[...]}}; only
 * the reason of its first error is kept, as messages can be long. */
static uc_error_t *status_error(apr_pool_t *pool, long status,
                                const char *body, apr_size_t len,
                                const char *what)
{
    json_t *doc = uc_json_own(pool, json_loadb(body ? body : "", len, 0,
                                               NULL));
    json_t *first = json_array_get(json_object_get(json_object_get(
        doc, "error"), "errors"), 0);
    const char *reason = json_string_value(json_object_get(first, "reason"));
    const char *said = reason ? apr_psprintf(pool, " (%s)", reason) : "";

    if (status == 404)
        return uc_error_make(pool, UC_E_NOT_FOUND, "%s does not exist.",
                             what);
    if (status == 429 || status >= 500) {
        uc_error_t *err = uc_error_make(pool, UC_E_UNAVAILABLE, SERVICE
                                        " answered %ld%s for %s.", status,
                                        said, what);
        err->retry_after = 1;
        return err;
    }
    return uc_error_make(pool, UC_E_STORAGE, SERVICE " answered %ld%s for "
                         "%s.", status, said, what);
}

/* --- listing ------------------------------------------------------------- */

/* One item of a listing of `prefix`: an object directly under it. */
static uc_error_t *add_item(apr_pool_t *pool, json_t *item,
                            const char *prefix, apr_array_header_t *out)
{
    const char *name = json_string_value(json_object_get(item, "name"));
    const char *size = json_string_value(json_object_get(item, "size"));
    const char *updated = json_string_value(json_object_get(item,
                                                            "updated"));
    apr_size_t prefix_len = strlen(prefix);
    apr_int64_t mtime = 0;
    uc_object_t *obj;
    char *end;

    if (!name || !size)
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed an object "
                             "without name or size.");
    if (strncmp(name, prefix, prefix_len) != 0 || !name[prefix_len]
        || strchr(name + prefix_len, '/'))
        return NULL;
    if (updated && !uc_time_parse_iso8601(updated, &mtime))
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed '%s' with "
                             "an invalid updated time.", name);
    obj = apr_array_push(out);
    obj->name = apr_pstrdup(pool, name + prefix_len);
    obj->size = apr_strtoi64(size, &end, 10);
    obj->mtime_ms = mtime;
    if (!*size || *end || obj->size < 0)
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed '%s' with "
                             "an invalid size.", name);
    return NULL;
}

/* One page of objects.list (uc_objstore_page_fn); its page tokens are
 * opaque. */
static uc_error_t *list_page(void *backend, apr_pool_t *pool,
                             apr_pool_t *page_pool, const char *prefix,
                             const char *start_after, const char *marker,
                             apr_array_header_t *out, const char **next)
{
    gcs_store_t *gs = backend;
    const char *what = what_of(page_pool, gs, prefix), *url, *following;
    json_t *doc, *item;
    apr_size_t len, i;
    char *body;
    uc_error_t *err;

    (void)start_after;
    url = apr_pstrcat(page_pool, gs->api_base, "?delimiter=%2F&prefix=",
                      uc_percent_encode(page_pool, prefix, strlen(prefix),
                                        ""),
                      "&fields=items(name,size,updated),nextPageToken",
                      marker ? "&pageToken=" : "",
                      marker ? uc_percent_encode(page_pool, marker,
                                                 strlen(marker), "") : "",
                      NULL);
    if ((err = uc_objstore_http_get(gs->http, page_pool, url, what, &body,
                                    &len)))
        return uc_error_copy(pool, err);
    doc = uc_json_own(page_pool, json_loadb(body, len, 0, NULL));
    if (!json_is_object(doc))
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " answered the "
                             "listing of %s with something other than a "
                             "JSON object.", what);
    json_array_foreach(json_object_get(doc, "items"), i, item)
        if ((err = add_item(pool, item, prefix, out)))
            return err;
    following = json_string_value(json_object_get(doc, "nextPageToken"));
    *next = following ? apr_pstrdup(pool, following) : NULL;
    return NULL;
}

static uc_error_t *gcs_list(uc_objstore_t *store, apr_pool_t *pool,
                            const char *dir, const char *start_after,
                            apr_array_header_t **objects)
{
    gcs_store_t *gs = store->backend;

    return uc_objstore_list_pages(pool, gs->root, dir, start_after,
                                  list_page, gs, objects);
}

/* --- reading and signing ------------------------------------------------- */

static uc_error_t *gcs_read(uc_objstore_t *store, apr_pool_t *pool,
                            const char *key, apr_off_t offset,
                            apr_off_t length, char **data, apr_size_t *len)
{
    gcs_store_t *gs = store->backend;
    const char *name = object_name(pool, gs, key);

    /* The JSON API names an object in one path segment: its slashes too
     * are encoded. */
    return uc_objstore_http_read(gs->http, pool,
                                 apr_pstrcat(pool, gs->api_base, "/",
                                             uc_percent_encode(pool, name,
                                                               strlen(name),
                                                               ""),
                                             "?alt=media", NULL),
                                 offset, length, what_of(pool, gs, name),
                                 data, len);
}

static uc_error_t *gcs_presign(uc_objstore_t *store, apr_pool_t *pool,
                               const char *key, apr_int64_t expires,
                               apr_time_t now, const char **out)
{
    gcs_store_t *gs = store->backend;
    uc_gcs_v4_t req;

    if (!gs->private_key)
        return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Files in "
                             "bucket %s are handed out as V4 signed URLs, "
                             "which need the private key of the location's "
                             "service account.", gs->bucket);
    memset(&req, 0, sizeof(req));
    req.method = "GET";
    req.endpoint = gs->endpoint;
    req.style = UC_GCS_PATH_STYLE;
    req.bucket = gs->bucket;
    req.object = object_name(pool, gs, key);
    req.now = now;
    req.expires = expires;
    req.client_email = gs->client_email;
    req.private_key_pem = gs->private_key;
    return uc_gcs_v4_sign(pool, &req, out, NULL, NULL);
}

/* --- opening ------------------------------------------------------------- */

static uc_error_t *read_endpoint(apr_pool_t *pool, const char *given,
                                 gcs_store_t *gs)
{
    apr_size_t n;

    gs->endpoint = given ? given : DEFAULT_ENDPOINT;
    if (strncmp(gs->endpoint, "https://", 8) != 0 &&
        strncmp(gs->endpoint, "http://", 7) != 0)
        return uc_error_invalid(pool, "The Cloud Storage endpoint '%s' must "
                                "be an http(s) URL.", gs->endpoint);
    n = strlen(gs->endpoint);
    while (n > 0 && gs->endpoint[n - 1] == '/')
        n--;
    gs->endpoint = apr_pstrmemdup(pool, gs->endpoint, n);
    gs->api_base = apr_pstrcat(pool, gs->endpoint, "/storage/v1/b/",
                               gs->bucket, "/o", NULL);
    return NULL;
}

static uc_error_t *gcs_open(apr_pool_t *pool, const char *location,
                            const uc_objstore_url_t *url,
                            const uc_objstore_config_t *config,
                            uc_objstore_t *store)
{
    gcs_store_t *gs = apr_pcalloc(pool, sizeof(*gs));
    const char *headers[2] = { NULL, NULL };
    uc_objstore_http_options_t http;
    uc_error_t *err;

    if (!url->authority || !is_bucket(url->authority))
        return uc_error_invalid(pool, "The location '%s' does not name a "
                                "bucket (gs://bucket/...).", location);
    gs->bucket = url->authority;
    if ((err = read_endpoint(pool, config->gcs_endpoint, gs)) ||
        (err = uc_objstore_url_root(pool, location, url, &gs->root)))
        return err;
    if (config->gcs_private_key && *config->gcs_private_key &&
        config->gcs_client_email && *config->gcs_client_email) {
        gs->private_key = config->gcs_private_key;
        gs->client_email = config->gcs_client_email;
    }
    if (config->gcs_token && *config->gcs_token)
        headers[0] = apr_pstrcat(pool, "Authorization: Bearer ",
                                 config->gcs_token, NULL);
    memset(&http, 0, sizeof(http));
    http.service = SERVICE;
    http.refused = status_error;
    http.headers = headers[0] ? headers : NULL;
    http.timeout_ms = config->timeout_ms;
    http.ca_file = config->ca_file;
    if ((err = uc_objstore_http_open(pool, &http, &gs->http)))
        return err;
    store->location = apr_pstrcat(pool, "gs://", gs->bucket,
                                  *gs->root ? "/" : "", gs->root, NULL);
    store->backend = gs;
    return NULL;
}

static const char *const gcs_schemes[] = { "gs", NULL };

const uc_objstore_provider_t uc_objstore_gcs_provider = {
    gcs_schemes, gcs_init, gcs_open, gcs_list, gcs_read, NULL, gcs_presign
};
