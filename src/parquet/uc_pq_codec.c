/* SPDX-License-Identifier: Apache-2.0 */
/* Page decompression for the codecs Delta writers use (parquet-format
 * Compression.md): raw codec blocks without framing, except the deprecated
 * LZ4 codec, which Hadoop frames in blocks. */
#include "uc_pq_internal.h"

#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <lz4.h>
#include <brotli/decode.h>

enum {
    CODEC_UNCOMPRESSED = 0,
    CODEC_SNAPPY = 1,
    CODEC_GZIP = 2,
    CODEC_LZO = 3,
    CODEC_BROTLI = 4,
    CODEC_LZ4 = 5,
    CODEC_ZSTD = 6,
    CODEC_LZ4_RAW = 7
};

/* Snappy blocks (the format's description: a varint of the length, then
 * literals and back-references). Away from the ends of the buffers,
 * elements move in 16-byte (or, for close back-references, 8-byte)
 * chunks, which may write past the element but never past the buffer,
 * and what they write there the next elements overwrite: strings of a few
 * dozen bytes, the bulk of a checkpoint, cost no call to memcpy. Near the
 * ends, every byte is counted. */
#define SNAPPY_ROOM 64          /* the longest chunked element */

static const char *const snappy_corrupt = "corrupt Snappy page";

static void copy_chunks(unsigned char *op, const unsigned char *from,
                        apr_size_t len, apr_size_t chunk)
{
    apr_size_t k;

    if (chunk == 16)
        for (k = 0; k < len; k += 16)
            memcpy(op + k, from + k, 16);
    else
        for (k = 0; k < len; k += 8)
            memcpy(op + k, from + k, 8);
}

static const char *snappy(const unsigned char *src, apr_size_t src_len,
                          unsigned char *dst, apr_size_t dst_len)
{
    const unsigned char *ip = src, *ip_end = src + src_len;
    unsigned char *op = dst, *op_end = dst + dst_len;
    apr_uint64_t n = 0;
    int shift = 0;

    for (;;) {
        if (ip == ip_end || shift > 28)
            return snappy_corrupt;
        n |= (apr_uint64_t)(*ip & 0x7f) << shift;
        if (!(*ip++ & 0x80))
            break;
        shift += 7;
    }
    if (n != dst_len)
        return "Snappy page of the wrong size";
    while (ip < ip_end) {
        unsigned tag = *ip++;
        apr_size_t len, offset, room = (apr_size_t)(op_end - op);

        if ((tag & 3) == 0) {
            len = (tag >> 2) + 1;
            if (len > 60) {
                apr_size_t bytes = len - 60, i;

                if ((apr_size_t)(ip_end - ip) < bytes)
                    return snappy_corrupt;
                for (len = 0, i = 0; i < bytes; i++)
                    len |= (apr_size_t)ip[i] << (8 * i);
                ip += bytes;
                len++;
            }
            if (len > (apr_size_t)(ip_end - ip) || len > room)
                return snappy_corrupt;
            if (len <= SNAPPY_ROOM && room >= SNAPPY_ROOM
                && (apr_size_t)(ip_end - ip) >= SNAPPY_ROOM)
                copy_chunks(op, ip, len, 16);
            else
                memcpy(op, ip, len);
            op += len;
            ip += len;
            continue;
        }
        if ((tag & 3) == 1) {
            if (ip == ip_end)
                return snappy_corrupt;
            len = 4 + ((tag >> 2) & 7);
            offset = (apr_size_t)(tag >> 5) << 8 | *ip++;
        }
        else if ((tag & 3) == 2) {
            if (ip_end - ip < 2)
                return snappy_corrupt;
            len = (tag >> 2) + 1;
            offset = (apr_size_t)ip[0] | (apr_size_t)ip[1] << 8;
            ip += 2;
        }
        else {
            if (ip_end - ip < 4)
                return snappy_corrupt;
            len = (tag >> 2) + 1;
            offset = (apr_size_t)ip[0] | (apr_size_t)ip[1] << 8
                     | (apr_size_t)ip[2] << 16 | (apr_size_t)ip[3] << 24;
            ip += 4;
        }
        if (offset == 0 || offset > (apr_size_t)(op - dst) || len > room)
            return snappy_corrupt;
        /* A chunk reads only bytes before the one it writes first when the
         * reference reaches back at least a chunk. */
        if (room >= SNAPPY_ROOM && offset >= 8)
            copy_chunks(op, op - offset, len, offset >= 16 ? 16 : 8);
        else {
            const unsigned char *from = op - offset;
            apr_size_t i;

            for (i = 0; i < len; i++)
                op[i] = from[i];
        }
        op += len;
    }
    return op == op_end ? NULL : snappy_corrupt;
}

