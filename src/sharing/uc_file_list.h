/* SPDX-License-Identifier: Apache-2.0 */
/* The listing of a directory under a grant of the files route
 * (uc_file_url.h): how a recipient finds the files of a local volume or
 * agent skill, where no cloud API lists them. One directory a page, in
 * the byte order of the names, each entry
 *
 *     {"name", "path", "isDirectory", "fileSize" (files), "lastModified"}
 *
 * (`path` below the asset's root, `lastModified` in milliseconds), as
 * {"contents":[...],"nextPageToken":"..."} with the token while entries
 * remain. A page costs one pass over the directory and memory for its
 * own entries only, however many the directory holds: the smallest names
 * after the token's are kept in a heap of the page's size. Entries that
 * are neither files nor directories, or links leading out of the root,
 * are left out. */
#ifndef UC_FILE_LIST_H
#define UC_FILE_LIST_H

#include <apr_pools.h>
#include <apr_time.h>

#include "uc_file_url.h"
#include "../core/uc_error.h"
#include "../core/uc_jw.h"

struct uc_secret_keys;

/* How many entries a page holds at most, and by default. */
#define UC_FILE_LIST_MAX 1000

/* The page of directory `dir` (a resolved path inside the asset's
 * resolved `root`) that `target` names, after the request's query string
 * `args`: `maxResults` (1 to UC_FILE_LIST_MAX) and `pageToken`, a page
 * token (uc_sharing_token.h) bound to the asset and the directory, good
 * as long as the grant. A bad parameter or token is a 400. */
uc_error_t *uc_file_list(apr_pool_t *pool, const struct uc_secret_keys *keys,
                         const uc_file_target_t *target, const char *dir,
                         const char *root, const char *args, apr_time_t now,
                         uc_jw_t *out);

#endif
