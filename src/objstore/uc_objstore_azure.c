/* SPDX-License-Identifier: Apache-2.0 */
/* abfss:// (and abfs://, wasbs://, wasb://) tables in Azure Blob Storage,
 * through the Blob service's REST API: List Blobs with a delimiter, Get
 * Blob with a Range. Every request carries a SAS this store signs itself
 * (uc_azure_sas.h), of the account key or a user delegation key: one on
 * the container that reads and lists, for the store's own requests, and
 * one per blob that only reads it, for the URLs handed out. Both the ADLS
 * Gen2 (dfs) and the Blob (blob) host names of a location lead to the
 * same Blob endpoint: hierarchical namespaces or not, blobs are read the
 * same way there. */
#include "uc_objstore_http.h"
#include "uc_objstore_provider.h"
#include "uc_azure_sas.h"

#include <string.h>
#include <apr_date.h>
#include <apr_strings.h>

#include "../cloud/uc_xml.h"
#include "../core/uc_percent.h"
#include "../core/uc_time.h"

#define SERVICE "Azure Blob Storage"
#define DEFAULT_ENDPOINT "https://{account}.blob.core.windows.net"
#define ACCOUNT_MARK "{account}"
/* The store's own SAS outlives any request made while it is open. */
#define OWN_SAS_SECONDS 3600

typedef struct azure_store {
    const char *account;
    const char *container;
    const char *root;            /* blob name prefix, no '/' at its ends */
    const char *base_url;        /* <endpoint>/<container> */
    const char *account_key;     /* NULL with a delegation key or none */
    const uc_azure_delegation_key_t *delegation;
    apr_time_t key_expiry;       /* the delegation key's; 0 without one */
    const char *own_sas;         /* "" when reading anonymously */
    int allow_http;
    uc_objstore_http_t *http;
} azure_store_t;

static uc_error_t *azure_init(apr_pool_t *pool)
{
    return uc_objstore_http_init(pool);
}

/* --- names --------------------------------------------------------------- */

static int is_name(const char *s, apr_size_t n, apr_size_t max, int hyphen)
{
    apr_size_t i;

    if (n < 3 || n > max)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')
              || (hyphen && s[i] == '-' && i > 0 && i < n - 1)))
            return 0;
    return 1;
}

/* container@account.<host>, as both abfss:// and wasbs:// name them. */
static uc_error_t *parse_authority(apr_pool_t *pool, const char *location,
                                   const char *authority,
                                   azure_store_t *az)
{
    const char *at = authority ? strchr(authority, '@') : NULL;
    apr_size_t account_len = 0;

    if (at)
        account_len = strcspn(at + 1, ".");
    if (!at || !is_name(authority, (apr_size_t)(at - authority), 63, 1)
        || !is_name(at + 1, account_len, 24, 0) || at[1 + account_len] != '.')
        return uc_error_invalid(pool, "The location '%s' does not name a "
                                "container and a storage account (abfss://"
                                "container@account.dfs.core.windows.net/"
                                "...).", location);
    az->container = apr_pstrmemdup(pool, authority,
                                   (apr_size_t)(at - authority));
    az->account = apr_pstrmemdup(pool, at + 1, account_len);
    return NULL;
}

static uc_error_t *build_base_url(apr_pool_t *pool, const char *template,
                                  azure_store_t *az)
{
    const char *mark;

    if (!template)
        template = DEFAULT_ENDPOINT;
    mark = strstr(template, ACCOUNT_MARK);
    if (!mark || (strncmp(template, "https://", 8) != 0
                  && strncmp(template, "http://", 7) != 0))
        return uc_error_invalid(pool, "The Azure blob endpoint '%s' must be "
                                "an http(s) URL with {account} for the "
                                "account's name.", template);
    az->allow_http = strncmp(template, "http://", 7) == 0;
    az->base_url = apr_pstrcat(pool,
                               apr_pstrmemdup(pool, template,
                                              (apr_size_t)(mark - template)),
                               az->account, mark + strlen(ACCOUNT_MARK), "/",
                               az->container, NULL);
    return NULL;
}

static const char *blob_name(apr_pool_t *pool, const azure_store_t *az,
                             const char *key)
{
    return *az->root ? apr_pstrcat(pool, az->root, "/", key, NULL) : key;
}

static const char *blob_url(apr_pool_t *pool, const azure_store_t *az,
                            const char *name)
{
    return apr_pstrcat(pool, az->base_url, "/",
                       uc_percent_encode(pool, name, strlen(name), "/"),
                       NULL);
}

static const char *what_of(apr_pool_t *pool, const azure_store_t *az,
                           const char *name)
{
    return apr_psprintf(pool, "'%s' in container %s of %s", name,
                        az->container, az->account);
}

/* --- SAS ----------------------------------------------------------------- */

/* A SAS of the store's key on the container (blob NULL) or one blob,
 * until `expiry` or the delegation key's, whichever comes first. */
