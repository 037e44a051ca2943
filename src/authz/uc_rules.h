/* SPDX-License-Identifier: Apache-2.0 */
/* Authorization rules as data: every route names the securable it acts on
 * and the privileges it needs, next to the route in its table. */
#ifndef UC_RULES_H
#define UC_RULES_H

#include "uc_access.h"

typedef enum uc_target {
    UC_TARGET_CALLER,          /* any authenticated caller */
    UC_TARGET_METASTORE,
    UC_TARGET_CATALOG,         /* named by the first path parameter */
    UC_TARGET_TOP_OBJECT,      /* an object of the rule's type directly
                                * under the metastore (a credential, an
                                * external location), named by the first
                                * path parameter */
    UC_TARGET_CATALOG_FIELD,   /* named by the body's catalog_name */
    UC_TARGET_CATALOG_QUERY,   /* named by the query's catalog_name, or
                                * by the rule's field when it has one */
    UC_TARGET_SCHEMA,          /* full name in the first path parameter */
    UC_TARGET_SCHEMA_FIELDS,   /* the body's catalog_name and schema_name */
    UC_TARGET_SCHEMA_QUERY,    /* the query's catalog_name and schema_name */
    UC_TARGET_SCHEMA_PATH,     /* its catalog's name and its own in the
                                * first two path parameters (the UC Delta
                                * API's /catalogs/{c}/schemas/{s}) */
    UC_TARGET_SCHEMA_QUERY_OR_METASTORE,  /* the same, or the metastore when
                                           * the query names neither */
    UC_TARGET_OBJECT_SCHEMA,   /* the schema of the object whose full name is
                                * the first path parameter */
    UC_TARGET_OBJECT,          /* an object of the rule's type, full name in
                                * the first path parameter */
    UC_TARGET_OBJECT_FIELDS,   /* an object of the rule's type named by the
                                * body's catalog_name, schema_name and the
                                * rule's field */
    UC_TARGET_OBJECT_PATH,     /* an object of the rule's type, the names
                                * of its catalog, schema and its own in the
                                * first three path parameters */
    UC_TARGET_OBJECT_ID,       /* an object of the rule's type whose id is
                                * the body's rule field; for a table, an
                                * open staging reservation too (as a table
                                * its creator owns) */
    UC_TARGET_OBJECT_ID_PATH,  /* the same, the id in the first path
                                * parameter */
    UC_TARGET_SECURABLE,       /* {securable_type}/{full_name} */
    /* What entity tag assignments are about: a catalog, schema, table,
     * volume, or a table's column (call->column), named by the path's
     * {entity_type}/{entity_name} ("catalogs", "main.sales.orders.id")
     * or, for _FIELDS, by the body's entity_type and entity_name. */
    UC_TARGET_TAGGED_ENTITY,
    UC_TARGET_TAGGED_ENTITY_FIELDS,
    /* What ABAC policies are defined on: a catalog, schema or table named
     * by the path's {on_securable_type}/{on_securable_fullname}. */
    UC_TARGET_POLICY_SCOPE,
    /* The Delta Sharing recipient the bearer token identified (no
     * privilege applies: what a recipient reads is what is granted to
     * it). */
    UC_TARGET_RECIPIENT,
    /* A share granted to that recipient, named by the first path
     * parameter (any case); one not granted is as missing. */
    UC_TARGET_RECIPIENT_SHARE,
    /* Anyone, authenticated or not (last, so that no zeroed rule is
     * one): what the operation reads is its own check, a one-time
     * activation link. */
    UC_TARGET_PUBLIC
} uc_target_t;

/* A need at the target's own level. */
#define UC_LEVEL_TARGET (-1)
/* Any privilege at all: enough to see the object. */
#define UC_ANY_PRIVILEGE (~(uc_privset_t)0)

typedef struct uc_need {
    int level;
    uc_privset_t any;          /* one of these, in force at `level` */
} uc_need_t;

/* What every route below a catalog or schema starts with. */
#define UC_NEED_USE_CATALOG { UC_LEVEL_CATALOG, UC_PRIV(UC_PRIV_USE_CATALOG) }
#define UC_NEED_USE_SCHEMA { UC_LEVEL_SCHEMA, UC_PRIV(UC_PRIV_USE_SCHEMA) }

