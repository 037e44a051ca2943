/* SPDX-License-Identifier: Apache-2.0 */
/* Runs a matched route. */
#ifndef UC_RUN_H
#define UC_RUN_H

#include "../call/uc_call.h"

/* Takes the body out of the route's envelope, enforces the route's rule,
 * then runs the operation, both inside one transaction when the route asks
 * for one: any error rolls everything back, and what was written is
 * dropped. */
uc_error_t *uc_call_run(const uc_route_t *route, uc_call_t *call,
                        uc_jw_t *out);

#endif
