/* SPDX-License-Identifier: Apache-2.0 */
/* Storage locations: where the catalog's data lives, as URLs of the
 * clouds it governs (uc_clouds.h), in one normal form, so that every check
 * on where data lives compares texts. */
#ifndef UC_STORAGE_URL_H
#define UC_STORAGE_URL_H

#include <apr_pools.h>

#include "../core/uc_error.h"

/* Storage locations in their one normal form, so that two spellings of
 * one place are the same text and nesting is a prefix ending at '/':
 * - a bare absolute path is a file:/// URL (file:/p and file://localhost/p
 *   too); the scheme is one of a cloud's (uc_clouds.h: s3, abfs, abfss,
 *   r2, gs, file; s3a:// and the others are refused) and is lower-cased,
 *   as is the bucket or host, which names no port, and no user but the
 *   account of a cloud whose hosts do (container@account);
 * - repeated and trailing slashes go, "." and ".." segments are resolved
 *   (RFC 3986 §5.2.4; ".." above the root is refused);
 * - each segment is percent-decoded once and encoded again, keeping only
 *   RFC 3986's unreserved characters, sub-delims, ':' and '@' as they are
 *   (so %41 is A and a raw space-free UTF-8 name is %XX-encoded); an
 *   escape of '/', NUL or a control character is refused, as are raw
 *   blanks, control characters, queries and fragments;
 * - at most UC_URL_MAX bytes, before and after.
 * User input may not reach into managed storage: a segment or host naming
 * __unitystorage, in any case, is refused. */
uc_error_t *uc_storage_url_check(apr_pool_t *pool, const char *field,
                                 const char *url, const char **out);

/* The same normal form for a location the module derived itself (a
 * managed location handed out earlier), which may lie in managed storage. */
uc_error_t *uc_storage_url_derived(apr_pool_t *pool, const char *field,
                                   const char *url, const char **out);

/* Whether the normal form `inner` is `outer` or lies inside it. */
int uc_storage_url_within(const char *inner, const char *outer);

#endif