/* Several gzip members may follow each other. */
static const char *gzip(const unsigned char *src, apr_size_t src_len,
                        unsigned char *dst, apr_size_t dst_len)
{
    z_stream z;
    int rc = Z_OK;

    memset(&z, 0, sizeof(z));
    if (src_len > UINT32_MAX || dst_len > UINT32_MAX
        || inflateInit2(&z, 15 + 32) != Z_OK)
        return "cannot start GZIP decompression";
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)src_len;
    z.next_out = dst;
    z.avail_out = (uInt)dst_len;
    /* Until the last member ends: a full output buffer alone does not
     * mean the stream (and its CRC) was read, nor that it ends there. */
    for (;;) {
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0 || z.avail_out == 0)
                break;
            rc = inflateReset(&z);        /* another member follows */
        }
        if (rc != Z_OK)
            break;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_out != 0)
        return "corrupt GZIP page";
    return NULL;
}

static const char *zstd(const unsigned char *src, apr_size_t src_len,
                        unsigned char *dst, apr_size_t dst_len)
{
    size_t n = ZSTD_decompress(dst, dst_len, src, src_len);

    if (ZSTD_isError(n) || n != dst_len)
        return "corrupt ZSTD page";
    return NULL;
}

static const char *lz4_raw(const unsigned char *src, apr_size_t src_len,
                           unsigned char *dst, apr_size_t dst_len)
{
    if (src_len > INT32_MAX || dst_len > INT32_MAX
        || LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len,
                               (int)dst_len) != (int)dst_len)
        return "corrupt LZ4_RAW page";
    return NULL;
}

static apr_uint32_t load_be32(const unsigned char *p)
{
    return (apr_uint32_t)p[0] << 24 | (apr_uint32_t)p[1] << 16
           | (apr_uint32_t)p[2] << 8 | p[3];
}

/* Hadoop's framing: blocks of [uncompressed BE32][compressed BE32][data].
 * Old parquet-cpp wrote raw blocks under the same codec id instead. */
static const char *lz4_hadoop(const unsigned char *src, apr_size_t src_len,
                              unsigned char *dst, apr_size_t dst_len)
{
    const unsigned char *p = src, *end = src + src_len;
    apr_size_t out = 0;

    while (end - p >= 8 && out < dst_len) {
        apr_uint32_t raw = load_be32(p), packed = load_be32(p + 4);

        if (packed > (apr_size_t)(end - p - 8) || raw > dst_len - out
            || LZ4_decompress_safe((const char *)p + 8, (char *)dst + out,
                                   (int)packed, (int)raw) != (int)raw)
            return lz4_raw(src, src_len, dst, dst_len);
        p += 8 + packed;
        out += raw;
    }
    if (out != dst_len || p != end)
        return lz4_raw(src, src_len, dst, dst_len);
    return NULL;
}

static const char *brotli(const unsigned char *src, apr_size_t src_len,
                          unsigned char *dst, apr_size_t dst_len)
{
    size_t n = dst_len;

    if (BrotliDecoderDecompress(src_len, src, &n, dst)
        != BROTLI_DECODER_RESULT_SUCCESS || n != dst_len)
        return "corrupt BROTLI page";
    return NULL;
}

const char *uc_pq_decompress(int codec, const unsigned char *src,
                             apr_size_t src_len, unsigned char *dst,
                             apr_size_t dst_len)
{
    switch (codec) {
    case CODEC_UNCOMPRESSED:
        if (src_len != dst_len)
            return "uncompressed page of the wrong size";
        memcpy(dst, src, dst_len);
        return NULL;
    case CODEC_SNAPPY: return snappy(src, src_len, dst, dst_len);
    case CODEC_GZIP: return gzip(src, src_len, dst, dst_len);
    case CODEC_ZSTD: return zstd(src, src_len, dst, dst_len);
    case CODEC_LZ4_RAW: return lz4_raw(src, src_len, dst, dst_len);
    case CODEC_LZ4: return lz4_hadoop(src, src_len, dst, dst_len);
    case CODEC_BROTLI: return brotli(src, src_len, dst, dst_len);
    case CODEC_LZO: return "LZO compression is not supported";
    default: return "unknown compression codec";
    }
}
