/* SPDX-License-Identifier: Apache-2.0 */
/* Where the data of tables, volumes, models and agent skills lives: managed
 * locations derived under the schema's, the catalog's or the metastore's
 * managed storage, and the checks on locations callers choose. */
#ifndef UC_STORAGE_H
#define UC_STORAGE_H

#include "../call/uc_call.h"

/* Where the path of a normal form starts: after "scheme://authority". */
const char *uc_storage_path_of(const char *url);

/* The location `url` (whose path starts at `path`) and each of its
 * ancestors, the bucket included but not a file system's root, as a JSON
 * array for the overlap queries. */
const char *uc_storage_ancestors(uc_call_t *call, const char *url,
                                 const char *path);

/* The external location covering a normalised location (the longest one
 * at it or above it), NULL when none does, and, unless `access` is NULL,
 * the caller's rights on it; then one the caller may not know of is NULL
 * too (uc_access_sees), so that a refusal never names it. */
uc_error_t *uc_storage_covering(uc_call_t *call, const char *location,
                                uc_securable_t **found, uc_access_t *access);

/* <managed storage>/<segment>/<id> for an object of the call's schema; the
 * managed storage is the schema's, else the catalog's, else
 * <metastore root>/__unitystorage. Without any it is a 400
 * FAILED_PRECONDITION naming `what` ("managed volume"). */
uc_error_t *uc_storage_managed_location(uc_call_t *call, const char *segment,
                                        const char *id, const char *what,
                                        const char **out);

/* Normalises an external location chosen by the caller (`field` of the
 * body) for an object of `kind`, and refuses what Unity Catalog refuses: a
 * bucket or file-system root, managed storage, and a location that equals,
 * contains or lies inside the storage of another object or of an open
 * staging reservation, or the metastore's managed storage. Unless the
 * caller is an admin, the external location covering it must be the
 * caller's or grant it CREATE EXTERNAL TABLE (`kind` "table") or CREATE
 * EXTERNAL VOLUME (volumes, skills): 403 otherwise, and when none covers
 * it. */
uc_error_t *uc_storage_external_location(uc_call_t *call, const char *field,
                                         const char *url, const char *kind,
                                         const char **out);

/* Normalises the storage_root (`field`) of a new catalog or schema and
 * refuses the file-system root and the directories directly under it, a
 * root that equals, contains or lies
 * inside the data of any table, volume, model, skill or open reservation,
 * and, unless the caller is an admin, one that does so with the
 * metastore's managed storage or another catalog's or schema's root the
 * caller does not own. Unless the caller is an admin, the external
 * location covering it must be the caller's or grant it CREATE MANAGED
 * STORAGE. */
uc_error_t *uc_storage_managed_root(uc_call_t *call, const char *field,
                                    const char *url, const char **out);

#endif
