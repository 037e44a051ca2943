/* SPDX-License-Identifier: Apache-2.0 */
/* IP access lists: the addresses a recipient may call the sharing server
 * from, written as a comma-separated list of IPv4 and IPv6 addresses and
 * CIDR blocks ("10.0.0.0/8, 192.0.2.7, 2001:db8::/32"); and the internal
 * addresses the server does not call on a client's word. */
#ifndef UC_IP_LIST_H
#define UC_IP_LIST_H

#include <apr_pools.h>
#include <sys/socket.h>

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

/* Whether `sa` is an address of this host or of the networks it sits in,
 * which a URL a client chose must not make the server call: unspecified
 * (0.0.0.0/8, ::), loopback (127.0.0.0/8, ::1), private (10.0.0.0/8,
 * 172.16.0.0/12, 192.168.0.0/16, fc00::/7, fec0::/10), shared by
 * carrier-grade NATs (100.64.0.0/10) or link-local (169.254.0.0/16,
 * fe80::/10). IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96)
 * addresses count as the IPv4 address they hold; an address of another
 * family than AF_INET and AF_INET6 counts as internal. */
int uc_ip_is_internal(const struct sockaddr *sa);

#endif
