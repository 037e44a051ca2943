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

/* The provider serving URLs of `scheme` ("s3"), or NULL. gs:// has none
 * yet. */
const uc_objstore_provider_t *uc_objstore_lookup_provider(const char *scheme);

/* What a listing promises, for stores whose pages come in their own
 * order and whose idea of "after" differs: `objects` (uc_object_t) sorted
 * by name, without those not after `start_after` (NULL: none dropped). */
void uc_objstore_order_after(apr_array_header_t *objects,
                             const char *start_after);

extern const uc_objstore_provider_t uc_objstore_file_provider;
extern const uc_objstore_provider_t uc_objstore_s3_provider;
extern const uc_objstore_provider_t uc_objstore_azure_provider;

#endif
