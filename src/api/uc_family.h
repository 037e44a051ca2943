/* SPDX-License-Identifier: Apache-2.0 */
/* Resource families, declared rather than written: a descriptor says what
 * is specific to one kind of securable (where its objects live, its rules,
 * its messages, hooks for its own fields, its rendering), and its five
 * standard routes (create, list, get, update, delete) run generic
 * operations that read the descriptor from the call. */
#ifndef UC_FAMILY_H
#define UC_FAMILY_H

#include "../authz/uc_rules.h"
#include "../call/uc_call.h"
#include "../store/uc_securables.h"

/* Writes one securable as its resource renders it; `context` is what the
 * renderer needs besides the row: what the family's context hook read, or
 * the names of the object's parents (uc_api_parents_t). */
typedef void (*uc_api_render_fn)(uc_call_t *call, uc_jw_t *out,
                                 const uc_securable_t *sec,
                                 const void *context);

typedef struct uc_api_family {
    uc_securable_type_t type;      /* its objects' kind is the type's name */
    int level;                     /* UC_LEVEL_... of its objects */
    uc_family_rules_t rules;
    uc_privset_t read;             /* privileges that show an object */
    const char *label;             /* "Volume", for messages */
    const char *plural;            /* the key of lists */
    uc_error_kind_t exists;        /* the error of a taken name */
    unsigned create_fields;        /* UC_FIELD_* of create bodies */
    unsigned update_fields;        /* UC_FIELD_* of update bodies */
    apr_size_t max_name;           /* 0: names as long as UC_NAME_MAX */
    /* The create body's field that names a new object (NULL: "name"),
     * and how a name is checked and spelled (NULL: uc_validate_name,
     * which lower-cases identifiers). */
    const char *name_field;
    uc_error_t *(*check_name)(apr_pool_t *pool, const char *field,
                              const char *name, const char **out);
    /* Containers (catalogs, schemas): their create body may name a
     * storage_root, their managed location is
     * <root>/__unitystorage/<segment>/<id>, and without force=true a
     * delete of one with children is refused with `not_empty`. */
    const char *storage_segment;
    uc_error_kind_t not_empty;
    /* Members of `details` that are stored and never answered (NULL-ended,
     * NULL for none): uc_family_write_details leaves them out. */
    const char *const *secret_details;
    /* Its creates, updates and deletes go to the audit (CREATE, UPDATE,
     * DELETE, the owner as principal), beside ownership transfers. */
    int audited;
    /* A delete answers the object as it was, not {} (the Delta Sharing
     * API's DeleteShare). */
    int answers_deleted;
    uc_api_render_fn render;

    /* Hooks for what the family does besides the generic operation; NULL
     * when nothing. */
    /* What the renderer needs besides the row, from the query of a get,
     * create or update, or of a list when `listing`. */
    uc_error_t *(*context)(uc_call_t *call, int listing, const void **out);
    /* For a list, in place of `context`: what the renderer needs for the
     * rows of one page, read once for all of them (elsewhere the renderer
     * gets NULL, unless `context` says otherwise). */
    uc_error_t *(*page_context)(uc_call_t *call,
                                const apr_array_header_t *rows,
                                const void **out);
    /* The family's own fields of a create body, into the new row. */
    uc_error_t *(*prepare_create)(uc_call_t *call, uc_securable_t *sec);
    /* What the family writes once a new row is stored: rows of its own
     * that refer to it. */
    uc_error_t *(*created)(uc_call_t *call, const uc_securable_t *sec);
    /* The family's own fields of an update body, into the target;
     * *changed is set when one was present. */
    uc_error_t *(*prepare_update)(uc_call_t *call, uc_securable_t *sec,
                                  int *changed);
    /* What may stop a delete before it happens. */
    uc_error_t *(*check_delete)(uc_call_t *call);
    /* Which objects a list shows; by default those the caller owns or
     * holds one of `read` on (uc_family.c). */
    uc_visibility_t *(*visibility)(uc_call_t *call, int include_browse);
    /* Whether a visible row belongs in the list the query asks for (a
     * filter on the family's own fields); a page may then come out short,
     * its next_page_token still right. */
    int (*shown)(uc_call_t *call, const uc_securable_t *sec);
} uc_api_family_t;

/* The members of a family of objects in schemas: their type and level,
 * the privileges that show one, and their rules; `list_target` as in
 * UC_RULE_LIST_IN_SCHEMA. */
