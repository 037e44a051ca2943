/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_json_tree.h"

#include <string.h>
#include <apr_strings.h>

/* Objects of up to this many members are searched member by member (a
 * check's objects have a handful); larger ones get an index, so that a
 * hostile object of many keys costs no scan per key. */
#define SCANNED_MEMBERS 8

/* The literals, shared by every tree: never written to. */
static uc_json_tree_t literals[] = {
    [UC_JSON_LITERAL_TRUE] = { .kind = UC_JSON_TREE_TRUE },
    [UC_JSON_LITERAL_FALSE] = { .kind = UC_JSON_TREE_FALSE },
    [UC_JSON_LITERAL_NULL] = { .kind = UC_JSON_TREE_NULL },
};

static uc_json_tree_t *node(apr_pool_t *pool, uc_json_kind_t kind)
{
    uc_json_tree_t *n = apr_pcalloc(pool, sizeof(*n));

    n->kind = kind;
    return n;
}

static void *tree_string(void *pool, const char *s, size_t len)
{
    uc_json_tree_t *n = node(pool, UC_JSON_TREE_STRING);

    n->u.string = apr_pstrmemdup(pool, s, len);
    n->length = len;
    return n;
}

static void *tree_integer(void *pool, long long v)
{
    uc_json_tree_t *n = node(pool, UC_JSON_TREE_INTEGER);

    n->u.integer = v;
    return n;
}

static void *tree_real(void *pool, double d)
{
    uc_json_tree_t *n = node(pool, UC_JSON_TREE_REAL);

    n->u.real = d;
    return n;
}

static void *tree_literal(void *pool, uc_json_literal_t which)
{
    (void)pool;
    return &literals[which];
}

static void *tree_object(void *pool)
{
    return node(pool, UC_JSON_TREE_OBJECT);
}

static void *tree_array(void *pool)
{
    return node(pool, UC_JSON_TREE_ARRAY);
}

/* Room for one more item of `size` bytes in a container's `*items`,
 * doubled when full: a pool gives nothing back, so the copies left behind
 * add up to less than the final array. */
static void make_room(apr_pool_t *pool, uc_json_tree_t *container,
                      void **items, size_t size)
{
    size_t capacity = container->capacity ? 2 * container->capacity : 4;
    void *grown;

    if (container->length < container->capacity)
        return;
    grown = apr_palloc(pool, capacity * size);
    if (container->length)
        memcpy(grown, *items, container->length * size);
    *items = grown;
    container->capacity = capacity;
}

static int tree_append(void *pool, void *array, void *value)
{
    uc_json_tree_t *a = array;

    make_room(pool, a, (void **)&a->u.items, sizeof(*a->u.items));
    a->u.items[a->length++] = value;
    return 0;
}

/* The member of `key` (`len` bytes) in object `o`; NULL when none. */
static const uc_json_tree_t *find(const uc_json_tree_t *o, const char *key,
                                  size_t len)
{
    size_t i;

    if (o->index)
        return apr_hash_get(o->index, key, (apr_ssize_t)len);
    for (i = 0; i < o->length; i++)
        if (o->u.members[i].key_length == len &&
            memcmp(o->u.members[i].key, key, len) == 0)
            return o->u.members[i].value;
    return NULL;
}

/* Past SCANNED_MEMBERS, the object's members go into its index. */
static void index_members(apr_pool_t *pool, uc_json_tree_t *o)
{
    size_t i;

    if (o->index || o->length <= SCANNED_MEMBERS)
        return;
    o->index = apr_hash_make(pool);
    for (i = 0; i < o->length; i++)
        apr_hash_set(o->index, o->u.members[i].key,
                     (apr_ssize_t)o->u.members[i].key_length,
                     o->u.members[i].value);
}

static uc_json_set_t tree_set(void *pool, void *object, const char *key,
                              size_t len, void *value)
{
    uc_json_tree_t *o = object;
    uc_json_member_t *m;

    if (find(o, key, len))
        return UC_JSON_SET_DUPLICATE;
    make_room(pool, o, (void **)&o->u.members, sizeof(*o->u.members));
    m = &o->u.members[o->length++];
    m->key = apr_pstrmemdup(pool, key, len);
    m->key_length = len;
    m->value = value;
    if (o->index)
        apr_hash_set(o->index, m->key, (apr_ssize_t)len, value);
    else
        index_members(pool, o);
    return UC_JSON_SET_DONE;
}

/* The pool owns every node: nothing to release, ever. */
static const uc_json_builder_t tree_builder = {
    tree_string, tree_integer, tree_real, tree_literal, tree_object,
    tree_array, tree_append, tree_set, NULL
};

const uc_json_tree_t *uc_json_tree_read(apr_pool_t *pool, const char *data,
                                        size_t len,
                                        uc_json_read_error_t *error)
{
    return uc_json_read_with(data, len, &tree_builder, pool, error);
}

int uc_json_tree_is(const uc_json_tree_t *node, uc_json_kind_t kind)
{
    return node && node->kind == kind;
}

const uc_json_tree_t *uc_json_tree_member(const uc_json_tree_t *node,
                                          const char *key)
{
    return uc_json_tree_is(node, UC_JSON_TREE_OBJECT)
           ? find(node, key, strlen(key)) : NULL;
}

size_t uc_json_tree_size(const uc_json_tree_t *node)
{
    return uc_json_tree_is(node, UC_JSON_TREE_OBJECT) ||
           uc_json_tree_is(node, UC_JSON_TREE_ARRAY) ? node->length : 0;
}

const uc_json_tree_t *uc_json_tree_item(const uc_json_tree_t *node,
                                        size_t index)
{
    return uc_json_tree_is(node, UC_JSON_TREE_ARRAY) && index < node->length
           ? node->u.items[index] : NULL;
}

const uc_json_member_t *uc_json_tree_member_at(const uc_json_tree_t *node,
                                               size_t index)
{
    return uc_json_tree_is(node, UC_JSON_TREE_OBJECT) && index < node->length
           ? &node->u.members[index] : NULL;
}

const char *uc_json_tree_string(const uc_json_tree_t *node)
{
    return uc_json_tree_is(node, UC_JSON_TREE_STRING) ? node->u.string : NULL;
}
