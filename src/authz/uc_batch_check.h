/* SPDX-License-Identifier: Apache-2.0 */
/* The authorization API: Lakekeeper's batch-check, mounted (by default) at
 * /management/v1. */
#ifndef UC_BATCH_CHECK_H
#define UC_BATCH_CHECK_H

#include "../call/uc_call.h"

extern const uc_route_t uc_authz_routes[];

#endif