/* Allowed when the caller is a metastore admin, or owns the target or an
 * ancestor below the metastore at or above every need's level, or else
 * holds each need. A need at a level below the target does not apply.
 * Needs end at the first with `any` == 0.
 *
 * With `browse`, BROWSE in force on the catalog stands in for the needs
 * when the query says include_browse=true (UC_BROWSE_ON_REQUEST, 1), or
 * always (UC_BROWSE_ALWAYS): the call goes on with call->browse_only set
 * and shows metadata only. */
enum { UC_BROWSE_ON_REQUEST = 1, UC_BROWSE_ALWAYS = 2 };
typedef struct uc_rule {
    uc_target_t target;
    uc_need_t needs[3];
    uc_securable_type_t type;  /* of UC_TARGET_OBJECT, _OBJECT_FIELDS and
                                * _TOP_OBJECT */
    const char *field;         /* UC_TARGET_OBJECT_FIELDS: the name's field;
                                * UC_TARGET_OBJECT_ID: the id's;
                                * UC_TARGET_CATALOG_QUERY: the name's */
    int browse;
    /* Every caller reads the target (a tag policy): one without a
     * privilege on it is denied, not hidden. */
    int visible;
} uc_rule_t;

/* The rules of the objects of a schema: creating one with `priv` on the
 * schema, listing them (`target`: UC_TARGET_SCHEMA_QUERY, or
 * UC_TARGET_SCHEMA_QUERY_OR_METASTORE for a list that may span the
 * metastore), and acting on one with one of `privs` on it. */
#define UC_RULE_CREATE_IN_SCHEMA(priv) \
    { UC_TARGET_SCHEMA_FIELDS, \
      { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, \
        { UC_LEVEL_SCHEMA, UC_PRIV(priv) } } }
#define UC_RULE_LIST_IN_SCHEMA(target) \
    { (target), { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA }, \
      .browse = UC_BROWSE_ON_REQUEST }
#define UC_RULE_ON_OBJECT(type, privs, browse_) \
    { UC_TARGET_OBJECT, \
      { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, \
        { UC_LEVEL_OBJECT, (privs) } }, (type), .browse = (browse_) }

/* The rules of a resource family's standard routes: creating one of its
 * objects, listing them, reading one (BROWSE shows its metadata on
 * request) and managing one (update, delete). */
typedef struct uc_family_rules {
    uc_rule_t create;
    uc_rule_t list;
    uc_rule_t read;
    uc_rule_t manage;
} uc_family_rules_t;

/* Those of the objects of a schema of `type`: created with `create_priv`
 * on the schema, listed as `list_target` says, read with one of
 * `read_privs`, managed with MANAGE. */
#define UC_RULES_IN_SCHEMA(type, create_priv, read_privs, list_target) \
    { UC_RULE_CREATE_IN_SCHEMA(create_priv), \
      UC_RULE_LIST_IN_SCHEMA(list_target), \
      UC_RULE_ON_OBJECT(type, read_privs, UC_BROWSE_ON_REQUEST), \
      UC_RULE_ON_OBJECT(type, UC_PRIV(UC_PRIV_MANAGE), 0) }

/* Those of securables directly under the metastore of `type`
 * (credentials, external locations): created with `create_priv` on the
 * metastore, listed by anyone (a list shows each caller what it may see),
 * read with one of `read_privs` on them (BROWSE shows metadata on request
 * when `browse_`), managed with MANAGE. A list's target is
 * `list_target`: UC_TARGET_CALLER, or UC_TARGET_METASTORE when what it
 * shows depends on the caller's privileges there (USE RECIPIENT reaches
 * every recipient). */
#define UC_RULES_ON_METASTORE(type, create_priv, read_privs, browse_) \
    UC_RULES_ON_METASTORE_LISTED_AT(type, create_priv, read_privs, \
                                    browse_, UC_TARGET_CALLER)
/* The same with lists open to anyone on `list_target`: UC_TARGET_METASTORE
 * when a privilege on the metastore shows every object of the list
 * (USE SHARE, every share). */
#define UC_RULES_ON_METASTORE_LISTED_AT(type, create_priv, read_privs, \
                                        browse_, list_target) \
    { { UC_TARGET_METASTORE, \
        { { UC_LEVEL_METASTORE, UC_PRIV(create_priv) } } }, \
      { (list_target), { { 0, 0 } } }, \
      { UC_TARGET_TOP_OBJECT, { { UC_LEVEL_TARGET, (read_privs) } }, \
        (type), .browse = (browse_) }, \
      { UC_TARGET_TOP_OBJECT, \
        { { UC_LEVEL_TARGET, UC_PRIV(UC_PRIV_MANAGE) } }, (type) } }

#endif
