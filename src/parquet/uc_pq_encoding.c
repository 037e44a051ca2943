/* SPDX-License-Identifier: Apache-2.0 */
/* Parquet value and level encodings (parquet-format Encodings.md). Inputs
 * are untrusted: every read is bounded by the page. */
#include "uc_pq_internal.h"

#include <string.h>

/* A delta-encoded string page may not expand beyond this. */
#define MAX_EXPANDED_BYTES ((apr_size_t)256 << 20)

static int read_uleb(const unsigned char **p, const unsigned char *end,
                     apr_uint64_t *value)
{
    apr_uint64_t v = 0;
    int shift = 0;

    while (*p < end && shift <= 63) {
        unsigned char b = *(*p)++;

        v |= (apr_uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *value = v;
            return 1;
        }
        shift += 7;
    }
    return 0;
}

static int read_zigzag(const unsigned char **p, const unsigned char *end,
                       apr_int64_t *value)
{
    apr_uint64_t v;

    if (!read_uleb(p, end, &v))
        return 0;
    *value = (apr_int64_t)(v >> 1) ^ -(apr_int64_t)(v & 1);
    return 1;
}

/* `bit_width` bits at bit offset `bit` of p (LSB first), bounded by len
 * bytes; bits past the end read as zero. */
static apr_uint64_t unpack(const unsigned char *p, apr_size_t len,
                           apr_uint64_t bit, int bit_width)
{
    apr_size_t byte = (apr_size_t)(bit >> 3);
    int shift = (int)(bit & 7);
    apr_uint64_t lo = 0, hi = 0;
    apr_size_t i;

    for (i = 0; i < 8 && byte + i < len; i++)
        lo |= (apr_uint64_t)p[byte + i] << (8 * i);
    if (shift + bit_width > 64 && byte + 8 < len)
        hi = p[byte + 8];
    lo >>= shift;
    if (shift)
        lo |= hi << (64 - shift);
    return bit_width == 64 ? lo : lo & (((apr_uint64_t)1 << bit_width) - 1);
}

/* The hybrid decoder, storing into 8- or 32-bit outputs; for 8-bit ones
 * it also counts the values equal to `match` (runs at once). */
static const char *hybrid(const unsigned char *p, apr_size_t len,
                          int bit_width, apr_size_t count,
                          unsigned char *out8, apr_uint32_t *out32,
                          apr_uint32_t match, apr_size_t *matches)
{
    const unsigned char *end = p + len;
    apr_size_t n = 0;
    apr_size_t value_bytes = (apr_size_t)(bit_width + 7) / 8;

    if (bit_width < 0 || bit_width > 32)
        return "bit width over 32";
    while (n < count) {
        apr_uint64_t header;

        if (!read_uleb(&p, end, &header))
            return "truncated RLE run header";
        if (header & 1) {
            apr_uint64_t groups = header >> 1;
            apr_uint64_t bytes = groups * (apr_uint64_t)bit_width;
            apr_uint64_t values = groups * 8, i;
            apr_size_t avail = (apr_size_t)(end - p);

            if (groups == 0 || groups > ((apr_uint64_t)1 << 40))
                return "bad bit-packed run";
            /* The last run may be cut short after the values needed. */
            if (values > count - n)
                values = count - n;
            if ((values * (apr_uint64_t)bit_width + 7) / 8 > avail)
                return "truncated bit-packed run";
            for (i = 0; i < values; i++) {
                apr_uint32_t v = bit_width
                    ? (apr_uint32_t)unpack(p, avail, i * (apr_uint64_t)bit_width,
                                           bit_width)
                    : 0;
                if (out8) {
                    if (v > 255)
                        return "level out of range";
                    out8[n++] = (unsigned char)v;
                    *matches += v == match;
                }
                else
                    out32[n++] = v;
            }
            p += bytes < avail ? (apr_size_t)bytes : avail;
        }
        else {
            apr_uint64_t run = header >> 1;
            apr_uint32_t v = 0;
            apr_size_t i;

            if (run == 0)
                return "empty RLE run";
            if ((apr_size_t)(end - p) < value_bytes)
                return "truncated RLE value";
            for (i = 0; i < value_bytes; i++)
                v |= (apr_uint32_t)p[i] << (8 * i);
            p += value_bytes;
            if (bit_width < 32 && (v >> bit_width))
                return "RLE value wider than its bit width";
            if (run > count - n)
                run = count - n;
            if (out8) {
                if (v > 255)
                    return "level out of range";
                memset(out8 + n, (int)v, (apr_size_t)run);
                n += (apr_size_t)run;
                if (v == match)
                    *matches += (apr_size_t)run;
            }
            else
                while (run--)
                    out32[n++] = v;
        }
    }
    return NULL;
}

