/* SPDX-License-Identifier: Apache-2.0 */
/* One read shared by the threads that want it at about the same time, as
 * a group commit shares one flush: a caller is given the value of a read
 * that began after it came, never of one already on its way (which may
 * have missed what was committed just before the caller came). While one
 * read is on its way, the callers who come wait; when it ends, one of them
 * reads for all of them. A read that fails is the error of its reader
 * alone: the callers who waited for it read again. For a value that costs
 * a round trip to a database (the catalog's version on PostgreSQL), so
 * that busy threads make one round trip between them instead of one each.
 * No wait is longer than the read on its way and the next one. */
#ifndef UC_READ_GATE_H
#define UC_READ_GATE_H

#include <apr_pools.h>

#include "uc_error.h"

typedef struct uc_read_gate uc_read_gate_t;

/* The read a gate shares: `baton` is the caller's own (its connection);
 * `pool` is the caller's. */
typedef uc_error_t *(*uc_read_fn)(void *baton, apr_pool_t *pool,
                                  apr_int64_t *out);

/* A gate for the threads of a process, freed with `pool`. */
apr_status_t uc_read_gate_create(apr_pool_t *pool, uc_read_gate_t **out);

/* The value of a read that began after this call did: this caller's own
 * (`read` with `baton`) or the one it waited for. */
uc_error_t *uc_read_gate_read(uc_read_gate_t *gate, uc_read_fn read,
                              void *baton, apr_pool_t *pool,
                              apr_int64_t *out);

#endif
