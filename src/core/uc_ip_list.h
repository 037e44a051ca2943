/* SPDX-License-Identifier: Apache-2.0 */
/* IP access lists: the addresses a recipient may call the sharing server
 * from, written as a comma-separated list of IPv4 and IPv6 addresses and
 * CIDR blocks ("10.0.0.0/8, 192.0.2.7, 2001:db8::/32"). */
#ifndef UC_IP_LIST_H
#define UC_IP_LIST_H

#include <apr_pools.h>

#include "uc_error.h"

/* The most entries a list may hold. */
#define UC_IP_LIST_MAX 100

typedef struct uc_ip_list uc_ip_list_t;

/* Parses `text`: a 400 naming the first entry that is not an address or a
 * block (a prefix longer than the address, a host part, a name), and for
 * an empty list or one of more than UC_IP_LIST_MAX entries. */
uc_error_t *uc_ip_list_parse(apr_pool_t *pool, const char *field,
                             const char *text, uc_ip_list_t **out);

/* Whether numeric address `ip` is in the list; an IPv4-mapped IPv6
 * address counts as its IPv4 address. Anything that is not an address is
 * not in it. */
int uc_ip_list_allows(const uc_ip_list_t *list, const char *ip);

#endif
