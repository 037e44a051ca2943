/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_file_list.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <apr_strings.h>

#include "uc_sharing_token.h"
#include "../http/uc_query.h"

/* A name of a directory entry fits (NAME_MAX is 255 on every file system
 * httpd runs on). */
#define NAME_BYTES 256

/* The smallest names after the cursor seen so far: a max-heap of at most
 * `max`, so that the largest leaves when a smaller one comes. */
typedef struct pick {
    char (*names)[NAME_BYTES];
    int n, max;
    int more;                      /* a name after the cursor was left */
} pick_t;

static void swap(pick_t *p, int a, int b)
{
    char tmp[NAME_BYTES];

    memcpy(tmp, p->names[a], NAME_BYTES);
    memcpy(p->names[a], p->names[b], NAME_BYTES);
    memcpy(p->names[b], tmp, NAME_BYTES);
}

static void sift_up(pick_t *p, int i)
{
    while (i > 0 && strcmp(p->names[(i - 1) / 2], p->names[i]) < 0) {
        swap(p, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(pick_t *p, int i)
{
    for (;;) {
        int big = i, l = 2 * i + 1, r = l + 1;

        if (l < p->n && strcmp(p->names[l], p->names[big]) > 0)
            big = l;
        if (r < p->n && strcmp(p->names[r], p->names[big]) > 0)
            big = r;
        if (big == i)
            return;
        swap(p, i, big);
        i = big;
    }
}

static void consider(pick_t *p, const char *name)
{
    if (strlen(name) >= NAME_BYTES)
        return;
    if (p->n < p->max) {
        strcpy(p->names[p->n], name);
        sift_up(p, p->n++);
        return;
    }
    p->more = 1;
    if (strcmp(name, p->names[0]) < 0) {
        strcpy(p->names[0], name);
        sift_down(p, 0);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* One pass over `dir`: the page's names, sorted. */
static uc_error_t *pick_names(apr_pool_t *pool, const char *dir,
                              const char *after, pick_t *p)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int failed;

    if (!d)
        return uc_error_make(pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                             "No such directory.");
    while ((errno = 0, e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (after && strcmp(e->d_name, after) <= 0))
            continue;
        consider(p, e->d_name);
    }
    failed = errno;
    closedir(d);
    /* A page cut short by a failing disk would read as the last one. */
    if (failed)
        return uc_error_because(pool, uc_error_internal(pool),
                                "reading directory %s: %s", dir,
                                strerror(failed));
    qsort(p->names, (size_t)p->n, NAME_BYTES, by_name);
    return NULL;
}

/* The entry's own status, a link's target's when that lies inside the
 * root; 0 for what is left out. */
static int entry_status(const char *path, const char *root, struct stat *st)
{
    char real[PATH_MAX];
    apr_size_t n = strlen(root);

    if (lstat(path, st) != 0)
        return 0;
    if (S_ISLNK(st->st_mode) &&
        (!realpath(path, real) || strncmp(real, root, n) != 0 ||
         (real[n] != '/' && real[n] && strcmp(root, "/") != 0) ||
         stat(real, st) != 0))
        return 0;
    return S_ISREG(st->st_mode) || S_ISDIR(st->st_mode);
}

static void write_entry(uc_jw_t *out, const char *name, const char *path,
                        const struct stat *st)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", name);
    uc_jw_field_string(out, "path", path);
    uc_jw_key(out, "isDirectory");
    uc_jw_bool(out, S_ISDIR(st->st_mode));
    if (S_ISREG(st->st_mode))
        uc_jw_field_int(out, "fileSize", (apr_int64_t)st->st_size);
    uc_jw_field_int(out, "lastModified",
                    (apr_int64_t)st->st_mtim.tv_sec * 1000
                    + st->st_mtim.tv_nsec / 1000000);
    uc_jw_end_object(out);
}

static uc_error_t *read_max_results(apr_pool_t *pool, const char *v,
                                    int *out)
{
    const char *p = v;
    int n = 0;

    *out = UC_FILE_LIST_MAX;
    if (!v)
        return NULL;
    for (; *p >= '0' && *p <= '9' && p - v < 5; p++)
        n = n * 10 + (*p - '0');
    if (!*v || *p || n < 1 || n > UC_FILE_LIST_MAX)
        return uc_error_invalid(pool, "Acceptable values of 'maxResults' "
                                "are 1 to %d, inclusive. (Default: %d)",
                                UC_FILE_LIST_MAX, UC_FILE_LIST_MAX);
    *out = n;
    return NULL;
}

uc_error_t *uc_file_list(apr_pool_t *pool, const struct uc_secret_keys *keys,
                         const uc_file_target_t *target, const char *dir,
                         const char *root, const char *args, apr_time_t now,
                         uc_jw_t *out)
{
    uc_sharing_token_scope_t scope = { "page token", "files", "", "",
                                       target->id, target->key };
    const char *prefix = *target->key
                         ? apr_pstrcat(pool, target->key, "/", NULL) : "";
    const char *token, *after = NULL, *next = NULL;
    apr_table_t *query;
    pick_t p = { NULL, 0, 0, 0 };
    uc_error_t *err;
    int i;

    if ((err = uc_query_parse(pool, args, &query)) ||
        (err = read_max_results(pool, apr_table_get(query, "maxResults"),
                                &p.max)))
        return err;
    if ((token = apr_table_get(query, "pageToken")) && *token &&
        (err = uc_sharing_token_read(pool, keys, &scope, token,
                                     apr_time_sec(now), &after)))
        return err;
    p.names = apr_palloc(pool, (apr_size_t)p.max * NAME_BYTES);
    if ((err = pick_names(pool, dir, after, &p)))
        return err;
    if (p.more && (err = uc_sharing_token_make(pool, keys, &scope,
                                               p.names[p.n - 1],
                                               target->expires, &next)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "contents");
    uc_jw_begin_array(out);
    for (i = 0; i < p.n; i++) {
        struct stat st;
        const char *name = p.names[i];

        if (entry_status(apr_pstrcat(pool, dir, "/", name, NULL), root, &st))
            write_entry(out, name, apr_pstrcat(pool, prefix, name, NULL),
                        &st);
    }
    uc_jw_end_array(out);
    if (next)
        uc_jw_field_string(out, "nextPageToken", next);
    uc_jw_end_object(out);
    return NULL;
}
