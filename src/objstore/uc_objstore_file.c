/* SPDX-License-Identifier: Apache-2.0 */
/* file:// tables: keys are paths below the table directory. Listing sorts
 * by name itself because readdir order is arbitrary. */
#include "uc_objstore_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <apr_file_io.h>
#include <apr_strings.h>

typedef struct file_store {
    const char *root;          /* directory, no trailing '/' */
} file_store_t;

/* A Delta object is never this large; a bigger request is a corrupt length. */
#define MAX_READ ((apr_off_t)2 << 30)

static uc_error_t *file_error(apr_pool_t *pool, apr_status_t rv,
                              const char *key)
{
    char msg[120];

    if (APR_STATUS_IS_ENOENT(rv) || APR_STATUS_IS_ENOTDIR(rv))
        return uc_error_make(pool, UC_E_NOT_FOUND,
                             "'%s' does not exist in the table location.",
                             key);
    apr_strerror(rv, msg, sizeof(msg));
    return uc_error_make(pool, UC_E_STORAGE,
                         "Cannot read '%s' from the table location: %s.",
                         key, msg);
}

static int compare_objects(const void *a, const void *b)
{
    return strcmp(((const uc_object_t *)a)->name,
                  ((const uc_object_t *)b)->name);
}

static uc_error_t *file_list(uc_objstore_t *store, apr_pool_t *pool,
                             const char *dir, const char *start_after,
                             apr_array_header_t **objects)
{
    file_store_t *fs = store->backend;
    const char *path;
    apr_array_header_t *out = apr_array_make(pool, 32, sizeof(uc_object_t));
    apr_dir_t *handle;
    apr_finfo_t info;
    apr_status_t rv;

    path = *dir ? apr_pstrcat(pool, fs->root, "/", dir, NULL) : fs->root;
    rv = apr_dir_open(&handle, path, pool);
    if (rv != APR_SUCCESS) {
        if (APR_STATUS_IS_ENOENT(rv) || APR_STATUS_IS_ENOTDIR(rv)) {
            *objects = out;
            return NULL;
        }
        return file_error(pool, rv, dir);
    }
    /* Names first: only the entries after start_after are stat'ed, so a
     * check for new commits in a long log stays cheap. */
    while ((rv = apr_dir_read(&info, APR_FINFO_NAME | APR_FINFO_TYPE,
                              handle)) == APR_SUCCESS
           || rv == APR_INCOMPLETE) {
        uc_object_t *obj;
        apr_finfo_t st;
        const char *name = info.name;

        if (name == NULL || (start_after && strcmp(name, start_after) <= 0)
            || (info.valid & APR_FINFO_TYPE && info.filetype != APR_REG
                && info.filetype != APR_LNK))
            continue;
        if (apr_stat(&st, apr_pstrcat(pool, path, "/", name, NULL),
                     APR_FINFO_TYPE | APR_FINFO_SIZE | APR_FINFO_MTIME, pool)
                != APR_SUCCESS || st.filetype != APR_REG)
            continue;
        obj = apr_array_push(out);
        obj->name = apr_pstrdup(pool, name);
        obj->size = st.size;
        obj->mtime_ms = apr_time_as_msec(st.mtime);
    }
    apr_dir_close(handle);
    if (!APR_STATUS_IS_ENOENT(rv))
        return file_error(pool, rv, dir);
    qsort(out->elts, out->nelts, sizeof(uc_object_t), compare_objects);
    *objects = out;
    return NULL;
}