const char *uc_pq_decode_levels(const unsigned char *p, apr_size_t len,
                                int bit_width, apr_size_t count,
                                unsigned char *out, unsigned match,
                                apr_size_t *matches)
{
    return hybrid(p, len, bit_width, count, out, NULL, match, matches);
}

const char *uc_pq_decode_hybrid(const unsigned char *p, apr_size_t len,
                                int bit_width, apr_size_t count,
                                apr_uint32_t *out)
{
    return hybrid(p, len, bit_width, count, NULL, out, 0, NULL);
}

/* The deprecated BIT_PACKED level encoding packs MSB first. */
const char *uc_pq_decode_bit_packed_levels(const unsigned char *p,
                                           apr_size_t len, int bit_width,
                                           apr_size_t count,
                                           unsigned char *out,
                                           apr_size_t *used)
{
    apr_uint64_t bits = (apr_uint64_t)count * (apr_uint64_t)bit_width, bit;
    apr_size_t i;

    if (bit_width < 0 || bit_width > 8)
        return "bit width over 8 for levels";
    if ((bit_width && count > len * 8 / (apr_size_t)bit_width)
        || (bits + 7) / 8 > len)
        return "truncated bit-packed levels";
    for (i = 0, bit = 0; i < count; i++) {
        unsigned v = 0;
        int b;

        for (b = 0; b < bit_width; b++, bit++)
            v = (v << 1) | ((p[bit >> 3] >> (7 - (bit & 7))) & 1);
        out[i] = (unsigned char)v;
    }
    *used = (apr_size_t)((bits + 7) / 8);
    return NULL;
}

static apr_size_t plain_width(const uc_pq_values_t *out)
{
    switch (out->type) {
    case UC_PQ_INT32: case UC_PQ_FLOAT: return 4;
    case UC_PQ_INT64: case UC_PQ_DOUBLE: return 8;
    case UC_PQ_INT96: return 12;
    case UC_PQ_FIXED_LEN_BYTE_ARRAY: return (apr_size_t)out->type_length;
    default: return 0;
    }
}

static apr_uint64_t load_le(const unsigned char *p, apr_size_t width)
{
    apr_uint64_t v = 0;
    apr_size_t i;

    for (i = 0; i < width; i++)
        v |= (apr_uint64_t)p[i] << (8 * i);
    return v;
}

/* Stores a fixed-width little-endian value (ints, floats, fixed bytes). */
static void store_fixed(uc_pq_values_t *out, const unsigned char *p,
                        apr_size_t width)
{
    apr_uint64_t v;
    float f;
    double d;

    switch (out->type) {
    case UC_PQ_INT32:
        out->ints[out->at++] = (apr_int32_t)(apr_uint32_t)load_le(p, 4);
        break;
    case UC_PQ_INT64:
        out->ints[out->at++] = (apr_int64_t)load_le(p, 8);
        break;
    case UC_PQ_FLOAT:
        v = load_le(p, 4);
        {
            apr_uint32_t u = (apr_uint32_t)v;
            memcpy(&f, &u, 4);
        }
        out->reals[out->at++] = f;
        break;
    case UC_PQ_DOUBLE:
        v = load_le(p, 8);
        memcpy(&d, &v, 8);
        out->reals[out->at++] = d;
        break;
    default:
        out->bytes[out->at].ptr = (const char *)p;
        out->bytes[out->at++].len = width;
    }
}

