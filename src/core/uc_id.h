/* SPDX-License-Identifier: Apache-2.0 */
/* Identifiers and clocks. */
#ifndef UC_ID_H
#define UC_ID_H

#include <apr_pools.h>
#include <apr_time.h>

/* A random (version 4) UUID in its 36-character text form, or NULL when the
 * system has no randomness to give. */
const char *uc_uuid4(apr_pool_t *pool);

/* Whether `s` is a UUID in text form: 8-4-4-4-12 hex digits, either case
 * (no version is required: ids made elsewhere are taken too). */
int uc_is_uuid(const char *s);

/* Epoch milliseconds, the unit of every timestamp on the wire, as text. */
const char *uc_epoch_ms_text(apr_pool_t *pool, apr_time_t when);

#endif
