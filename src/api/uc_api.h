/* What every Unity Catalog resource family shares: the route tables of the
 * catalog API, and helpers for paging, lookups by name, audit stamps and the
 * common update fields. */
#ifndef UC_API_H
#define UC_API_H

#include "../http/uc_router.h"
#include "../store/uc_securables.h"
#include "../authz/uc_authz.h"

/* Route tables, one per family, and the whole catalog API (NULL-ended). */
extern const uc_route_t uc_catalog_routes[];
extern const uc_route_t uc_schema_routes[];
extern const uc_route_t uc_metastore_routes[];
extern const uc_route_t uc_permission_routes[];
extern const uc_route_t *const uc_catalog_api[];

/* max_results / page_token of the call's query string. */
uc_error_t *uc_api_page(uc_call_t *call, uc_page_t *page);

/* Writes one securable as its resource renders it; `context` is what the
 * renderer needs besides the row (a parent, say). */
typedef void (*uc_api_render_fn)(uc_call_t *call, uc_jw_t *out,
                                 const uc_securable_t *sec,
                                 const void *context);

/* {"<plural>":[rows...],"next_page_token":token-or-null} */
void uc_api_write_page(uc_call_t *call, uc_jw_t *out, const char *plural,
                       const apr_array_header_t *rows, int more,
                       uc_api_render_fn render, const void *context);

/* Parses a boolean query parameter such as force or include_browse. */
uc_error_t *uc_api_query_flag(uc_call_t *call, const char *name, int *out);

/* What a list shows the caller: everything for admins and for `all`,
 * otherwise what it owns or holds one of `visible` on. Rows count as more
 * than BROWSE for admins, for `all_full`, for owners and where one of `full`
 * is held. Privilege lists end with UC_PRIV_COUNT. */
uc_visibility_t *uc_api_visibility(uc_call_t *call, int all, int all_full,
                                   const uc_privilege_t *visible,
                                   const uc_privilege_t *full);

/* A new row of `kind` under `parent_id`: fresh id, owner and creator from
 * the caller, both timestamps now. */
uc_error_t *uc_api_new_securable(uc_call_t *call, const char *kind,
                                 const char *parent_id, const char *name,
                                 uc_securable_t **out);

/* A new catalog or schema from its create body: name, storage_root (whose
 * managed location is <root>/__unitystorage/<segment>/<id>), comment,
 * properties. */
uc_error_t *uc_api_new_container(uc_call_t *call, const char *kind,
                                 const char *parent_id, const char *segment,
                                 uc_securable_t **out);

/* Reads comment, properties and owner of a create or update body into
 * `sec`; *changed tells whether any was present. */
uc_error_t *uc_api_read_common_fields(uc_call_t *call, uc_securable_t *sec,
                                      int *changed);

/* The members every securable renders the same way, inside an object; a
 * row seen through BROWSE only shows no properties and no storage. */
void uc_api_write_common(uc_jw_t *out, const uc_securable_t *sec);

/* `<root>/__unitystorage/<segment>/<id>` for a normalised storage root. */
const char *uc_api_managed_location(uc_call_t *call, const char *root,
                                    const char *segment, const char *id);

/* Applies an update body (comment, properties, owner, and new_name, the
 * only field that renames) to the call's target and stores it with a fresh
 * update stamp when anything changed. Only owners and admins may transfer
 * ownership; the transfer is audited. A name taken by a sibling comes back
 * as an error for which uc_store_is_duplicate() is true. */
uc_error_t *uc_api_update_securable(uc_call_t *call);

/* Deletes the call's target with its subtree; without force=true a row
 * with children is refused with `not_empty_code`. */
uc_error_t *uc_api_delete_securable(uc_call_t *call,
                                    const char *not_empty_code,
                                    const char *what);

/* The call's target: the last securable its rule resolved. */
#define UC_TARGET_OF(call) ((call)->chain.sec[(call)->chain.n - 1])

#endif
