/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_delta_dv.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_percent.h"

#define UUID_Z85_LEN 20
#define UUID_BYTES 16

/* ZeroMQ RFC 32, the alphabet Delta encodes DV UUIDs in. */
static const char z85_alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyz"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

static int z85_digit(char c)
{
    const char *p = c ? strchr(z85_alphabet, c) : NULL;

    return p ? (int)(p - z85_alphabet) : -1;
}

/* Every 5 characters are one big-endian 32-bit word: 0, or -1 for a
 * character outside the alphabet or a group above 2^32 - 1. */
static int z85_decode(const char *text, apr_size_t len, unsigned char *out)
{
    apr_size_t i, j;

    for (i = 0; i < len; i += 5) {
        apr_uint64_t word = 0;

        for (j = 0; j < 5; j++) {
            int d = z85_digit(text[i + j]);

            if (d < 0)
                return -1;
            word = word * 85 + (apr_uint64_t)d;
        }
        if (word > 0xffffffffULL)
            return -1;
        for (j = 0; j < 4; j++)
            *out++ = (unsigned char)(word >> (24 - 8 * j));
    }
    return 0;
}

static const char *uuid_text(apr_pool_t *pool, const unsigned char *b)
{
    return apr_psprintf(pool, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                        "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
                        b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                        b[12], b[13], b[14], b[15]);
}

uc_error_t *uc_delta_dv_path(apr_pool_t *pool, const char *path_or_inline_dv,
                             const char **path)
{
    apr_size_t len = path_or_inline_dv ? strlen(path_or_inline_dv) : 0;
    apr_size_t prefix_len = len - UUID_Z85_LEN;
    unsigned char uuid[UUID_BYTES];
    const char *name;

    if (len < UUID_Z85_LEN
        || z85_decode(path_or_inline_dv + prefix_len, UUID_Z85_LEN, uuid) < 0)
        return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG,
                             "The deletion vector '%s' does not name a file "
                             "(a prefix and a Z85-encoded UUID).",
                             path_or_inline_dv ? path_or_inline_dv : "");
    name = apr_pstrcat(pool, "deletion_vector_", uuid_text(pool, uuid),
                       ".bin", NULL);
    /* The prefix is text, the log's paths are URIs: escape it as they are
     * escaped, so that it reaches the store as it was written. */
    *path = prefix_len == 0 ? name
        : apr_pstrcat(pool, uc_percent_encode(pool, path_or_inline_dv,
                                              prefix_len, "/"),
                      "/", name, NULL);
    return NULL;
}
