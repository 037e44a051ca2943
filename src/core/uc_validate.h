/* SPDX-License-Identifier: Apache-2.0 */
/* Input validation shared by every resource: identifiers, full names,
 * storage URLs, booleans in query strings. */
#ifndef UC_VALIDATE_H
#define UC_VALIDATE_H

#include <apr_pools.h>
#include "uc_error.h"

#define UC_NAME_MAX 255
#define UC_COMMENT_MAX 65536
#define UC_URL_MAX 4096
/* What a properties map (or another map of strings) may hold. */
#define UC_PROPERTIES_MAX 256
#define UC_PROPERTY_KEY_MAX 255
#define UC_PROPERTY_VALUE_MAX 16384

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

/* Text that names something (a property key; a principal's name is held
 * to more, uc_validate_principal_name): 1 to `max` bytes, not only
 * blanks, and no control character, C0, DEL or C1 (a terminal acts on
 * them when the name is shown). */
uc_error_t *uc_validate_label(apr_pool_t *pool, const char *field,
                              const char *text, apr_size_t max);

/* A principal's name (a user or group: grantees, owners, policies'
 * principals): a label of at most UC_NAME_MAX bytes of valid UTF-8
 * without Unicode format characters (category Cf: zero-width characters,
 * bidirectional controls, the BOM, the soft hyphen...), which would let
 * two principals show as one name. */
uc_error_t *uc_validate_principal_name(apr_pool_t *pool, const char *field,
                                       const char *name);

/* A tag key or value as Databricks takes them: 1 to UC_TAG_TEXT_MAX
 * characters of valid UTF-8, kept as given (tags are case-sensitive), no
 * blank at either end, none of * . / < > % & ? \ = and no control
 * character. */
#define UC_TAG_TEXT_MAX 256
uc_error_t *uc_validate_tag_text(apr_pool_t *pool, const char *field,
                                 const char *text);

/* Bounded free text (comments). */
uc_error_t *uc_validate_text(apr_pool_t *pool, const char *field,
                             const char *text, apr_size_t max);

/* Storage locations in their one normal form, so that two spellings of
 * one place are the same text and nesting is a prefix ending at '/':
 * - a bare absolute path is a file:/// URL (file:/p and file://localhost/p
 *   too); the scheme is one of s3, gs, abfs, abfss, r2, file (s3a:// and
 *   the others are refused) and is lower-cased, as is the bucket or host;
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
uc_error_t *uc_validate_storage_url(apr_pool_t *pool, const char *field,
                                    const char *url, const char **out);

/* A URI reference as the spec's pattern takes it: an optional scheme, then
 * nothing or a part starting with '/', '?' or '#' ("https://host:1/p",
 * "/p"); no blanks or control characters. */
uc_error_t *uc_validate_uri(apr_pool_t *pool, const char *field,
                            const char *uri);

/* The same normal form for a location the module derived itself (a
 * managed location handed out earlier), which may lie in managed storage. */
uc_error_t *uc_validate_location(apr_pool_t *pool, const char *field,
                                 const char *url, const char **out);

/* Whether the normal form `inner` is `outer` or lies inside it. */
int uc_location_within(const char *inner, const char *outer);

/* Query-string booleans: "true"/"false" (any case), "1"/"0"; absent → dflt. */
uc_error_t *uc_validate_query_bool(apr_pool_t *pool, const char *field,
                                   const char *value, int dflt, int *out);

#endif
