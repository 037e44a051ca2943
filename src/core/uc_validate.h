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

/* A URI reference as the spec's pattern takes it: an optional scheme, then
 * nothing or a part starting with '/', '?' or '#' ("https://host:1/p",
 * "/p"); no blanks or control characters. */
uc_error_t *uc_validate_uri(apr_pool_t *pool, const char *field,
                            const char *uri);

/* Query-string booleans: "true"/"false" (any case), "1"/"0"; absent → dflt. */
uc_error_t *uc_validate_query_bool(apr_pool_t *pool, const char *field,
                                   const char *value, int dflt, int *out);

#endif
