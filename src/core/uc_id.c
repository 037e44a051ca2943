/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_id.h"

#include <string.h>
#include <apr_strings.h>
#include <openssl/rand.h>

const char *uc_uuid4(apr_pool_t *pool)
{
    unsigned char b[16];

    if (RAND_bytes(b, sizeof(b)) != 1)
        return NULL;
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    return apr_psprintf(pool,
        "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
        "%02x%02x%02x%02x%02x%02x",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
        b[10], b[11], b[12], b[13], b[14], b[15]);
}

const char *uc_epoch_ms_text(apr_pool_t *pool, apr_time_t when)
{
    return apr_psprintf(pool, "%" APR_INT64_T_FMT, (apr_int64_t)apr_time_as_msec(when));
}

/* A hex digit of either case, by ranges: the C library's table is reached
 * through a call a character, and a batch-check tests a thousand ids. */
static int is_hex(char c)
{
    return (unsigned)(c - '0') < 10 || (unsigned)((c | 0x20) - 'a') < 6;
}

int uc_is_uuid(const char *s)
{
    int i;

    if (!s)
        return 0;
    /* A NUL fails both tests: nothing past a short string is read. */
    for (i = 0; i < 36; i++)
        if (i == 8 || i == 13 || i == 18 || i == 23 ? s[i] != '-'
                                                    : !is_hex(s[i]))
            return 0;
    return s[36] == '\0';
}
