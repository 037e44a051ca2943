/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_objstore_provider.h"

#include <stdlib.h>
#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_azure_delegation.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"

/* Every provider, each serving the schemes it names. */
static const uc_objstore_provider_t *const providers[] = {
    &uc_objstore_file_provider,
    &uc_objstore_s3_provider,
    &uc_objstore_azure_provider,
    &uc_objstore_gcs_provider,
    NULL
};

const uc_objstore_provider_t *uc_objstore_lookup_provider(const char *scheme)
{
    int i, j;

    for (i = 0; providers[i]; i++)
        for (j = 0; providers[i]->schemes[j]; j++)
            if (strcmp(providers[i]->schemes[j], scheme) == 0)
                return providers[i];
    return NULL;
}

uc_error_t *uc_objstore_init(apr_pool_t *pool)
{
    uc_error_t *err;
    int i;

    for (i = 0; providers[i]; i++)
        if (providers[i]->init && (err = providers[i]->init(pool)))
            return err;
    return NULL;
}

/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":". */
static apr_size_t scheme_length(const char *s)
{
    apr_size_t n = 0;

    if (!apr_isalpha(s[0]))
        return 0;
    while (apr_isalnum(s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
        n++;
    return s[n] == ':' ? n : 0;
}

/* `location`, whose scheme is `scheme`, split; the path is decoded here
 * and nowhere else, so no provider decodes it twice. */
static uc_error_t *parse_url(apr_pool_t *pool, const char *location,
                             const char *scheme, uc_objstore_url_t *url)
{
    const char *rest = location + strlen(scheme) + 1;
    apr_size_t n;

    url->scheme = scheme;
    url->authority = NULL;
    if (strncmp(rest, "//", 2) == 0) {
        rest += 2;
        n = strcspn(rest, "/");
        url->authority = apr_pstrmemdup(pool, rest, n);
        rest += n;
    }
    if (!(url->path = uc_percent_decode(pool, rest)))
        return uc_error_invalid(pool, "The location '%s' has an invalid "
                                "path.", location);
    return NULL;
}

/* A secret's copy in `pool`, wiped with it. */
static const char *secret_copy(apr_pool_t *pool, const char *secret)
{
    char *copy = secret ? apr_pstrdup(pool, secret) : NULL;

    if (copy)
        uc_secret_wipe_with_pool(pool, copy, strlen(copy));
    return copy;
}

static const uc_azure_delegation_key_t *
delegation_copy(apr_pool_t *pool, const uc_azure_delegation_key_t *key)
{
    uc_azure_delegation_key_t *copy;

    if (!key)
        return NULL;
    copy = apr_pmemdup(pool, key, sizeof(*key));
    copy->signed_oid = apr_pstrdup(pool, key->signed_oid);
    copy->signed_tid = apr_pstrdup(pool, key->signed_tid);
    copy->signed_start = apr_pstrdup(pool, key->signed_start);
    copy->signed_expiry = apr_pstrdup(pool, key->signed_expiry);
    copy->signed_service = apr_pstrdup(pool, key->signed_service);
    copy->signed_version = apr_pstrdup(pool, key->signed_version);
    copy->value = secret_copy(pool, key->value);
    return copy;
}

uc_objstore_config_t *uc_objstore_config_copy(apr_pool_t *pool,
                                              const uc_objstore_config_t *c)
{
    uc_objstore_config_t *copy;

    if (!c)
        return NULL;
    copy = apr_pmemdup(pool, c, sizeof(*c));
    copy->region = apr_pstrdup(pool, c->region);
    copy->access_key_id = apr_pstrdup(pool, c->access_key_id);
    copy->secret_access_key = secret_copy(pool, c->secret_access_key);
    copy->session_token = secret_copy(pool, c->session_token);
    copy->endpoint = apr_pstrdup(pool, c->endpoint);
    copy->ca_file = apr_pstrdup(pool, c->ca_file);
    copy->azure_blob_endpoint = apr_pstrdup(pool, c->azure_blob_endpoint);
    copy->azure_account_key = secret_copy(pool, c->azure_account_key);
    copy->azure_delegation = delegation_copy(pool, c->azure_delegation);
    copy->gcs_endpoint = apr_pstrdup(pool, c->gcs_endpoint);
    copy->gcs_token = secret_copy(pool, c->gcs_token);
    copy->gcs_client_email = apr_pstrdup(pool, c->gcs_client_email);
    copy->gcs_private_key = secret_copy(pool, c->gcs_private_key);
    return copy;
}

uc_error_t *uc_objstore_open(apr_pool_t *pool, const char *location,
                             const uc_objstore_config_t *config,
                             uc_objstore_t **out)
{
    static const uc_objstore_config_t no_config;
    uc_objstore_t *store;
    uc_objstore_url_t url;
    const uc_objstore_provider_t *provider;
    const char *scheme;
    uc_error_t *err;

    if (location == NULL || *location == '\0')
        return uc_error_invalid(pool, "A table location is required.");
    scheme = apr_pstrmemdup(pool, location, scheme_length(location));
    if (!*scheme || !(provider = uc_objstore_lookup_provider(scheme)))
        return uc_error_invalid(pool, "Unsupported table location scheme "
                                "in '%s': use file:// or s3://.", location);
    if ((err = parse_url(pool, location, scheme, &url)))
        return err;
    store = apr_pcalloc(pool, sizeof(*store));
    store->provider = provider;
    if ((err = provider->open(pool, location, &url,
                              config ? config : &no_config, store)))
        return err;
    *out = store;
    return NULL;
}

uc_error_t *uc_objstore_list(uc_objstore_t *store, apr_pool_t *pool,
                             const char *dir, const char *start_after,
                             apr_array_header_t **objects)
{
    if (dir == NULL)
        dir = "";
    if (!uc_objstore_key_is_safe(dir))
        return uc_error_invalid(pool, "Invalid directory '%s'.", dir);
    return store->provider->list(store, pool, dir, start_after, objects);
}

static int compare_objects(const void *a, const void *b)
{
    return strcmp(((const uc_object_t *)a)->name,
                  ((const uc_object_t *)b)->name);
}

static void order_after(apr_array_header_t *objects,
                        const char *start_after)
{
    int i, kept;

    qsort(objects->elts, objects->nelts, sizeof(uc_object_t),
          compare_objects);
    for (i = 0, kept = 0; i < objects->nelts; i++) {
        uc_object_t *o = &APR_ARRAY_IDX(objects, i, uc_object_t);

        if (start_after && strcmp(o->name, start_after) <= 0)
            continue;
        APR_ARRAY_IDX(objects, kept, uc_object_t) = *o;
        kept++;
    }
    objects->nelts = kept;
}

uc_error_t *uc_objstore_list_pages(apr_pool_t *pool, const char *root,
                                   const char *dir, const char *start_after,
                                   uc_objstore_page_fn page, void *backend,
                                   apr_array_header_t **objects)
{
    apr_array_header_t *out = apr_array_make(pool, 32, sizeof(uc_object_t));
    const char *prefix, *marker = NULL;
    apr_pool_t *page_pool;
    uc_error_t *err;

    if (*dir && dir[strlen(dir) - 1] != '/')
        dir = apr_pstrcat(pool, dir, "/", NULL);
    prefix = *root ? apr_pstrcat(pool, root, "/", dir, NULL) : dir;
    if (start_after && !*start_after)
        start_after = NULL;
    apr_pool_create(&page_pool, pool);
    do {
        const char *next = NULL;

        apr_pool_clear(page_pool);
        err = page(backend, pool, page_pool, prefix,
                   start_after ? apr_pstrcat(page_pool, prefix, start_after,
                                             NULL) : NULL,
                   marker, out, &next);
        /* A store that hands back the token it was given would be listed
         * for ever. */
        if (!err && next && marker && !strcmp(next, marker))
            err = uc_error_make(pool, UC_E_STORAGE, "The store repeated the "
                                "page token of its listing of '%s'.", prefix);
        marker = next && *next ? next : NULL;
    } while (!err && marker);
    apr_pool_destroy(page_pool);
    if (err)
        return err;
    order_after(out, start_after);
    *objects = out;
    return NULL;
}

uc_error_t *uc_objstore_url_root(apr_pool_t *pool, const char *location,
                                  const uc_objstore_url_t *url,
                                  const char **root)
{
    char *r = *url->path == '/' ? url->path + 1 : url->path;
    apr_size_t n = strlen(r);

    while (n > 0 && r[n - 1] == '/')
        r[--n] = '\0';
    if (!uc_objstore_key_is_safe(r))
        return uc_error_invalid(pool, "The location '%s' has an invalid "
                                "path.", location);
    *root = r;
    return NULL;
}

/* An object's key: not the root, and below it. */
static uc_error_t *check_key(apr_pool_t *pool, const char *key)
{
    if (key == NULL || !*key || !uc_objstore_key_is_safe(key))
        return uc_error_invalid(pool, "Invalid object name '%s'.",
                                key ? key : "");
    return NULL;
}

uc_error_t *uc_objstore_read(uc_objstore_t *store, apr_pool_t *pool,
                             const char *key, apr_off_t offset,
                             apr_off_t length, char **data, apr_size_t *len)
{
    uc_error_t *err;

    if (offset < 0)
        return uc_error_invalid(pool, "A read offset cannot be negative.");
    if ((err = check_key(pool, key)))
        return err;
    return store->provider->read_range(store, pool, key, offset, length,
                                       data, len);
}

uc_error_t *uc_objstore_map(uc_objstore_t *store, apr_pool_t *pool,
                            const char *key, const char **data,
                            apr_size_t *len)
{
    char *copy;
    uc_error_t *err;

    if ((err = check_key(pool, key)))
        return err;
    if (store->provider->map)
        return store->provider->map(store, pool, key, data, len);
    if ((err = store->provider->read_range(store, pool, key, 0, -1, &copy,
                                           len)))
        return err;
    *data = copy;
    return NULL;
}

uc_error_t *uc_objstore_presign(uc_objstore_t *store, apr_pool_t *pool,
                                const char *key, apr_int64_t expires,
                                apr_time_t now, const char **url)
{
    uc_error_t *err;

    if ((err = check_key(pool, key)))
        return err;
    if (*key == '\0')
        return uc_error_invalid(pool, "Only an object can be pre-signed, "
                                "not the table location itself.");
    if (expires < 1 || expires > UC_OBJSTORE_MAX_PRESIGN_SECONDS)
        return uc_error_invalid(pool, "A pre-signed URL lasts from 1 to %d "
                                "seconds, not %" APR_INT64_T_FMT ".",
                                UC_OBJSTORE_MAX_PRESIGN_SECONDS, expires);
    return store->provider->presign(store, pool, key, expires, now, url);
}

int uc_objstore_key_is_safe(const char *key)
{
    const char *p = key;

    if (*key == '/')
        return 0;
    while (*p) {
        apr_size_t n = strcspn(p, "/");

        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
    }
    return 1;
}

const char *uc_objstore_location(const uc_objstore_t *store)
{
    return store->location;
}
