/* SPDX-License-Identifier: Apache-2.0 */
/* Bytes as text: lower-case hex, standard base64 (RFC 4648 §4) and
 * base64url (§5), as signatures, digests, keys and tokens are written. */
#ifndef UC_BYTES_H
#define UC_BYTES_H

#include <apr_pools.h>

/* Writes 2 * n hex digits and a NUL to `out`. */
void uc_hex_encode(const unsigned char *bytes, apr_size_t n, char *out);

/* Whether `s` is exactly `n` hex digits (either case). */
int uc_is_hex(const char *s, apr_size_t n);

/* Padded base64 of `n` bytes, from `pool`. */
char *uc_base64_encode(apr_pool_t *pool, const unsigned char *bytes,
                       apr_size_t n);

/* Unpadded base64url of `n` bytes ('-' and '_' for '+' and '/'), from
 * `pool`: what JWTs and URL-borne tokens are made of. */
char *uc_base64url_encode(apr_pool_t *pool, const unsigned char *bytes,
                          apr_size_t n);

/* Decodes padded base64 strictly (a length that is not a multiple of 4 or
 * a character outside the alphabet fails): 0 and the bytes in *out
 * (from `pool`, with room for a NUL after them), or -1. */
int uc_base64_decode(apr_pool_t *pool, const char *text,
                     unsigned char **out, apr_size_t *len);

/* Decodes unpadded base64url strictly, as uc_base64url_encode writes it
 * (a character outside the alphabet, padding, or a length of 4k+1 fails):
 * 0 and the bytes in *out (with a NUL after them), or -1. */
int uc_base64url_decode(apr_pool_t *pool, const char *text,
                        unsigned char **out, apr_size_t *len);

#endif