static uc_error_t *sign(apr_pool_t *pool, const azure_store_t *az,
                        const char *blob, const char *permissions,
                        apr_time_t now, apr_time_t expiry,
                        const char **query)
{
    uc_azure_sas_t sas;

    memset(&sas, 0, sizeof(sas));
    sas.account = az->account;
    sas.account_key = az->account_key;
    sas.delegation = az->delegation;
    sas.container = az->container;
    sas.blob = blob;
    sas.permissions = permissions;
    sas.expiry = apr_time_from_sec(apr_time_sec(expiry));
    if (az->key_expiry && sas.expiry > az->key_expiry)
        sas.expiry = az->key_expiry;
    if (sas.expiry <= now)
        return uc_error_make(pool, UC_E_STORAGE, "The user delegation key "
                             "of %s has expired.", az->account);
    sas.allow_http = az->allow_http;
    return uc_azure_sas_sign(pool, &sas, query);
}

/* --- answers ------------------------------------------------------------- */

static uc_error_t *status_error(apr_pool_t *pool, long status,
                                const char *body, apr_size_t len,
                                const char *what)
{
    const char *code = uc_objstore_http_error_code(pool, status, body, len);

    if (status == 404)
        return uc_error_make(pool, UC_E_NOT_FOUND,
                             strcmp(code, "ContainerNotFound") == 0
                             ? "The container of %s does not exist."
                             : "%s does not exist.", what);
    if (status == 429 || status >= 500) {
        uc_error_t *err = uc_error_make(pool, UC_E_UNAVAILABLE, SERVICE
                                        " answered %ld %s for %s.", status,
                                        code, what);
        err->retry_after = 1;
        return err;
    }
    return uc_error_make(pool, UC_E_STORAGE, SERVICE " answered %ld %s for "
                         "%s.", status, code, what);
}

/* --- listing ------------------------------------------------------------- */

static const char *child_text(apr_pool_t *pool, const apr_xml_elem *e,
                              const char *name)
{
    const apr_xml_elem *c = e ? uc_xml_child(e, name) : NULL;

    return c ? uc_xml_text(pool, c) : NULL;
}

/* One <Blob> of a listing of `prefix`, appended to `out` unless it is in
 * a subdirectory. */
static uc_error_t *add_blob(apr_pool_t *pool, apr_pool_t *page_pool,
                            const apr_xml_elem *blob, const char *prefix,
                            apr_array_header_t *out)
{
    const apr_xml_elem *props = uc_xml_child(blob, "Properties");
    const char *name = child_text(page_pool, blob, "Name");
    const char *size = child_text(page_pool, props, "Content-Length");
    const char *modified = child_text(page_pool, props, "Last-Modified");
    apr_size_t prefix_len = strlen(prefix);
    uc_object_t *obj;
    apr_time_t mtime = 0;
    char *end;

    if (!name || !size)
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed a blob "
                             "without Name or Content-Length.");
    if (strncmp(name, prefix, prefix_len) != 0 || !name[prefix_len]
        || strchr(name + prefix_len, '/'))
        return NULL;
    if (modified && (mtime = apr_date_parse_rfc(modified)) == APR_DATE_BAD)
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed '%s' with "
                             "an invalid Last-Modified.", name);
    obj = apr_array_push(out);
    obj->name = apr_pstrdup(pool, name + prefix_len);
    obj->size = apr_strtoi64(size, &end, 10);
    obj->mtime_ms = apr_time_as_msec(mtime);
    if (!*size || *end || obj->size < 0)
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " listed '%s' with "
                             "an invalid Content-Length.", name);
    return NULL;
}

/* One page of List Blobs (uc_objstore_page_fn). Its markers are opaque and
 * it takes no name to start after: the listing drops what comes before. */
static uc_error_t *list_page(void *backend, apr_pool_t *pool,
                             apr_pool_t *page_pool, const char *prefix,
                             const char *start_after, const char *marker,
                             apr_array_header_t *out, const char **next)
{
    azure_store_t *az = backend;
    const char *what = what_of(page_pool, az, prefix);
    const apr_xml_elem *blobs, *e;
    const char *url, *following;
    apr_xml_doc *doc;
    apr_size_t len;
    char *body;
    uc_error_t *err;

    (void)start_after;

    url = apr_pstrcat(page_pool, az->base_url,
                      "?restype=container&comp=list&delimiter=%2F&prefix=",
                      uc_percent_encode(page_pool, prefix, strlen(prefix),
                                        ""),
                      marker ? "&marker=" : "",
                      marker ? uc_percent_encode(page_pool, marker,
                                                 strlen(marker), "") : "",
                      *az->own_sas ? "&" : "", az->own_sas, NULL);
    if ((err = uc_objstore_http_get(az->http, page_pool, url, what, &body,
                                    &len)))
        return uc_error_copy(pool, err);
    doc = uc_xml_parse(page_pool, body, len);
    if (!doc || !doc->root || strcmp(doc->root->name, "EnumerationResults"))
        return uc_error_make(pool, UC_E_STORAGE, SERVICE " answered the "
                             "listing of %s with something other than "
                             "EnumerationResults.", what);
    blobs = uc_xml_child(doc->root, "Blobs");
    for (e = blobs ? blobs->first_child : NULL; e; e = e->next)
        if (!strcmp(e->name, "Blob")
            && (err = add_blob(pool, page_pool, e, prefix, out)))
            return err;
    following = child_text(page_pool, doc->root, "NextMarker");
    *next = following ? apr_pstrdup(pool, following) : NULL;
    return NULL;
}

