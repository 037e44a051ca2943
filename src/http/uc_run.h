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

/* The `len` bytes of a body that must hold a JSON object, read the way the
 * route reads it: into call->tree for UC_ROUTE_BODY_TREE, else into
 * call->body. The same errors either way. */
uc_error_t *uc_call_read_body(const uc_route_t *route, uc_call_t *call,
                              const char *data, size_t len);

#endif
