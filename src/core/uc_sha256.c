/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sha256.h"

/* SHA256_Transform, deprecated in OpenSSL 3 with the rest of the
 * low-level calls: kept for the processors without SHA extensions. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <string.h>
#include <openssl/sha.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UC_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

apr_size_t uc_sha256_pad(unsigned char *block, apr_size_t have,
                         apr_uint64_t total)
{
    apr_size_t blocks = have + 9 > UC_SHA256_BLOCK ? 2 : 1;
    unsigned char *end = block + blocks * UC_SHA256_BLOCK;
    apr_uint64_t bits = total * 8;

    block[have] = 0x80;
    memset(block + have + 1, 0, (apr_size_t)(end - 8 - block) - have - 1);
    /* Unrolled, the stores merge into one. */
    end[-8] = (unsigned char)(bits >> 56);
    end[-7] = (unsigned char)(bits >> 48);
    end[-6] = (unsigned char)(bits >> 40);
    end[-5] = (unsigned char)(bits >> 32);
    end[-4] = (unsigned char)(bits >> 24);
    end[-3] = (unsigned char)(bits >> 16);
    end[-2] = (unsigned char)(bits >> 8);
    end[-1] = (unsigned char)bits;
    return blocks;
}

#ifdef __SSE2__
/* Four words big-endian, stored at once: what reads the digest next (the
 * next block's message, its hex digits) reads sixteen bytes at a time, and
 * a load that spans several smaller stores waits for them to land. */
static void store_big_endian(const apr_uint32_t *w, unsigned char *out)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)w);

    v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
    v = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1);
    _mm_storeu_si128((__m128i *)(void *)out, v);
}

void uc_sha256_digest(const uc_sha256_t *s, unsigned char out[32])
{
    store_big_endian(s->h, out);
    store_big_endian(s->h + 4, out + 16);
}
#else
void uc_sha256_digest(const uc_sha256_t *s, unsigned char out[32])
{
    int i;

    for (i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}
#endif

/* OpenSSL's compression, which reads and writes the state's words. */
static void openssl_blocks(uc_sha256_t *s, const unsigned char *p,
                           apr_size_t n)
{
    SHA256_CTX ctx;

    memcpy(ctx.h, s->h, sizeof(s->h));
    for (; n; n--, p += UC_SHA256_BLOCK)
        SHA256_Transform(&ctx, p);
    memcpy(s->h, ctx.h, sizeof(s->h));
}

#ifdef UC_SHA_NI

#define SHA_NI __attribute__((target("sha,sse4.1")))
#define LANE static inline __attribute__((always_inline, target("sha,sse4.1")))

static const apr_uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* Whether the processor has the SHA extensions (and SSE4.1, which the
 * state's shuffles use), asked once: the answer never changes, so
 * threads that ask at once store the same. */
static int has_sha_ni(void)
{
    static int known;           /* 0 not asked yet, 1 no, 2 yes */
    int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
    unsigned a, b, c, d;

    if (!v) {
        v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) &&
            __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA) ? 2 : 1;
        __atomic_store_n(&known, v, __ATOMIC_RELAXED);
    }
    return v == 2;
}

/* One message's place in its block: the state as the instructions hold
 * it (words A, B, E, F in one register and C, D, G, H in the other), its
 * value before the block, and the last 16 message words. */
typedef struct lane {
    __m128i abef, cdgh, abef_in, cdgh_in;
    __m128i w[4];
} lane_t;

LANE void lane_begin(lane_t *l, const uc_sha256_t *s, const unsigned char *p)
{
    const __m128i big_endian = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
                                              0x0405060700010203LL);
    __m128i badc = _mm_shuffle_epi32(
        _mm_loadu_si128((const __m128i *)(const void *)s->h), 0xb1);
    __m128i hgfe = _mm_shuffle_epi32(
        _mm_loadu_si128((const __m128i *)(const void *)(s->h + 4)), 0x1b);
    int j;

    l->abef = l->abef_in = _mm_alignr_epi8(badc, hgfe, 8);
    l->cdgh = l->cdgh_in = _mm_blend_epi16(hgfe, badc, 0xf0);
    for (j = 0; j < 4; j++)
        l->w[j] = _mm_shuffle_epi8(
            _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * j)),
            big_endian);
}

/* Rounds 4k to 4k + 3, the message words they take made first from k = 4
 * on. */
LANE void lane_rounds(lane_t *l, int k)
{
    __m128i m;

    if (k >= 4)
        l->w[k & 3] = _mm_sha256msg2_epu32(
            _mm_add_epi32(_mm_sha256msg1_epu32(l->w[k & 3], l->w[(k - 3) & 3]),
                          _mm_alignr_epi8(l->w[(k - 1) & 3],
                                          l->w[(k - 2) & 3], 4)),
            l->w[(k - 1) & 3]);
    m = _mm_add_epi32(l->w[k & 3], _mm_loadu_si128(
        (const __m128i *)(const void *)(round_constants + 4 * k)));
    l->cdgh = _mm_sha256rnds2_epu32(l->cdgh, l->abef, m);
    l->abef = _mm_sha256rnds2_epu32(l->abef, l->cdgh,
                                    _mm_shuffle_epi32(m, 0x0e));
}

LANE void lane_end(const lane_t *l, uc_sha256_t *s)
{
    __m128i feba = _mm_shuffle_epi32(_mm_add_epi32(l->abef, l->abef_in),
                                     0x1b);
    __m128i dchg = _mm_shuffle_epi32(_mm_add_epi32(l->cdgh, l->cdgh_in),
                                     0xb1);

    _mm_storeu_si128((__m128i *)(void *)s->h,
                     _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128((__m128i *)(void *)(s->h + 4),
                     _mm_alignr_epi8(dchg, feba, 8));
}

SHA_NI static void ni_blocks(uc_sha256_t *s, const unsigned char *p,
                             apr_size_t n)
{
    lane_t a;
    int k;

    for (; n; n--, p += UC_SHA256_BLOCK) {
        lane_begin(&a, s, p);
#pragma GCC unroll 16
        for (k = 0; k < 16; k++)
            lane_rounds(&a, k);
        lane_end(&a, s);
    }
}

/* A block of each message, their rounds interleaved. */
SHA_NI static void ni_block2(uc_sha256_t *sa, const unsigned char *pa,
                             uc_sha256_t *sb, const unsigned char *pb)
{
    lane_t a, b;
    int k;

    lane_begin(&a, sa, pa);
    lane_begin(&b, sb, pb);
#pragma GCC unroll 16
    for (k = 0; k < 16; k++) {
        lane_rounds(&a, k);
        lane_rounds(&b, k);
    }
    lane_end(&a, sa);
    lane_end(&b, sb);
}

#endif

void uc_sha256_blocks(uc_sha256_t *s, const unsigned char *p, apr_size_t n)
{
#ifdef UC_SHA_NI
    if (has_sha_ni()) {
        ni_blocks(s, p, n);
        return;
    }
#endif
    openssl_blocks(s, p, n);
}

void uc_sha256_blocks2(uc_sha256_t *a, const unsigned char *pa,
                       apr_size_t na, uc_sha256_t *b, const unsigned char *pb,
                       apr_size_t nb)
{
#ifdef UC_SHA_NI
    if (has_sha_ni()) {
        for (; na && nb; na--, nb--) {
            ni_block2(a, pa, b, pb);
            pa += UC_SHA256_BLOCK;
            pb += UC_SHA256_BLOCK;
        }
    }
#endif
    uc_sha256_blocks(a, pa, na);
    uc_sha256_blocks(b, pb, nb);
}
