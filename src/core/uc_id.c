/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_id.h"

#include <string.h>
#include <apr_lib.h>
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

int uc_is_uuid(const char *s)
{
    static const int dashes[] = { 8, 13, 18, 23 };
    int i, d = 0;

    if (!s || strlen(s) != 36)
        return 0;
    for (i = 0; i < 36; i++) {
        if (d < 4 && i == dashes[d]) {
            if (s[i] != '-')
                return 0;
            d++;
        }
        else if (!apr_isxdigit(s[i]))
            return 0;
    }
    return 1;
}
