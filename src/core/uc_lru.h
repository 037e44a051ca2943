/* SPDX-License-Identifier: Apache-2.0 */
/* The order of use of a cache's entries, most recent first: an entry
 * embeds a node (its first member, so that a node is its entry) and the
 * cache drops from the oldest end when it is over its budget. No lock of
 * its own: the cache's lock covers it. */
#ifndef UC_LRU_H
#define UC_LRU_H

#include <stddef.h>

typedef struct uc_lru_node uc_lru_node_t;
struct uc_lru_node {
    uc_lru_node_t *newer;
    uc_lru_node_t *older;
};

typedef struct uc_lru {
    uc_lru_node_t *newest;
    uc_lru_node_t *oldest;
} uc_lru_t;

static inline void uc_lru_unlink(uc_lru_t *lru, uc_lru_node_t *n)
{
    if (n->newer)
        n->newer->older = n->older;
    else
        lru->newest = n->older;
    if (n->older)
        n->older->newer = n->newer;
    else
        lru->oldest = n->newer;
    n->newer = n->older = NULL;
}

static inline void uc_lru_push_newest(uc_lru_t *lru, uc_lru_node_t *n)
{
    n->older = lru->newest;
    n->newer = NULL;
    if (lru->newest)
        lru->newest->newer = n;
    lru->newest = n;
    if (!lru->oldest)
        lru->oldest = n;
}

/* `n` was just used. */
static inline void uc_lru_touch(uc_lru_t *lru, uc_lru_node_t *n)
{
    uc_lru_unlink(lru, n);
    uc_lru_push_newest(lru, n);
}

#endif