static const char *decode_plain(const unsigned char *p, apr_size_t len,
                                apr_size_t count, uc_pq_values_t *out)
{
    apr_size_t i, width;

    if (out->type == UC_PQ_BOOLEAN) {
        if (count > len * 8)
            return "truncated PLAIN booleans";
        for (i = 0; i < count; i++)
            out->ints[out->at++] = (p[i >> 3] >> (i & 7)) & 1;
        return NULL;
    }
    if (out->type == UC_PQ_BYTE_ARRAY) {
        const unsigned char *end = p + len;

        for (i = 0; i < count; i++) {
            apr_size_t n;

            if (end - p < 4)
                return "truncated PLAIN byte array length";
            n = (apr_size_t)load_le(p, 4);
            p += 4;
            if (n > (apr_size_t)(end - p))
                return "PLAIN byte array runs past its page";
            out->bytes[out->at].ptr = (const char *)p;
            out->bytes[out->at++].len = n;
            p += n;
        }
        return NULL;
    }
    width = plain_width(out);
    if (width == 0 || count > len / width)
        return "truncated PLAIN values";
    if (out->type == UC_PQ_INT64) {
        /* The common case of checkpoints (sizes, times), in one copy. */
        apr_int64_t *dst = out->ints + out->at;

        for (i = 0; i < count; i++, p += 8)
            dst[i] = (apr_int64_t)load_le(p, 8);
        out->at += count;
        return NULL;
    }
    for (i = 0; i < count; i++, p += width)
        store_fixed(out, p, width);
    return NULL;
}

/* DELTA_BINARY_PACKED into 64-bit integers: the first `count` values of
 * the block; *used is how many bytes they took (string encodings, whose
 * blocks hold exactly `count` values, follow them with more data). */
static const char *delta_binary(const unsigned char *p, apr_size_t len,
                                apr_size_t count, int is_int32,
                                apr_int64_t *dst, apr_size_t *used)
{
    const unsigned char *start = p, *end = p + len;
    apr_uint64_t block_size, miniblocks, total, per_mini;
    apr_int64_t first;
    apr_uint64_t value;
    apr_size_t n = 0;

    if (!read_uleb(&p, end, &block_size) || !read_uleb(&p, end, &miniblocks)
        || !read_uleb(&p, end, &total) || !read_zigzag(&p, end, &first))
        return "truncated DELTA_BINARY_PACKED header";
    if (block_size == 0 || block_size % 128 != 0 || miniblocks == 0
        || block_size > 1u << 20 || block_size % miniblocks != 0
        || (block_size / miniblocks) % 32 != 0)
        return "bad DELTA_BINARY_PACKED block shape";
    if (total < count)
        return "DELTA_BINARY_PACKED holds fewer values than the page";
    per_mini = block_size / miniblocks;
    value = (apr_uint64_t)first;
    if (count > 0)
        dst[n++] = is_int32 ? (apr_int32_t)(apr_uint32_t)value
                            : (apr_int64_t)value;
    while (n < count) {
        apr_int64_t min_delta;
        const unsigned char *widths;
        apr_uint64_t m;

        if (!read_zigzag(&p, end, &min_delta))
            return "truncated DELTA_BINARY_PACKED block";
        if ((apr_uint64_t)(end - p) < miniblocks)
            return "truncated DELTA_BINARY_PACKED bit widths";
        widths = p;
        p += miniblocks;
        for (m = 0; m < miniblocks && n < count; m++) {
            int bw = widths[m];
            apr_uint64_t bytes = per_mini * (apr_uint64_t)bw / 8, i;
            apr_size_t avail = (apr_size_t)(end - p);

            if (bw > 64)
                return "DELTA_BINARY_PACKED bit width over 64";
            for (i = 0; i < per_mini && n < count; i++) {
                apr_uint64_t packed = bw ? unpack(p, avail,
                                                  i * (apr_uint64_t)bw, bw)
                                         : 0;
                if (bw && (i * (apr_uint64_t)bw + (apr_uint64_t)bw + 7) / 8
                          > avail)
                    return "truncated DELTA_BINARY_PACKED miniblock";
                value += (apr_uint64_t)min_delta + packed;
                dst[n++] = is_int32 ? (apr_int32_t)(apr_uint32_t)value
                                    : (apr_int64_t)value;
            }
            if (bytes > avail)
                bytes = avail;
            p += (apr_size_t)bytes;
        }
    }
    *used = (apr_size_t)(p - start);
    return NULL;
}