static uc_error_t *azure_list(uc_objstore_t *store, apr_pool_t *pool,
                              const char *dir, const char *start_after,
                              apr_array_header_t **objects)
{
    azure_store_t *az = store->backend;

    return uc_objstore_list_pages(pool, az->root, dir, start_after,
                                  list_page, az, objects);
}

/* --- reading and signing ------------------------------------------------- */

static uc_error_t *azure_read(uc_objstore_t *store, apr_pool_t *pool,
                              const char *key, apr_off_t offset,
                              apr_off_t length, char **data, apr_size_t *len)
{
    azure_store_t *az = store->backend;
    const char *name = blob_name(pool, az, key);

    return uc_objstore_http_read(az->http, pool,
                                 apr_pstrcat(pool, blob_url(pool, az, name),
                                             *az->own_sas ? "?" : "",
                                             az->own_sas, NULL),
                                 offset, length, what_of(pool, az, name),
                                 data, len);
}

static uc_error_t *azure_presign(uc_objstore_t *store, apr_pool_t *pool,
                                 const char *key, apr_int64_t expires,
                                 apr_time_t now, const char **out)
{
    azure_store_t *az = store->backend;
    const char *name = blob_name(pool, az, key), *query;
    uc_error_t *err;

    if (!az->account_key && !az->delegation) {
        *out = blob_url(pool, az, name);
        return NULL;
    }
    if ((err = sign(pool, az, name, "r", now,
                    now + apr_time_from_sec(expires), &query)))
        return err;
    *out = apr_pstrcat(pool, blob_url(pool, az, name), "?", query, NULL);
    return NULL;
}

/* --- opening ------------------------------------------------------------- */

static uc_error_t *set_key(apr_pool_t *pool, const uc_objstore_config_t *c,
                           azure_store_t *az)
{
    apr_int64_t ms;

    if (c->azure_delegation) {
        if (!c->azure_delegation->signed_expiry
            || !uc_time_parse_iso8601(c->azure_delegation->signed_expiry,
                                      &ms))
            return uc_error_invalid(pool, "The user delegation key has no "
                                    "valid expiry.");
        az->delegation = c->azure_delegation;
        az->key_expiry = apr_time_from_msec(ms);
    }
    else if (c->azure_account_key && *c->azure_account_key)
        az->account_key = c->azure_account_key;
    return NULL;
}

static uc_error_t *azure_open(apr_pool_t *pool, const char *location,
                              const uc_objstore_url_t *url,
                              const uc_objstore_config_t *config,
                              uc_objstore_t *store)
{
    static const char *const headers[] = {
        "x-ms-version: " UC_AZURE_SAS_VERSION, NULL
    };
    azure_store_t *az = apr_pcalloc(pool, sizeof(*az));
    uc_objstore_http_options_t http;
    apr_time_t now = apr_time_now();
    uc_error_t *err;

    if ((err = parse_authority(pool, location, url->authority, az)) ||
        (err = build_base_url(pool, config->azure_blob_endpoint, az)) ||
        (err = set_key(pool, config, az)))
        return err;
    if ((err = uc_objstore_url_root(pool, location, url, &az->root)))
        return err;
    az->own_sas = "";
    if ((az->account_key || az->delegation) &&
        (err = sign(pool, az, NULL, "rl", now,
                    now + apr_time_from_sec(OWN_SAS_SECONDS), &az->own_sas)))
        return err;
    memset(&http, 0, sizeof(http));
    http.service = SERVICE;
    http.refused = status_error;
    http.headers = headers;
    http.timeout_ms = config->timeout_ms;
    http.ca_file = config->ca_file;
    if ((err = uc_objstore_http_open(pool, &http, &az->http)))
        return err;
    store->location = apr_pstrcat(pool, url->scheme, "://", url->authority,
                                  *az->root ? "/" : "", az->root, NULL);
    store->backend = az;
    return NULL;
}

static const char *const azure_schemes[] = {
    "abfss", "abfs", "wasbs", "wasb", NULL
};

const uc_objstore_provider_t uc_objstore_azure_provider = {
    azure_schemes, azure_init, azure_open, azure_list, azure_read, NULL,
    azure_presign
};
