/* SPDX-License-Identifier: Apache-2.0 */
/* The providers behind uc_objstore.h: one per kind of store, looked up by
 * the URL scheme of a location, as httpd looks providers up by name
 * (ap_lookup_provider). The table of providers is compiled in and never
 * changes, so lookups need no lock.
 *
 * uc_objstore.c parses the location once (uc_objstore_url_t) and checks
 * what every provider would (offsets, key names), then calls the
 * provider. */
#ifndef UC_OBJSTORE_PROVIDER_H
#define UC_OBJSTORE_PROVIDER_H

#include "uc_objstore.h"

/* A location split as scheme ":" ["//" authority] path. */
typedef struct uc_objstore_url {
    const char *scheme;
    const char *authority;          /* as written (a bucket, "localhost",
                                       ""); NULL without "//" */
    char *path;                     /* percent-decoded once; "" or starting
                                       with '/' after an authority; the
                                       provider's to trim */
} uc_objstore_url_t;

typedef struct uc_objstore_provider uc_objstore_provider_t;

struct uc_objstore {
    const uc_objstore_provider_t *provider;
    const char *location;           /* normalised, set by open */
    void *backend;                  /* the provider's own */
};

struct uc_objstore_provider {
    const char *const *schemes;     /* the schemes it serves, NULL-ended */
    /* Process-wide set-up, undone when `pool` is cleaned up; NULL when
     * there is none. */
    uc_error_t *(*init)(apr_pool_t *pool);
    /* Fills `store` (backend, location) for `url`; `location` is the text
     * it was parsed from, for messages. */
    uc_error_t *(*open)(apr_pool_t *pool, const char *location,
                        const uc_objstore_url_t *url,
                        const uc_objstore_config_t *config,
                        uc_objstore_t *store);
    /* The operations of uc_objstore.h, with `dir` and `key` known to be
     * safe and `offset` not negative. */
    uc_error_t *(*list)(uc_objstore_t *store, apr_pool_t *pool,
                        const char *dir, const char *start_after,
                        apr_array_header_t **objects);
    uc_error_t *(*read_range)(uc_objstore_t *store, apr_pool_t *pool,
                              const char *key, apr_off_t offset,
                              apr_off_t length, char **data,
                              apr_size_t *len);
    /* NULL: mapping is reading. */
    uc_error_t *(*map)(uc_objstore_t *store, apr_pool_t *pool,
                       const char *key, const char **data, apr_size_t *len);
    /* `key` is not empty and `expires` is in range. */
    uc_error_t *(*presign)(uc_objstore_t *store, apr_pool_t *pool,
                           const char *key, apr_int64_t expires,
                           apr_time_t now, const char **url);
};

/* The provider serving URLs of `scheme` ("s3"), or NULL. */
const uc_objstore_provider_t *uc_objstore_lookup_provider(const char *scheme);

/* One page of a listing of the objects whose full names start with
 * `prefix` (a directory: "" or ending in '/'), after `start_after` (a full
 * name, NULL for all; a hint: the listing drops what should not be
 * there), from `marker` on (NULL: the first page): its objects, named
 * relative to the prefix, pushed to `out` from `pool`; *next the marker
 * of the page after it, NULL (or "") after the last; the listing refuses
 * a marker handed back unchanged. `page_pool` is the page's scratch
 * memory. */
typedef uc_error_t *(*uc_objstore_page_fn)(void *backend, apr_pool_t *pool,
                                           apr_pool_t *page_pool,
                                           const char *prefix,
                                           const char *start_after,
                                           const char *marker,
                                           apr_array_header_t *out,
                                           const char **next);

/* The list operation of a store that answers page by page: the objects
 * directly in `dir` of the store rooted at `root` (a name prefix without
 * '/' at its ends, "" for none), every page of them, sorted and after
 * `start_after` as uc_objstore_list promises, whatever the store made of
 * the hint. */
uc_error_t *uc_objstore_list_pages(apr_pool_t *pool, const char *root,
                                   const char *dir, const char *start_after,
                                   uc_objstore_page_fn page, void *backend,
                                   apr_array_header_t **objects);

/* The object name prefix a cloud location's path names: without '/' at
 * its ends, "" for a bucket's root; 400 naming `location` when it would
 * leave the bucket (a "." or ".." segment). */
uc_error_t *uc_objstore_url_root(apr_pool_t *pool, const char *location,
                                  const uc_objstore_url_t *url,
                                  const char **root);

extern const uc_objstore_provider_t uc_objstore_file_provider;
extern const uc_objstore_provider_t uc_objstore_s3_provider;
extern const uc_objstore_provider_t uc_objstore_azure_provider;
extern const uc_objstore_provider_t uc_objstore_gcs_provider;

#endif
