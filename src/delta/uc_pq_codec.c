/* Page decompression for the codecs Delta writers use (parquet-format
 * Compression.md): raw codec blocks without framing, except the deprecated
 * LZ4 codec, which Hadoop frames in blocks. */
#include "uc_pq_internal.h"

#include <string.h>
#include <snappy-c.h>
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

static const char *snappy(const unsigned char *src, apr_size_t src_len,
                          unsigned char *dst, apr_size_t dst_len)
{
    size_t n;

    if (snappy_uncompressed_length((const char *)src, src_len, &n)
        != SNAPPY_OK || n != dst_len)
        return "Snappy page of the wrong size";
    if (snappy_uncompress((const char *)src, src_len, (char *)dst, &n)
        != SNAPPY_OK || n != dst_len)
        return "corrupt Snappy page";
    return NULL;
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
