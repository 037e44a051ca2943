#include "uc_objstore.h"

#include <string.h>
#include <apr_strings.h>

uc_error_t *uc_objstore_open(apr_pool_t *pool, const char *location,
                             const uc_objstore_config_t *config,
                             uc_objstore_t **out)
{
    static const uc_objstore_config_t no_config;
    uc_objstore_t *store = apr_pcalloc(pool, sizeof(*store));
    uc_error_t *err;

    if (location == NULL || *location == '\0')
        return uc_error_invalid(pool, "A table location is required.");
    if (strncmp(location, "file://", 7) == 0)
        err = uc_objstore_file_open(pool, location, store);
    else if (strncmp(location, "s3://", 5) == 0
             || strncmp(location, "s3a://", 6) == 0)
        err = uc_objstore_s3_open(pool, location,
                                  config ? config : &no_config, store);
    else
        return uc_error_invalid(pool, "Unsupported table location scheme "
                                "in '%s': use file:// or s3://.", location);
    if (err != NULL)
        return err;
    *out = store;
    return NULL;
}

uc_error_t *uc_objstore_list(uc_objstore_t *store, apr_pool_t *pool,
                             const char *dir, const char *start_after,
                             apr_array_header_t **objects)
{
    return store->ops->list(store, pool, dir, start_after, objects);
}

uc_error_t *uc_objstore_read(uc_objstore_t *store, apr_pool_t *pool,
                             const char *key, apr_off_t offset,
                             apr_off_t length, char **data, apr_size_t *len)
{
    if (offset < 0)
        return uc_error_invalid(pool, "A read offset cannot be negative.");
    return store->ops->read(store, pool, key, offset, length, data, len);
}

uc_error_t *uc_objstore_map(uc_objstore_t *store, apr_pool_t *pool,
                            const char *key, const char **data,
                            apr_size_t *len)
{
    char *copy;
    uc_error_t *err;

    if (store->ops->map)
        return store->ops->map(store, pool, key, data, len);
    if ((err = store->ops->read(store, pool, key, 0, -1, &copy, len)))
        return err;
    *data = copy;
    return NULL;
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
