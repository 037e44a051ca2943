/* SPDX-License-Identifier: Apache-2.0 */
/* Authorization: resolving the securable a call is about, evaluating the
 * caller's rights on it with one query, and enforcing route rules.
 *
 * Hidden objects: a caller that holds nothing on an object (no privilege in
 * force there, no ownership of it or an ancestor, not an admin) gets the
 * same 404 as for a missing object, so names do not leak; a caller that can
 * see the object but lacks what the route needs gets 403. A missing object
 * below a catalog or schema the caller may not know of answers as that
 * one hidden, so that a missing name tells no more than a hidden one; and
 * names a request body gives are held to the same rule. */
#ifndef UC_AUTHZ_H
#define UC_AUTHZ_H

#include "../call/uc_call.h"
#include "uc_rules.h"

/* Resolves the rule's target into call->chain, evaluates call->access and
 * checks the rule. A NULL rule is refused: every route must declare one. */
uc_error_t *uc_authz_enforce(uc_call_t *call, const uc_rule_t *rule);

/* Rights from the privileges granted directly at each level of `chain`
 * (to the principal or its groups). */
void uc_access_compute(const uc_principal_t *who, const uc_chain_t *chain,
                       const uc_privset_t *direct, uc_access_t *out);

/* The caller's rights on a resolved chain. */
uc_error_t *uc_authz_evaluate(uc_call_t *call, const uc_chain_t *chain,
                              uc_access_t *out);

/* Holds one of `any` at `level` (admins and owners from that level up hold
 * everything). */
int uc_access_has(const uc_access_t *a, int level, uc_privset_t any);
/* Owns the object at `level` or an ancestor of it (admins count). */
int uc_access_owns(const uc_access_t *a, int level);

/* The chain of an object of a schema found by its id (a table id may be
 * an open staging reservation's). */
uc_error_t *uc_authz_resolve_id(uc_call_t *call, const char *id,
                                uc_securable_type_t type, uc_chain_t *out);

/* Resolves "catalog" + "main", "schema" + "main.sales", "table" +
 * "main.sales.orders", "metastore" + any name into a chain; unknown types
 * are a 400, missing objects a 404. Inside a transaction the target is
 * held with `lock`, its ancestors shared. */
uc_error_t *uc_authz_resolve(uc_call_t *call, const char *type,
                             const char *full_name, uc_row_lock_t lock,
                             uc_chain_t *out);

/* Whether the caller may know that the chain's target exists: it is the
 * metastore, or the caller holds something on it (a privilege in force
 * there, ownership of it or an ancestor, admin), or, with `browse`,
 * BROWSE on its catalog (which lists everything in it). */
int uc_access_sees(const uc_access_t *a, const uc_chain_t *chain, int browse);

/* A securable a request body names (a share's data object, a grantee, a
 * credential_name), resolved as uc_authz_resolve does, with the caller's
 * rights on it. Its 404, when it is missing, says no more than a hidden
 * one's: a missing object under a catalog or schema the caller may not
 * know of answers as that catalog or schema hidden. */
uc_error_t *uc_authz_resolve_named(uc_call_t *call, const char *type,
                                   const char *full_name, uc_row_lock_t lock,
                                   uc_chain_t *chain, uc_access_t *access);

/* The very 404 a missing object gets, for a named securable the caller
 * may not know of (uc_access_sees, BROWSE counting); NULL when it may. */
uc_error_t *uc_authz_unseen(uc_call_t *call, const uc_chain_t *chain,
                            const uc_access_t *access);

#endif
