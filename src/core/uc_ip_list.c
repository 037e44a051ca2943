/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_ip_list.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

/* An address as 16 bytes (IPv4 in the IPv4-mapped IPv6 form, so that one
 * comparison serves both families) and how many leading bits count. */
typedef struct block {
    unsigned char addr[16];
    int bits;
} block_t;

struct uc_ip_list {
    int n;
    block_t blocks[UC_IP_LIST_MAX];
};

static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                             0xff, 0xff };

/* `text` as 16 bytes; *v4 tells whether it was written as IPv4. */
static int parse_address(const char *text, unsigned char addr[16], int *v4)
{
    unsigned char four[4];

    if (inet_pton(AF_INET, text, four) == 1) {
        memcpy(addr, v4_mapped, 12);
        memcpy(addr + 12, four, 4);
        *v4 = 1;
        return 1;
    }
    *v4 = 0;
    return inet_pton(AF_INET6, text, addr) == 1;
}

/* `addr` with every bit past the first `bits` cleared. */
static void masked(const unsigned char addr[16], int bits,
                   unsigned char out[16])
{
    int i;

    for (i = 0; i < 16; i++) {
        int keep = bits - i * 8;

        out[i] = keep >= 8 ? addr[i]
                 : keep <= 0 ? 0
                 : (unsigned char)(addr[i] & (0xff << (8 - keep)));
    }
}

static int matches(const block_t *b, const unsigned char addr[16])
{
    unsigned char m[16];

    masked(addr, b->bits, m);
    return memcmp(m, b->addr, 16) == 0;
}

/* "addr" or "addr/len". A block with host bits set (10.1.2.3/8) is
 * refused: it is more likely a typing error than a meaning. */
static int parse_block(apr_pool_t *pool, const char *entry, block_t *b)
{
    char *text = apr_pstrdup(pool, entry), *slash = strchr(text, '/');
    unsigned char m[16];
    int v4, len, max;

    if (slash)
        *slash++ = '\0';
    if (!parse_address(text, b->addr, &v4))
        return 0;
    max = v4 ? 32 : 128;
    len = max;
    if (slash) {
        char *end;
        long n;

        if (*slash < '0' || *slash > '9')
            return 0;
        n = strtol(slash, &end, 10);
        if (*end || n > max)
            return 0;
        len = (int)n;
    }
    b->bits = len + (v4 ? 96 : 0);
    masked(b->addr, b->bits, m);
    return memcmp(m, b->addr, 16) == 0;
}

uc_error_t *uc_ip_list_parse(apr_pool_t *pool, const char *field,
                             const char *text, uc_ip_list_t **out)
{
    uc_ip_list_t *list = apr_pcalloc(pool, sizeof(*list));
    char *copy = apr_pstrdup(pool, text), *last, *entry;

    for (entry = apr_strtok(copy, ",", &last); entry;
         entry = apr_strtok(NULL, ",", &last)) {
        apr_collapse_spaces(entry, entry);
        if (!*entry)
            continue;
        if (list->n == UC_IP_LIST_MAX)
            return uc_error_invalid(pool, "%s holds more than %d entries.",
                                    field, UC_IP_LIST_MAX);
        if (!parse_block(pool, entry, &list->blocks[list->n]))
            return uc_error_invalid(pool, "%s: '%s' is not an IP address "
                                    "or a CIDR block of one.", field,
                                    entry);
        list->n++;
    }
    if (!list->n)
        return uc_error_invalid(pool, "%s names no address: it would let "
                                "no one in.", field);
    *out = list;
    return NULL;
}

int uc_ip_list_allows(const uc_ip_list_t *list, const char *ip)
{
    unsigned char addr[16];
    int v4, i;

    if (!ip || !parse_address(ip, addr, &v4))
        return 0;
    for (i = 0; i < list->n; i++)
        if (matches(&list->blocks[i], addr))
            return 1;
    return 0;
}

/* An IPv4 block in the IPv4-mapped form. */
#define V4_BLOCK(a, b, c, d, len) \
    { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d }, 96 + (len) }

static const block_t internal_blocks[] = {
    V4_BLOCK(0, 0, 0, 0, 8),        /* "this network": 0.0.0.0 is here */
    V4_BLOCK(10, 0, 0, 0, 8),       /* private (RFC 1918) */
    V4_BLOCK(100, 64, 0, 0, 10),    /* shared by carrier-grade NATs */
    V4_BLOCK(127, 0, 0, 0, 8),      /* loopback */
    V4_BLOCK(169, 254, 0, 0, 16),   /* link-local: clouds' metadata */
    V4_BLOCK(172, 16, 0, 0, 12),    /* private */
    V4_BLOCK(192, 168, 0, 0, 16),   /* private */
    { { 0 }, 128 },                 /* :: unspecified */
    { { [15] = 1 }, 128 },          /* ::1 loopback */
    { { 0xfe, 0x80 }, 10 },         /* link-local */
    { { 0xfe, 0xc0 }, 10 },         /* site-local (deprecated) */
    { { 0xfc }, 7 },                /* unique local */
};

/* NAT64's well-known prefix (RFC 6052): 64:ff9b::a.b.c.d reaches
 * a.b.c.d through the network's translator. */
static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

int uc_ip_is_internal(const struct sockaddr *sa)
{
    unsigned char addr[16];
    size_t i;

    if (sa->sa_family == AF_INET) {
        memcpy(addr, v4_mapped, 12);
        memcpy(addr + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    }
    else if (sa->sa_family == AF_INET6)
        memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    else
        return 1;
    if (memcmp(addr, nat64, sizeof(nat64)) == 0)
        memcpy(addr, v4_mapped, sizeof(v4_mapped));
    for (i = 0; i < sizeof(internal_blocks) / sizeof(internal_blocks[0]);
         i++)
        if (matches(&internal_blocks[i], addr))
            return 1;
    return 0;
}