/* Lengths (or prefixes) of string encodings: a DELTA_BINARY_PACKED block of
 * exactly `count` non-negative values. */
static const char *delta_lengths(apr_pool_t *pool, const unsigned char *p,
                                 apr_size_t len, apr_size_t count,
                                 apr_int64_t **lengths, apr_size_t *used)
{
    const char *why;
    apr_size_t i;
    const unsigned char *q = p, *end = p + len;
    apr_uint64_t header[3];

    if (count > len * 64 + 64)
        return "more values than a DELTA_BINARY_PACKED block can hold";
    for (i = 0; i < 3; i++)
        if (!read_uleb(&q, end, &header[i]))
            return "truncated DELTA_BINARY_PACKED header";
    if (header[2] != count)
        return "delta string lengths do not match the value count";
    *lengths = apr_palloc(pool, sizeof(apr_int64_t) * (count ? count : 1));
    if ((why = delta_binary(p, len, count, 1, *lengths, used)))
        return why;
    for (i = 0; i < count; i++)
        if ((*lengths)[i] < 0)
            return "negative length in a delta string encoding";
    return NULL;
}

static const char *delta_length_byte_array(apr_pool_t *pool,
                                           const unsigned char *p,
                                           apr_size_t len, apr_size_t count,
                                           uc_pq_values_t *out)
{
    apr_int64_t *lengths;
    apr_size_t used, i;
    const char *why = delta_lengths(pool, p, len, count, &lengths, &used);

    if (why)
        return why;
    p += used;
    len -= used;
    for (i = 0; i < count; i++) {
        apr_size_t n = (apr_size_t)lengths[i];

        if (n > len)
            return "DELTA_LENGTH_BYTE_ARRAY data runs past its page";
        out->bytes[out->at].ptr = (const char *)p;
        out->bytes[out->at++].len = n;
        p += n;
        len -= n;
    }
    return NULL;
}

static const char *delta_byte_array(apr_pool_t *pool, const unsigned char *p,
                                    apr_size_t len, apr_size_t count,
                                    uc_pq_values_t *out)
{
    apr_int64_t *prefixes, *suffixes;
    apr_size_t used, used2, i, total = 0;
    const char *why = delta_lengths(pool, p, len, count, &prefixes, &used);
    const char *prev = "";
    apr_size_t prev_len = 0;
    char *buf;

    if (why)
        return why;
    p += used;
    len -= used;
    if ((why = delta_lengths(pool, p, len, count, &suffixes, &used2)))
        return why;
    p += used2;
    len -= used2;
    for (i = 0; i < count; i++) {
        if ((apr_uint64_t)prefixes[i] > prev_len
            || (apr_uint64_t)suffixes[i] > len)
            return "bad DELTA_BYTE_ARRAY prefix or suffix";
        prev_len = (apr_size_t)(prefixes[i] + suffixes[i]);
        total += prev_len;
        if (total > MAX_EXPANDED_BYTES)
            return "DELTA_BYTE_ARRAY expands too far";
    }
    buf = apr_palloc(pool, total ? total : 1);
    for (i = 0; i < count; i++) {
        apr_size_t pre = (apr_size_t)prefixes[i];
        apr_size_t suf = (apr_size_t)suffixes[i];

        if (suf > len)
            return "DELTA_BYTE_ARRAY suffixes run past their page";
        memcpy(buf, prev, pre);
        memcpy(buf + pre, p, suf);
        p += suf;
        len -= suf;
        if (out->type == UC_PQ_FIXED_LEN_BYTE_ARRAY
            && pre + suf != (apr_size_t)out->type_length)
            return "DELTA_BYTE_ARRAY value of the wrong fixed length";
        out->bytes[out->at].ptr = buf;
        out->bytes[out->at++].len = pre + suf;
        prev = buf;
        buf += pre + suf;
    }
    return NULL;
}

