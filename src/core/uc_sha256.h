/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256's compression function (FIPS 180-4 §6.2.2) over whole 64-byte
 * blocks, for the keyed hashes made by the thousand (the signed URLs of a
 * long answer, uc_secret_hasher_t): a state is plain words the caller
 * copies, and two independent messages may run at once. With the
 * processor's SHA extensions each of a message's rounds waits on the one
 * before while the unit that runs them could take another's: two messages
 * run in about the time of one (24 against 45 ns a block). Without them,
 * OpenSSL's compression runs a block at a time. */
#ifndef UC_SHA256_H
#define UC_SHA256_H

#include <apr.h>

#define UC_SHA256_BLOCK 64

/* A state: SHA256_CTX's words h, which OpenSSL's SHA256_Init sets to the
 * initial value. */
typedef struct uc_sha256 {
    apr_uint32_t h[8];
} uc_sha256_t;

/* Runs `n` blocks at `p` through `s`. */
void uc_sha256_blocks(uc_sha256_t *s, const unsigned char *p, apr_size_t n);

/* Runs `na` blocks at `pa` through `a` and `nb` at `pb` through `b`, the
 * two side by side. */
void uc_sha256_blocks2(uc_sha256_t *a, const unsigned char *pa,
                       apr_size_t na, uc_sha256_t *b, const unsigned char *pb,
                       apr_size_t nb);

/* SHA-256's padding (FIPS 180-4 §5.1.1) after the `have` bytes (less than
 * a block) at `block`, for a message of `total` bytes in all: `block` then
 * holds 1 or 2 blocks (room for 2 is needed), which is returned. */
apr_size_t uc_sha256_pad(unsigned char *block, apr_size_t have,
                         apr_uint64_t total);

/* The digest a state stands for: its words, big-endian. */
void uc_sha256_digest(const uc_sha256_t *s, unsigned char out[32]);

#endif
