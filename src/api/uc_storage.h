/* SPDX-License-Identifier: Apache-2.0 */
/* Where the data of tables, volumes, models and agent skills lives: managed
 * locations derived under the schema's, the catalog's or the metastore's
 * managed storage, and the checks on locations callers choose. */
#ifndef UC_STORAGE_H
#define UC_STORAGE_H

#include "../call/uc_call.h"

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
 * staging reservation, or the metastore's managed storage. */
uc_error_t *uc_storage_external_location(uc_call_t *call, const char *field,
                                         const char *url, const char *kind,
                                         const char **out);

/* Normalises the storage_root (`field`) of a new catalog or schema and
 * refuses the file-system root and the directories directly under it, a
 * root that equals, contains or lies
 * inside the data of any table, volume, model, skill or open reservation,
 * and, unless the caller is an admin, one that does so with the
 * metastore's managed storage or another catalog's or schema's root the
 * caller does not own. */
uc_error_t *uc_storage_managed_root(uc_call_t *call, const char *field,
                                    const char *url, const char **out);

#endif
