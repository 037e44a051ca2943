/* SPDX-License-Identifier: Apache-2.0 */
/* Who is calling and what it may do on a chain of securables. */
#ifndef UC_ACCESS_H
#define UC_ACCESS_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "../call/uc_call.h"

/* A principal (user or group) name as it is compared and stored: without
 * leading or trailing spaces, ASCII letters in lower case (user names are
 * case-insensitive, as the directories and identity providers in front of
 * httpd treat them), then a principal's name (uc_validate_principal_name:
 * UTF-8, no control or format character, at most UC_NAME_MAX bytes).
 * `field` names the input in the error. */
uc_error_t *uc_principal_normalize(apr_pool_t *pool, const char *field,
                                   const char *name, const char **out);

/* `admins` lists user and group names (may be NULL), normalised. */
uc_principal_t *uc_principal_make(apr_pool_t *pool, const char *name,
                                  apr_array_header_t *groups,
                                  const apr_array_header_t *admins);
/* True when `name` is the caller or one of its groups. */
int uc_principal_is(const uc_principal_t *p, const char *name);

/* Adds the groups of a claim: "a, b" or a JSON list ["a","b"]; names are
 * normalised, and those that are not principal names are left out. */
void uc_groups_from_claim(apr_pool_t *pool, const char *claim,
                          apr_array_header_t *into);
/* Reads httpd's AuthGroupFile format ("group: user user ..."), giving
 * user → array of group names, both normalised. */
apr_hash_t *uc_groups_from_file_text(apr_pool_t *pool, const char *text);

#define UC_MAX_GROUPS 256

#endif
