/* Input validation shared by every resource: identifiers, full names,
 * storage URLs, booleans in query strings. */
#ifndef UC_VALIDATE_H
#define UC_VALIDATE_H

#include <apr_pools.h>
#include "uc_error.h"

#define UC_NAME_MAX 255
#define UC_COMMENT_MAX 65536
#define UC_URL_MAX 4096

/* Lower-cases `name` (identifiers are case-insensitive) and checks it
 * against the spec's pattern ^[a-z][0-9a-z_]*[0-9a-z]$ with at least three
 * characters. `field` names the offending field in the error. */
uc_error_t *uc_validate_name(apr_pool_t *pool, const char *field,
                             const char *name, const char **out);

/* The same with other characters allowed inside the name (providers also
 * take '-'). */
uc_error_t *uc_validate_name_with(apr_pool_t *pool, const char *field,
                                  const char *name, const char *inner,
                                  const char **out);

/* Splits "a.b" (parts == 2) or "a.b.c" (parts == 3) into lower-cased,
 * validated names. */
uc_error_t *uc_validate_full_name(apr_pool_t *pool, const char *field,
                                  const char *full_name, int parts,
                                  const char **names);

/* Bounded free text (comments). */
uc_error_t *uc_validate_text(apr_pool_t *pool, const char *field,
                             const char *text, apr_size_t max);

/* Normalises a storage URL as Unity Catalog does: bare absolute paths become
 * file:///…, repeated and trailing slashes go, s3a:// and unknown schemes are
 * refused, and user input may not reach into managed storage. */
uc_error_t *uc_validate_storage_url(apr_pool_t *pool, const char *field,
                                    const char *url, const char **out);

/* A URI reference as the spec's pattern takes it: an optional scheme, then
 * nothing or a part starting with '/', '?' or '#' ("https://host:1/p",
 * "/p"); no blanks or control characters. */
uc_error_t *uc_validate_uri(apr_pool_t *pool, const char *field,
                            const char *uri);

/* The same normalisation for a location the module derived itself (a
 * managed location handed out earlier), which may lie in managed storage. */
uc_error_t *uc_validate_location(apr_pool_t *pool, const char *field,
                                 const char *url, const char **out);

/* Query-string booleans: "true"/"false" (any case), "1"/"0"; absent → dflt. */
uc_error_t *uc_validate_query_bool(apr_pool_t *pool, const char *field,
                                   const char *value, int dflt, int *out);

#endif
