/* SPDX-License-Identifier: Apache-2.0 */
/* What the temporary credentials of the catalog API (POST
 * /temporary-*-credentials) share with the UC Delta API's. */
#ifndef UC_TEMPORARY_CREDENTIALS_H
#define UC_TEMPORARY_CREDENTIALS_H

#include "uc_api.h"

/* Path operations: reading, reading and writing, creating a table. */
enum { UC_PATH_READ, UC_PATH_READ_WRITE, UC_PATH_CREATE_TABLE };

/* A path credentials are asked for: `url` (the request's `field`)
 * normalised into *out, not a bucket root, and the caller allowed `op`
 * there by what the path lies in (a table, a volume, an external
 * location), as Unity Catalog allows it. */
uc_error_t *uc_temporary_path_check(uc_call_t *call, const char *field,
                                    const char *url, int op,
                                    const char **out);

#endif