static uc_error_t *file_read(uc_objstore_t *store, apr_pool_t *pool,
                             const char *key, apr_off_t offset,
                             apr_off_t length, char **data, apr_size_t *len)
{
    file_store_t *fs = store->backend;
    apr_file_t *file;
    apr_finfo_t info;
    apr_status_t rv;
    apr_size_t want, got = 0;
    char *buf;

    rv = apr_file_open(&file, apr_pstrcat(pool, fs->root, "/", key, NULL),
                       APR_FOPEN_READ | APR_FOPEN_BINARY, 0, pool);
    if (rv == APR_SUCCESS)
        rv = apr_file_info_get(&info, APR_FINFO_SIZE | APR_FINFO_TYPE, file);
    if (rv != APR_SUCCESS)
        return file_error(pool, rv, key);
    if (info.filetype != APR_REG) {
        apr_file_close(file);
        return file_error(pool, APR_ENOENT, key);
    }
    if (offset >= info.size)
        length = 0;
    else if (length < 0 || length > info.size - offset)
        length = info.size - offset;
    if (length > MAX_READ) {
        apr_file_close(file);
        return uc_error_make(pool, UC_E_STORAGE,
                             "'%s' is too large to read.", key);
    }
    want = (apr_size_t)length;
    buf = apr_palloc(pool, want + 1);
    if (want > 0) {
        apr_off_t at = offset;

        rv = apr_file_seek(file, APR_SET, &at);
        if (rv == APR_SUCCESS)
            rv = apr_file_read_full(file, buf, want, &got);
        if (rv != APR_SUCCESS && !(APR_STATUS_IS_EOF(rv) && got > 0)) {
            apr_file_close(file);
            return file_error(pool, rv, key);
        }
    }
    apr_file_close(file);
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return NULL;
}

typedef struct mapping {
    void *addr;
    size_t len;
} mapping_t;

static apr_status_t unmap(void *data)
{
    mapping_t *m = data;

    munmap(m->addr, m->len);
    return APR_SUCCESS;
}

/* Checkpoints are mapped and faulted in at once (MAP_POPULATE): decoding
 * reads them whole, and a mapping costs no copy and no fresh memory. */
static uc_error_t *file_map(uc_objstore_t *store, apr_pool_t *pool,
                            const char *key, const char **data,
                            apr_size_t *len)
{
    file_store_t *fs = store->backend;
    const char *path;
    struct stat st;
    mapping_t *m;
    int fd, flags = MAP_PRIVATE;

    path = apr_pstrcat(pool, fs->root, "/", key, NULL);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return file_error(pool, APR_FROM_OS_ERROR(errno), key);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return file_error(pool, APR_ENOENT, key);
    }
    if ((apr_off_t)st.st_size > MAX_READ) {
        close(fd);
        return uc_error_make(pool, UC_E_STORAGE,
                             "'%s' is too large to read.", key);
    }
    if (st.st_size == 0) {
        close(fd);
        *data = "";
        *len = 0;
        return NULL;
    }
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    m = apr_palloc(pool, sizeof(*m));
    m->len = (size_t)st.st_size;
    m->addr = mmap(NULL, m->len, PROT_READ, flags, fd, 0);
    close(fd);
    if (m->addr == MAP_FAILED)
        return file_error(pool, APR_FROM_OS_ERROR(errno), key);
    apr_pool_cleanup_register(pool, m, unmap, apr_pool_cleanup_null);
    *data = m->addr;
    *len = m->len;
    return NULL;
}

/* Local files have no URL anyone else could fetch them by. */
static uc_error_t *file_presign(uc_objstore_t *store, apr_pool_t *pool,
                                const char *key, apr_int64_t expires,
                                apr_time_t now, const char **url)
{
    (void)key;
    (void)expires;
    (void)now;
    (void)url;
    return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION,
                         "Objects of '%s' cannot be given pre-signed URLs: "
                         "a file:// location is reachable by this server "
                         "alone.", store->location);
}

/* file:///abs/path; "file:/abs/path" (Hadoop's spelling) and
 * file://localhost/abs/path are accepted too. */
static uc_error_t *file_open(apr_pool_t *pool, const char *location,
                             const uc_objstore_url_t *url,
                             const uc_objstore_config_t *config,
                             uc_objstore_t *store)
{
    file_store_t *fs = apr_pcalloc(pool, sizeof(*fs));
    char *root = url->path;
    apr_size_t n;

    (void)config;
    if ((url->authority && *url->authority
         && strcmp(url->authority, "localhost") != 0) || *root != '/')
        return uc_error_invalid(pool, "A file:// location needs an absolute "
                                "path: '%s'.", location);
    n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        root[--n] = '\0';
    fs->root = root;
    store->backend = fs;
    store->location = apr_pstrcat(pool, "file://", root, NULL);
    return NULL;
}

static const char *const file_schemes[] = { "file", NULL };

const uc_objstore_provider_t uc_objstore_file_provider = {
    file_schemes, NULL, file_open, file_list, file_read, file_map,
    file_presign
};
