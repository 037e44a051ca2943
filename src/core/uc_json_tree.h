/* SPDX-License-Identifier: Apache-2.0 */
/* A JSON body read into a tree allocated from a pool: no allocation of its
 * own per value and nothing to release, for the routes that read large
 * bodies once (UC_ROUTE_BODY_TREE). The same reader and verdicts as the
 * jansson values of uc_json_read_body. */
#ifndef UC_JSON_TREE_H
#define UC_JSON_TREE_H

#include <stddef.h>
#include <apr_hash.h>
#include <apr_pools.h>

#include "uc_json_read.h"

typedef enum uc_json_kind {
    UC_JSON_TREE_OBJECT, UC_JSON_TREE_ARRAY, UC_JSON_TREE_STRING,
    UC_JSON_TREE_INTEGER, UC_JSON_TREE_REAL, UC_JSON_TREE_TRUE,
    UC_JSON_TREE_FALSE, UC_JSON_TREE_NULL
} uc_json_kind_t;

typedef struct uc_json_tree uc_json_tree_t;

typedef struct uc_json_member {
    const char *key;            /* NUL-ended; JSON keys hold no NUL */
    size_t key_length;
    const uc_json_tree_t *value;
} uc_json_member_t;

struct uc_json_tree {
    uc_json_kind_t kind;
    /* A string's bytes, a container's items. */
    size_t length;
    union {
        const char *string;     /* NUL-ended; JSON strings hold no NUL */
        long long integer;
        double real;
        const uc_json_tree_t **items;     /* an array's */
        uc_json_member_t *members;        /* an object's, in text order */
    } u;
    size_t capacity;            /* of a container's items */
    /* An object of many members: key → member, for lookups and the
     * duplicate check without a scan of every member. */
    apr_hash_t *index;
};

/* Reads `len` bytes as uc_json_read_with does (the same verdicts, the same
 * *error), the tree allocated from `pool`; NULL when refused. */
const uc_json_tree_t *uc_json_tree_read(apr_pool_t *pool, const char *data,
                                        size_t len,
                                        uc_json_read_error_t *error);

/* Whether `node` (NULL or not) is of `kind`. */
int uc_json_tree_is(const uc_json_tree_t *node, uc_json_kind_t kind);

/* The value of `key` in an object; NULL when `node` is not an object or
 * has no such member. */
const uc_json_tree_t *uc_json_tree_member(const uc_json_tree_t *node,
                                          const char *key);

/* A container's number of items; 0 for anything else. */
size_t uc_json_tree_size(const uc_json_tree_t *node);

/* The index'th item of an array; NULL when out of range or not an
 * array. */
const uc_json_tree_t *uc_json_tree_item(const uc_json_tree_t *node,
                                        size_t index);

/* The index'th member of an object in text order; NULL when out of range
 * or not an object. */
const uc_json_member_t *uc_json_tree_member_at(const uc_json_tree_t *node,
                                               size_t index);

/* A string's text; NULL when `node` is not a string. */
const char *uc_json_tree_string(const uc_json_tree_t *node);

#endif