static const char *byte_stream_split(apr_pool_t *pool, const unsigned char *p,
                                     apr_size_t len, apr_size_t count,
                                     uc_pq_values_t *out)
{
    apr_size_t width = plain_width(out), i, k;
    unsigned char *joined;

    if (width == 0 || out->type == UC_PQ_INT96)
        return "BYTE_STREAM_SPLIT on an unsupported type";
    if (count > len / width)
        return "truncated BYTE_STREAM_SPLIT values";
    /* The streams are of the page's full value count, which may exceed
     * `count` only by padding we never read. */
    joined = apr_palloc(pool, width * (count ? count : 1));
    for (i = 0; i < count; i++)
        for (k = 0; k < width; k++)
            joined[i * width + k] = p[k * (len / width) + i];
    for (i = 0; i < count; i++)
        store_fixed(out, joined + i * width, width);
    return NULL;
}

static const char *rle_booleans(const unsigned char *p, apr_size_t len,
                                apr_size_t count, uc_pq_values_t *out,
                                apr_pool_t *pool)
{
    apr_uint32_t *bits;
    apr_size_t n, i;
    const char *why;

    if (len < 4)
        return "truncated RLE booleans";
    n = (apr_size_t)load_le(p, 4);
    if (n > len - 4)
        return "RLE booleans run past their page";
    bits = apr_palloc(pool, sizeof(apr_uint32_t) * (count ? count : 1));
    if ((why = uc_pq_decode_hybrid(p + 4, n, 1, count, bits)))
        return why;
    for (i = 0; i < count; i++)
        out->ints[out->at++] = bits[i];
    return NULL;
}

const char *uc_pq_decode_values(apr_pool_t *pool, int encoding,
                                const unsigned char *p, apr_size_t len,
                                apr_size_t count, uc_pq_values_t *out)
{
    apr_size_t used;
    const char *why;

    switch (encoding) {
    case UC_PQ_PLAIN:
        return decode_plain(p, len, count, out);
    case UC_PQ_RLE:
        if (out->type != UC_PQ_BOOLEAN)
            return "RLE values on a non-boolean column";
        return rle_booleans(p, len, count, out, pool);
    case UC_PQ_DELTA_BINARY_PACKED:
        if (out->type != UC_PQ_INT32 && out->type != UC_PQ_INT64)
            return "DELTA_BINARY_PACKED on a non-integer column";
        if (count > len * 64 + 64)
            return "more values than a DELTA_BINARY_PACKED block can hold";
        why = delta_binary(p, len, count, out->type == UC_PQ_INT32,
                           out->ints + out->at, &used);
        if (!why)
            out->at += count;
        return why;
    case UC_PQ_DELTA_LENGTH_BYTE_ARRAY:
        if (out->type != UC_PQ_BYTE_ARRAY)
            return "DELTA_LENGTH_BYTE_ARRAY on a non-binary column";
        return delta_length_byte_array(pool, p, len, count, out);
    case UC_PQ_DELTA_BYTE_ARRAY:
        if (out->type != UC_PQ_BYTE_ARRAY
            && out->type != UC_PQ_FIXED_LEN_BYTE_ARRAY)
            return "DELTA_BYTE_ARRAY on a non-binary column";
        return delta_byte_array(pool, p, len, count, out);
    case UC_PQ_BYTE_STREAM_SPLIT:
        return byte_stream_split(pool, p, len, count, out);
    default:
        return "unsupported value encoding";
    }
}

const char *uc_pq_decode_dictionary(apr_pool_t *pool, const unsigned char *p,
                                    apr_size_t len, apr_size_t count,
                                    const uc_pq_values_t *dict,
                                    apr_size_t dict_count,
                                    uc_pq_values_t *out)
{
    apr_uint32_t *idx;
    apr_size_t i;
    const char *why;

    if (count == 0)
        return NULL;
    if (len < 1)
        return "dictionary indices without a bit width";
    idx = apr_palloc(pool, sizeof(apr_uint32_t) * count);
    if ((why = uc_pq_decode_hybrid(p + 1, len - 1, p[0], count, idx)))
        return why;
    for (i = 0; i < count; i++) {
        if (idx[i] >= dict_count)
            return "dictionary index out of range";
        if (out->ints)
            out->ints[out->at++] = dict->ints[idx[i]];
        else if (out->reals)
            out->reals[out->at++] = dict->reals[idx[i]];
        else
            out->bytes[out->at++] = dict->bytes[idx[i]];
    }
    return NULL;
}
