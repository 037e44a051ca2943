/* SPDX-License-Identifier: Apache-2.0 */
/* Percent-encoding (RFC 3986 §2.1), shared by storage URLs and the object
 * stores that read them. */
#ifndef UC_PERCENT_H
#define UC_PERCENT_H

#include <apr_pools.h>

/* The value of a hex digit, -1 for any other character. */
int uc_hex_digit(char c);
/* The four hex digits at p as a number (a JSON \u escape's), -1 when one
 * is not a hex digit: reading stops there, so a NUL ends it. */
long uc_hex4(const char *p);

/* RFC 3986's unreserved characters: ALPHA DIGIT - . _ ~ */
int uc_is_unreserved(unsigned char c);

/* Decodes every %XX escape once; anything else is copied as it is. NULL
 * when an escape decodes to NUL, which no C string can carry. */
char *uc_percent_decode(apr_pool_t *pool, const char *s);

/* Encodes `len` bytes of `s`, keeping unreserved characters and those of
 * `keep` as they are; escapes use upper-case hex. */
char *uc_percent_encode(apr_pool_t *pool, const char *s, apr_size_t len,
                        const char *keep);
/* The same into `out` (room for 3 * len bytes), unterminated; returns
 * where the encoding ends. */
char *uc_percent_encode_into(char *out, const char *s, apr_size_t len,
                             const char *keep);

#endif
