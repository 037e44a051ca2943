/* SPDX-License-Identifier: Apache-2.0 */
/* Where a deletion vector stored next to the table lives (PROTOCOL.md
 * "Deletion Vector Descriptor Schema"): what anything that hands out or
 * reads DV files needs, kept apart from the log reader, which only keys
 * files by their descriptors. */
#ifndef UC_DELTA_DV_H
#define UC_DELTA_DV_H

#include <apr_pools.h>

#include "../core/uc_error.h"

/* The file of a storageType "u" deletion vector, whose pathOrInlineDv is
 * an optional random prefix then the Z85 text of a 16-byte UUID (20
 * characters): "<prefix>/deletion_vector_<uuid>.bin" relative to the
 * table root, percent-encoded as the log writes paths. A 400
 * MALFORMED_DELTA_LOG when the text is no such thing. */
uc_error_t *uc_delta_dv_path(apr_pool_t *pool, const char *path_or_inline_dv,
                             const char **path);

#endif