#define UC_FAMILY_IN_SCHEMA_LISTED_AT(type_, create_priv, read_privs, \
                                      list_target) \
    .type = (type_), .level = UC_LEVEL_OBJECT, .read = (read_privs), \
    .rules = UC_RULES_IN_SCHEMA(type_, create_priv, read_privs, list_target)
#define UC_FAMILY_IN_SCHEMA(type_, create_priv, read_privs) \
    UC_FAMILY_IN_SCHEMA_LISTED_AT(type_, create_priv, read_privs, \
                                  UC_TARGET_SCHEMA_QUERY)

/* The generic operations of the call's family. Creates, updates and
 * deletes run in a transaction, so that the parent of a new object cannot
 * vanish underneath it. A list without a catalog and a schema (when the
 * family's list rule allows it) shows the family's objects across the
 * metastore. */
uc_error_t *uc_family_create(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_family_list(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_family_get(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_family_update(uc_call_t *call, uc_jw_t *out);
uc_error_t *uc_family_delete(uc_call_t *call, uc_jw_t *out);

/* Route table entries of a family `f` (a static uc_api_family_t). A route
 * matches the first entry of its method and path, so a literal path
 * ("/models/versions") goes before the generated item routes it would
 * otherwise fall under ("/models/{full_name}"). */
#define UC_ROUTE_CREATE_ENVELOPED(f, path, envelope) \
    { UC_POST, (path), uc_family_create, UC_ROUTE_BODY | UC_ROUTE_TXN, \
      &(f).rules.create, (envelope), &(f), "CREATE" }
#define UC_ROUTE_CREATE(f, path) UC_ROUTE_CREATE_ENVELOPED(f, path, NULL)
/* A list whose answer may be kept (UC_ROUTE_KEPT): the family renders
 * its rows from the database alone, never the clock, the configuration
 * or a cloud. */
#define UC_ROUTE_LIST_FLAGGED(f, path, flags) \
    { UC_GET, (path), uc_family_list, (flags), &(f).rules.list, NULL, &(f) }
#define UC_ROUTE_LIST(f, path) UC_ROUTE_LIST_FLAGGED(f, path, 0)
#define UC_ROUTE_LIST_KEPT(f, path) \
    UC_ROUTE_LIST_FLAGGED(f, path, UC_ROUTE_KEPT)
#define UC_ROUTE_GET_FLAGGED(f, path, flags) \
    { UC_GET, (path), uc_family_get, (flags), &(f).rules.read, NULL, &(f) }
#define UC_ROUTE_GET(f, path) UC_ROUTE_GET_FLAGGED(f, path, 0)
#define UC_ROUTE_UPDATE(f, path) \
    { UC_PATCH, (path), uc_family_update, UC_ROUTE_BODY | UC_ROUTE_TXN, \
      &(f).rules.manage, NULL, &(f), "UPDATE" }
#define UC_ROUTE_DELETE(f, path) \
    { UC_DELETE, (path), uc_family_delete, UC_ROUTE_TXN, \
      &(f).rules.manage, NULL, &(f), "DELETE" }

/* The five standard routes: create and list on `collection`, get, update
 * and delete on `item`; with an envelope around create bodies, with the
 * answers of the list and the get kept (UC_ROUTE_KEPT). */
#define UC_FAMILY_ROUTES_OF(f, collection, item, envelope, read_flags) \
    UC_ROUTE_CREATE_ENVELOPED(f, collection, envelope), \
    UC_ROUTE_LIST_FLAGGED(f, collection, read_flags), \
    UC_ROUTE_GET_FLAGGED(f, item, read_flags), \
    UC_ROUTE_UPDATE(f, item), \
    UC_ROUTE_DELETE(f, item)
#define UC_FAMILY_ROUTES(f, collection, item) \
    UC_FAMILY_ROUTES_OF(f, collection, item, NULL, 0)
#define UC_FAMILY_ROUTES_KEPT(f, collection, item) \
    UC_FAMILY_ROUTES_OF(f, collection, item, NULL, UC_ROUTE_KEPT)

/* The family's error for a name already taken under the call's parent. */
uc_error_t *uc_family_name_taken(uc_call_t *call, const uc_api_family_t *f,
                                 const char *name);

/* The members of the row's details but those of `omit` (NULL-ended, NULL
 * for none) and the secret ones of the call's family: the one way details
 * reach an answer. Outside of a family's route nothing is written. */
void uc_family_write_details(uc_call_t *call, uc_jw_t *out,
                             const uc_securable_t *sec,
                             const char *const *omit);

#endif
