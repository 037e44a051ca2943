/* SPDX-License-Identifier: Apache-2.0 */
/* The Parquet reader of src/parquet: the Thrift compact protocol, every value
 * and level encoding on hand-built byte strings, the page codecs, whole
 * files (the fixture checkpoints and generated files, compared with an
 * independent reader's dumps), hostile files, and the length-bounded JSON
 * writer calls the reader uses.
 *
 * Inputs handed to the reader live in malloc blocks of exactly their size
 * (see exact()), so the ASan build reports any read past their end.
 *
 * Environment:
 *   UNICAT_DELTA_FIXTURES     the fixture tables (by default
 *                             t/delta/fixtures)
 *   UNICAT_PARQUET_DUMPS      hyparquet dumps of the fixture checkpoints: one
 *                             file per checkpoint, named after its path under
 *                             the fixture root with '/' as '_', plus .jsonl
 *                             (t/delta/gen/run.sh dump-parquet.mjs FILE)
 *   UNICAT_PARQUET_SYNTHETIC  output of t/delta/gen/run.sh make-parquet.mjs:
 *                             NAME.parquet + NAME.expected.jsonl
 * The last two are optional; when set, every expected file must be there. */
#include "uc_test_reader.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <math.h>
#include <jansson.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <lz4.h>
#include <brotli/encode.h>
#include <apr_file_io.h>
#include <apr_file_info.h>

#include "../../src/core/uc_jw.h"
#include "../../src/parquet/uc_thrift.h"
#include "../../src/parquet/uc_parquet.h"
#include "../../src/parquet/uc_pq_internal.h"

/* --- memory the reader may not read past --------------------------------- */

static apr_status_t free_cleanup(void *p)
{
    free(p);
    return APR_SUCCESS;
}

/* A copy of `n` bytes in a malloc block of exactly n bytes, freed with the
 * pool: ASan sees a read past the end, which pool memory would hide. */
static unsigned char *exact(apr_pool_t *pool, const void *data, size_t n)
{
    unsigned char *p = malloc(n);

    if (!p && !(p = malloc(1)))
        fail_msg("out of memory");
    if (n)
        memcpy(p, data, n);
    apr_pool_cleanup_register(pool, p, free_cleanup, apr_pool_cleanup_null);
    return p;
}

/* A deterministic generator (xorshift64*), for data and corruptions. */
typedef struct rng {
    apr_uint64_t s;
} rng_t;

static apr_uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

static size_t rng_below(rng_t *r, size_t n)
{
    return n ? (size_t)(rng_next(r) % n) : 0;
}

/* --- a growing byte buffer ----------------------------------------------- */

typedef struct buf {
    apr_pool_t *pool;
    unsigned char *p;
    size_t len, cap;
} buf_t;

static buf_t *buf_make(apr_pool_t *pool)
{
    buf_t *b = apr_pcalloc(pool, sizeof(*b));

    b->pool = pool;
    b->cap = 256;
    b->p = apr_palloc(pool, b->cap);
    return b;
}

static void buf_put(buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        unsigned char *grown;

        while (b->len + n > b->cap)
            b->cap *= 2;
        grown = apr_palloc(b->pool, b->cap);
        memcpy(grown, b->p, b->len);
        b->p = grown;
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void buf_byte(buf_t *b, unsigned v)
{
    unsigned char c = (unsigned char)v;

    buf_put(b, &c, 1);
}

static void buf_bytes(buf_t *b, const char *s, size_t n)
{
    buf_put(b, s, n);
}

static void buf_le(buf_t *b, apr_uint64_t v, int width)
{
    int i;

    for (i = 0; i < width; i++)
        buf_byte(b, (unsigned)(v >> (8 * i)) & 0xff);
}

static void buf_uleb(buf_t *b, apr_uint64_t v)
{
    do {
        unsigned c = v & 0x7f;

        v >>= 7;
        buf_byte(b, c | (v ? 0x80 : 0));
    } while (v);
}

static apr_uint64_t zz(apr_int64_t v)
{
    return ((apr_uint64_t)v << 1) ^ (v < 0 ? ~(apr_uint64_t)0 : 0);
}

static void buf_zigzag(buf_t *b, apr_int64_t v)
{
    buf_uleb(b, zz(v));
}

/* `n` values of `bw` bits, LSB first (the hybrid's bit-packing and
 * DELTA_BINARY_PACKED miniblocks), padded with zero bits to `slots`
 * values. */
static void buf_pack(buf_t *b, const apr_uint64_t *v, size_t n, size_t slots,
                     int bw)
{
    size_t nbytes = (slots * (size_t)bw + 7) / 8, i;
    unsigned char *out = apr_pcalloc(b->pool, nbytes + 1);
    apr_uint64_t bit = 0;

    for (i = 0; i < n; i++) {
        int k;

        for (k = 0; k < bw; k++, bit++)
            if ((v[i] >> k) & 1)
                out[bit >> 3] |= (unsigned char)(1u << (bit & 7));
    }
    buf_put(b, out, nbytes);
}

/* --- a Thrift compact writer, to build footers and page headers ---------- */

typedef struct tw {
    buf_t *b;
    int last[80];
    int depth;
} tw_t;

static tw_t *tw_make(apr_pool_t *pool)
{
    tw_t *w = apr_pcalloc(pool, sizeof(*w));

    w->b = buf_make(pool);
    return w;
}

static void tw_field(tw_t *w, int type, int id)
{
    int delta = id - w->last[w->depth];

    if (delta > 0 && delta <= 15)
        buf_byte(w->b, (unsigned)(delta << 4 | type));
    else {
        buf_byte(w->b, (unsigned)type);
        buf_zigzag(w->b, id);
    }
    w->last[w->depth] = id;
}

static void tw_int(tw_t *w, int id, int type, apr_int64_t v)
{
    tw_field(w, type, id);
    buf_zigzag(w->b, v);
}

#define tw_i32(w, id, v) tw_int((w), (id), UC_THRIFT_I32, (v))
#define tw_i64(w, id, v) tw_int((w), (id), UC_THRIFT_I64, (v))

static void tw_bin(tw_t *w, int id, const void *p, size_t n)
{
    tw_field(w, UC_THRIFT_BINARY, id);
    buf_uleb(w->b, n);
    buf_put(w->b, p, n);
}

static void tw_str(tw_t *w, int id, const char *s)
{
    tw_bin(w, id, s, strlen(s));
}

static void tw_bool(tw_t *w, int id, int v)
{
    tw_field(w, v ? UC_THRIFT_TRUE : UC_THRIFT_FALSE, id);
}

/* A struct field (id > 0) or a struct list element (id 0). */
static void tw_begin(tw_t *w, int id)
{
    if (id)
        tw_field(w, UC_THRIFT_STRUCT, id);
    w->last[++w->depth] = 0;
}

static void tw_end(tw_t *w)
{
    buf_byte(w->b, 0);
    w->depth--;
}

/* A list header, as a field (id > 0) or an element (id 0). */
static void tw_list(tw_t *w, int id, int elem, size_t n)
{
    if (id)
        tw_field(w, UC_THRIFT_LIST, id);
    if (n < 15)
        buf_byte(w->b, (unsigned)(n << 4 | (size_t)elem));
    else {
        buf_byte(w->b, 0xf0 | (unsigned)elem);
        buf_uleb(w->b, n);
    }
}

/* --- Thrift compact protocol --------------------------------------------- */

static void thrift_on(uc_thrift_t *t, apr_pool_t *pool, const void *data,
                      size_t n)
{
    uc_thrift_init(t, exact(pool, data, n), n);
}

static void test_thrift_varints(void **state)
{
    apr_pool_t *pool = *state;
    /* Field headers 0x1t (delta 1, type t), then zigzag ULEB128 values. */
    static const unsigned char msg[] = {
        0x15, 0x00,                                   /* 1: i32 0 */
        0x15, 0x01,                                   /* 2: i32 -1 */
        0x15, 0x02,                                   /* 3: i32 1 */
        0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f,           /* 4: INT32_MAX */
        0x15, 0xff, 0xff, 0xff, 0xff, 0x0f,           /* 5: INT32_MIN */
        0x16, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                                                      /* 6: INT64_MAX */
        0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                                                      /* 7: INT64_MIN */
        0x14, 0xd8, 0x04,                             /* 8: i16 300 */
        0x13, 0xff,                                   /* 9: i8 -1 */
        0x13, 0x7f,                                   /* 10: i8 127 */
        0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
                                                      /* 11: 2^62 */
        0x16, 0xac, 0x02,                             /* 12: i64 150 */
        0x00
    };
    static const apr_int64_t want[] = {
        0, -1, 1, 2147483647, -2147483647 - 1, INT64_MAX, INT64_MIN, 300,
        -1, 127, (apr_int64_t)1 << 62, 150
    };
    static const apr_int64_t extremes[] = {
        0, 1, -1, 63, -64, 64, -65, 8191, -8192, 2147483647,
        -2147483647 - 1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
        (apr_int64_t)1 << 62, -((apr_int64_t)1 << 62)
    };
    uc_thrift_t t;
    uc_thrift_struct_t s;
    int id, type, n = 0;
    size_t i;
    tw_t *w;

    thrift_on(&t, pool, msg, sizeof(msg));
    uc_thrift_struct_begin(&t, &s);
    while ((type = uc_thrift_field(&t, &s, &id)) != UC_THRIFT_STOP) {
        assert_int_equal(id, n + 1);
        assert_true(uc_thrift_int(&t, type) == want[n]);
        n++;
    }
    uc_thrift_struct_end(&t);
    assert_int_equal(n, 12);
    assert_false(t.failed);
    assert_ptr_equal(t.p, t.end);

    /* Written by the test's own encoder, read back. */
    w = tw_make(pool);
    for (i = 0; i < sizeof(extremes) / sizeof(*extremes); i++)
        tw_i64(w, (int)i + 1, extremes[i]);
    buf_byte(w->b, 0);
    thrift_on(&t, pool, w->b->p, w->b->len);
    uc_thrift_struct_begin(&t, &s);
    for (i = 0; i < sizeof(extremes) / sizeof(*extremes); i++) {
        type = uc_thrift_field(&t, &s, &id);
        assert_int_equal(type, UC_THRIFT_I64);
        assert_int_equal(id, (int)i + 1);
        assert_true(uc_thrift_int(&t, type) == extremes[i]);
    }
    assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
    assert_false(t.failed);

    /* Eleven bytes is longer than any 64-bit varint. */
    {
        static const unsigned char overlong[] = {
            0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
            0x01, 0x00
        };
        thrift_on(&t, pool, overlong, sizeof(overlong));
        uc_thrift_struct_begin(&t, &s);
        type = uc_thrift_field(&t, &s, &id);
        assert_int_equal(uc_thrift_int(&t, type), 0);
        assert_true(t.failed);
        assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
    }
    /* A varint cut off by the end. */
    {
        static const unsigned char cut[] = { 0x16, 0x80, 0x80 };
        thrift_on(&t, pool, cut, sizeof(cut));
        uc_thrift_struct_begin(&t, &s);
        type = uc_thrift_field(&t, &s, &id);
        assert_int_equal(uc_thrift_int(&t, type), 0);
        assert_true(t.failed);
        assert_ptr_equal(t.p, t.end);
    }
    /* An i8 at the end of the input. */
    {
        static const unsigned char cut[] = { 0x13 };
        thrift_on(&t, pool, cut, sizeof(cut));
        uc_thrift_struct_begin(&t, &s);
        type = uc_thrift_field(&t, &s, &id);
        assert_int_equal(type, UC_THRIFT_I8);
        assert_int_equal(uc_thrift_int(&t, type), 0);
        assert_true(t.failed);
    }
}

static void test_thrift_field_ids(void **state)
{
    apr_pool_t *pool = *state;
    static const unsigned char msg[] = {
        0x15, 0x00,                   /* delta 1: id 1 */
        0x25, 0x00,                   /* delta 2: id 3 */
        0xf5, 0x00,                   /* delta 15: id 18 */
        0x05, 0x44, 0x00,             /* long form, zigzag 68: id 34 */
        0x05, 0x0a, 0x00,             /* long form, backwards: id 5 */
        0x15, 0x00,                   /* delta 1 from 5: id 6 */
        0x05, 0xfc, 0xff, 0x03, 0x00, /* long form: id 32766 */
        0x1c,                         /* delta 1: id 32767, a struct */
        0x15, 0x00,                   /*   whose ids start again: id 1 */
        0x00,
        0x00
    };
    static const int want[] = { 1, 3, 18, 34, 5, 6, 32766, 32767 };
    /* Ids are i16s: none goes past 32767, by a delta or the long form. */
    static const unsigned char past_delta[] = {
        0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00
    };
    static const unsigned char past_long[] = {
        0x05, 0x80, 0x80, 0x04, 0x00, 0x00
    };
    uc_thrift_t t;
    uc_thrift_struct_t s, inner;
    int id, type, n = 0, inner_id = 0;

    thrift_on(&t, pool, msg, sizeof(msg));
    uc_thrift_struct_begin(&t, &s);
    while ((type = uc_thrift_field(&t, &s, &id)) != UC_THRIFT_STOP) {
        assert_int_equal(id, want[n]);
        if (type == UC_THRIFT_STRUCT) {
            uc_thrift_struct_begin(&t, &inner);
            assert_int_equal(uc_thrift_field(&t, &inner, &inner_id),
                             UC_THRIFT_I32);
            assert_int_equal(inner_id, 1);
            uc_thrift_int(&t, UC_THRIFT_I32);
            assert_int_equal(uc_thrift_field(&t, &inner, &inner_id),
                             UC_THRIFT_STOP);
            uc_thrift_struct_end(&t);
        }
        else
            assert_int_equal(uc_thrift_int(&t, type), 0);
        n++;
    }
    uc_thrift_struct_end(&t);
    assert_int_equal(n, 8);
    assert_false(t.failed);
    assert_int_equal(t.depth, 0);

    thrift_on(&t, pool, past_delta, sizeof(past_delta));
    uc_thrift_struct_begin(&t, &s);
    assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_I32);
    assert_int_equal(id, 32767);
    uc_thrift_int(&t, UC_THRIFT_I32);
    assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
    assert_true(t.failed);
    thrift_on(&t, pool, past_long, sizeof(past_long));
    uc_thrift_struct_begin(&t, &s);
    assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
    assert_true(t.failed);

    /* Type nibbles past UUID are not Thrift. */
    {
        static const unsigned char bad[] = { 0x1e, 0x00 };
        thrift_on(&t, pool, bad, sizeof(bad));
        uc_thrift_struct_begin(&t, &s);
        assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
        assert_true(t.failed);
    }
    /* A long-form id cut off. */
    {
        static const unsigned char bad[] = { 0x05, 0x80 };
        thrift_on(&t, pool, bad, sizeof(bad));
        uc_thrift_struct_begin(&t, &s);
        assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
        assert_true(t.failed);
    }
    /* A struct without its STOP. */
    {
        static const unsigned char bad[] = { 0x15, 0x00 };
        thrift_on(&t, pool, bad, sizeof(bad));
        uc_thrift_struct_begin(&t, &s);
        assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_I32);
        uc_thrift_int(&t, UC_THRIFT_I32);
        assert_false(t.failed);
        assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
        assert_true(t.failed);
    }
}

static void test_thrift_bools_and_binary(void **state)
{
    apr_pool_t *pool = *state;
    unsigned char msg[300];
    size_t n = 0, i;
    uc_thrift_t t;
    uc_thrift_struct_t s;
    int id, type;
    const char *text;
    apr_size_t len;

    msg[n++] = 0x11;                  /* 1: true */
    msg[n++] = 0x12;                  /* 2: false */
    msg[n++] = 0x01;                  /* long form id 3: true */
    msg[n++] = 0x06;
    msg[n++] = 0x18;                  /* 4: "" */
    msg[n++] = 0x00;
    msg[n++] = 0x18;                  /* 5: "hello" */
    msg[n++] = 0x05;
    memcpy(msg + n, "hello", 5);
    n += 5;
    msg[n++] = 0x18;                  /* 6: 200 bytes, a two-byte length */
    msg[n++] = 0xc8;
    msg[n++] = 0x01;
    for (i = 0; i < 200; i++)
        msg[n++] = (unsigned char)i;
    msg[n++] = 0x00;

    thrift_on(&t, pool, msg, n);
    uc_thrift_struct_begin(&t, &s);
    type = uc_thrift_field(&t, &s, &id);
    assert_int_equal(id, 1);
    assert_true(uc_thrift_bool(type));
    type = uc_thrift_field(&t, &s, &id);
    assert_int_equal(id, 2);
    assert_int_equal(type, UC_THRIFT_FALSE);
    assert_false(uc_thrift_bool(type));
    type = uc_thrift_field(&t, &s, &id);
    assert_int_equal(id, 3);
    assert_true(uc_thrift_bool(type));
    /* An int read of a boolean field consumes nothing and gives 0. */
    assert_int_equal(uc_thrift_int(&t, type), 0);
    type = uc_thrift_field(&t, &s, &id);
    assert_int_equal(type, UC_THRIFT_BINARY);
    text = uc_thrift_binary(&t, &len);
    assert_int_equal(len, 0);
    assert_non_null(text);
    uc_thrift_field(&t, &s, &id);
    text = uc_thrift_binary(&t, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(text, "hello", 5);
    uc_thrift_field(&t, &s, &id);
    text = uc_thrift_binary(&t, &len);
    assert_int_equal(len, 200);
    assert_int_equal((unsigned char)text[199], 199);
    assert_int_equal(uc_thrift_field(&t, &s, &id), UC_THRIFT_STOP);
    assert_false(t.failed);
    assert_ptr_equal(t.p, t.end);

    /* A length past the end: failed, nothing returned, nothing read. */
    {
        static const unsigned char bad[] = { 0x18, 0x06, 'h', 'e', 'l', 'l',
                                             'o' };
        thrift_on(&t, pool, bad, sizeof(bad));
        uc_thrift_struct_begin(&t, &s);
        uc_thrift_field(&t, &s, &id);
        text = uc_thrift_binary(&t, &len);
        assert_true(t.failed);
        assert_int_equal(len, 0);
        assert_string_equal(text, "");
    }
    /* A length of 2^63. */
    {
        static const unsigned char bad[] = {
            0x18, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
            'x'
        };
        thrift_on(&t, pool, bad, sizeof(bad));
        uc_thrift_struct_begin(&t, &s);
        uc_thrift_field(&t, &s, &id);
        uc_thrift_binary(&t, &len);
        assert_true(t.failed);
        assert_int_equal(len, 0);
    }
}

static void test_thrift_lists(void **state)
{
    apr_pool_t *pool = *state;
    uc_thrift_t t;
    int elem;
    size_t i;

    /* Short header: size 3 in the high nibble, i32 elements. */
    {
        static const unsigned char msg[] = { 0x35, 0x02, 0x04, 0x06 };
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 3);
        assert_int_equal(elem, UC_THRIFT_I32);
        for (i = 1; i <= 3; i++)
            assert_int_equal(uc_thrift_int(&t, elem), (apr_int64_t)i);
        assert_false(t.failed);
    }
    /* Long header: 0xf nibble and a varint size, 15 and 300. */
    {
        unsigned char msg[400];
        size_t sizes[] = { 15, 300 }, k, n;

        for (k = 0; k < 2; k++) {
            n = 0;
            msg[n++] = 0xf8;
            if (sizes[k] < 128)
                msg[n++] = (unsigned char)sizes[k];
            else {
                msg[n++] = (unsigned char)(0x80 | (sizes[k] & 0x7f));
                msg[n++] = (unsigned char)(sizes[k] >> 7);
            }
            for (i = 0; i < sizes[k]; i++)
                msg[n++] = 0x00;          /* empty binaries */
            thrift_on(&t, pool, msg, n);
            assert_int_equal(uc_thrift_list(&t, &elem), sizes[k]);
            assert_int_equal(elem, UC_THRIFT_BINARY);
            for (i = 0; i < sizes[k]; i++) {
                apr_size_t len;
                uc_thrift_binary(&t, &len);
            }
            assert_false(t.failed);
            assert_ptr_equal(t.p, t.end);
        }
    }
    /* The long form may also spell a small size. */
    {
        static const unsigned char msg[] = { 0xf5, 0x02, 0x02, 0x04 };
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 2);
        assert_false(t.failed);
    }
    /* Booleans in lists are a byte each: 1 true, anything else false. */
    {
        static const unsigned char msg[] = { 0x51, 0x01, 0x02, 0x01, 0x00,
                                             0x01 };
        static const int want[] = { 1, 0, 1, 0, 1 };
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 5);
        assert_int_equal(elem, UC_THRIFT_TRUE);
        for (i = 0; i < 5; i++)
            assert_int_equal(uc_thrift_list_bool(&t), want[i]);
        assert_false(t.failed);
        assert_int_equal(uc_thrift_list_bool(&t), 0);
        assert_true(t.failed);
    }
    /* More elements than bytes left: refused before any is read. */
    {
        static const unsigned char msg[] = { 0x45, 0x02, 0x04, 0x06 };
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 0);
        assert_true(t.failed);
    }
    {
        static const unsigned char msg[] = { 0xf5, 0xff, 0xff, 0xff, 0xff,
                                             0x0f, 0x02 };
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 0);
        assert_true(t.failed);
    }
    /* No header at all; a long header cut off. */
    {
        static const unsigned char msg[] = { 0xf5, 0x80 };
        thrift_on(&t, pool, msg, 0);
        assert_int_equal(uc_thrift_list(&t, &elem), 0);
        assert_true(t.failed);
        thrift_on(&t, pool, msg, sizeof(msg));
        assert_int_equal(uc_thrift_list(&t, &elem), 0);
        assert_true(t.failed);
    }
}

/* A struct holding a field of every type (nested ones too), then the field
 * 100 = 21 that a reader knows. */
static const unsigned char every_type[] = {
    0x13, 0x85,                                   /* 1: i8 */
    0x14, 0x03,                                   /* 2: i16 -2 */
    0x15, 0x80, 0x01,                             /* 3: i32 64 */
    0x16, 0x01,                                   /* 4: i64 -1 */
    0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,           /* 5: double 1.0 */
    0x18, 0x03, 'x', 'y', 'z',                    /* 6: binary */
    0x1d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, /* 7: uuid */
    0x19, 0x31, 0x01, 0x02, 0x01,                 /* 8: list<bool> */
    0x1a, 0x25, 0x02, 0x04,                       /* 9: set<i32> */
    0x1b, 0x02, 0x81, 0x01, 'a', 0x01, 0x01, 'b', 0x02,
                                                  /* 10: map<binary,bool> */
    0x1b, 0x00,                                   /* 11: empty map */
    0x1b, 0x01, 0x59, 0x02, 0x21, 0x01, 0x02,     /* 12: map<i32,list<bool>> */
    0x1c,                                         /* 13: struct { */
      0x1c,                                       /*   1: struct { */
        0x19, 0x1c,                               /*     1: list<struct> [ */
          0x11, 0x00,                             /*       {1: true} */
        0x00,                                     /*   ]} */
      0x1b, 0x01, 0xcc, 0x00, 0x12, 0x00,         /*   2: map<struct,struct> */
    0x00,                                         /* } */
    0x19, 0x0c,                                   /* 14: empty list<struct> */
    0x19, 0xf1, 0x10,                             /* 15: list<bool> of 16 */
      1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2,
    0x19, 0x29, 0x11, 0x01, 0x08,                 /* 16: list<list<..>> */
    0x05, 0xc8, 0x01, 0x2a,                       /* 100: i32 21 */
    0x00
};

static void test_thrift_skip(void **state)
{
    apr_pool_t *pool = *state;
    uc_thrift_t t;
    uc_thrift_struct_t s;
    int id, type, next = 1;
    apr_int64_t known = -1;

    thrift_on(&t, pool, every_type, sizeof(every_type));
    uc_thrift_struct_begin(&t, &s);
    while ((type = uc_thrift_field(&t, &s, &id)) != UC_THRIFT_STOP) {
        if (id == 100) {
            assert_int_equal(next, 17);
            known = uc_thrift_int(&t, type);
            continue;
        }
        assert_int_equal(id, next);
        next++;
        uc_thrift_skip(&t, type);
        assert_false(t.failed);
    }
    uc_thrift_struct_end(&t);
    assert_false(t.failed);
    assert_int_equal(known, 21);
    assert_ptr_equal(t.p, t.end);
    assert_int_equal(t.depth, 0);

    /* The same as one skip. */
    thrift_on(&t, pool, every_type, sizeof(every_type));
    uc_thrift_skip(&t, UC_THRIFT_STRUCT);
    assert_false(t.failed);
    assert_ptr_equal(t.p, t.end);

    /* Types that do not exist. */
    thrift_on(&t, pool, every_type, sizeof(every_type));
    uc_thrift_skip(&t, 14);
    assert_true(t.failed);
    thrift_on(&t, pool, every_type, sizeof(every_type));
    uc_thrift_skip(&t, UC_THRIFT_STOP);
    assert_true(t.failed);
    {
        /* A map whose key type is STOP, a list of type 15. */
        static const unsigned char map[] = { 0x01, 0x05, 0x02, 0x02 };
        static const unsigned char list[] = { 0x1f, 0x00 };
        thrift_on(&t, pool, map, sizeof(map));
        uc_thrift_skip(&t, UC_THRIFT_MAP);
        assert_true(t.failed);
        thrift_on(&t, pool, list, sizeof(list));
        uc_thrift_skip(&t, UC_THRIFT_LIST);
        assert_true(t.failed);
    }
    /* A map claiming more entries than bytes. */
    {
        static const unsigned char map[] = { 0x05, 0x55, 0x02, 0x02 };
        thrift_on(&t, pool, map, sizeof(map));
        uc_thrift_skip(&t, UC_THRIFT_MAP);
        assert_true(t.failed);
    }
}

/* Every prefix of a message is malformed: reading it sets `failed`, stays
 * within the bytes given (ASan checks) and ends. */
static void test_thrift_truncated(void **state)
{
    apr_pool_t *pool = *state;
    size_t n;

    for (n = 0; n < sizeof(every_type); n++) {
        apr_pool_t *sub;
        uc_thrift_t t;
        uc_thrift_struct_t s;
        int id, type;

        apr_pool_create(&sub, pool);
        thrift_on(&t, sub, every_type, n);
        uc_thrift_skip(&t, UC_THRIFT_STRUCT);
        if (!t.failed)
            fail_msg("a prefix of %zu bytes was read as a whole struct", n);
        assert_true(t.p <= t.end);

        /* Field by field, as the footer parsers do. */
        thrift_on(&t, sub, every_type, n);
        uc_thrift_struct_begin(&t, &s);
        while ((type = uc_thrift_field(&t, &s, &id)) != UC_THRIFT_STOP)
            uc_thrift_skip(&t, type);
        uc_thrift_struct_end(&t);
        if (!t.failed)
            fail_msg("a prefix of %zu bytes was read field by field", n);
        assert_true(t.p <= t.end);
        apr_pool_destroy(sub);
    }
}

/* `levels` containers nested in each other, as one value of `type`. */
static unsigned char *nested(apr_pool_t *pool, int type, int levels,
                             size_t *len)
{
    buf_t *b = buf_make(pool);
    int i;

    for (i = 0; i < levels - 1; i++) {
        if (type == UC_THRIFT_STRUCT)
            buf_byte(b, 0x1c);                /* field 1: struct */
        else if (type == UC_THRIFT_LIST)
            buf_byte(b, 0x19);                /* one element: a list */
        else {
            buf_byte(b, 0x01);                /* one entry: i32 -> map */
            buf_byte(b, 0x5b);
            buf_byte(b, 0x00);
        }
    }
    if (type == UC_THRIFT_STRUCT)
        for (i = 0; i < levels; i++)
            buf_byte(b, 0x00);
    else if (type == UC_THRIFT_LIST)
        buf_byte(b, 0x05);                    /* no i32 elements */
    else {
        buf_byte(b, 0x01);                    /* one entry: i32 -> i32 */
        buf_byte(b, 0x55);
        buf_byte(b, 0x00);
        buf_byte(b, 0x00);
    }
    *len = b->len;
    return exact(pool, b->p, b->len);
}

static void test_thrift_depth(void **state)
{
    apr_pool_t *pool = *state;
    static const int types[] = { UC_THRIFT_STRUCT, UC_THRIFT_LIST,
                                 UC_THRIFT_MAP };
    int k;

    for (k = 0; k < 3; k++) {
        uc_thrift_t t;
        size_t len;
        unsigned char *p;

        /* As deep as allowed: read to the end. */
        p = nested(pool, types[k], UC_THRIFT_MAX_DEPTH, &len);
        uc_thrift_init(&t, p, len);
        uc_thrift_skip(&t, types[k]);
        if (t.failed)
            fail_msg("type %d nested %d deep refused", types[k],
                     UC_THRIFT_MAX_DEPTH);
        assert_ptr_equal(t.p, t.end);
        assert_int_equal(t.depth, 0);

        /* One deeper: refused. */
        p = nested(pool, types[k], UC_THRIFT_MAX_DEPTH + 1, &len);
        uc_thrift_init(&t, p, len);
        uc_thrift_skip(&t, types[k]);
        if (!t.failed)
            fail_msg("type %d nested %d deep accepted", types[k],
                     UC_THRIFT_MAX_DEPTH + 1);
        assert_int_equal(t.depth, 0);

        /* Far deeper: refused without exhausting the stack. */
        p = nested(pool, types[k], 200000, &len);
        uc_thrift_init(&t, p, len);
        uc_thrift_skip(&t, types[k]);
        assert_true(t.failed);
    }
    /* The struct reader counts depth itself. */
    {
        uc_thrift_t t;
        uc_thrift_struct_t s[UC_THRIFT_MAX_DEPTH + 1];
        int i;

        uc_thrift_init(&t, "", 0);
        for (i = 0; i < UC_THRIFT_MAX_DEPTH; i++)
            uc_thrift_struct_begin(&t, &s[i]);
        assert_false(t.failed);
        uc_thrift_struct_begin(&t, &s[i]);
        assert_true(t.failed);
    }
}

/* --- encodings ---------------------------------------------------------- */

/* A value sink with room for `room` values (and a few more). */
static uc_pq_values_t *sink(apr_pool_t *pool, int type, int type_length,
                            size_t room)
{
    uc_pq_values_t *v = apr_pcalloc(pool, sizeof(*v));

    v->type = type;
    v->type_length = type_length;
    room += 8;
    switch (type) {
    case UC_PQ_BOOLEAN: case UC_PQ_INT32: case UC_PQ_INT64:
        v->ints = apr_pcalloc(pool, sizeof(apr_int64_t) * room);
        break;
    case UC_PQ_FLOAT: case UC_PQ_DOUBLE:
        v->reals = apr_pcalloc(pool, sizeof(double) * room);
        break;
    default:
        v->bytes = apr_pcalloc(pool, sizeof(uc_pq_bytes_t) * room);
    }
    return v;
}

static const char *decode(apr_pool_t *pool, int encoding, uc_pq_values_t *v,
                          const void *data, size_t len, size_t count)
{
    return uc_pq_decode_values(pool, encoding, exact(pool, data, len), len,
                               count, v);
}

static const char *hybrid32(apr_pool_t *pool, const void *data, size_t len,
                            int bw, size_t count, apr_uint32_t *out)
{
    return uc_pq_decode_hybrid(exact(pool, data, len), len, bw, count, out);
}

/* The decoder refused the input with a description; or accepted it. */
#define assert_why(e) do {                                                  \
        const char *w_ = (e);                                               \
        if (!w_ || !*w_)                                                    \
            fail_msg("%s:%d: %s accepted", __FILE__, __LINE__, #e);         \
    } while (0)
#define assert_no_why(e) do {                                               \
        const char *w_ = (e);                                               \
        if (w_)                                                             \
            fail_msg("%s:%d: %s: %s", __FILE__, __LINE__, #e, w_);          \
    } while (0)

static void assert_bytes(const uc_pq_bytes_t *b, const char *s, size_t len)
{
    if (b->len != len || memcmp(b->ptr, s, len) != 0)
        fail_msg("got \"%.*s\" (%zu), want \"%.*s\" (%zu)", (int)b->len,
                 b->ptr, b->len, (int)len, s, len);
}
#define assert_str(b, s) assert_bytes((b), (s), sizeof(s) - 1)

static void test_hybrid_rle_runs(void **state)
{
    apr_pool_t *pool = *state;
    apr_uint32_t out[16];
    unsigned char lv[16];
    int i;

    /* <run length << 1> then the value in ceil(bw / 8) little-endian
     * bytes (Encodings.md, RLE/Bit-Packing Hybrid). */
    memset(out, 0xaa, sizeof(out));
    assert_no_why(hybrid32(pool, "\x0a\x01", 2, 1, 5, out));
    for (i = 0; i < 5; i++)
        assert_int_equal(out[i], 1);
    assert_int_equal(out[5], 0xaaaaaaaa);          /* nothing beyond count */
    assert_no_why(hybrid32(pool, "\x08\x05", 2, 3, 4, out));
    for (i = 0; i < 4; i++)
        assert_int_equal(out[i], 5);
    assert_no_why(hybrid32(pool, "\x06\xff", 2, 8, 3, out));
    assert_int_equal(out[2], 255);
    assert_no_why(hybrid32(pool, "\x04\x34\x0a", 3, 12, 2, out));
    assert_int_equal(out[0], 0x0a34);
    assert_int_equal(out[1], 0x0a34);
    assert_no_why(hybrid32(pool, "\x02\x01\x02\x03", 4, 20, 1, out));
    assert_int_equal(out[0], 0x030201);
    assert_no_why(hybrid32(pool, "\x04\xef\xbe\xad\xde", 5, 32, 2, out));
    assert_int_equal(out[0], 0xdeadbeef);
    assert_int_equal(out[1], 0xdeadbeef);
    /* Bit width 0: runs without value bytes. */
    memset(out, 0xaa, sizeof(out));
    assert_no_why(hybrid32(pool, "\x0a", 1, 0, 5, out));
    for (i = 0; i < 5; i++)
        assert_int_equal(out[i], 0);
    /* Runs one after the other; a run longer than needed is cut. */
    assert_no_why(hybrid32(pool, "\x04\x01\x64\x00", 4, 1, 5, out));
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    for (i = 2; i < 5; i++)
        assert_int_equal(out[i], 0);
    /* A run of 2^62 values, of which 4 are wanted. */
    {
        buf_t *b = buf_make(pool);
        buf_uleb(b, (apr_uint64_t)1 << 63);
        buf_byte(b, 0x07);
        assert_no_why(hybrid32(pool, b->p, b->len, 3, 4, out));
        assert_int_equal(out[3], 7);
    }
    /* Nothing wanted: nothing read. */
    assert_no_why(hybrid32(pool, "", 0, 5, 0, out));
    /* Levels take bytes, and count those equal to a level. */
    {
        apr_size_t matches = 0;

        assert_no_why(uc_pq_decode_levels(exact(pool, "\x06\x02\x02\x01",
                                                4), 4, 2, 4, lv, 2, &matches));
        assert_int_equal(lv[0], 2);
        assert_int_equal(lv[2], 2);
        assert_int_equal(lv[3], 1);
        assert_int_equal(matches, 3);
        matches = 10;                          /* added to */
        assert_no_why(uc_pq_decode_levels(exact(pool, "\x06\x02\x02\x01",
                                                4), 4, 2, 4, lv, 1, &matches));
        assert_int_equal(matches, 11);
    }
    /* ... in bit-packed runs too: 0 1 2 3 3 2 1 0 in 2 bits. */
    {
        apr_size_t matches = 0;
        apr_uint64_t v[8] = { 0, 1, 2, 3, 3, 2, 1, 0 };
        buf_t *b = buf_make(pool);

        buf_byte(b, 0x03);
        buf_pack(b, v, 8, 8, 2);
        assert_no_why(uc_pq_decode_levels(exact(pool, b->p, b->len), b->len,
                                          2, 8, lv, 3, &matches));
        assert_int_equal(matches, 2);
        assert_int_equal(lv[3], 3);
        assert_int_equal(lv[7], 0);
        /* Counting stops with the count: 5 of the 8 values. */
        matches = 0;
        assert_no_why(uc_pq_decode_levels(exact(pool, b->p, b->len), b->len,
                                          2, 5, lv, 0, &matches));
        assert_int_equal(matches, 1);
    }
}

static apr_uint64_t width_mask(int bw)
{
    return bw == 64 ? ~(apr_uint64_t)0 : (((apr_uint64_t)1 << bw) - 1);
}

static void test_hybrid_bit_packed(void **state)
{
    apr_pool_t *pool = *state;
    static const int widths[] = { 0, 1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 24, 31,
                                  32 };
    apr_uint32_t out[40];
    size_t k, i;

    /* Encodings.md's example: 0..7 in bit width 3 are the bytes
     * 10001000 11000110 11111010, after the header (1 group << 1) | 1. */
    assert_no_why(hybrid32(pool, "\x03\x88\xc6\xfa", 4, 3, 8, out));
    for (i = 0; i < 8; i++)
        assert_int_equal(out[i], i);

    for (k = 0; k < sizeof(widths) / sizeof(*widths); k++) {
        int bw = widths[k];
        apr_uint64_t v[24];
        buf_t *b = buf_make(pool);
        size_t cut;

        for (i = 0; i < 24; i++)
            v[i] = (i * 2654435761u + 12345u + i * i * 977u) & width_mask(bw);
        if (bw)
            v[5] = width_mask(bw);                 /* all bits set */
        buf_byte(b, (3 << 1) | 1);                 /* 3 groups of 8 */
        buf_pack(b, v, 24, 24, bw);
        memset(out, 0xaa, sizeof(out));
        assert_no_why(hybrid32(pool, b->p, b->len, bw, 24, out));
        for (i = 0; i < 24; i++)
            if (out[i] != v[i])
                fail_msg("bit width %d value %zu: %u, want %u", bw, i,
                         out[i], (unsigned)v[i]);
        assert_int_equal(out[24], 0xaaaaaaaa);

        /* The last group cut short after the values wanted: 19 values
         * need ceil(19 * bw / 8) bytes of the 3 * bw declared. */
        cut = 1 + (19 * (size_t)bw + 7) / 8;
        assert_no_why(hybrid32(pool, b->p, cut, bw, 19, out));
        for (i = 0; i < 19; i++)
            assert_int_equal(out[i], v[i]);
        /* One byte fewer is truncated (unless nothing is needed). */
        if (bw)
            assert_why(hybrid32(pool, b->p, cut - 1, bw, 19, out));
    }

    /* A bit-packed run, then an RLE run. */
    {
        buf_t *b = buf_make(pool);
        apr_uint64_t v[8] = { 3, 2, 1, 0, 0, 1, 2, 3 };

        buf_byte(b, 0x03);
        buf_pack(b, v, 8, 8, 2);
        buf_byte(b, 0x06);
        buf_byte(b, 0x02);
        assert_no_why(hybrid32(pool, b->p, b->len, 2, 11, out));
        for (i = 0; i < 8; i++)
            assert_int_equal(out[i], v[i]);
        for (i = 8; i < 11; i++)
            assert_int_equal(out[i], 2);
    }
}

static void test_hybrid_malformed(void **state)
{
    apr_pool_t *pool = *state;
    apr_uint32_t *out = apr_palloc(pool, sizeof(apr_uint32_t) * (1 << 20));
    unsigned char lv[16];
    buf_t *b;

    assert_why(hybrid32(pool, "\x02\x01", 2, 33, 1, out));
    assert_why(hybrid32(pool, "\x02\x01", 2, -1, 1, out));
    assert_why(hybrid32(pool, "", 0, 1, 1, out));            /* no header */
    assert_why(hybrid32(pool, "\x80", 1, 1, 1, out));        /* cut varint */
    assert_why(hybrid32(pool, "\x00\x01", 2, 1, 1, out));    /* empty run */
    assert_why(hybrid32(pool, "\x02\x01", 2, 16, 1, out));   /* short value */
    assert_why(hybrid32(pool, "\x02", 1, 1, 1, out));        /* no value */
    assert_why(hybrid32(pool, "\x02\x02", 2, 1, 1, out));    /* 2 in 1 bit */
    assert_why(hybrid32(pool, "\x02\x08", 2, 3, 1, out));    /* 8 in 3 bits */
    assert_why(hybrid32(pool, "\x01\x00", 2, 1, 1, out));    /* 0 groups */
    assert_why(hybrid32(pool, "\x03\x88", 2, 3, 8, out));    /* cut groups */
    assert_why(hybrid32(pool, "\x04\x01", 2, 1, 5, out));    /* runs end */
    /* 2^41 groups. */
    b = buf_make(pool);
    buf_uleb(b, ((apr_uint64_t)1 << 42) | 1);
    buf_put(b, "\xff\xff\xff", 3);
    assert_why(hybrid32(pool, b->p, b->len, 3, 8, out));
    /* A count far beyond what the bytes hold. */
    assert_why(hybrid32(pool, "\x0a\x01", 2, 1, 1 << 20, out));
    assert_why(hybrid32(pool, "\x03\xff", 2, 1, 1 << 20, out));

    /* Levels are bytes: a value over 255 is refused. */
    {
        apr_size_t matches = 0;

        assert_why(uc_pq_decode_levels(exact(pool, "\x02\x2c\x01", 3), 3, 9,
                                       1, lv, 0, &matches));
    }
    b = buf_make(pool);
    {
        apr_uint64_t v[8] = { 1, 300, 0, 0, 0, 0, 0, 0 };
        buf_byte(b, 0x03);
        buf_pack(b, v, 8, 8, 9);
    }
    {
        apr_size_t matches = 0;

        assert_why(uc_pq_decode_levels(exact(pool, b->p, b->len), b->len, 9,
                                       8, lv, 0, &matches));
    }
}

static void test_bit_packed_levels(void **state)
{
    apr_pool_t *pool = *state;
    unsigned char lv[16];
    apr_size_t used = 99;
    int i;

    /* Encodings.md's BIT_PACKED example: 0..7 in bit width 3, MSB first,
     * are 00000101 00111001 01110111. */
    assert_no_why(uc_pq_decode_bit_packed_levels(
        exact(pool, "\x05\x39\x77", 3), 3, 3, 8, lv, &used));
    for (i = 0; i < 8; i++)
        assert_int_equal(lv[i], i);
    assert_int_equal(used, 3);
    /* Bit width 1: 1 0 1 from 101xxxxx; bit width 0 takes no bytes. */
    assert_no_why(uc_pq_decode_bit_packed_levels(exact(pool, "\xa0", 1), 1,
                                                 1, 3, lv, &used));
    assert_int_equal(lv[0], 1);
    assert_int_equal(lv[1], 0);
    assert_int_equal(lv[2], 1);
    assert_int_equal(used, 1);
    memset(lv, 9, sizeof(lv));
    assert_no_why(uc_pq_decode_bit_packed_levels(exact(pool, "", 0), 0, 0, 4,
                                                 lv, &used));
    assert_int_equal(lv[3], 0);
    assert_int_equal(used, 0);
    /* Bit width 8: whole bytes. */
    assert_no_why(uc_pq_decode_bit_packed_levels(exact(pool, "\xfe\x01", 2),
                                                 2, 8, 2, lv, &used));
    assert_int_equal(lv[0], 254);
    assert_int_equal(lv[1], 1);
    /* Malformed. */
    assert_why(uc_pq_decode_bit_packed_levels(exact(pool, "\x05\x39", 2), 2,
                                              3, 8, lv, &used));
    assert_why(uc_pq_decode_bit_packed_levels(exact(pool, "\x05\x39", 2), 2,
                                              9, 1, lv, &used));
    assert_why(uc_pq_decode_bit_packed_levels(exact(pool, "\x05\x39", 2), 2,
                                              -1, 1, lv, &used));
}

static void test_plain_fixed(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *v;
    float f;
    double d;

    /* BOOLEAN: bit-packed, LSB first. */
    v = sink(pool, UC_PQ_BOOLEAN, 0, 9);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v, "\x0d\x01", 2, 9));
    {
        static const int want[] = { 1, 0, 1, 1, 0, 0, 0, 0, 1 };
        int i;
        for (i = 0; i < 9; i++)
            assert_int_equal(v->ints[i], want[i]);
    }
    assert_int_equal(v->at, 9);
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BOOLEAN, 0, 9),
                      "\x0d", 1, 9));

    /* INT32: 4 bytes little endian, sign-extended. */
    v = sink(pool, UC_PQ_INT32, 0, 4);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v,
                         "\x01\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x80"
                         "\x78\x56\x34\x12", 16, 4));
    assert_int_equal(v->ints[0], 1);
    assert_int_equal(v->ints[1], -1);
    assert_true(v->ints[2] == -2147483647 - 1);
    assert_int_equal(v->ints[3], 0x12345678);
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_INT32, 0, 4),
                      "\x01\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x80"
                      "\x78\x56\x34", 15, 4));

    /* INT64, appended after what the sink holds. */
    v = sink(pool, UC_PQ_INT64, 0, 4);
    v->ints[0] = 42;
    v->at = 1;
    assert_no_why(decode(pool, UC_PQ_PLAIN, v,
                         "\x00\x00\x00\x00\x00\x00\x00\x80"
                         "\xff\xff\xff\xff\xff\xff\xff\x7f"
                         "\xfe\xff\xff\xff\xff\xff\xff\xff", 24, 3));
    assert_int_equal(v->at, 4);
    assert_int_equal(v->ints[0], 42);
    assert_true(v->ints[1] == INT64_MIN);
    assert_true(v->ints[2] == INT64_MAX);
    assert_int_equal(v->ints[3], -2);
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_INT64, 0, 3),
                      "\x00\x00\x00\x00\x00\x00\x00\x80", 8, 2));

    /* INT96: 12 bytes each, returned as bytes. */
    v = sink(pool, UC_PQ_INT96, 0, 2);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v, "ABCDEFGHIJKLabcdefghijkl", 24,
                         2));
    assert_str(&v->bytes[0], "ABCDEFGHIJKL");
    assert_str(&v->bytes[1], "abcdefghijkl");
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_INT96, 0, 2),
                      "ABCDEFGHIJKLabcdefghijk", 23, 2));

    /* FLOAT and DOUBLE: IEEE 754 little endian. */
    v = sink(pool, UC_PQ_FLOAT, 0, 3);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v,
                         "\x00\x00\xc0\x3f\x00\x00\x00\x80\x00\x00\x80\x7f",
                         12, 3));
    f = (float)v->reals[0];
    assert_true(f == 1.5f);
    assert_true(v->reals[1] == 0.0 && signbit(v->reals[1]));
    assert_true(isinf(v->reals[2]) && v->reals[2] > 0);
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_FLOAT, 0, 3),
                      "\x00\x00\xc0\x3f\x00\x00\x00", 7, 2));
    v = sink(pool, UC_PQ_DOUBLE, 0, 2);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v,
                         "\x00\x00\x00\x00\x00\x00\x02\xc0"
                         "\x00\x00\x00\x00\x00\x00\xf8\x7f", 16, 2));
    d = v->reals[0];
    assert_true(d == -2.25);
    assert_true(isnan(v->reals[1]));
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_DOUBLE, 0, 2),
                      "\x00\x00\x00\x00\x00\x00\x02\xc0\x00", 9, 2));

    /* FIXED_LEN_BYTE_ARRAY: type_length bytes each. */
    v = sink(pool, UC_PQ_FIXED_LEN_BYTE_ARRAY, 3, 2);
    assert_no_why(decode(pool, UC_PQ_PLAIN, v, "abc\0ef", 6, 2));
    assert_str(&v->bytes[0], "abc");
    assert_bytes(&v->bytes[1], "\0ef", 3);
    assert_why(decode(pool, UC_PQ_PLAIN,
                      sink(pool, UC_PQ_FIXED_LEN_BYTE_ARRAY, 3, 2), "abc\0e",
                      5, 2));
    assert_why(decode(pool, UC_PQ_PLAIN,
                      sink(pool, UC_PQ_FIXED_LEN_BYTE_ARRAY, 0, 2), "abc", 3,
                      2));

    /* Counts beyond the bytes are refused before anything is stored. */
    v = sink(pool, UC_PQ_INT32, 0, 1 << 20);
    assert_why(decode(pool, UC_PQ_PLAIN, v, "\x01\x00\x00\x00", 4, 1 << 20));
    assert_int_equal(v->at, 0);
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BOOLEAN, 0, 1 << 20),
                      "\xff", 1, 1 << 20));
    /* Nothing wanted from nothing. */
    assert_no_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_INT64, 0, 0),
                         "", 0, 0));
}

static void test_plain_byte_array(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *v = sink(pool, UC_PQ_BYTE_ARRAY, 0, 3);
    static const char data[] = "\x00\x00\x00\x00" "\x03\x00\x00\x00" "abc"
                               "\x02\x00\x00\x00" "\0x";

    /* A 4-byte little-endian length, then the bytes. */
    assert_no_why(decode(pool, UC_PQ_PLAIN, v, data, sizeof(data) - 1, 3));
    assert_bytes(&v->bytes[0], "", 0);
    assert_str(&v->bytes[1], "abc");
    assert_bytes(&v->bytes[2], "\0x", 2);

    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BYTE_ARRAY, 0, 3),
                      data, sizeof(data) - 2, 3));
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BYTE_ARRAY, 0, 1),
                      "\x03\x00\x00", 3, 1));
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BYTE_ARRAY, 0, 1),
                      "\x05\x00\x00\x00" "abcd", 8, 1));
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BYTE_ARRAY, 0, 1),
                      "\xff\xff\xff\xff" "abcd", 8, 1));
    assert_why(decode(pool, UC_PQ_PLAIN, sink(pool, UC_PQ_BYTE_ARRAY, 0, 4),
                      data, sizeof(data) - 1, 4));
}

static void test_rle_booleans(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *v;
    int i;

    /* A 4-byte length, then the hybrid in bit width 1. */
    v = sink(pool, UC_PQ_BOOLEAN, 0, 5);
    assert_no_why(decode(pool, UC_PQ_RLE, v, "\x02\x00\x00\x00\x0a\x01", 6,
                         5));
    for (i = 0; i < 5; i++)
        assert_int_equal(v->ints[i], 1);
    v = sink(pool, UC_PQ_BOOLEAN, 0, 11);
    assert_no_why(decode(pool, UC_PQ_RLE, v,
                         "\x04\x00\x00\x00\x03\xb5\x06\x00", 8, 11));
    {
        static const int want[] = { 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0 };
        for (i = 0; i < 11; i++)
            assert_int_equal(v->ints[i], want[i]);
    }
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_BOOLEAN, 0, 1),
                      "\x02\x00\x00", 3, 1));
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_BOOLEAN, 0, 1),
                      "\x0a\x00\x00\x00\x0a\x01", 6, 1));
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_BOOLEAN, 0, 1),
                      "\x00\x00\x00\x00\x0a\x01", 6, 1));
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_BOOLEAN, 0, 6),
                      "\x02\x00\x00\x00\x0a\x01", 6, 6));
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_BOOLEAN, 0, 1),
                      "\x02\x00\x00\x00\x02\x02", 6, 1));
    assert_why(decode(pool, UC_PQ_RLE, sink(pool, UC_PQ_INT32, 0, 5),
                      "\x02\x00\x00\x00\x0a\x01", 6, 5));
}

static void test_dictionary_indices(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *dict = sink(pool, UC_PQ_BYTE_ARRAY, 0, 3), *out;
    static const char page[] = "\x01\x00\x00\x00" "a" "\x02\x00\x00\x00" "bb"
                               "\x03\x00\x00\x00" "ccc";
    const unsigned char *p;
    buf_t *b;
    int i;

    assert_no_why(decode(pool, UC_PQ_PLAIN, dict, page, sizeof(page) - 1, 3));

    /* A bit-width byte, then hybrid indices: 2 0 1 1 2 in 2 bits. */
    b = buf_make(pool);
    {
        apr_uint64_t idx[5] = { 2, 0, 1, 1, 2 };
        buf_byte(b, 2);
        buf_byte(b, 0x03);
        buf_pack(b, idx, 5, 8, 2);
    }
    out = sink(pool, UC_PQ_BYTE_ARRAY, 0, 5);
    p = exact(pool, b->p, b->len);
    assert_no_why(uc_pq_decode_dictionary(pool, p, b->len, 5, dict, 3, out));
    assert_str(&out->bytes[0], "ccc");
    assert_str(&out->bytes[1], "a");
    assert_str(&out->bytes[2], "bb");
    assert_str(&out->bytes[4], "ccc");
    assert_int_equal(out->at, 5);
    /* An index past the dictionary. */
    assert_why(uc_pq_decode_dictionary(pool, p, b->len, 5, dict, 2,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 5)));
    assert_why(uc_pq_decode_dictionary(pool, p, b->len, 5, dict, 0,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 5)));
    /* Bit width 0: every index is 0. */
    out = sink(pool, UC_PQ_BYTE_ARRAY, 0, 4);
    assert_no_why(uc_pq_decode_dictionary(pool, exact(pool, "\x00\x08", 2), 2,
                                          4, dict, 3, out));
    for (i = 0; i < 4; i++)
        assert_str(&out->bytes[i], "a");
    /* ... which an empty dictionary does not have. */
    assert_why(uc_pq_decode_dictionary(pool, exact(pool, "\x00\x08", 2), 2, 4,
                                       dict, 0,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 4)));
    /* No values: nothing is read, not even the bit width. */
    assert_no_why(uc_pq_decode_dictionary(pool, exact(pool, "", 0), 0, 0,
                                          dict, 0,
                                          sink(pool, UC_PQ_BYTE_ARRAY, 0, 0)));
    /* No bit width, a bit width over 32, indices cut off. */
    assert_why(uc_pq_decode_dictionary(pool, exact(pool, "", 0), 0, 1, dict, 3,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 1)));
    assert_why(uc_pq_decode_dictionary(pool, exact(pool, "\x21\x02\x00", 3), 3,
                                       1, dict, 3,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 1)));
    assert_why(uc_pq_decode_dictionary(pool, exact(pool, "\x02\x03", 2), 2, 5,
                                       dict, 3,
                                       sink(pool, UC_PQ_BYTE_ARRAY, 0, 5)));
    /* Integer and real dictionaries. */
    {
        uc_pq_values_t *di = sink(pool, UC_PQ_INT64, 0, 2);
        uc_pq_values_t *dr = sink(pool, UC_PQ_DOUBLE, 0, 2);

        assert_no_why(decode(pool, UC_PQ_PLAIN, di,
                             "\x07\x00\x00\x00\x00\x00\x00\x00"
                             "\xff\xff\xff\xff\xff\xff\xff\xff", 16, 2));
        assert_no_why(decode(pool, UC_PQ_PLAIN, dr,
                             "\x00\x00\x00\x00\x00\x00\xf0\x3f"
                             "\x00\x00\x00\x00\x00\x00\x02\xc0", 16, 2));
        /* Index 1 three times, then 0 twice (bit width 1, RLE runs). */
        p = exact(pool, "\x01\x06\x01\x04\x00", 5);
        out = sink(pool, UC_PQ_INT64, 0, 5);
        assert_no_why(uc_pq_decode_dictionary(pool, p, 5, 5, di, 2, out));
        assert_int_equal(out->ints[0], -1);
        assert_int_equal(out->ints[3], 7);
        out = sink(pool, UC_PQ_DOUBLE, 0, 5);
        assert_no_why(uc_pq_decode_dictionary(pool, p, 5, 5, dr, 2, out));
        assert_true(out->reals[2] == -2.25);
        assert_true(out->reals[4] == 1.0);
    }
}

/* DELTA_BINARY_PACKED as Encodings.md describes it, for inputs too long to
 * spell by hand: blocks of 128 values in 4 miniblocks of 32, deltas and
 * their minimum in the wrapping arithmetic of `bits` bits. */
static void delta_encode(buf_t *b, const apr_int64_t *v, size_t n, int bits)
{
    size_t i = 1;

    buf_uleb(b, 128);
    buf_uleb(b, 4);
    buf_uleb(b, n);
    buf_zigzag(b, n ? v[0] : 0);
    while (i < n) {
        size_t m = n - i < 128 ? n - i : 128, k, j;
        apr_int64_t d[128] = { 0 }, min;
        apr_uint64_t rel[128];
        int widths[4] = { 0, 0, 0, 0 };

        for (k = 0; k < m; k++) {
            apr_uint64_t diff = (apr_uint64_t)v[i + k]
                                - (apr_uint64_t)v[i + k - 1];

            d[k] = bits == 32 ? (apr_int32_t)(apr_uint32_t)diff
                              : (apr_int64_t)diff;
        }
        min = d[0];
        for (k = 1; k < m; k++)
            if (d[k] < min)
                min = d[k];
        for (k = 0; k < m; k++) {
            rel[k] = (apr_uint64_t)d[k] - (apr_uint64_t)min;
            while (widths[k / 32] < 64 && (rel[k] >> widths[k / 32]))
                widths[k / 32]++;
        }
        buf_zigzag(b, min);
        for (j = 0; j < 4; j++)
            buf_byte(b, (unsigned)widths[j]);
        for (j = 0; j * 32 < m; j++) {
            size_t here = m - j * 32 < 32 ? m - j * 32 : 32;
            buf_pack(b, rel + j * 32, here, 32, widths[j]);
        }
        i += m;
    }
}

static void test_delta_binary_packed(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *v;
    size_t i, n;

    /* Encodings.md example 1: 1 2 3 4 5, deltas 1 1 1 1, min delta 1, bit
     * width 0. The spec spells it with a block of 8 values, which its own
     * rules (blocks of a multiple of 128) forbid and readers refuse... */
    assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                      sink(pool, UC_PQ_INT32, 0, 5),
                      "\x08\x01\x05\x02\x02\x00", 6, 5));
    /* ... so here with a block of 128 in 4 miniblocks: header 128 4 5
     * zigzag(1), block zigzag(1) and four widths 0. */
    v = sink(pool, UC_PQ_INT32, 0, 5);
    assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v,
                         "\x80\x01\x04\x05\x02" "\x02\x00\x00\x00\x00", 10,
                         5));
    for (i = 0; i < 5; i++)
        assert_int_equal(v->ints[i], i + 1);

    /* Example 2: 7 5 3 1 2 3 4 5, deltas -2 -2 -2 1 1 1 1, min delta -2,
     * relative 0 0 0 3 3 3 3 in bit width 2: bytes 11000000 00111111 and
     * zeros to the end of the 32-value miniblock. */
    {
        static const unsigned char ex2[] = {
            0x80, 0x01, 0x04, 0x08, 0x0e,
            0x03, 0x02, 0x00, 0x00, 0x00,
            0xc0, 0x3f, 0, 0, 0, 0, 0, 0
        };
        static const int want[] = { 7, 5, 3, 1, 2, 3, 4, 5 };

        for (n = 0; n <= sizeof(ex2); n++) {
            v = sink(pool, UC_PQ_INT64, 0, 8);
            if (n < 12) {
                /* Cut before the last delta's bits. */
                assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v, ex2, n,
                                  8));
                continue;
            }
            /* The miniblock's padding may be missing. */
            assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v, ex2, n,
                                 8));
            for (i = 0; i < 8; i++)
                assert_int_equal(v->ints[i], want[i]);
            assert_int_equal(v->at, 8);
        }
        /* Fewer values wanted than held; more is refused. */
        v = sink(pool, UC_PQ_INT32, 0, 3);
        assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v, ex2,
                             sizeof(ex2), 3));
        assert_int_equal(v->ints[2], 3);
        assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                          sink(pool, UC_PQ_INT32, 0, 9), ex2, sizeof(ex2),
                          9));
    }

    /* Only a first value; no values at all. */
    v = sink(pool, UC_PQ_INT64, 0, 1);
    assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v,
                         "\x80\x01\x04\x01\x0d", 5, 1));
    assert_int_equal(v->ints[0], -7);
    assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                         sink(pool, UC_PQ_INT64, 0, 0),
                         "\x80\x01\x04\x00\x00", 5, 0));

    /* INT64 with the largest deltas: 0, INT64_MAX, INT64_MIN, 0 has deltas
     * INT64_MAX, 1, INT64_MIN (wrapping), min delta INT64_MIN, relative
     * 2^64-1, 2^63+1, 0 in bit width 64. */
    {
        buf_t *b = buf_make(pool);

        buf_put(b, "\x80\x01\x04\x04\x00", 5);
        buf_put(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
        buf_put(b, "\x40\x00\x00\x00", 4);
        buf_put(b, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
        buf_put(b, "\x01\x00\x00\x00\x00\x00\x00\x80", 8);
        for (i = 0; i < 30 * 8 / 4; i++)
            buf_put(b, "\0\0\0\0", 4);
        buf_put(b, "\0\0\0\0\0\0\0\0", 8);
        v = sink(pool, UC_PQ_INT64, 0, 4);
        assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v, b->p, b->len,
                             4));
        assert_int_equal(v->ints[0], 0);
        assert_true(v->ints[1] == INT64_MAX);
        assert_true(v->ints[2] == INT64_MIN);
        assert_int_equal(v->ints[3], 0);
    }

    /* INT32 wrapping: INT32_MAX, INT32_MIN, INT32_MAX has 32-bit deltas 1
     * and -1, min delta -1, relative 2 0 in bit width 2. */
    v = sink(pool, UC_PQ_INT32, 0, 3);
    assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v,
                         "\x80\x01\x04\x03\xfe\xff\xff\xff\x0f"
                         "\x01\x02\x00\x00\x00" "\x02\0\0\0\0\0\0\0", 22, 3));
    assert_int_equal(v->ints[0], 2147483647);
    assert_true(v->ints[1] == -2147483647 - 1);
    assert_int_equal(v->ints[2], 2147483647);

    /* Long runs of random values: several blocks, widths up to 64. */
    {
        rng_t r = { 0x9e3779b97f4a7c15ULL };
        int bits;

        for (bits = 32; bits <= 64; bits += 32) {
            apr_int64_t vals[700];
            buf_t *b = buf_make(pool);

            for (i = 0; i < 700; i++) {
                apr_uint64_t x = rng_next(&r);
                int shift = (int)(i / 64) * 6 % 64;  /* magnitudes vary */

                vals[i] = bits == 32 ? (apr_int32_t)(apr_uint32_t)(x >> shift)
                                     : (apr_int64_t)(x >> shift);
                if (i % 97 == 5)
                    vals[i] = bits == 32 ? -2147483647 - 1 : INT64_MIN;
                if (i % 97 == 6)
                    vals[i] = bits == 32 ? 2147483647 : INT64_MAX;
            }
            delta_encode(b, vals, 700, bits);
            v = sink(pool, bits == 32 ? UC_PQ_INT32 : UC_PQ_INT64, 0, 700);
            assert_no_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED, v, b->p,
                                 b->len, 700));
            for (i = 0; i < 700; i++)
                if (v->ints[i] != vals[i])
                    fail_msg("%d-bit value %zu: %" APR_INT64_T_FMT ", want %"
                             APR_INT64_T_FMT, bits, i, v->ints[i], vals[i]);
        }
    }
}

static void test_delta_binary_packed_malformed(void **state)
{
    apr_pool_t *pool = *state;
    static const struct {
        const char *bytes;
        size_t len;
    } bad[] = {
        { "", 0 },
        { "\x80\x01\x04\x05", 4 },                    /* no first value */
        { "\x00\x04\x05\x02\x02\0\0\0\0", 9 },       /* block size 0 */
        { "\x64\x04\x05\x02\x02\0\0\0\0", 9 },       /* block size 100 */
        { "\x80\x01\x00\x05\x02\x02", 6 },           /* no miniblocks */
        { "\x80\x01\x03\x05\x02\x02\0\0\0", 9 },     /* 128 / 3 */
        { "\x80\x01\x08\x05\x02\x02\0\0\0\0\0\0\0\0", 14 }, /* 16 a mini */
        { "\x80\x80\x80\x01\x04\x05\x02\x02\0\0\0\0", 12 }, /* 2^21 */
        { "\x80\x01\x04\x03\x02", 5 },               /* 3 values, 5 wanted */
        { "\x80\x01\x04\x05\x02\x02\0\0", 8 },       /* cut widths */
        { "\x80\x01\x04\x05\x02\x02\x41\0\0\0" "12345678", 18 }, /* width 65 */
        { "\x80\x01\x04\x05\x02\x02\x08\0\0\0" "\x01\x02\x03", 13 },
                                                      /* cut miniblock */
        { "\x80\x01\x04\x05\x02\x80", 6 },           /* cut min delta */
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        const char *why = decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                                 sink(pool, UC_PQ_INT64, 0, 5), bad[i].bytes,
                                 bad[i].len, 5);
        if (!why)
            fail_msg("malformed DELTA_BINARY_PACKED %zu accepted", i);
    }
    /* A huge value count (2^40) in the header, far more wanted than the
     * bytes can hold. */
    assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                      sink(pool, UC_PQ_INT64, 0, 1 << 16),
                      "\x80\x01\x04\x80\x80\x80\x80\x80\x20\x02\x02\0\0\0\0",
                      15, 1 << 16));
    assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                      sink(pool, UC_PQ_INT64, 0, 500),
                      "\x80\x01\x04\xf4\x03\x02\x02\0\0\0\0", 11, 500));
    /* Only integer columns. */
    assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                      sink(pool, UC_PQ_DOUBLE, 0, 5),
                      "\x80\x01\x04\x05\x02\x02\0\0\0\0", 10, 5));
    assert_why(decode(pool, UC_PQ_DELTA_BINARY_PACKED,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 5),
                      "\x80\x01\x04\x05\x02\x02\0\0\0\0", 10, 5));
}

static void test_delta_length_byte_array(void **state)
{
    apr_pool_t *pool = *state;
    /* Encodings.md: "Hello" "World" "Foobar" "ABCDEF" are the lengths
     * 5 5 6 6 (DELTA_BINARY_PACKED: first 5, deltas 0 1 0, min delta 0,
     * relative 0 1 0 in bit width 1 = byte 00000010), then
     * "HelloWorldFoobarABCDEF". */
    static const char data[] = "\x80\x01\x04\x04\x0a" "\x00\x01\x00\x00\x00"
                               "\x02\x00\x00\x00" "HelloWorldFoobarABCDEF";
    uc_pq_values_t *v = sink(pool, UC_PQ_BYTE_ARRAY, 0, 4);

    assert_no_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY, v, data,
                         sizeof(data) - 1, 4));
    assert_str(&v->bytes[0], "Hello");
    assert_str(&v->bytes[1], "World");
    assert_str(&v->bytes[2], "Foobar");
    assert_str(&v->bytes[3], "ABCDEF");
    assert_int_equal(v->at, 4);

    /* The data one byte short; lengths for 4 values but 3 wanted; a
     * negative length; lengths cut; a non-binary column. */
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 4), data,
                      sizeof(data) - 2, 4));
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 4), data,
                      sizeof(data) - 1, 3));
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 1),
                      "\x80\x01\x04\x01\x01" "abc", 8, 1));
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 4), data, 12, 4));
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_INT32, 0, 4), data, sizeof(data) - 1,
                      4));
    assert_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 1 << 20), data,
                      sizeof(data) - 1, 1 << 20));

    /* Lengths spanning several blocks; the data follows the last one. */
    {
        apr_int64_t lens[300];
        buf_t *b = buf_make(pool);
        size_t i, k;

        for (i = 0; i < 300; i++)
            lens[i] = (apr_int64_t)((i * 7) % 23);
        delta_encode(b, lens, 300, 32);
        for (i = 0; i < 300; i++)
            for (k = 0; k < (size_t)lens[i]; k++)
                buf_byte(b, 'a' + (unsigned)(i % 26));
        v = sink(pool, UC_PQ_BYTE_ARRAY, 0, 300);
        assert_no_why(decode(pool, UC_PQ_DELTA_LENGTH_BYTE_ARRAY, v, b->p,
                             b->len, 300));
        for (i = 0; i < 300; i++) {
            assert_int_equal(v->bytes[i].len, lens[i]);
            if (lens[i])
                assert_int_equal(v->bytes[i].ptr[0], 'a' + (int)(i % 26));
        }
    }
}

static void test_delta_byte_array(void **state)
{
    apr_pool_t *pool = *state;
    /* Encodings.md: axis axle babble babyhood are the prefix lengths
     * 0 2 0 3 (deltas 2 -2 3, min -2, relative 4 0 5 in 3 bits = 01000100
     * 00000001), the suffix lengths 4 2 6 5 (deltas -2 4 -1, min -2,
     * relative 0 6 1 = 01110000 00000000), then "axislebabbleyhood". */
    static const char data[] =
        "\x80\x01\x04\x04\x00" "\x03\x03\x00\x00\x00"
        "\x44\x01\0\0\0\0\0\0\0\0\0\0"
        "\x80\x01\x04\x04\x08" "\x03\x03\x00\x00\x00"
        "\x70\x00\0\0\0\0\0\0\0\0\0\0"
        "axislebabbleyhood";
    uc_pq_values_t *v = sink(pool, UC_PQ_BYTE_ARRAY, 0, 4);

    assert_no_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY, v, data,
                         sizeof(data) - 1, 4));
    assert_str(&v->bytes[0], "axis");
    assert_str(&v->bytes[1], "axle");
    assert_str(&v->bytes[2], "babble");
    assert_str(&v->bytes[3], "babyhood");

    assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 4), data,
                      sizeof(data) - 2, 4));
    assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 4), data, 30, 4));
    assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                      sink(pool, UC_PQ_INT64, 0, 4), data, sizeof(data) - 1,
                      4));
    /* Every value the same fixed length... */
    v = sink(pool, UC_PQ_FIXED_LEN_BYTE_ARRAY, 4, 2);
    {
        apr_int64_t pre[2] = { 0, 3 }, suf[2] = { 4, 1 };
        buf_t *b = buf_make(pool);

        delta_encode(b, pre, 2, 32);
        delta_encode(b, suf, 2, 32);
        buf_put(b, "abcde", 5);
        assert_no_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY, v, b->p, b->len,
                             2));
        assert_str(&v->bytes[0], "abcd");
        assert_str(&v->bytes[1], "abce");
        /* ... or refused. */
        assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                          sink(pool, UC_PQ_FIXED_LEN_BYTE_ARRAY, 5, 2), b->p,
                          b->len, 2));
    }
    /* A prefix longer than the previous value (the first has none). */
    {
        apr_int64_t pre[2] = { 1, 0 }, suf[2] = { 1, 1 };
        buf_t *b = buf_make(pool);

        delta_encode(b, pre, 2, 32);
        delta_encode(b, suf, 2, 32);
        buf_put(b, "ab", 2);
        assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                          sink(pool, UC_PQ_BYTE_ARRAY, 0, 2), b->p, b->len,
                          2));
    }
    /* Suffix lengths past the data; a negative suffix length. */
    {
        apr_int64_t pre[2] = { 0, 0 }, suf[2] = { 3, 4 }, neg[2] = { 1, -1 };
        buf_t *b = buf_make(pool);

        delta_encode(b, pre, 2, 32);
        delta_encode(b, suf, 2, 32);
        buf_put(b, "abcdef", 6);
        assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                          sink(pool, UC_PQ_BYTE_ARRAY, 0, 2), b->p, b->len,
                          2));
        b = buf_make(pool);
        delta_encode(b, pre, 2, 32);
        delta_encode(b, neg, 2, 32);
        buf_put(b, "abcdef", 6);
        assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                          sink(pool, UC_PQ_BYTE_ARRAY, 0, 2), b->p, b->len,
                          2));
    }
    /* Each value the previous one plus a byte: 23,200 values from 23 KB
     * would expand to 269 MB, which is refused. */
    {
        size_t n = 23200, i;
        apr_int64_t *pre = apr_palloc(pool, sizeof(apr_int64_t) * n);
        apr_int64_t *suf = apr_palloc(pool, sizeof(apr_int64_t) * n);
        buf_t *b = buf_make(pool);

        for (i = 0; i < n; i++) {
            pre[i] = (apr_int64_t)i;
            suf[i] = 1;
        }
        delta_encode(b, pre, n, 32);
        delta_encode(b, suf, n, 32);
        for (i = 0; i < n; i++)
            buf_byte(b, 'x');
        assert_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY,
                          sink(pool, UC_PQ_BYTE_ARRAY, 0, n), b->p, b->len,
                          n));
        /* The first 2,000 are fine: 2 MB. */
        b = buf_make(pool);
        delta_encode(b, pre, 2000, 32);
        delta_encode(b, suf, 2000, 32);
        for (i = 0; i < 2000; i++)
            buf_byte(b, 'x');
        v = sink(pool, UC_PQ_BYTE_ARRAY, 0, 2000);
        assert_no_why(decode(pool, UC_PQ_DELTA_BYTE_ARRAY, v, b->p, b->len,
                             2000));
        assert_int_equal(v->bytes[1999].len, 2000);
    }
}

static void test_byte_stream_split(void **state)
{
    apr_pool_t *pool = *state;
    uc_pq_values_t *v;

    /* FLOAT 1.5 -2.0 0.25 = 3fc00000 c0000000 3e800000: stream k holds
     * byte k of every value. */
    v = sink(pool, UC_PQ_FLOAT, 0, 3);
    assert_no_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT, v,
                         "\x00\x00\x00" "\x00\x00\x00" "\xc0\x00\x80"
                         "\x3f\xc0\x3e", 12, 3));
    assert_true(v->reals[0] == 1.5);
    assert_true(v->reals[1] == -2.0);
    assert_true(v->reals[2] == 0.25);
    /* DOUBLE 1.0 -0.5 = 3ff0000000000000 bfe0000000000000. */
    v = sink(pool, UC_PQ_DOUBLE, 0, 2);
    assert_no_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT, v,
                         "\0\0\0\0\0\0\0\0\0\0\0\0\xf0\xe0\x3f\xbf", 16, 2));
    assert_true(v->reals[0] == 1.0);
    assert_true(v->reals[1] == -0.5);
    /* INT32 (allowed by newer versions of the spec). */
    v = sink(pool, UC_PQ_INT32, 0, 2);
    assert_no_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT, v,
                         "\x04\x08\x03\x07\x02\x06\x01\x05", 8, 2));
    assert_int_equal(v->ints[0], 0x01020304);
    assert_int_equal(v->ints[1], 0x05060708);

    assert_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT,
                      sink(pool, UC_PQ_FLOAT, 0, 3), "\0\0\0\0\0\0\0\0\0\0\0",
                      11, 3));
    assert_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT,
                      sink(pool, UC_PQ_INT96, 0, 1),
                      "\0\0\0\0\0\0\0\0\0\0\0\0", 12, 1));
    assert_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT,
                      sink(pool, UC_PQ_BYTE_ARRAY, 0, 1), "\0\0\0\0", 4, 1));
    assert_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT,
                      sink(pool, UC_PQ_BOOLEAN, 0, 1), "\0\0\0\0", 4, 1));
    assert_why(decode(pool, UC_PQ_BYTE_STREAM_SPLIT,
                      sink(pool, UC_PQ_DOUBLE, 0, 1 << 20), "\0\0\0\0\0\0\0\0",
                      8, 1 << 20));
    /* Encodings with no decoder here. */
    assert_why(decode(pool, 1, sink(pool, UC_PQ_INT32, 0, 1), "\0\0\0\0", 4,
                      1));
    assert_why(decode(pool, UC_PQ_PLAIN_DICTIONARY,
                      sink(pool, UC_PQ_INT32, 0, 1), "\0\0\0\0", 4, 1));
    assert_why(decode(pool, 10, sink(pool, UC_PQ_INT32, 0, 1), "\0\0\0\0", 4,
                      1));
}

/* --- codecs ------------------------------------------------------------- */

enum {
    CODEC_UNCOMPRESSED = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_LZO = 3,
    CODEC_BROTLI = 4, CODEC_LZ4 = 5, CODEC_ZSTD = 6, CODEC_LZ4_RAW = 7
};

typedef BROTLI_BOOL (*brotli_compress_t)(int, int, BrotliEncoderMode, size_t,
                                         const uint8_t *, size_t *,
                                         uint8_t *);

/* The module links only Brotli's decoder; the test borrows the encoder
 * from the same library package at run time. */
static brotli_compress_t brotli_encoder(void)
{
    static brotli_compress_t fn;
    static int tried;

    if (!tried) {
        void *lib = dlopen("libbrotlienc.so.1", RTLD_NOW | RTLD_LOCAL);

        tried = 1;
        if (lib)
            *(void **)&fn = dlsym(lib, "BrotliEncoderCompress");
    }
    if (!fn)
        fail_msg("cannot load BrotliEncoderCompress from libbrotlienc.so.1 "
                 "(package libbrotli-dev)");
    return fn;
}

static void put_be32(unsigned char *p, apr_uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* `src` compressed by the codec library's own compressor (Hadoop's LZ4
 * framing: blocks of [raw BE32][compressed BE32][LZ4 block]). */
static unsigned char *pack_with(apr_pool_t *pool, int codec,
                               const unsigned char *src, size_t len,
                               size_t *out_len)
{
    unsigned char *out;
    size_t cap, n = 0;

    switch (codec) {
    case CODEC_UNCOMPRESSED:
        out = apr_palloc(pool, len + 1);
        memcpy(out, src, len);
        n = len;
        break;
    case CODEC_SNAPPY:
        cap = snappy_max_compressed_length(len);
        out = apr_palloc(pool, cap);
        n = cap;
        if (snappy_compress((const char *)src, len, (char *)out, &n)
            != SNAPPY_OK)
            fail_msg("snappy_compress failed");
        break;
    case CODEC_GZIP: {
        z_stream z;

        memset(&z, 0, sizeof(z));
        if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
            != Z_OK)
            fail_msg("deflateInit2 failed");
        cap = deflateBound(&z, len) + 64;
        out = apr_palloc(pool, cap);
        z.next_in = (Bytef *)src;
        z.avail_in = (uInt)len;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
            fail_msg("deflate failed");
        n = cap - z.avail_out;
        deflateEnd(&z);
        break;
    }
    case CODEC_BROTLI:
        cap = len + len / 2 + 1024;
        out = apr_palloc(pool, cap);
        n = cap;
        if (!brotli_encoder()(5, 22, BROTLI_MODE_GENERIC, len, src, &n, out))
            fail_msg("BrotliEncoderCompress failed");
        break;
    case CODEC_LZ4: {
        size_t at = 0;

        out = apr_palloc(pool, (size_t)LZ4_compressBound((int)len)
                               + 8 * (len / 20000 + 2));
        while (at < len) {
            int raw = (int)(len - at < 20000 ? len - at : 20000);
            int c = LZ4_compress_default((const char *)src + at,
                                         (char *)out + n + 8, raw,
                                         LZ4_compressBound(raw));
            if (c <= 0)
                fail_msg("LZ4_compress_default failed");
            put_be32(out + n, (apr_uint32_t)raw);
            put_be32(out + n + 4, (apr_uint32_t)c);
            n += 8 + (size_t)c;
            at += (size_t)raw;
        }
        break;
    }
    case CODEC_ZSTD:
        cap = ZSTD_compressBound(len);
        out = apr_palloc(pool, cap);
        n = ZSTD_compress(out, cap, src, len, 3);
        if (ZSTD_isError(n))
            fail_msg("ZSTD_compress failed");
        break;
    case CODEC_LZ4_RAW:
        cap = (size_t)LZ4_compressBound((int)len);
        out = apr_palloc(pool, cap + 1);
        n = (size_t)LZ4_compress_default((const char *)src, (char *)out,
                                         (int)len, (int)cap);
        if (n == 0 && len > 0)
            fail_msg("LZ4_compress_default failed");
        if (len == 0)
            n = (size_t)LZ4_compress_default("", (char *)out, 0, (int)cap);
        break;
    default:
        fail_msg("no compressor for codec %d", codec);
        return NULL;
    }
    *out_len = n;
    return out;
}

/* Decompresses into an exact-size buffer; the output, or NULL and *why. */
static unsigned char *decompress(apr_pool_t *pool, int codec, const void *src,
                                 size_t src_len, size_t dst_len,
                                 const char **why)
{
    unsigned char *dst = exact(pool, "", 0);

    if (dst_len) {
        dst = malloc(dst_len);
        apr_pool_cleanup_register(pool, dst, free_cleanup,
                                  apr_pool_cleanup_null);
    }
    *why = uc_pq_decompress(codec, exact(pool, src, src_len), src_len, dst,
                            dst_len);
    return *why ? NULL : dst;
}

static unsigned char *sample_data(apr_pool_t *pool, size_t len, int random)
{
    unsigned char *p = apr_palloc(pool, len + 1);
    rng_t r = { 0x1234567890abcdefULL + len };
    static const char pattern[] = "{\"add\":{\"path\":\"part-0000";
    size_t i;

    for (i = 0; i < len; i++)
        p[i] = random ? (unsigned char)rng_next(&r)
                      : (unsigned char)(pattern[i % 24] + (i / 997) % 3);
    return p;
}

static void test_codecs_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    static const int codecs[] = { CODEC_UNCOMPRESSED, CODEC_SNAPPY,
                                  CODEC_GZIP, CODEC_BROTLI, CODEC_LZ4,
                                  CODEC_ZSTD, CODEC_LZ4_RAW };
    static const struct { size_t len; int random; } sizes[] = {
        { 0, 0 }, { 1, 0 }, { 65536, 0 }, { 65536, 1 }, { 300001, 0 }
    };
    size_t c, k;
    const char *failures = "";

    /* Failures are gathered, so that every codec is tried. */
#define CODEC_FAIL(...) \
    (failures = apr_psprintf(pool, "%s\n  %s", failures, \
                             apr_psprintf(pool, __VA_ARGS__)))
    for (c = 0; c < sizeof(codecs) / sizeof(*codecs); c++)
        for (k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
            apr_pool_t *sub;
            size_t len = sizes[k].len, clen;
            unsigned char *src, *packed, *out;
            const char *why;
            unsigned long n;

            apr_pool_create(&sub, pool);
            src = sample_data(sub, len, sizes[k].random);
            packed = pack_with(sub, codecs[c], src, len, &clen);
            out = decompress(sub, codecs[c], packed, clen, len, &why);
            n = (unsigned long)len;
            if (!out)
                CODEC_FAIL("codec %d, %lu bytes: %s", codecs[c], n, why);
            else if (len && memcmp(out, src, len) != 0)
                CODEC_FAIL("codec %d, %lu bytes: other bytes", codecs[c], n);

            /* The exact size is required: one more or one less fails. */
            if (decompress(sub, codecs[c], packed, clen, len + 1, &why))
                CODEC_FAIL("codec %d, %lu bytes read as %lu", codecs[c], n,
                           n + 1);
            if (len > 0 && decompress(sub, codecs[c], packed, clen, len - 1,
                                      &why))
                CODEC_FAIL("codec %d, %lu bytes read as %lu", codecs[c], n,
                           n - 1);
            /* Cut input. */
            if (clen > 0 && decompress(sub, codecs[c], packed, clen / 2, len,
                                       &why))
                CODEC_FAIL("codec %d, %lu bytes: half its input accepted",
                           codecs[c], n);
            if (clen > 1 && decompress(sub, codecs[c], packed, clen - 1, len,
                                       &why))
                CODEC_FAIL("codec %d, %lu bytes: one byte cut accepted",
                           codecs[c], n);
            /* Garbage of the same length. */
            if (codecs[c] != CODEC_UNCOMPRESSED && clen > 0) {
                unsigned char *junk = apr_palloc(sub, clen);

                memset(junk, 0xff, clen);
                if (decompress(sub, codecs[c], junk, clen, len, &why))
                    CODEC_FAIL("codec %d: %lu bytes of 0xff accepted",
                               codecs[c], (unsigned long)clen);
            }
            apr_pool_destroy(sub);
        }
#undef CODEC_FAIL
    if (*failures)
        fail_msg("codecs:%s", failures);
}

/* Snappy, element by element: literals and back-references of every
 * length around the decoder's 64-byte chunks, references that overlap
 * what they write, and buffers that end inside a chunk. Each input is
 * compressed by libsnappy and must come back byte for byte through an
 * exact-size buffer (ASan catches a chunk that runs past it). */
static void test_snappy_elements(void **state)
{
    apr_pool_t *pool = *state;
    rng_t r = { 0x51a99e1d0c0ffeeULL };
    int trial;

    for (trial = 0; trial < 600; trial++) {
        apr_pool_t *sub;
        size_t len = 0, cap = 1 + rng_next(&r) % 4000, clen;
        unsigned char *src, *packed, *out;
        const char *why;

        apr_pool_create(&sub, pool);
        src = apr_palloc(sub, cap);
        while (len < cap) {
            size_t run = 1 + rng_next(&r) % 80, k;

            if (run > cap - len)
                run = cap - len;
            if (len == 0 || rng_next(&r) % 2 == 0)
                for (k = 0; k < run; k++)
                    src[len + k] = (unsigned char)rng_next(&r);
            else {
                size_t offset = 1 + rng_next(&r) % (len < 40 ? len : 40);

                if (rng_next(&r) % 4 == 0)
                    offset = 1 + rng_next(&r) % len;
                for (k = 0; k < run; k++)
                    src[len + k] = src[len + k - offset];
            }
            len += run;
        }
        packed = pack_with(sub, CODEC_SNAPPY, src, len, &clen);
        out = decompress(sub, CODEC_SNAPPY, packed, clen, len, &why);
        if (!out)
            fail_msg("trial %d (%lu bytes): %s", trial, (unsigned long)len,
                     why);
        if (memcmp(out, src, len) != 0)
            fail_msg("trial %d (%lu bytes): other bytes", trial,
                     (unsigned long)len);
        if (trial % 50 == 0) {
            size_t cut;

            for (cut = 0; cut < clen; cut++)
                assert_null(decompress(sub, CODEC_SNAPPY, packed, cut, len,
                                       &why));
        }
        apr_pool_destroy(sub);
    }
}

/* Elements libsnappy never writes, and references that are not allowed. */
static void test_snappy_hand_made(void **state)
{
    apr_pool_t *pool = *state;
    /* "abcd", then 8 bytes from 4 back with a 4-byte offset: the element
     * of blocks beyond 64 KiB. */
    static const unsigned char far[] = { 12, 3 << 2, 'a', 'b', 'c', 'd',
                                         (7 << 2) | 3, 4, 0, 0, 0 };
    /* A 3-byte literal whose length is spelt in one extra byte. */
    static const unsigned char long_literal[] = { 3, 60 << 2, 2, 'x', 'y',
                                                  'z' };
    static const unsigned char zero_offset[] = { 8, 3 << 2, 'a', 'b', 'c',
                                                 'd', 0 << 5 | 0 << 2 | 1,
                                                 0 };
    static const unsigned char too_far[] = { 8, 3 << 2, 'a', 'b', 'c', 'd',
                                             1, 5 };
    static const unsigned char too_long[] = { 4, 7 << 2, 'a', 'b', 'c',
                                              'd' };
    static const unsigned char overflowing_length[] = { 0xff, 0xff, 0xff,
                                                        0xff, 0xff, 0x01 };
    const char *why;
    unsigned char *out;

    out = decompress(pool, CODEC_SNAPPY, far, sizeof(far), 12, &why);
    assert_non_null(out);
    assert_memory_equal(out, "abcdabcdabcd", 12);
    out = decompress(pool, CODEC_SNAPPY, long_literal, sizeof(long_literal),
                     3, &why);
    assert_non_null(out);
    assert_memory_equal(out, "xyz", 3);
    assert_null(decompress(pool, CODEC_SNAPPY, zero_offset,
                           sizeof(zero_offset), 8, &why));
    assert_null(decompress(pool, CODEC_SNAPPY, too_far, sizeof(too_far), 8,
                           &why));
    assert_null(decompress(pool, CODEC_SNAPPY, too_long, sizeof(too_long), 8,
                           &why));
    assert_null(decompress(pool, CODEC_SNAPPY, overflowing_length,
                           sizeof(overflowing_length), 8, &why));
}

static void test_codecs_special(void **state)
{
    apr_pool_t *pool = *state;
    unsigned char *src = sample_data(pool, 5000, 1), *a, *b, *out;
    size_t alen, blen;
    const char *why;
    buf_t *both;

    /* GZIP: members one after the other are one stream. */
    a = pack_with(pool, CODEC_GZIP, src, 3000, &alen);
    b = pack_with(pool, CODEC_GZIP, src + 3000, 2000, &blen);
    both = buf_make(pool);
    buf_put(both, a, alen);
    buf_put(both, b, blen);
    out = decompress(pool, CODEC_GZIP, both->p, both->len, 5000, &why);
    if (!out)
        fail_msg("two gzip members: %s", why);
    assert_memory_equal(out, src, 5000);
    /* A member that is not gzip after the first. */
    buf_put(both, "garbage!", 8);
    assert_null(decompress(pool, CODEC_GZIP, both->p, both->len, 5008, &why));

    /* ZSTD: frames one after the other. */
    a = pack_with(pool, CODEC_ZSTD, src, 3000, &alen);
    b = pack_with(pool, CODEC_ZSTD, src + 3000, 2000, &blen);
    both = buf_make(pool);
    buf_put(both, a, alen);
    buf_put(both, b, blen);
    out = decompress(pool, CODEC_ZSTD, both->p, both->len, 5000, &why);
    if (!out)
        fail_msg("two zstd frames: %s", why);
    assert_memory_equal(out, src, 5000);

    /* The deprecated LZ4 codec: Hadoop's blocks, or (old parquet-cpp) one
     * raw LZ4 block. */
    a = pack_with(pool, CODEC_LZ4_RAW, src, 5000, &alen);
    out = decompress(pool, CODEC_LZ4, a, alen, 5000, &why);
    if (!out)
        fail_msg("raw block under the LZ4 codec: %s", why);
    assert_memory_equal(out, src, 5000);
    /* A Hadoop block claiming more than its input holds. */
    a = pack_with(pool, CODEC_LZ4, src, 5000, &alen);
    put_be32(a + 4, (apr_uint32_t)alen);
    assert_null(decompress(pool, CODEC_LZ4, a, alen, 5000, &why));

    /* Snappy with another length in its header than the page says. */
    a = pack_with(pool, CODEC_SNAPPY, src, 5000, &alen);
    assert_null(decompress(pool, CODEC_SNAPPY, a, alen, 4999, &why));
    assert_null(decompress(pool, CODEC_SNAPPY, a, alen, 5001, &why));

    /* Codecs that are not supported. */
    assert_null(decompress(pool, CODEC_LZO, src, 10, 10, &why));
    assert_non_null(strstr(why, "LZO"));
    assert_null(decompress(pool, 8, src, 10, 10, &why));
    assert_null(decompress(pool, -1, src, 10, 10, &why));
    assert_null(decompress(pool, 1000, src, 10, 10, &why));
}

/* --- hand-built Parquet files -------------------------------------------- */

/* A schema element; the schema is the footer's flattened depth-first list. */
typedef struct xs {
    const char *name;
    int type;                 /* physical type, -1 for a group */
    int rep;                  /* repetition, -1 for none (the root) */
    int num_children;
    int converted;            /* -1 for none */
    int type_length;
    int scale;                /* of decimals */
} xs_t;

#define XROOT(n) { "schema", -1, -1, (n), -1, 0 }
#define XGROUP(name, rep, n, conv) { (name), -1, (rep), (n), (conv), 0 }
#define XLEAF(name, type, rep) { (name), (type), (rep), 0, -1, 0 }

enum { REQ = UC_PQ_REQUIRED, OPT = UC_PQ_OPTIONAL, REP = UC_PQ_REPEATED };
enum {
    CONV_UTF8 = 0, CONV_MAP = 1, CONV_LIST = 3, CONV_DECIMAL = 5,
    CONV_DATE = 6, CONV_TIMESTAMP_MICROS = 10
};
enum { PAGE_V1 = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_V2 = 3 };

typedef struct xpage {
    int type;
    int num_values;           /* levels (data pages), entries (dictionary) */
    int encoding;
    int def_encoding;         /* V1; 0 means RLE */
    int is_compressed;        /* V2: 1, 0, or -1 for absent */
    apr_int64_t uncompressed_add;   /* hostile: added to the sizes */
    apr_int64_t compressed_add;
    apr_int64_t def_len_add;
} xpage_t;

/* One column chunk: its pages, level count, codec. */
typedef struct xcol {
    buf_t *pages;
    apr_int64_t num_values;
    size_t dict_len;          /* bytes of a leading dictionary page */
    int codec;
} xcol_t;

typedef struct xfile xfile_t;
struct xfile {
    const xs_t *schema;
    int nschema;
    int nrg;
    apr_int64_t rows[4];
    xcol_t cols[4][24];       /* [row group][leaf] */
    /* Hostile variations. */
    apr_int64_t offset_add;   /* added to data_page_offset */
    apr_int64_t size_add;     /* added to total_compressed_size */
    apr_int64_t values_add;   /* added to ColumnMetaData.num_values */
    int bad_path;             /* path_in_schema names another column */
    int wrong_type;           /* ColumnMetaData.type off by one */
    int file_path;            /* ColumnChunk.file_path */
    int chunk_encrypted;      /* ColumnChunk.crypto_metadata */
    int encrypted;            /* FileMetaData.encryption_algorithm */
    int drop_chunk;           /* row group 0 lacks its last chunk */
    void (*extra)(tw_t *w, const xfile_t *f);  /* more FileMetaData fields */
};

static int bits_for(int max_level)
{
    int w = 0;

    while (max_level >> w)
        w++;
    return w;
}

/* Levels in the RLE/bit-packed hybrid, one RLE run per run of equals. */
static void put_hybrid_levels(buf_t *b, const int *lv, size_t n, int bw)
{
    size_t i = 0;

    while (i < n) {
        size_t j = i;

        while (j < n && lv[j] == lv[i])
            j++;
        buf_uleb(b, (apr_uint64_t)(j - i) << 1);
        buf_le(b, (apr_uint64_t)lv[i], (bw + 7) / 8);
        i = j;
    }
}

/* A page header and body appended to the chunk. A V1 or dictionary page
 * is compressed whole; a V2 page's levels (`levels` bytes at the start)
 * stay as they are and its values are compressed unless is_compressed is
 * 0. */
static void put_page(apr_pool_t *pool, xcol_t *col, const xpage_t *pg,
                     const unsigned char *body, size_t len, size_t rep_len,
                     size_t def_len)
{
    size_t levels = pg->type == PAGE_V2 ? rep_len + def_len : 0, clen;
    int codec = pg->type == PAGE_V2 && pg->is_compressed == 0
                ? CODEC_UNCOMPRESSED : col->codec;
    unsigned char *packed = pack_with(pool, codec, body + levels, len - levels,
                                     &clen);
    tw_t *w = tw_make(pool);

    tw_i32(w, 1, pg->type);
    tw_i32(w, 2, (apr_int64_t)len + pg->uncompressed_add);
    tw_i32(w, 3, (apr_int64_t)(levels + clen) + pg->compressed_add);
    tw_i32(w, 4, 12345);                            /* a crc, ignored */
    if (pg->type == PAGE_V1) {
        tw_begin(w, 5);
        tw_i32(w, 1, pg->num_values);
        tw_i32(w, 2, pg->encoding);
        tw_i32(w, 3, pg->def_encoding ? pg->def_encoding : UC_PQ_RLE);
        tw_i32(w, 4, UC_PQ_RLE);
        tw_end(w);
    }
    else if (pg->type == PAGE_DICT) {
        tw_begin(w, 7);
        tw_i32(w, 1, pg->num_values);
        tw_i32(w, 2, pg->encoding);
        tw_bool(w, 3, 0);
        tw_end(w);
    }
    else if (pg->type == PAGE_V2) {
        tw_begin(w, 8);
        tw_i32(w, 1, pg->num_values);
        tw_i32(w, 2, 0);
        tw_i32(w, 3, 0);
        tw_i32(w, 4, pg->encoding);
        tw_i32(w, 5, (apr_int64_t)def_len + pg->def_len_add);
        tw_i32(w, 6, (apr_int64_t)rep_len);
        if (pg->is_compressed >= 0)
            tw_bool(w, 7, pg->is_compressed);
        tw_end(w);
    }
    else {
        tw_begin(w, 6);                             /* an index page */
        tw_end(w);
    }
    buf_byte(w->b, 0);
    if (!col->pages)
        col->pages = buf_make(pool);
    buf_put(col->pages, w->b->p, w->b->len);
    buf_put(col->pages, body, levels);
    buf_put(col->pages, packed, clen);
}

/* A data page of `n` level entries: rep and def may be NULL when the
 * maximum is 0; `values` are the encoded non-null values. */
static void data_page_x(apr_pool_t *pool, xcol_t *col, int type,
                        int encoding, const int *rep, const int *def,
                        size_t n, int max_rep, int max_def,
                        const void *values, size_t values_len,
                        const xpage_t *tweak)
{
    buf_t *body = buf_make(pool), *lv;
    xpage_t pg;
    size_t rep_len = 0, def_len = 0;

    memset(&pg, 0, sizeof(pg));
    pg.is_compressed = -1;
    if (tweak)
        pg = *tweak;
    pg.type = type;
    pg.num_values = (int)n;
    pg.encoding = encoding;
    if (max_rep) {
        lv = buf_make(pool);
        put_hybrid_levels(lv, rep, n, bits_for(max_rep));
        if (type == PAGE_V1)
            buf_le(body, lv->len, 4);
        buf_put(body, lv->p, lv->len);
        rep_len = lv->len;
    }
    if (max_def) {
        lv = buf_make(pool);
        put_hybrid_levels(lv, def, n, bits_for(max_def));
        if (type == PAGE_V1)
            buf_le(body, lv->len, 4);
        buf_put(body, lv->p, lv->len);
        def_len = lv->len;
    }
    buf_put(body, values, values_len);
    put_page(pool, col, &pg, body->p, body->len, rep_len, def_len);
    col->num_values += (apr_int64_t)n;
}

static void data_page(apr_pool_t *pool, xcol_t *col, int type, int encoding,
                      const int *rep, const int *def, size_t n, int max_rep,
                      int max_def, const void *values, size_t values_len)
{
    data_page_x(pool, col, type, encoding, rep, def, n, max_rep, max_def,
                values, values_len, NULL);
}

static void dict_page(apr_pool_t *pool, xcol_t *col, size_t n,
                      const void *values, size_t len)
{
    xpage_t pg;

    memset(&pg, 0, sizeof(pg));
    pg.type = PAGE_DICT;
    pg.num_values = (int)n;
    pg.encoding = UC_PQ_PLAIN;
    put_page(pool, col, &pg, values, len, 0, 0);
    col->dict_len = col->pages->len;
}

typedef struct xleaf {
    const char *parts[64];
    int depth;
    int type;
} xleaf_t;

static void walk_schema(const xs_t *s, int n, int *at, const char **stack,
                        int depth, xleaf_t *leaves, int *nleaves)
{
    const xs_t *e;
    int i;

    if (*at >= n || depth >= 64)
        return;
    e = &s[(*at)++];
    if (depth > 0)
        stack[depth - 1] = e->name;
    if (depth > 0 && e->num_children == 0) {
        if (*nleaves < 24) {
            memcpy(leaves[*nleaves].parts, stack,
                   sizeof(char *) * (size_t)depth);
            leaves[*nleaves].depth = depth;
            leaves[*nleaves].type = e->type;
            (*nleaves)++;
        }
        return;
    }
    for (i = 0; i < e->num_children; i++)
        walk_schema(s, n, at, stack, depth + 1, leaves, nleaves);
}

static void put_schema(tw_t *w, int id, const xs_t *s, int n)
{
    int i;

    tw_list(w, id, UC_THRIFT_STRUCT, (size_t)n);
    for (i = 0; i < n; i++) {
        tw_begin(w, 0);
        if (s[i].type >= 0)
            tw_i32(w, 1, s[i].type);
        if (s[i].type_length)
            tw_i32(w, 2, s[i].type_length);
        if (s[i].rep >= 0)
            tw_i32(w, 3, s[i].rep);
        tw_str(w, 4, s[i].name);
        if (s[i].type < 0)
            tw_i32(w, 5, s[i].num_children);
        if (s[i].converted >= 0)
            tw_i32(w, 6, s[i].converted);
        if (s[i].scale)
            tw_i32(w, 7, s[i].scale);
        tw_end(w);
    }
}

/* The file: "PAR1", the chunks row group by row group, the footer. */
static unsigned char *build(apr_pool_t *pool, const xfile_t *f, size_t *size)
{
    buf_t *out = buf_make(pool);
    xleaf_t *leaves = apr_pcalloc(pool, sizeof(xleaf_t) * 24);
    const char *stack[64];
    apr_int64_t offsets[4][24], total = 0;
    int nleaves = 0, at = 0, rg, l;
    tw_t *w = tw_make(pool);

    walk_schema(f->schema, f->nschema, &at, stack, 0, leaves, &nleaves);
    buf_put(out, "PAR1", 4);
    for (rg = 0; rg < f->nrg; rg++)
        for (l = 0; l < nleaves; l++) {
            const xcol_t *c = &f->cols[rg][l];

            offsets[rg][l] = (apr_int64_t)out->len;
            if (c->pages)
                buf_put(out, c->pages->p, c->pages->len);
        }

    tw_i32(w, 1, 1);
    put_schema(w, 2, f->schema, f->nschema);
    for (rg = 0; rg < f->nrg; rg++)
        total += f->rows[rg];
    tw_i64(w, 3, total);
    tw_list(w, 4, UC_THRIFT_STRUCT, (size_t)f->nrg);
    for (rg = 0; rg < f->nrg; rg++) {
        int n = nleaves - (rg == 0 && f->drop_chunk);

        tw_begin(w, 0);
        tw_list(w, 1, UC_THRIFT_STRUCT, (size_t)n);
        for (l = 0; l < n; l++) {
            const xcol_t *c = &f->cols[rg][l];
            apr_int64_t len = c->pages ? (apr_int64_t)c->pages->len : 0;
            int i;

            tw_begin(w, 0);
            if (f->file_path)
                tw_str(w, 1, "elsewhere.parquet");
            tw_i64(w, 2, offsets[rg][l]);
            tw_begin(w, 3);
            tw_i32(w, 1, leaves[l].type + f->wrong_type);
            tw_list(w, 2, UC_THRIFT_I32, 2);
            buf_zigzag(w->b, UC_PQ_PLAIN);
            buf_zigzag(w->b, UC_PQ_RLE);
            tw_list(w, 3, UC_THRIFT_BINARY, (size_t)leaves[l].depth);
            for (i = 0; i < leaves[l].depth; i++) {
                const char *name = leaves[l].parts[i];

                if (f->bad_path && i == leaves[l].depth - 1)
                    name = "other";
                buf_uleb(w->b, strlen(name));
                buf_bytes(w->b, name, strlen(name));
            }
            tw_i32(w, 4, c->codec);
            tw_i64(w, 5, c->num_values + f->values_add);
            tw_i64(w, 6, len);
            tw_i64(w, 7, len + f->size_add);
            tw_i64(w, 9, offsets[rg][l] + (apr_int64_t)c->dict_len
                         + f->offset_add);
            if (c->dict_len)
                tw_i64(w, 11, offsets[rg][l]);
            tw_end(w);
            if (f->chunk_encrypted) {
                tw_begin(w, 8);
                tw_end(w);
            }
            tw_end(w);
        }
        tw_i64(w, 2, 1000);
        tw_i64(w, 3, f->rows[rg]);
        tw_end(w);
    }
    tw_str(w, 6, "test_parquet");
    if (f->encrypted) {
        tw_begin(w, 8);
        tw_begin(w, 1);
        tw_end(w);
        tw_end(w);
    }
    if (f->extra)
        f->extra(w, f);
    buf_byte(w->b, 0);
    buf_put(out, w->b->p, w->b->len);
    buf_le(out, w->b->len, 4);
    buf_put(out, "PAR1", 4);
    *size = out->len;
    return exact(pool, out->p, out->len);
}

static uc_error_t *open_bytes(apr_pool_t *pool, const unsigned char *data,
                              size_t size, uc_pq_file_t **file)
{
    return uc_pq_open(pool, "test.parquet", exact(pool, data, size), size,
                      file);
}

static uc_error_t *open_built(apr_pool_t *pool, const xfile_t *f,
                              uc_pq_file_t **file)
{
    size_t size;
    unsigned char *data = build(pool, f, &size);

    return uc_pq_open(pool, "test.parquet", data, size, file);
}

/* --- rows as JSON -------------------------------------------------------- */

static int is_nested_error(const uc_error_t *err)
{
    return err && err->message && strstr(err->message,
                                         "nests repeated fields");
}

static int omitted(const char *name, const char *const *omit)
{
    for (; omit && *omit; omit++)
        if (strcmp(name, *omit) == 0)
            return 1;
    return 0;
}

/* The rows of row group `rg` as the dumps spell them: an object of the
 * non-null columns among `cols` (top-level nodes), leaving out the
 * children named in `omit` of a top-level struct. Only the columns written
 * are decoded. Each row is written twice, to see that reading a row does
 * not move it. */
static uc_error_t *rows_as_json_ex(apr_pool_t *pool,
                                   const uc_pq_file_t *file, int rg,
                                   const uc_pq_node_t *const *cols,
                                   int ncols, const char *const *omit,
                                   const uc_pq_rows_options_t *options,
                                   apr_array_header_t *out)
{
    const uc_pq_node_t **nodes = apr_palloc(pool, sizeof(*nodes) * 4096);
    int nnodes = 0, i, k;
    uc_pq_rows_t *rows;
    uc_error_t *err;
    uc_jw_t *w = uc_jw_make(pool, 1024);

    for (i = 0; i < ncols; i++) {
        if (omit && cols[i]->kind == UC_PQ_STRUCT) {
            for (k = 0; k < cols[i]->num_children; k++)
                if (!omitted(cols[i]->children[k]->name, omit))
                    nodes[nnodes++] = cols[i]->children[k];
        }
        else
            nodes[nnodes++] = cols[i];
    }
    if ((err = uc_pq_rows_open_ex(file, pool, rg, nodes, nnodes, options,
                                  &rows)))
        return err;
    if (uc_pq_rows_count(rows) != file->row_groups[rg].num_rows)
        fail_msg("rows_count %" APR_INT64_T_FMT " of a row group of %"
                 APR_INT64_T_FMT, uc_pq_rows_count(rows),
                 file->row_groups[rg].num_rows);
    while (uc_pq_rows_next(rows)) {
        const char *first = NULL;
        int pass;

        for (pass = 0; pass < 2; pass++) {
            uc_jw_reset(w);
            uc_jw_begin_object(w);
            for (i = 0; i < ncols; i++) {
                const uc_pq_node_t *col = cols[i];

                if (!uc_pq_rows_present(rows, col))
                    continue;
                uc_jw_key_n(w, col->name, strlen(col->name));
                if (omit && col->kind == UC_PQ_STRUCT) {
                    uc_jw_begin_object(w);
                    for (k = 0; k < col->num_children; k++) {
                        const uc_pq_node_t *child = col->children[k];

                        if (omitted(child->name, omit)
                            || !uc_pq_rows_present(rows, child))
                            continue;
                        uc_jw_key_n(w, child->name, strlen(child->name));
                        if ((err = uc_pq_rows_write(rows, child, w)))
                            return err;
                    }
                    uc_jw_end_object(w);
                }
                else if ((err = uc_pq_rows_write(rows, col, w)))
                    return err;
            }
            uc_jw_end_object(w);
            if (!pass)
                first = apr_pstrdup(pool, uc_jw_text(w));
            else if (strcmp(first, uc_jw_text(w)) != 0)
                fail_msg("a row read twice differs:\n%s\n%s", first,
                         uc_jw_text(w));
        }
        *(const char **)apr_array_push(out) = first;
    }
    return NULL;
}

static uc_error_t *rows_as_json(apr_pool_t *pool, const uc_pq_file_t *file,
                                int rg, const uc_pq_node_t *const *cols,
                                int ncols, const char *const *omit,
                                apr_array_header_t *out)
{
    return rows_as_json_ex(pool, file, rg, cols, ncols, omit, NULL, out);
}

/* Every top-level column of the file. */
static const uc_pq_node_t *const *top_columns(const uc_pq_file_t *file,
                                              int *n)
{
    *n = file->root->num_children;
    return (const uc_pq_node_t *const *)file->root->children;
}

static json_t *parse_json(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);

    if (!v)
        fail_msg("not JSON (%s): %.2000s", jerr.text, text);
    return v;
}

static void assert_json_equal(const char *got, const char *want,
                              const char *what)
{
    json_t *a = parse_json(got), *b = parse_json(want);

    if (!json_equal(a, b))
        fail_msg("%s:\n got  %.3000s\n want %.3000s", what, got, want);
    json_decref(a);
    json_decref(b);
}

/* All rows of a file (every top-level column), in order. */
static apr_array_header_t *file_rows(apr_pool_t *pool,
                                     const uc_pq_file_t *file,
                                     uc_error_t **err)
{
    apr_array_header_t *out = apr_array_make(pool, 16, sizeof(char *));
    int rg, n;
    const uc_pq_node_t *const *cols = top_columns(file, &n);

    *err = NULL;
    for (rg = 0; rg < file->num_row_groups && !*err; rg++)
        *err = rows_as_json(pool, file, rg, cols, n, NULL, out);
    return out;
}

static void assert_rows(apr_pool_t *pool, const uc_pq_file_t *file,
                        const char *const *want, int nwant)
{
    uc_error_t *err;
    apr_array_header_t *got = file_rows(pool, file, &err);
    int i;

    assert_ok(err);
    if (got->nelts != nwant)
        fail_msg("%d rows, want %d", got->nelts, nwant);
    for (i = 0; i < nwant; i++)
        assert_json_equal(APR_ARRAY_IDX(got, i, const char *), want[i],
                          apr_psprintf(pool, "row %d", i));
}

/* --- whole-file invariants ----------------------------------------------- */

typedef struct tally {
    int files, chunks, columns, nested;
    apr_int64_t levels, values, rows;
} tally_t;

/* Every page kept (the budget is ample): each row's slot holds its value,
 * and rows outside the group have none. */
static void check_kept_slots(const char *name, const uc_pq_lazy_t *lazy,
                             const uc_pq_column_t *col,
                             const apr_size_t *value_of)
{
    apr_size_t row;

    for (row = 0; row < col->num_levels; row++) {
        const uc_pq_bytes_t *slot = uc_pq_lazy_kept_slot(lazy,
                                                         (apr_int64_t)row);
        const uc_pq_bytes_t *want = value_of[row] == (apr_size_t)-1 ? NULL
                                    : &col->bytes[value_of[row]];

        if (!slot)
            fail_msg("%s: %s row %zu: no kept slot", name, col->leaf->path,
                     row);
        if (!want != !slot->ptr
            || (want && (slot->len != want->len
                         || memcmp(slot->ptr, want->ptr, want->len) != 0)))
            fail_msg("%s: %s row %zu: another value in its slot", name,
                     col->leaf->path, row);
    }
    if (uc_pq_lazy_kept_slot(lazy, -1) ||
        uc_pq_lazy_kept_slot(lazy, (apr_int64_t)col->num_levels))
        fail_msg("%s: %s: a slot outside the group", name, col->leaf->path);
}

/* The same leaf opened JSON-escaped: each value is what the JSON writer
 * makes of the stored one (without the quotes), decoded (pass 0) and kept
 * (pass 1, another reader). */
static void check_lazy_escaped(apr_pool_t *pool, const char *name,
                               const uc_pq_file_t *file, int rg,
                               const uc_pq_column_t *col,
                               const apr_size_t *value_of,
                               uc_pq_page_budget_t *budget)
{
    const uc_pq_node_t *leaf = col->leaf;
    uc_pq_lazy_t *lazy;
    uc_error_t *err;
    apr_size_t row;
    int pass;

    if ((err = uc_pq_lazy_open(file, pool, pool, rg, leaf,
                               UC_PQ_TEXT_JSON_ESCAPED, &lazy)))
        fail_msg("%s: %s escaped: %s", name, leaf->path, err->message);
    for (pass = 0; pass < 2; pass++) {
        uc_pq_lazy_reader_t *reader = uc_pq_lazy_reader_make(pool, budget);

        for (row = 0; row < col->num_levels; row++) {
            const uc_pq_bytes_t *raw;
            uc_jw_t *want;
            uc_pq_bytes_t got;

            if ((err = uc_pq_lazy_value(reader, lazy, (apr_int64_t)row,
                                        &got)))
                fail_msg("%s: %s row %zu escaped: %s", name, leaf->path,
                         row, err->message);
            if (value_of[row] == (apr_size_t)-1) {
                if (got.ptr)
                    fail_msg("%s: %s row %zu: a value for a null", name,
                             leaf->path, row);
                continue;
            }
            raw = &col->bytes[value_of[row]];
            want = uc_jw_make(pool, 64);
            uc_jw_escaped_n(want, raw->ptr, raw->len);
            if (!got.ptr || got.len + 2 != want->len
                || memcmp(got.ptr, want->buf + 1, got.len) != 0
                || got.ptr[got.len] != '\0')
                fail_msg("%s: %s row %zu: not the escaped value (pass %d)",
                         name, leaf->path, row, pass);
        }
    }
}

/* A text leaf without repetition read lazily, row by row, forwards and
 * then backwards (a page decoded again for every row of another page):
 * the values and nulls of the column decoded whole. */
static void check_lazy(apr_pool_t *pool, const char *name,
                       const uc_pq_file_t *file, int rg,
                       const uc_pq_column_t *col)
{
    const uc_pq_node_t *leaf = col->leaf;
    apr_pool_t *sub;
    uc_pq_lazy_t *lazy;
    uc_pq_lazy_reader_t *reader;
    uc_pq_page_budget_t *budget;
    uc_pq_bytes_t past;
    apr_size_t *value_of, k, v = 0;
    uc_error_t *err;
    int pass;

    apr_pool_create(&sub, pool);
    value_of = apr_palloc(sub, sizeof(apr_size_t) * (col->num_levels + 1));
    for (k = 0; k < col->num_levels; k++) {
        int present = !col->def || col->def[k] == leaf->max_def;

        value_of[k] = present ? v++ : (apr_size_t)-1;
    }
    if ((err = uc_pq_lazy_open(file, sub, sub, rg, leaf,
                               UC_PQ_TEXT_AS_STORED, &lazy)))
        fail_msg("%s: %s lazily: %s", name, leaf->path, err->message);
    if (col->num_levels && uc_pq_lazy_kept_bytes(lazy) == 0)
        fail_msg("%s: %s: nothing kept lazily", name, leaf->path);
    /* Passes 0 and 1 decode the pages; pass 1 keeps them within a
     * budget, and pass 2, with a reader of its own, reads them kept. */
    budget = uc_pq_page_budget_make(pool, (apr_size_t)64 << 20);
    reader = uc_pq_lazy_reader_make(sub, NULL);
    for (pass = 0; pass < 3; pass++) {
        if (pass)
            reader = uc_pq_lazy_reader_make(sub, budget);
        if (pass == 2 && col->num_values &&
            uc_pq_page_budget_used(budget) == 0)
            fail_msg("%s: %s: no page kept", name, leaf->path);
        if (pass == 2)
            check_kept_slots(name, lazy, col, value_of);
        for (k = 0; k < col->num_levels; k++) {
            apr_size_t row = pass == 1 ? col->num_levels - 1 - k : k;
            uc_pq_bytes_t got;

            if ((err = uc_pq_lazy_value(reader, lazy, (apr_int64_t)row,
                                        &got)))
                fail_msg("%s: %s row %zu lazily: %s", name, leaf->path, row,
                         err->message);
            if (value_of[row] == (apr_size_t)-1) {
                if (got.ptr)
                    fail_msg("%s: %s row %zu: a value for a null", name,
                             leaf->path, row);
            }
            else if (!got.ptr
                     || got.len != col->bytes[value_of[row]].len
                     || memcmp(got.ptr, col->bytes[value_of[row]].ptr,
                               got.len) != 0
                     || got.ptr[got.len] != '\0')
                fail_msg("%s: %s row %zu: another value lazily", name,
                         leaf->path, row);
        }
    }
    if (!uc_pq_lazy_value(reader, lazy, (apr_int64_t)col->num_levels, &past))
        fail_msg("%s: %s: a row past the last was read", name, leaf->path);
    check_lazy_escaped(sub, name, file, rg, col, value_of, budget);
    /* The kept pages go with the leaf's pool, and their bytes with them. */
    apr_pool_destroy(sub);
    if (uc_pq_page_budget_used(budget) != 0)
        fail_msg("%s: %s: kept pages outlive their leaf", name, leaf->path);
}

/* Every leaf of every row group decodes, and what it holds is consistent:
 * levels within their maxima, one value per entry at the maximum
 * definition level, one row start per row of the group. */
static void check_columns(apr_pool_t *pool, const char *name,
                          const uc_pq_file_t *file, tally_t *t)
{
    apr_int64_t rows = 0;
    int rg, l;

    for (rg = 0; rg < file->num_row_groups; rg++) {
        const uc_pq_row_group_t *g = &file->row_groups[rg];

        rows += g->num_rows;
        for (l = 0; l < file->num_leaves; l++) {
            const uc_pq_node_t *leaf = file->leaves[l];
            uc_pq_column_t col;
            apr_size_t k, present = 0, starts = 0;
            uc_error_t *err = uc_pq_read_column(file, pool, rg, leaf, &col);

            if (err)
                fail_msg("%s: row group %d, %s: %s", name, rg, leaf->path,
                         err->message);
            if (col.leaf != leaf || leaf->leaf_index != l
                || (col.def != NULL) != (leaf->max_def > 0)
                || (col.rep != NULL) != (leaf->max_rep > 0))
                fail_msg("%s: %s: levels arrays do not match the leaf", name,
                         leaf->path);
            if ((apr_int64_t)col.num_levels != g->chunks[l].num_values)
                fail_msg("%s: %s: %zu levels, the chunk says %"
                         APR_INT64_T_FMT, name, leaf->path, col.num_levels,
                         g->chunks[l].num_values);
            for (k = 0; k < col.num_levels; k++) {
                if (col.def) {
                    if (col.def[k] > leaf->max_def)
                        fail_msg("%s: %s: definition level %d over %d", name,
                                 leaf->path, col.def[k], leaf->max_def);
                    present += col.def[k] == leaf->max_def;
                }
                if (col.rep) {
                    if (col.rep[k] > leaf->max_rep)
                        fail_msg("%s: %s: repetition level %d over %d", name,
                                 leaf->path, col.rep[k], leaf->max_rep);
                    starts += col.rep[k] == 0;
                }
            }
            if (!col.def)
                present = col.num_levels;
            if (!col.rep)
                starts = col.num_levels;
            if (present != col.num_values)
                fail_msg("%s: %s: %zu values for %zu entries at max level",
                         name, leaf->path, col.num_values, present);
            if ((apr_int64_t)starts != g->num_rows)
                fail_msg("%s: %s: %zu rows in a row group of %"
                         APR_INT64_T_FMT, name, leaf->path, starts,
                         g->num_rows);
            if (col.rep && col.num_levels && col.rep[0] != 0)
                fail_msg("%s: %s: starts inside a row", name, leaf->path);
            for (k = 0; k < col.num_values; k++) {
                switch (leaf->type) {
                case UC_PQ_BOOLEAN:
                    if (col.ints[k] != 0 && col.ints[k] != 1)
                        fail_msg("%s: %s: boolean %" APR_INT64_T_FMT, name,
                                 leaf->path, col.ints[k]);
                    break;
                case UC_PQ_INT32:
                    if (col.ints[k] != (apr_int32_t)col.ints[k])
                        fail_msg("%s: %s: INT32 %" APR_INT64_T_FMT, name,
                                 leaf->path, col.ints[k]);
                    break;
                case UC_PQ_INT96:
                    if (col.bytes[k].len != 12)
                        fail_msg("%s: %s: INT96 of %zu bytes", name,
                                 leaf->path, col.bytes[k].len);
                    break;
                case UC_PQ_FIXED_LEN_BYTE_ARRAY:
                    if (col.bytes[k].len != (apr_size_t)leaf->type_length)
                        fail_msg("%s: %s: FLBA of %zu bytes", name,
                                 leaf->path, col.bytes[k].len);
                    break;
                case UC_PQ_BYTE_ARRAY:
                    if (col.bytes[k].len && !col.bytes[k].ptr)
                        fail_msg("%s: %s: NULL bytes", name, leaf->path);
                    break;
                }
            }
            /* Kept strings: the same values, each a C string. */
            if (leaf->type == UC_PQ_BYTE_ARRAY) {
                apr_pool_t *keep;
                uc_pq_column_t kc;

                if (col.terminated)
                    fail_msg("%s: %s: terminated without a pool to keep "
                             "strings", name, leaf->path);
                apr_pool_create(&keep, pool);
                if ((err = uc_pq_read_column_kept(file, pool, keep, rg, leaf,
                                                  &kc)))
                    fail_msg("%s: %s kept: %s", name, leaf->path,
                             err->message);
                if (!kc.terminated || kc.num_values != col.num_values
                    || kc.num_levels != col.num_levels
                    || (col.def && memcmp(kc.def, col.def, col.num_levels))
                    || (col.rep && memcmp(kc.rep, col.rep, col.num_levels))
                    || (kc.num_values && !kc.kept_bytes))
                    fail_msg("%s: %s: kept strings read otherwise", name,
                             leaf->path);
                for (k = 0; k < col.num_values; k++)
                    if (kc.bytes[k].len != col.bytes[k].len
                        || memcmp(kc.bytes[k].ptr, col.bytes[k].ptr,
                                  col.bytes[k].len) != 0
                        || kc.bytes[k].ptr[kc.bytes[k].len] != '\0')
                        fail_msg("%s: %s: kept value %zu differs", name,
                                 leaf->path, k);
                apr_pool_destroy(keep);
                if (leaf->max_rep == 0)
                    check_lazy(pool, name, file, rg, &col);
            }
            t->chunks++;
            t->levels += (apr_int64_t)col.num_levels;
            t->values += (apr_int64_t)col.num_values;
        }
    }
    if (rows != file->num_rows)
        fail_msg("%s: row groups hold %" APR_INT64_T_FMT " rows, the file "
                 "says %" APR_INT64_T_FMT, name, rows, file->num_rows);
    /* Leaves are found by their paths (when no name holds a dot). */
    for (l = 0; l < file->num_leaves; l++) {
        const uc_pq_node_t *leaf = file->leaves[l], *n;
        int depth = 0, dots = 0;
        const char *c;

        for (n = leaf; n->parent; n = n->parent)
            depth++;
        for (c = leaf->path; *c; c++)
            dots += *c == '.';
        if (dots == depth - 1 && uc_pq_find(file, leaf->path) != leaf)
            fail_msg("%s: uc_pq_find(%s) does not find the leaf", name,
                     leaf->path);
    }
}

/* Every row of every top-level column assembles to JSON, column by column,
 * except columns that nest repeated fields (not supported). */
static void check_assembly(apr_pool_t *pool, const char *name,
                           const uc_pq_file_t *file, tally_t *t)
{
    int rg, i, ncols;
    const uc_pq_node_t *const *cols = top_columns(file, &ncols);
    uc_jw_t *w = uc_jw_make(pool, 1024);

    for (rg = 0; rg < file->num_row_groups; rg++) {
        for (i = 0; i < ncols; i++) {
            uc_pq_rows_t *rows;
            apr_int64_t n = 0;
            int nested = 0;
            uc_error_t *err = uc_pq_rows_open(file, pool, rg, &cols[i], 1,
                                              &rows);

            if (err)
                fail_msg("%s: rows of %s: %s", name, cols[i]->path,
                         err->message);
            while (uc_pq_rows_next(rows)) {
                json_t *v;

                uc_jw_reset(w);
                if ((err = uc_pq_rows_write(rows, cols[i], w))) {
                    if (!is_nested_error(err))
                        fail_msg("%s: row %" APR_INT64_T_FMT " of %s: %s",
                                 name, n, cols[i]->path, err->message);
                    assert_int_equal(err->status, 400);
                    nested = 1;
                    break;
                }
                v = parse_json(uc_jw_text(w));
                /* (NaN and infinities are present but write null.) */
                if (!uc_pq_rows_present(rows, cols[i]) != json_is_null(v)
                    && cols[i]->type != UC_PQ_FLOAT
                    && cols[i]->type != UC_PQ_DOUBLE)
                    fail_msg("%s: %s: presence and JSON disagree: %s", name,
                             cols[i]->path, uc_jw_text(w));
                json_decref(v);
                n++;
            }
            if (!nested && n != file->row_groups[rg].num_rows)
                fail_msg("%s: %s: %" APR_INT64_T_FMT " rows of %"
                         APR_INT64_T_FMT, name, cols[i]->path, n,
                         file->row_groups[rg].num_rows);
            t->columns++;
            t->nested += nested;
        }
        t->rows += file->row_groups[rg].num_rows;
    }
}

/* --- hand-built files: every type, encoding and page kind ---------------- */

/* INT96 timestamps: nanoseconds of the day, then the Julian day. */
static void put_int96(buf_t *b, apr_int64_t julian_day, apr_uint64_t nanos)
{
    buf_le(b, nanos, 8);
    buf_le(b, (apr_uint64_t)julian_day, 4);
}

static void put_double(buf_t *b, double v)
{
    apr_uint64_t u;

    memcpy(&u, &v, 8);
    buf_le(b, u, 8);
}

static void test_file_types_and_encodings(void **state)
{
    apr_pool_t *pool = *state;
    static const xs_t schema[] = {
        XROOT(12),
        XLEAF("b", UC_PQ_BOOLEAN, OPT),
        XLEAF("i", UC_PQ_INT32, REQ),
        XLEAF("l", UC_PQ_INT64, OPT),
        XLEAF("f", UC_PQ_FLOAT, OPT),
        XLEAF("d", UC_PQ_DOUBLE, OPT),
        { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0, 0 },
        { "x", UC_PQ_FIXED_LEN_BYTE_ARRAY, OPT, 0, -1, 3, 0 },
        XLEAF("t", UC_PQ_INT96, OPT),
        { "dt", UC_PQ_INT32, OPT, 0, CONV_DATE, 0, 0 },
        { "dec", UC_PQ_INT64, OPT, 0, CONV_DECIMAL, 0, 2 },
        { "ts", UC_PQ_INT64, OPT, 0, CONV_TIMESTAMP_MICROS, 0, 0 },
        { "fd", UC_PQ_FIXED_LEN_BYTE_ARRAY, OPT, 0, CONV_DECIMAL, 4, 1 },
    };
    static const int d101[] = { 1, 0, 1 }, d10[] = { 1, 0 }, d11[] = { 1, 1 },
                     d01[] = { 0, 1 }, d00[] = { 0, 0 };
    static const char *const want[] = {
        "{\"b\":true,\"i\":-7,\"l\":-9223372036854775808,\"f\":1.5,"
        "\"d\":-2.25,\"s\":\"h\xc3\xa9\",\"x\":\"abc\","
        "\"t\":\"2021-01-01T12:34:56.789Z\",\"dt\":\"2021-01-01\","
        "\"dec\":-123.45,\"ts\":\"2021-01-01T00:00:00.123Z\",\"fd\":-0.2}",
        "{\"i\":0}",
        "{\"b\":false,\"i\":2147483647,\"l\":9223372036854775807,\"f\":null,"
        "\"d\":1024.5,\"s\":\"\",\"x\":\"\\u0000\\u0001\\u0002\","
        "\"t\":\"1970-01-01T00:00:00.000Z\",\"dt\":\"1969-12-31\","
        "\"dec\":0.07,\"ts\":\"1969-12-31T23:59:59.999Z\",\"fd\":1234.5}",
        "{\"b\":true,\"i\":5,\"l\":7,\"f\":4.25,\"d\":-8.5,\"s\":\"axis\","
        "\"x\":\"abc\",\"dec\":1.00,\"ts\":\"1970-01-01T00:00:00.000Z\"}",
        "{\"i\":-5,\"l\":7,\"d\":2,\"s\":\"axle\",\"x\":\"abd\","
        "\"t\":\"2000-02-29T23:59:59.999Z\",\"dec\":-0.01,\"fd\":0.1}",
    };
    xfile_t f;
    xcol_t *c;
    uc_pq_file_t *file;
    tally_t t;
    buf_t *b;
    int l;

    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = 13;
    f.nrg = 2;
    f.rows[0] = 3;
    f.rows[1] = 2;

    /* Row group 0: V1 pages, PLAIN, SNAPPY. */
    for (l = 0; l < 12; l++)
        f.cols[0][l].codec = CODEC_SNAPPY;
    c = f.cols[0];
    data_page(pool, &c[0], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\x01", 1);
    data_page(pool, &c[1], PAGE_V1, UC_PQ_PLAIN, NULL, NULL, 3, 0, 0,
              "\xf9\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\x7f", 12);
    data_page(pool, &c[2], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\x00\x00\x00\x00\x00\x00\x00\x80"
              "\xff\xff\xff\xff\xff\xff\xff\x7f", 16);
    data_page(pool, &c[3], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\x00\x00\xc0\x3f\x00\x00\xc0\x7f", 8);
    b = buf_make(pool);
    put_double(b, -2.25);
    put_double(b, 1024.5);
    data_page(pool, &c[4], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1, b->p,
              b->len);
    data_page(pool, &c[5], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\x03\x00\x00\x00h\xc3\xa9\x00\x00\x00\x00", 11);
    data_page(pool, &c[6], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "abc\x00\x01\x02", 6);
    b = buf_make(pool);
    put_int96(b, 2459216, 45296789000000ULL);        /* 2021-01-01 12:34:56 */
    put_int96(b, 2440588, 0);                        /* the epoch */
    data_page(pool, &c[7], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1, b->p,
              b->len);
    data_page(pool, &c[8], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\xc4\x48\x00\x00\xff\xff\xff\xff", 8);  /* 18628, -1 */
    data_page(pool, &c[9], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\xc7\xcf\xff\xff\xff\xff\xff\xff"
              "\x07\x00\x00\x00\x00\x00\x00\x00", 16); /* -12345, 7 */
    b = buf_make(pool);
    buf_le(b, 1609459200123456ULL, 8);
    buf_le(b, ~(apr_uint64_t)0, 8);                  /* -1 microsecond */
    data_page(pool, &c[10], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1, b->p,
              b->len);
    data_page(pool, &c[11], PAGE_V1, UC_PQ_PLAIN, NULL, d101, 3, 0, 1,
              "\xff\xff\xff\xfe\x00\x00\x30\x39", 8);  /* BE -2, 12345 */

    /* Row group 1: V2 pages, ZSTD, other encodings. */
    for (l = 0; l < 12; l++)
        f.cols[1][l].codec = CODEC_ZSTD;
    c = f.cols[1];
    data_page(pool, &c[0], PAGE_V2, UC_PQ_RLE, NULL, d10, 2, 0, 1,
              "\x02\x00\x00\x00\x02\x01", 6);
    {
        apr_int64_t v[2] = { 5, -5 };
        xpage_t raw;

        b = buf_make(pool);
        memset(&raw, 0, sizeof(raw));
        raw.is_compressed = 0;                    /* stored as it is */
        delta_encode(b, v, 2, 32);
        data_page_x(pool, &c[1], PAGE_V2, UC_PQ_DELTA_BINARY_PACKED, NULL,
                    NULL, 2, 0, 0, b->p, b->len, &raw);
    }
    dict_page(pool, &c[2], 1, "\x07\0\0\0\0\0\0\0", 8);
    data_page(pool, &c[2], PAGE_V2, UC_PQ_RLE_DICTIONARY, NULL, d11, 2, 0, 1,
              "\x00\x04", 2);
    data_page(pool, &c[3], PAGE_V2, UC_PQ_BYTE_STREAM_SPLIT, NULL, d10, 2, 0,
              1, "\x00\x00\x88\x40", 4);              /* 4.25 */
    data_page(pool, &c[4], PAGE_V2, UC_PQ_BYTE_STREAM_SPLIT, NULL, d11, 2, 0,
              1, "\0\0\0\0\0\0\0\0\0\0\0\0\x21\x00\xc0\x40", 16);
                                                      /* -8.5, 2.0 */
    {
        apr_int64_t pre[2] = { 0, 2 }, suf[2] = { 4, 2 };

        b = buf_make(pool);
        delta_encode(b, pre, 2, 32);
        delta_encode(b, suf, 2, 32);
        buf_put(b, "axisle", 6);
        data_page(pool, &c[5], PAGE_V2, UC_PQ_DELTA_BYTE_ARRAY, NULL, d11, 2,
                  0, 1, b->p, b->len);
    }
    {
        apr_int64_t pre[2] = { 0, 2 }, suf[2] = { 3, 1 };

        b = buf_make(pool);
        delta_encode(b, pre, 2, 32);
        delta_encode(b, suf, 2, 32);
        buf_put(b, "abcd", 4);
        data_page(pool, &c[6], PAGE_V2, UC_PQ_DELTA_BYTE_ARRAY, NULL, d11, 2,
                  0, 1, b->p, b->len);
    }
    b = buf_make(pool);
    put_int96(b, 2451604, 86399999000000ULL);        /* 2000-02-29 23:59:59 */
    data_page(pool, &c[7], PAGE_V2, UC_PQ_PLAIN, NULL, d01, 2, 0, 1, b->p,
              b->len);
    data_page(pool, &c[8], PAGE_V2, UC_PQ_PLAIN, NULL, d00, 2, 0, 1, "", 0);
    {
        apr_int64_t v[2] = { 100, -1 };

        b = buf_make(pool);
        delta_encode(b, v, 2, 64);
        data_page(pool, &c[9], PAGE_V2, UC_PQ_DELTA_BINARY_PACKED, NULL, d11,
                  2, 0, 1, b->p, b->len);
    }
    data_page(pool, &c[10], PAGE_V2, UC_PQ_PLAIN, NULL, d10, 2, 0, 1,
              "\0\0\0\0\0\0\0\0", 8);
    data_page(pool, &c[11], PAGE_V2, UC_PQ_PLAIN, NULL, d01, 2, 0, 1,
              "\x00\x00\x00\x01", 4);

    assert_ok(open_built(pool, &f, &file));
    assert_int_equal(file->num_leaves, 12);
    assert_int_equal(file->num_row_groups, 2);
    assert_int_equal(file->num_rows, 5);
    assert_string_equal(file->created_by, "test_parquet");
    assert_int_equal(file->leaves[6]->type_length, 3);
    assert_int_equal(file->leaves[5]->converted_type, CONV_UTF8);
    assert_int_equal(file->row_groups[1].chunks[2].codec, CODEC_ZSTD);
    assert_true(file->row_groups[1].chunks[2].dictionary_page_offset > 0);
    memset(&t, 0, sizeof(t));
    check_columns(pool, "types", file, &t);
    check_assembly(pool, "types", file, &t);
    assert_int_equal(t.chunks, 24);
    assert_rows(pool, file, want, 5);
}

static void test_file_maps_and_lists(void **state)
{
    apr_pool_t *pool = *state;
    static const xs_t schema[] = {
        XROOT(5),
        XGROUP("m", OPT, 1, CONV_MAP),
        XGROUP("key_value", REP, 2, -1),
        { "key", UC_PQ_BYTE_ARRAY, REQ, 0, CONV_UTF8, 0 },
        { "value", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        XGROUP("l", OPT, 1, CONV_LIST),
        XGROUP("list", REP, 1, -1),
        XLEAF("element", UC_PQ_INT32, OPT),
        XGROUP("ll", OPT, 1, CONV_LIST),
        XLEAF("item", UC_PQ_INT32, REP),          /* a two-level list */
        XGROUP("st", OPT, 2, -1),
        XLEAF("a", UC_PQ_INT64, OPT),
        { "b", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        XGROUP("nl", OPT, 1, CONV_LIST),          /* a list of lists */
        XGROUP("list", REP, 1, -1),
        XGROUP("element", OPT, 1, CONV_LIST),
        XGROUP("list", REP, 1, -1),
        XLEAF("element", UC_PQ_INT32, OPT),
    };
    static const int rep_map[] = { 0, 1, 0, 0, 0 };
    static const int def_key[] = { 2, 2, 0, 1, 2 };
    static const int def_value[] = { 3, 2, 0, 1, 3 };
    static const int rep_l1[] = { 0, 1 }, def_l1[] = { 3, 2 };
    static const int rep_l2[] = { 1, 0, 0, 0 }, def_l2[] = { 3, 0, 1, 2 };
    static const int def_ll[] = { 2, 2, 0, 1, 2 };
    static const int def_a1[] = { 2, 0 }, def_a2[] = { 1, 2 };
    static const int def_b[] = { 1, 0, 1, 2 };
    static const int rep_nl[] = { 0, 0, 0, 0 }, def_nl[] = { 5, 0, 1, 0 };
    static const char *const want[] = {
        "{\"m\":{\"a\":\"1\",\"b\":null},\"l\":[1,null,3],\"ll\":[5,6],"
        "\"st\":{\"a\":9}}",
        "{}",
        "{\"m\":{},\"l\":[],\"ll\":[],\"st\":{}}",
        "{\"m\":{\"c\":\"x\"},\"l\":[null],\"ll\":[7],"
        "\"st\":{\"a\":-1,\"b\":\"z\"}}",
    };
    xfile_t f;
    xcol_t *c;
    uc_pq_file_t *file;
    tally_t t;
    apr_array_header_t *got;
    const uc_pq_node_t *node;
    int l;

    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = 18;
    f.nrg = 1;
    f.rows[0] = 4;
    for (l = 0; l < 7; l++)
        f.cols[0][l].codec = CODEC_GZIP;
    c = f.cols[0];
    data_page(pool, &c[0], PAGE_V1, UC_PQ_PLAIN, rep_map, def_key, 5, 1, 2,
              "\x01\0\0\0a\x01\0\0\0b\x01\0\0\0c", 15);
    dict_page(pool, &c[1], 2, "\x01\0\0\0" "1" "\x01\0\0\0" "x", 10);
    data_page(pool, &c[1], PAGE_V2, UC_PQ_RLE_DICTIONARY, rep_map, def_value,
              5, 1, 3, "\x01\x02\x00\x02\x01", 5);
    /* A row split over two V1 pages. */
    data_page(pool, &c[2], PAGE_V1, UC_PQ_PLAIN, rep_l1, def_l1, 2, 1, 3,
              "\x01\0\0\0", 4);
    data_page(pool, &c[2], PAGE_V1, UC_PQ_PLAIN, rep_l2, def_l2, 4, 1, 3,
              "\x03\0\0\0", 4);
    {
        apr_int64_t v[3] = { 5, 6, 7 };
        buf_t *b = buf_make(pool);

        delta_encode(b, v, 3, 32);
        data_page(pool, &c[3], PAGE_V2, UC_PQ_DELTA_BINARY_PACKED, rep_map,
                  def_ll, 5, 1, 2, b->p, b->len);
    }
    /* A dictionary, then a fallback to PLAIN within the chunk. */
    dict_page(pool, &c[4], 1, "\x09\0\0\0\0\0\0\0", 8);
    data_page(pool, &c[4], PAGE_V1, UC_PQ_RLE_DICTIONARY, NULL, def_a1, 2, 0,
              2, "\x00\x02", 2);
    data_page(pool, &c[4], PAGE_V1, UC_PQ_PLAIN, NULL, def_a2, 2, 0, 2,
              "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    {
        apr_int64_t len[1] = { 1 };
        buf_t *b = buf_make(pool);

        delta_encode(b, len, 1, 32);
        buf_put(b, "z", 1);
        data_page(pool, &c[5], PAGE_V1, UC_PQ_DELTA_LENGTH_BYTE_ARRAY, NULL,
                  def_b, 4, 0, 2, b->p, b->len);
    }
    data_page(pool, &c[6], PAGE_V1, UC_PQ_PLAIN, rep_nl, def_nl, 4, 2, 5,
              "\x01\0\0\0", 4);

    assert_ok(open_built(pool, &f, &file));
    assert_int_equal(file->num_leaves, 7);

    /* The tree: kinds and levels. */
    node = uc_pq_find(file, "m");
    assert_non_null(node);
    assert_int_equal(node->kind, UC_PQ_MAP);
    assert_int_equal(uc_pq_find(file, "l")->kind, UC_PQ_LIST);
    assert_int_equal(uc_pq_find(file, "ll")->kind, UC_PQ_LIST);
    assert_int_equal(uc_pq_find(file, "st")->kind, UC_PQ_STRUCT);
    assert_int_equal(uc_pq_find(file, "nl.list.element")->kind, UC_PQ_LIST);
    node = uc_pq_find(file, "m.key_value.value");
    assert_non_null(node);
    assert_int_equal(node->max_def, 3);
    assert_int_equal(node->max_rep, 1);
    assert_string_equal(node->path, "m.key_value.value");
    assert_int_equal(uc_pq_find(file, "ll.item")->max_def, 2);
    node = uc_pq_find(file, "nl.list.element.list.element");
    assert_int_equal(node->max_def, 5);
    assert_int_equal(node->max_rep, 2);
    assert_null(uc_pq_find(file, ""));
    assert_null(uc_pq_find(file, "nope"));
    assert_null(uc_pq_find(file, "m.key_value.key.deeper"));
    assert_null(uc_pq_find(file, "m.nope"));

    memset(&t, 0, sizeof(t));
    check_columns(pool, "maps", file, &t);
    check_assembly(pool, "maps", file, &t);
    assert_int_equal(t.nested, 1);                /* nl */

    /* The rows of every column but the list of lists. */
    got = apr_array_make(pool, 4, sizeof(char *));
    assert_ok(rows_as_json(pool, file, 0,
                           (const uc_pq_node_t *const *)file->root->children,
                           4, NULL, got));
    assert_int_equal(got->nelts, 4);
    for (l = 0; l < 4; l++)
        assert_json_equal(APR_ARRAY_IDX(got, l, const char *), want[l],
                          apr_psprintf(pool, "row %d", l));

    /* The list of lists is refused where it is not null. */
    {
        uc_pq_rows_t *rows;
        const uc_pq_node_t *nl = uc_pq_find(file, "nl");
        uc_jw_t *w = uc_jw_make(pool, 64);
        uc_error_t *err;

        assert_ok(uc_pq_rows_open(file, pool, 0, &nl, 1, &rows));
        assert_true(uc_pq_rows_next(rows));
        err = uc_pq_rows_write(rows, nl, w);
        assert_err(err, 400, "MALFORMED_PARQUET");
        assert_true(is_nested_error(err));
        assert_true(uc_pq_rows_next(rows));
        uc_jw_reset(w);
        assert_ok(uc_pq_rows_write(rows, nl, w));
        assert_string_equal(uc_jw_text(w), "null");
    }

    /* Scalar accessors. */
    {
        uc_pq_rows_t *rows;
        const uc_pq_node_t *nodes[2];
        const uc_pq_node_t *a = uc_pq_find(file, "st.a");
        const uc_pq_node_t *b = uc_pq_find(file, "st.b");
        apr_int64_t v = 0;
        uc_pq_bytes_t bytes;

        nodes[0] = uc_pq_find(file, "st");
        nodes[1] = uc_pq_find(file, "m");
        assert_ok(uc_pq_rows_open(file, pool, 0, nodes, 2, &rows));
        assert_int_equal(uc_pq_rows_count(rows), 4);
        assert_false(uc_pq_rows_present(rows, nodes[0]));   /* before */
        assert_true(uc_pq_rows_next(rows));
        assert_true(uc_pq_rows_int(rows, a, &v));
        assert_int_equal(v, 9);
        assert_false(uc_pq_rows_bytes(rows, b, &bytes));
        assert_false(uc_pq_rows_int(rows, b, &v));          /* not an int */
        assert_true(uc_pq_rows_present(rows, nodes[1]));
        assert_true(uc_pq_rows_next(rows));
        assert_false(uc_pq_rows_present(rows, nodes[0]));
        assert_false(uc_pq_rows_int(rows, a, &v));
        assert_true(uc_pq_rows_next(rows));
        assert_true(uc_pq_rows_present(rows, nodes[0]));
        assert_false(uc_pq_rows_int(rows, a, &v));
        assert_true(uc_pq_rows_next(rows));
        assert_true(uc_pq_rows_int(rows, a, &v));
        assert_int_equal(v, -1);
        assert_true(uc_pq_rows_bytes(rows, b, &bytes));
        assert_str(&bytes, "z");
        /* A column not decoded is null. */
        assert_false(uc_pq_rows_present(rows, uc_pq_find(file, "l")));
        assert_false(uc_pq_rows_next(rows));
        assert_false(uc_pq_rows_next(rows));
        assert_false(uc_pq_rows_present(rows, nodes[0]));   /* after */
    }
}

/* --- the fixture checkpoints and generated files ------------------------- */

static const char *fixture_root(void)
{
    const char *root = getenv("UNICAT_DELTA_FIXTURES");

    return root && *root ? root : "t/delta/fixtures";
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Paths under `root` (relative) of the files below it whose relative path
 * `keep` accepts, sorted; `recurse` into directories. */
static void list_files(apr_pool_t *pool, const char *root, const char *rel,
                       int recurse, int (*keep)(const char *),
                       apr_array_header_t *out)
{
    apr_dir_t *dir;
    apr_finfo_t fi;
    const char *path = *rel ? apr_pstrcat(pool, root, "/", rel, NULL) : root;
    apr_status_t rv;

    if ((rv = apr_dir_open(&dir, path, pool)) != APR_SUCCESS)
        fail_msg("cannot read the directory %s (%d)", path, rv);
    while (apr_dir_read(&fi, APR_FINFO_NAME, dir) == APR_SUCCESS) {
        const char *child, *full;
        apr_finfo_t st;

        if (strcmp(fi.name, ".") == 0 || strcmp(fi.name, "..") == 0)
            continue;
        child = *rel ? apr_pstrcat(pool, rel, "/", fi.name, NULL)
                     : apr_pstrdup(pool, fi.name);
        full = apr_pstrcat(pool, root, "/", child, NULL);
        if (apr_stat(&st, full, APR_FINFO_TYPE, pool) != APR_SUCCESS)
            continue;
        if (st.filetype == APR_DIR) {
            if (recurse)
                list_files(pool, root, child, recurse, keep, out);
        }
        else if (st.filetype == APR_REG && keep(child))
            *(const char **)apr_array_push(out) = child;
    }
    apr_dir_close(dir);
    qsort(out->elts, (size_t)out->nelts, sizeof(char *), by_name);
}

static int is_checkpoint(const char *rel)
{
    return ends_with(rel, ".parquet") && strstr(rel, "_delta_log/") != NULL;
}

static int is_parquet(const char *rel)
{
    return ends_with(rel, ".parquet");
}

/* The whole file in an exact-size buffer, or NULL. */
static unsigned char *read_whole(apr_pool_t *pool, const char *path,
                                 size_t *size)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *data;
    long n;

    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0
        || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return NULL;
    }
    data = malloc(n ? (size_t)n : 1);
    apr_pool_cleanup_register(pool, data, free_cleanup, apr_pool_cleanup_null);
    if (fread(data, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    *size = (size_t)n;
    return data;
}

static apr_array_header_t *fixture_checkpoints(apr_pool_t *pool)
{
    apr_array_header_t *files = apr_array_make(pool, 32, sizeof(char *));

    list_files(pool, fixture_root(), "", 1, is_checkpoint, files);
    if (files->nelts < 10)
        fail_msg("only %d checkpoint files under %s", files->nelts,
                 fixture_root());
    return files;
}

static const uc_pq_file_t *open_fixture(apr_pool_t *pool, const char *rel,
                                        const unsigned char **data,
                                        size_t *size)
{
    const char *path = apr_pstrcat(pool, fixture_root(), "/", rel, NULL);
    uc_pq_file_t *file;
    uc_error_t *err;
    size_t n;
    unsigned char *bytes = read_whole(pool, path, &n);

    if (!bytes)
        fail_msg("cannot read %s", path);
    if ((err = uc_pq_open(pool, rel, bytes, n, &file)))
        fail_msg("%s: %s", rel, err->message);
    if (data)
        *data = bytes;
    if (size)
        *size = n;
    return file;
}

static void test_fixture_checkpoints(void **state)
{
    apr_pool_t *pool = *state;
    apr_array_header_t *files = fixture_checkpoints(pool);
    tally_t t;
    int i;

    memset(&t, 0, sizeof(t));
    for (i = 0; i < files->nelts; i++) {
        const char *rel = APR_ARRAY_IDX(files, i, const char *);
        apr_pool_t *sub;
        const uc_pq_file_t *file;

        apr_pool_create(&sub, pool);
        file = open_fixture(sub, rel, NULL, NULL);
        if (file->num_row_groups < 1 || file->num_leaves < 1)
            fail_msg("%s: no row groups or no columns", rel);
        if (!uc_pq_find(file, "add") && !uc_pq_find(file, "protocol"))
            fail_msg("%s: neither add nor protocol", rel);
        check_columns(sub, rel, file, &t);
        check_assembly(sub, rel, file, &t);
        t.files++;
        apr_pool_destroy(sub);
    }
    print_message("%d fixture files: %d column chunks, %" APR_INT64_T_FMT
                  " levels, %" APR_INT64_T_FMT " values, %" APR_INT64_T_FMT
                  " rows, %d columns assembled (%d nest repeated fields)\n",
                  t.files, t.chunks, t.levels, t.values, t.rows, t.columns,
                  t.nested);
}

/* The columns compared with the dumps: the actions. The add column is
 * compared without its parsed statistics and partition values, which the
 * two readers render differently (dates, timestamps, decimals). */
static const char *const compared[] = {
    "add", "remove", "metaData", "protocol", "txn", "domainMetadata",
    "checkpointMetadata", "sidecar", NULL
};
static const char *const parsed_columns[] = {
    "stats_parsed", "partitionValues_parsed", NULL
};

/* The lines of a JSONL file, parsed. */
static apr_array_header_t *read_jsonl(apr_pool_t *pool, const char *path)
{
    size_t size;
    unsigned char *data = read_whole(pool, path, &size);
    apr_array_header_t *lines = apr_array_make(pool, 64, sizeof(json_t *));
    char *text, *line, *next;

    if (!data)
        return NULL;
    text = apr_pstrmemdup(pool, (const char *)data, size);
    for (line = text; line && *line; line = next) {
        json_t *v;
        json_error_t jerr;

        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!*line)
            continue;
        if (!(v = json_loads(line, JSON_ALLOW_NUL, &jerr)))
            fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
        *(json_t **)apr_array_push(lines) = v;
    }
    return lines;
}

static void free_jsonl(apr_array_header_t *lines)
{
    int i;

    for (i = 0; lines && i < lines->nelts; i++)
        json_decref(APR_ARRAY_IDX(lines, i, json_t *));
}

/* Compares the rows of `file` with `lines` (one dump object per row) on
 * the top-level columns `names` (NULL: all), without the children `omit`
 * of top-level structs. */
static void compare_rows(apr_pool_t *pool, const char *label,
                         const uc_pq_file_t *file, apr_array_header_t *lines,
                         const char *const *names, const char *const *omit)
{
    const uc_pq_node_t **cols = apr_palloc(pool, sizeof(*cols) * 64);
    apr_array_header_t *got = apr_array_make(pool, 64, sizeof(char *));
    int ncols = 0, rg, i, k;
    uc_error_t *err;

    if (names) {
        for (k = 0; names[k]; k++) {
            const uc_pq_node_t *n = uc_pq_find(file, names[k]);

            if (n && n->parent == file->root)
                cols[ncols++] = n;
        }
    }
    else {
        const uc_pq_node_t *const *all = top_columns(file, &ncols);

        memcpy(cols, all, sizeof(*cols) * (size_t)ncols);
    }
    /* As the checkpoint reader reads: strings kept as C strings, leaves
     * decoded by two threads (when the row group is large enough). */
    {
        uc_pq_rows_options_t options;

        memset(&options, 0, sizeof(options));
        options.keep = pool;
        options.kept_leaves = (const uc_pq_node_t *const *)file->leaves;
        options.num_kept_leaves = file->num_leaves;
        options.threads = 2;
        for (rg = 0; rg < file->num_row_groups; rg++)
            if ((err = rows_as_json_ex(pool, file, rg, cols, ncols, omit,
                                       &options, got)))
                fail_msg("%s: row group %d: %s", label, rg, err->message);
    }
    if (got->nelts != lines->nelts)
        fail_msg("%s: %d rows, the dump has %d", label, got->nelts,
                 lines->nelts);
    for (i = 0; i < got->nelts; i++) {
        json_t *want = json_object(), *row = APR_ARRAY_IDX(lines, i, json_t *);
        json_t *mine = parse_json(APR_ARRAY_IDX(got, i, const char *));
        const char *key;
        json_t *value;

        json_object_foreach(row, key, value) {
            json_t *copy;

            if (names && !omitted(key, names))
                continue;
            copy = json_deep_copy(value);
            if (json_is_object(copy))
                for (k = 0; omit && omit[k]; k++)
                    json_object_del(copy, omit[k]);
            json_object_set_new(want, key, copy);
        }
        if (!json_equal(mine, want)) {
            char *a = json_dumps(mine, JSON_SORT_KEYS | JSON_COMPACT);
            char *b = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);

            fail_msg("%s: row %d differs:\n C reader  %.4000s\n dump      "
                     "%.4000s", label, i, a, b);
        }
        json_decref(mine);
        json_decref(want);
    }
}

static void test_fixture_dumps(void **state)
{
    apr_pool_t *pool = *state;
    const char *dumps = getenv("UNICAT_PARQUET_DUMPS");
    apr_array_header_t *files;
    int i, rows = 0;

    if (!dumps || !*dumps) {
        print_message("UNICAT_PARQUET_DUMPS is not set: not compared\n");
        skip();
    }
    files = fixture_checkpoints(pool);
    for (i = 0; i < files->nelts; i++) {
        const char *rel = APR_ARRAY_IDX(files, i, const char *);
        char *flat = apr_pstrdup(pool, rel), *c;
        const char *path;
        apr_array_header_t *lines;
        apr_pool_t *sub;

        for (c = flat; *c; c++)
            if (*c == '/')
                *c = '_';
        path = apr_pstrcat(pool, dumps, "/", flat, ".jsonl", NULL);
        apr_pool_create(&sub, pool);
        if (!(lines = read_jsonl(sub, path)))
            fail_msg("no dump %s for %s", path, rel);
        compare_rows(sub, rel, open_fixture(sub, rel, NULL, NULL), lines,
                     compared, parsed_columns);
        rows += lines->nelts;
        free_jsonl(lines);
        apr_pool_destroy(sub);
    }
    print_message("%d fixture files, %d rows equal to their dumps\n",
                  files->nelts, rows);
}

static void test_synthetic_files(void **state)
{
    apr_pool_t *pool = *state;
    const char *dir = getenv("UNICAT_PARQUET_SYNTHETIC");
    apr_array_header_t *files;
    int i, rows = 0;
    tally_t t;

    if (!dir || !*dir) {
        print_message("UNICAT_PARQUET_SYNTHETIC is not set: not read\n");
        skip();
    }
    files = apr_array_make(pool, 32, sizeof(char *));
    list_files(pool, dir, "", 0, is_parquet, files);
    if (files->nelts == 0)
        fail_msg("no .parquet files in %s", dir);
    memset(&t, 0, sizeof(t));
    for (i = 0; i < files->nelts; i++) {
        const char *name = APR_ARRAY_IDX(files, i, const char *);
        const char *base = apr_pstrndup(pool, name, strlen(name) - 8);
        apr_pool_t *sub;
        apr_array_header_t *lines;
        const char *path = apr_pstrcat(pool, dir, "/", name, NULL);
        unsigned char *data;
        size_t size;
        uc_pq_file_t *file;
        uc_error_t *err;

        apr_pool_create(&sub, pool);
        if (!(lines = read_jsonl(sub, apr_pstrcat(sub, dir, "/", base,
                                                  ".expected.jsonl", NULL))))
            fail_msg("no %s.expected.jsonl in %s", base, dir);
        if (!(data = read_whole(sub, path, &size)))
            fail_msg("cannot read %s", path);
        if ((err = uc_pq_open(sub, name, data, size, &file)))
            fail_msg("%s: %s", name, err->message);
        check_columns(sub, name, file, &t);
        compare_rows(sub, name, file, lines, NULL, NULL);
        rows += lines->nelts;
        t.files++;
        free_jsonl(lines);
        apr_pool_destroy(sub);
    }
    print_message("%d generated files, %d column chunks, %" APR_INT64_T_FMT
                  " values, %d rows equal to the expected rows\n", t.files,
                  t.chunks, t.values, rows);
}

/* --- hostile files ------------------------------------------------------- */

/* Opens the file, reads every column of every row group and writes every
 * row of every top-level column, as a reader of the whole file would, and
 * returns the first error. Columns that nest repeated fields are passed
 * over. Columns read with levels above their maxima are counted in
 * *bad_levels. */
static uc_error_t *exercise(apr_pool_t *pool, const unsigned char *data,
                            size_t size, int *bad_levels)
{
    uc_pq_file_t *file;
    uc_error_t *err;
    int rg, l, i, ncols;
    const uc_pq_node_t *const *cols;
    uc_jw_t *w;

    if ((err = uc_pq_open(pool, "hostile.parquet", data, size, &file)))
        return err;
    for (rg = 0; rg < file->num_row_groups; rg++)
        for (l = 0; l < file->num_leaves; l++) {
            uc_pq_column_t col;
            const uc_pq_node_t *leaf = file->leaves[l];
            apr_size_t k;

            if ((err = uc_pq_read_column(file, pool, rg, leaf, &col)))
                return err;
            for (k = 0; k < col.num_levels; k++)
                if ((col.def && col.def[k] > leaf->max_def)
                    || (col.rep && col.rep[k] > leaf->max_rep)) {
                    (*bad_levels)++;
                    break;
                }
        }
    cols = top_columns(file, &ncols);
    w = uc_jw_make(pool, 256);
    for (rg = 0; rg < file->num_row_groups; rg++) {
        uc_pq_rows_t *rows;

        if ((err = uc_pq_rows_open(file, pool, rg, cols, ncols, &rows)))
            return err;
        while (uc_pq_rows_next(rows))
            for (i = 0; i < ncols; i++) {
                if (!uc_pq_rows_present(rows, cols[i]))
                    continue;
                uc_jw_reset(w);
                if ((err = uc_pq_rows_write(rows, cols[i], w))
                    && !is_nested_error(err))
                    return err;
            }
    }
    return NULL;
}

static int is_malformed(const uc_error_t *err)
{
    return err && err->status == 400 && err->code
           && strcmp(err->code, "MALFORMED_PARQUET") == 0 && err->message
           && *err->message;
}

/* The file is refused with a 400 "MALFORMED_PARQUET" mentioning `needle`
 * (when not NULL). */
static void expect_bad_bytes(apr_pool_t *pool, const unsigned char *data,
                             size_t size, const char *needle,
                             const char *what)
{
    int bad = 0;
    uc_error_t *err = exercise(pool, exact(pool, data, size), size, &bad);

    if (!err)
        fail_msg("%s: accepted", what);
    if (!is_malformed(err))
        fail_msg("%s: error %d %s: %s", what, err->status,
                 err->code ? err->code : "", err->message);
    if (needle && !strstr(err->message, needle))
        fail_msg("%s: \"%s\" does not mention \"%s\"", what, err->message,
                 needle);
}

static void expect_bad(apr_pool_t *pool, const xfile_t *f, const char *needle,
                       const char *what)
{
    size_t size;
    unsigned char *data = build(pool, f, &size);

    expect_bad_bytes(pool, data, size, needle, what);
}

/* A known reader bug can read out of bounds: the check runs in a child
 * process, which reports 0 when the file was refused as malformed, 1 when
 * accepted, 2 for another error; a crash shows as a signal. */
static void expect_bad_isolated(apr_pool_t *pool, const xfile_t *f,
                                const char *what)
{
    size_t size;
    unsigned char *data = build(pool, f, &size);
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        fail_msg("fork failed");
    if (pid == 0) {
        apr_pool_t *sub;
        int bad = 0;
        uc_error_t *err;

        /* cmocka's handlers would go on with the tests in the child. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGILL, SIG_DFL);
        signal(SIGFPE, SIG_DFL);
        signal(SIGABRT, SIG_DFL);

        apr_pool_create(&sub, NULL);
        err = exercise(sub, data, size, &bad);
        _exit(!err ? 1 : is_malformed(err) ? 0 : 2);
    }
    if (waitpid(pid, &status, 0) != pid)
        fail_msg("waitpid failed");
    if (WIFSIGNALED(status))
        fail_msg("%s: the reader crashed (signal %d)", what, WTERMSIG(status));
    if (WEXITSTATUS(status) == 1)
        fail_msg("%s: accepted", what);
    if (WEXITSTATUS(status) != 0)
        fail_msg("%s: not refused as malformed (exit %d)", what,
                 WEXITSTATUS(status));
}

/* Three rows: a (optional INT64) 1 null 3, s (optional UTF8) "x" "yy"
 * null, in V1 PLAIN pages, uncompressed. */
static const xs_t base_schema[] = {
    XROOT(2),
    XLEAF("a", UC_PQ_INT64, OPT),
    { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
};
static const int base_def_a[] = { 1, 0, 1 }, base_def_s[] = { 1, 1, 0 };
static const char *const base_rows[] = {
    "{\"a\":1,\"s\":\"x\"}", "{\"s\":\"yy\"}", "{\"a\":3}"
};
#define BASE_A "\x01\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0"
#define BASE_S "\x01\0\0\0x\x02\0\0\0yy"

static void base_file(apr_pool_t *pool, xfile_t *f, const xpage_t *tweak_a)
{
    memset(f, 0, sizeof(*f));
    f->schema = base_schema;
    f->nschema = 3;
    f->nrg = 1;
    f->rows[0] = 3;
    data_page_x(pool, &f->cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_a,
                3, 0, 1, BASE_A, 16, tweak_a);
    data_page(pool, &f->cols[0][1], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_s, 3,
              0, 1, BASE_S, 11);
}

static void test_hostile_framing(void **state)
{
    apr_pool_t *pool = *state;
    xfile_t f;
    size_t size;
    unsigned char *good, *data;
    uc_pq_file_t *file;
    int bad = 0;

    base_file(pool, &f, NULL);
    good = build(pool, &f, &size);
    assert_ok(exercise(pool, good, size, &bad));
    assert_ok(open_bytes(pool, good, size, &file));
    assert_rows(pool, file, base_rows, 3);

    data = apr_pmemdup(pool, good, size);
    data[3] = '0';
    expect_bad_bytes(pool, data, size, "header", "bad header magic");
    data = apr_pmemdup(pool, good, size);
    data[size - 1] = '0';
    expect_bad_bytes(pool, data, size, "trailer", "bad trailer magic");
    /* "PARE": an encrypted footer. */
    data = apr_pmemdup(pool, good, size);
    data[size - 1] = 'E';
    expect_bad_bytes(pool, data, size, "encrypted", "PARE magic");
    /* Too short to be a file. */
    expect_bad_bytes(pool, (const unsigned char *)"PAR1PAR1", 8, NULL,
                     "8 bytes");
    expect_bad_bytes(pool, (const unsigned char *)"", 0, NULL, "0 bytes");
    expect_bad_bytes(pool, (const unsigned char *)"PAR1\0\0\0\0PAR1", 12,
                     "footer", "empty footer");
    /* Footer lengths: 0, one past the file, 2^32-1, into the chunks, a
     * few bytes short. */
    {
        static const apr_uint32_t lens[] = { 0, 0, 0xffffffffu, 0, 0 };
        apr_uint32_t footer = (apr_uint32_t)good[size - 8]
                              | (apr_uint32_t)good[size - 7] << 8
                              | (apr_uint32_t)good[size - 6] << 16
                              | (apr_uint32_t)good[size - 5] << 24;
        int k;

        for (k = 0; k < 5; k++) {
            apr_uint32_t len = lens[k];

            if (k == 1)
                len = (apr_uint32_t)(size - 11);
            if (k == 3)
                len = footer + 20;
            if (k == 4)
                len = footer - 3;
            data = apr_pmemdup(pool, good, size);
            data[size - 8] = (unsigned char)len;
            data[size - 7] = (unsigned char)(len >> 8);
            data[size - 6] = (unsigned char)(len >> 16);
            data[size - 5] = (unsigned char)(len >> 24);
            expect_bad_bytes(pool, data, size, k < 3 ? "footer length" : NULL,
                             apr_psprintf(pool, "footer length %u", len));
        }
    }
}

static void deep_footer_field(tw_t *w, const xfile_t *f)
{
    int i;

    (void)f;
    tw_field(w, UC_THRIFT_STRUCT, 50);
    for (i = 0; i < 40; i++)
        buf_byte(w->b, 0x1c);
    for (i = 0; i < 41; i++)
        buf_byte(w->b, 0x00);
}

static void unknown_footer_fields(tw_t *w, const xfile_t *f)
{
    (void)f;
    tw_field(w, UC_THRIFT_STRUCT, 60);
    buf_put(w->b, every_type, sizeof(every_type));
    /* key_value_metadata: list<KeyValue>. */
    tw_list(w, 5, UC_THRIFT_STRUCT, 1);
    tw_begin(w, 0);
    tw_str(w, 1, "ARROW:schema");
    tw_str(w, 2, "...");
    tw_end(w);
    tw_i32(w, 7, 1);
}

/* A second schema list after the row groups, with more leaves. */
static void second_schema(tw_t *w, const xfile_t *f)
{
    static const xs_t bigger[] = {
        XROOT(4),
        XLEAF("a", UC_PQ_INT64, OPT),
        { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        XLEAF("c", UC_PQ_INT64, OPT),
        XLEAF("d", UC_PQ_INT64, OPT),
    };

    (void)f;
    put_schema(w, 2, bigger, 5);
}

static void test_hostile_metadata(void **state)
{
    apr_pool_t *pool = *state;
    xfile_t f;
    uc_pq_file_t *file;

    base_file(pool, &f, NULL);
    f.encrypted = 1;
    expect_bad(pool, &f, "encrypted", "FileMetaData.encryption_algorithm");
    base_file(pool, &f, NULL);
    f.chunk_encrypted = 1;
    expect_bad(pool, &f, "encrypted", "ColumnChunk.crypto_metadata");
    base_file(pool, &f, NULL);
    f.file_path = 1;
    expect_bad(pool, &f, "other files", "ColumnChunk.file_path");
    base_file(pool, &f, NULL);
    f.bad_path = 1;
    expect_bad(pool, &f, "names another column", "path_in_schema");
    base_file(pool, &f, NULL);
    f.wrong_type = 1;
    expect_bad(pool, &f, "another type", "ColumnMetaData.type");
    base_file(pool, &f, NULL);
    f.drop_chunk = 1;
    expect_bad(pool, &f, "one chunk per column", "a chunk missing");

    /* Schemas that are not trees. */
    {
        static const xs_t too_many[] = {
            XROOT(3), XLEAF("a", UC_PQ_INT64, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t too_few[] = {
            XROOT(1), XLEAF("a", UC_PQ_INT64, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t group_too_many[] = {
            XROOT(1), XGROUP("g", OPT, 5, -1), XLEAF("a", UC_PQ_INT64, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t negative[] = {
            XROOT(-1), XLEAF("a", UC_PQ_INT64, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t bad_type[] = {
            XROOT(2), XLEAF("a", 8, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t no_type[] = {
            XROOT(2), XLEAF("a", -1, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t flba0[] = {
            XROOT(2), XLEAF("a", UC_PQ_FIXED_LEN_BYTE_ARRAY, OPT),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t bad_rep[] = {
            XROOT(2), XLEAF("a", UC_PQ_INT64, 3),
            { "s", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0 },
        };
        static const xs_t leaf_root[] = { XLEAF("schema", UC_PQ_INT64, -1) };
        static const struct {
            const xs_t *s;
            int n;
            const char *what;
        } bad[] = {
            { too_many, 3, "root with more children than elements" },
            { too_few, 3, "root with fewer children than elements" },
            { group_too_many, 4, "group with more children than elements" },
            { negative, 3, "negative num_children" },
            { bad_type, 3, "physical type 8" },
            { no_type, 3, "leaf without a type" },
            { flba0, 3, "FIXED_LEN_BYTE_ARRAY of length 0" },
            { bad_rep, 3, "repetition 3" },
            { leaf_root, 1, "a leaf as the root" },
            { base_schema, 0, "no schema elements" },
        };
        size_t k;

        for (k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
            base_file(pool, &f, NULL);
            f.schema = bad[k].s;
            f.nschema = bad[k].n;
            expect_bad(pool, &f, NULL, bad[k].what);
        }
    }

    /* Chunks outside the file, sizes that do not fit. */
    base_file(pool, &f, NULL);
    f.offset_add = 100000;
    expect_bad(pool, &f, "outside the file", "data_page_offset past the end");
    base_file(pool, &f, NULL);
    f.offset_add = -4;
    expect_bad(pool, &f, NULL, "data_page_offset 0");
    base_file(pool, &f, NULL);
    f.offset_add = INT64_MIN / 2;
    expect_bad(pool, &f, NULL, "negative data_page_offset");
    base_file(pool, &f, NULL);
    f.size_add = 100000;
    expect_bad(pool, &f, "outside the file", "total_compressed_size too big");
    base_file(pool, &f, NULL);
    f.size_add = INT64_MAX / 2;
    expect_bad(pool, &f, "outside the file", "total_compressed_size huge");
    base_file(pool, &f, NULL);
    f.size_add = -(apr_int64_t)f.cols[0][0].pages->len;
    expect_bad(pool, &f, NULL, "total_compressed_size 0");
    /* num_values that the pages do not hold. */
    base_file(pool, &f, NULL);
    f.values_add = 1;
    expect_bad(pool, &f, "another number of values", "num_values + 1");
    base_file(pool, &f, NULL);
    f.values_add = -1;
    expect_bad(pool, &f, "another number of values", "num_values - 1");
    base_file(pool, &f, NULL);
    f.values_add = -100;
    expect_bad(pool, &f, NULL, "negative num_values");
    /* A row group with another row count than its columns. */
    base_file(pool, &f, NULL);
    f.rows[0] = 4;
    expect_bad(pool, &f, "number of rows", "num_rows 4 for 3 rows");

    /* Thrift nesting beyond the limit in an unknown field. */
    base_file(pool, &f, NULL);
    f.extra = deep_footer_field;
    expect_bad(pool, &f, NULL, "footer nested 41 deep");
    /* Unknown fields of every type are passed over. */
    base_file(pool, &f, NULL);
    f.extra = unknown_footer_fields;
    assert_ok(open_built(pool, &f, &file));
    assert_rows(pool, file, base_rows, 3);
}

/* A second schema list after the row groups: the chunks were matched to
 * the first one's leaves, so reading the second one's leaves would index
 * past the chunks of the row group. */
/* 124 bytes that declare 2^27 values in two RLE runs (found by
 * t/fuzz): refused before anything is allocated for them. */
static void test_hostile_values_bomb(void **state)
{
    apr_pool_t *pool = *state;
    size_t size;
    unsigned char *data = read_whole(pool, "t/fuzz/regressions/parquet/"
                                     "levels-bomb.parquet", &size);

    assert_non_null(data);
    expect_bad_bytes(pool, data, size, "more values than the file could hold",
                     "levels bomb");
}

static void test_hostile_second_schema(void **state)
{
    apr_pool_t *pool = *state;
    xfile_t f;
    uc_pq_file_t *file = NULL;
    uc_error_t *err;

    base_file(pool, &f, NULL);
    f.extra = second_schema;
    expect_bad_isolated(pool, &f, "a second schema after the row groups");
    /* Refused at once: the file's leaves and its chunks disagree. */
    err = open_built(pool, &f, &file);
    if (!err)
        fail_msg("a second schema was read: %d leaves, row groups of %d "
                 "chunks", file->num_leaves, 2);
    assert_err(err, 400, "MALFORMED_PARQUET");
}

/* Groups nested `groups` deep above two leaves. */
static unsigned char *deep_file(apr_pool_t *pool, int groups, size_t *size)
{
    xs_t *s = apr_pcalloc(pool, sizeof(xs_t) * (size_t)(groups + 4));
    int *def_v = apr_palloc(pool, sizeof(int)), i;
    xfile_t f;

    s[0] = (xs_t)XROOT(2);
    for (i = 1; i <= groups; i++)
        s[i] = (xs_t)XGROUP(apr_psprintf(pool, "g%d", i), OPT,
                            i == groups ? 2 : 1, -1);
    s[groups + 1] = (xs_t)XLEAF("v", UC_PQ_INT32, OPT);
    s[groups + 2] = (xs_t)XLEAF("w", UC_PQ_INT32, OPT);
    s[groups + 3] = (xs_t)XLEAF("z", UC_PQ_INT32, REQ);
    memset(&f, 0, sizeof(f));
    f.schema = s;
    f.nschema = groups + 4;
    f.nrg = 1;
    f.rows[0] = 1;
    def_v[0] = groups + 1;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, def_v, 1, 0,
              groups + 1, "\x2a\0\0\0", 4);
    data_page(pool, &f.cols[0][1], PAGE_V1, UC_PQ_PLAIN, NULL, def_v, 1, 0,
              groups + 1, "\x2b\0\0\0", 4);
    data_page(pool, &f.cols[0][2], PAGE_V1, UC_PQ_PLAIN, NULL, NULL, 1, 0, 0,
              "\x07\0\0\0", 4);
    return build(pool, &f, size);
}

static void test_hostile_schema_depth(void **state)
{
    apr_pool_t *pool = *state;
    size_t size;
    unsigned char *data;
    uc_pq_file_t *file;
    uc_error_t *err;
    apr_array_header_t *rows;
    json_t *row, *v;
    int i;

    /* Leaves 32 below the root: the deepest schema read. */
    data = deep_file(pool, 31, &size);
    assert_ok(uc_pq_open(pool, "deep", data, size, &file));
    assert_int_equal(file->leaves[0]->max_def, 32);
    rows = file_rows(pool, file, &err);
    assert_ok(err);
    assert_int_equal(rows->nelts, 1);
    /* The JSON is well formed at that depth. */
    row = parse_json(APR_ARRAY_IDX(rows, 0, const char *));
    v = row;
    for (i = 1; i <= 31 && v; i++)
        v = json_object_get(v, apr_psprintf(pool, "g%d", i));
    if (!v || json_integer_value(json_object_get(v, "v")) != 42
        || json_integer_value(json_object_get(v, "w")) != 43
        || json_integer_value(json_object_get(row, "z")) != 7)
        fail_msg("deep row: %s", APR_ARRAY_IDX(rows, 0, const char *));
    json_decref(row);
    /* One deeper is refused. */
    data = deep_file(pool, 32, &size);
    expect_bad_bytes(pool, data, size, NULL, "leaves 33 deep");
}

static void test_hostile_pages(void **state)
{
    apr_pool_t *pool = *state;
    xfile_t f;
    xpage_t tw;
    uc_pq_file_t *file;

    memset(&tw, 0, sizeof(tw));
    tw.is_compressed = -1;
    tw.compressed_add = 100;
    base_file(pool, &f, &tw);
    expect_bad(pool, &f, "runs past its column chunk",
               "compressed_page_size past the chunk");
    tw.compressed_add = -1000;
    base_file(pool, &f, &tw);
    expect_bad(pool, &f, "bad page header", "negative compressed_page_size");
    tw.compressed_add = 0;
    tw.uncompressed_add = 1 << 30;
    base_file(pool, &f, &tw);
    expect_bad(pool, &f, "too large", "uncompressed_page_size over 1 GiB");
    tw.uncompressed_add = 1;
    base_file(pool, &f, &tw);
    expect_bad(pool, &f, "wrong size", "uncompressed_page_size + 1");
    tw.uncompressed_add = 0;
    tw.def_encoding = UC_PQ_DELTA_BINARY_PACKED;
    base_file(pool, &f, &tw);
    expect_bad(pool, &f, "level encoding", "delta-encoded definition levels");
    tw.def_encoding = 0;

    /* Compressed pages with a wrong size or corrupt bodies. */
    tw.uncompressed_add = 1;
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    f.cols[0][0].codec = CODEC_SNAPPY;
    data_page_x(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_a,
                3, 0, 1, BASE_A, 16, &tw);
    expect_bad(pool, &f, "Snappy", "Snappy page of the wrong size");
    tw.uncompressed_add = 0;
    base_file(pool, &f, NULL);
    f.cols[0][0].codec = CODEC_LZO;
    expect_bad(pool, &f, "LZO", "LZO");
    base_file(pool, &f, NULL);
    f.cols[0][0].codec = 99;
    expect_bad(pool, &f, NULL, "codec 99");

    /* V1 levels whose length runs past the page. */
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    {
        xpage_t pg;

        memset(&pg, 0, sizeof(pg));
        pg.type = PAGE_V1;
        pg.num_values = 3;
        put_page(pool, &f.cols[0][0], &pg,
                 (const unsigned char *)"\xff\x00\x00\x00\x06\x01", 6, 0, 0);
        f.cols[0][0].num_values = 3;
    }
    expect_bad(pool, &f, "levels run past", "levels past the page");

    /* Values that are not what the page says. */
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_a, 3,
              0, 1, BASE_A, 12);
    expect_bad(pool, &f, "truncated PLAIN", "values cut");
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, 1, NULL, base_def_a, 3, 0, 1,
              BASE_A, 16);
    expect_bad(pool, &f, "unsupported value encoding", "encoding 1");

    /* Dictionaries out of place. */
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_RLE_DICTIONARY, NULL,
              base_def_a, 3, 0, 1, "\x00\x04", 2);
    expect_bad(pool, &f, "without a dictionary", "indices, no dictionary");
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    dict_page(pool, &f.cols[0][0], 1, "\x01\0\0\0\0\0\0\0", 8);
    dict_page(pool, &f.cols[0][0], 1, "\x01\0\0\0\0\0\0\0", 8);
    f.cols[0][0].dict_len = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_RLE_DICTIONARY, NULL,
              base_def_a, 3, 0, 1, "\x00\x04", 2);
    expect_bad(pool, &f, "out of place", "two dictionaries");
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_a, 2,
              0, 1, BASE_A, 8);
    dict_page(pool, &f.cols[0][0], 1, "\x01\0\0\0\0\0\0\0", 8);
    f.cols[0][0].dict_len = 0;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_a + 2,
              1, 0, 1, &BASE_A[8], 8);
    expect_bad(pool, &f, "out of place", "a dictionary between data pages");
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    dict_page(pool, &f.cols[0][0], 1000, "\x01\0\0\0\0\0\0\0", 8);
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_RLE_DICTIONARY, NULL,
              base_def_a, 3, 0, 1, "\x00\x04", 2);
    expect_bad(pool, &f, NULL, "dictionary of 1000 in 8 bytes");
    /* An index out of the dictionary. */
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    dict_page(pool, &f.cols[0][0], 1, "\x01\0\0\0\0\0\0\0", 8);
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_RLE_DICTIONARY, NULL,
              base_def_a, 3, 0, 1, "\x01\x04\x01", 3);
    expect_bad(pool, &f, "out of range", "index 1 of 1");

    /* V2 level lengths larger than the page. */
    memset(&tw, 0, sizeof(tw));
    tw.is_compressed = -1;
    tw.def_len_add = 100;
    base_file(pool, &f, &tw);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    data_page_x(pool, &f.cols[0][0], PAGE_V2, UC_PQ_PLAIN, NULL, base_def_a,
                3, 0, 1, BASE_A, 16, &tw);
    expect_bad(pool, &f, "V2 levels", "V2 level length past the page");

    /* Accepted: old BIT_PACKED definition levels, an index page between
     * data pages, V2 pages, with the same rows as the plain file. */
    base_file(pool, &f, NULL);
    f.cols[0][0].pages = NULL;
    f.cols[0][0].num_values = 0;
    {
        xpage_t pg;

        memset(&pg, 0, sizeof(pg));
        pg.type = PAGE_V1;
        pg.num_values = 3;
        pg.def_encoding = UC_PQ_BIT_PACKED;
        put_page(pool, &f.cols[0][0], &pg,
                 (const unsigned char *)"\xa0" BASE_A, 17, 0, 0);
        f.cols[0][0].num_values = 3;
        f.cols[0][1].pages = NULL;
        f.cols[0][1].num_values = 0;
        data_page(pool, &f.cols[0][1], PAGE_V1, UC_PQ_PLAIN, NULL, base_def_s,
                  2, 0, 1, BASE_S, 11);
        pg.type = PAGE_INDEX;
        put_page(pool, &f.cols[0][1], &pg, (const unsigned char *)"ix", 2,
                 0, 0);
        data_page(pool, &f.cols[0][1], PAGE_V1, UC_PQ_PLAIN, NULL,
                  base_def_s + 2, 1, 0, 1, "", 0);
    }
    assert_ok(open_built(pool, &f, &file));
    assert_rows(pool, file, base_rows, 3);
    base_file(pool, &f, NULL);
    f.cols[0][1].pages = NULL;
    f.cols[0][1].num_values = 0;
    data_page(pool, &f.cols[0][1], PAGE_V2, UC_PQ_PLAIN, NULL, base_def_s, 2,
              0, 1, BASE_S, 11);
    data_page(pool, &f.cols[0][1], PAGE_V2, UC_PQ_PLAIN, NULL, base_def_s + 2,
              1, 0, 1, "", 0);
    assert_ok(open_built(pool, &f, &file));
    assert_rows(pool, file, base_rows, 3);
}

/* A compressed page body one byte short of what it was: every codec
 * notices (failures are gathered, so that each codec is tried). */
static void test_hostile_cut_pages(void **state)
{
    apr_pool_t *pool = *state;
    static const int codecs[] = { CODEC_SNAPPY, CODEC_GZIP, CODEC_ZSTD,
                                  CODEC_LZ4_RAW, CODEC_LZ4, CODEC_BROTLI };
    const char *failures = "";
    xfile_t f;
    xpage_t tw;
    size_t k;

    memset(&tw, 0, sizeof(tw));
    tw.is_compressed = -1;
    tw.compressed_add = -1;
    for (k = 0; k < sizeof(codecs) / sizeof(*codecs); k++) {
        size_t size;
        unsigned char *data;
        int bad = 0;
        uc_error_t *err;

        base_file(pool, &f, NULL);
        f.cols[0][0].pages = NULL;
        f.cols[0][0].num_values = 0;
        f.cols[0][0].codec = codecs[k];
        data_page_x(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL,
                    base_def_a, 3, 0, 1, BASE_A, 16, &tw);
        data = build(pool, &f, &size);
        err = exercise(pool, data, size, &bad);
        if (!err)
            failures = apr_psprintf(pool, "%s codec %d: accepted;", failures,
                                    codecs[k]);
        else if (!is_malformed(err))
            failures = apr_psprintf(pool, "%s codec %d: %s;", failures,
                                    codecs[k], err->message);
    }
    if (*failures)
        fail_msg("pages cut by a byte:%s", failures);
}

static const xs_t list_schema[] = {
    XROOT(1),
    XGROUP("l", OPT, 1, CONV_LIST),
    XGROUP("list", REP, 1, -1),
    XLEAF("element", UC_PQ_INT32, OPT),
};

/* A column whose first entry continues a row. */
static void test_hostile_row_start(void **state)
{
    apr_pool_t *pool = *state;
    static const int rep[] = { 1, 0 }, def[] = { 3, 3 };
    xfile_t f;

    memset(&f, 0, sizeof(f));
    f.schema = list_schema;
    f.nschema = 4;
    f.nrg = 1;
    f.rows[0] = 1;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, rep, def, 2, 1, 3,
              "\x01\0\0\0\x02\0\0\0", 8);
    expect_bad(pool, &f, "inside a row", "rep level 1 first");
}

/* A definition level of 3 where the maximum is 2 (bit width 2 can spell
 * it): the entry counts as no value, yet reads as present. */
static void test_hostile_def_above_max(void **state)
{
    apr_pool_t *pool = *state;
    static const xs_t schema[] = {
        XROOT(1), XGROUP("g", OPT, 1, -1), XLEAF("v", UC_PQ_INT64, OPT),
    };
    static const int def[] = { 2, 3, 3, 3 };
    xfile_t f;

    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = 3;
    f.nrg = 1;
    f.rows[0] = 4;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, NULL, def, 4, 0, 2,
              "\x05\0\0\0\0\0\0\0", 8);
    expect_bad_isolated(pool, &f, "definition level above its maximum");
}

/* A repetition level of 3 where the maximum is 2. */
static void test_hostile_rep_above_max(void **state)
{
    apr_pool_t *pool = *state;
    static const xs_t schema[] = {
        XROOT(1),
        XGROUP("nl", OPT, 1, CONV_LIST),
        XGROUP("list", REP, 1, -1),
        XGROUP("element", OPT, 1, CONV_LIST),
        XGROUP("list", REP, 1, -1),
        XLEAF("element", UC_PQ_INT32, OPT),
    };
    static const int rep[] = { 0, 3 }, def[] = { 5, 5 };
    xfile_t f;

    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = 6;
    f.nrg = 1;
    f.rows[0] = 1;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, rep, def, 2, 2, 5,
              "\x01\0\0\0\x02\0\0\0", 8);
    expect_bad_isolated(pool, &f, "repetition level above its maximum");
}

/* The key and value columns of a map disagree on how many entries a row
 * has: the key has three, the value one. */
static void test_hostile_map_levels_disagree(void **state)
{
    apr_pool_t *pool = *state;
    static const xs_t schema[] = {
        XROOT(1),
        XGROUP("m", OPT, 1, CONV_MAP),
        XGROUP("key_value", REP, 2, -1),
        { "key", UC_PQ_BYTE_ARRAY, REQ, 0, CONV_UTF8, 0, 0 },
        { "value", UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0, 0 },
    };
    static const int rep_k[] = { 0, 1, 1, 0 }, def_k[] = { 2, 2, 2, 2 };
    static const int rep_v[] = { 0, 0 }, def_v[] = { 3, 3 };
    xfile_t f;

    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = 5;
    f.nrg = 1;
    f.rows[0] = 2;
    data_page(pool, &f.cols[0][0], PAGE_V1, UC_PQ_PLAIN, rep_k, def_k, 4, 1,
              2, "\x01\0\0\0a\x01\0\0\0b\x01\0\0\0c\x01\0\0\0d", 20);
    data_page(pool, &f.cols[0][1], PAGE_V1, UC_PQ_PLAIN, rep_v, def_v, 2, 1,
              3, "\x01\0\0\0A\x01\0\0\0D", 10);
    expect_bad_isolated(pool, &f, "map keys and values disagree");
}

/* --- rows decoded by threads --------------------------------------------- */

/* A row group larger than the reader's threshold for threads (4 MiB):
 * eight string columns of 1,200 rows of 600 bytes. */
static void test_rows_parallel(void **state)
{
    apr_pool_t *pool = *state;
    enum { LEAVES = 8, ROWS = 1200, LEN = 600 };
    xs_t *schema = apr_pcalloc(pool, sizeof(xs_t) * (LEAVES + 1));
    int *def = apr_palloc(pool, sizeof(int) * ROWS);
    apr_array_header_t *serial, *parallel;
    uc_pq_rows_options_t options;
    uc_pq_file_t *file;
    uc_pq_rows_t *rows;
    rng_t r = { 42 };
    xfile_t f;
    int l, i, present = 0;

    schema[0] = (xs_t)XROOT(LEAVES);
    for (l = 0; l < LEAVES; l++)
        schema[l + 1] = (xs_t){ apr_psprintf(pool, "c%d", l),
                                UC_PQ_BYTE_ARRAY, OPT, 0, CONV_UTF8, 0, 0 };
    for (i = 0; i < ROWS; i++) {
        def[i] = i % 7 != 3;
        present += def[i];
    }
    memset(&f, 0, sizeof(f));
    f.schema = schema;
    f.nschema = LEAVES + 1;
    f.nrg = 1;
    f.rows[0] = ROWS;
    for (l = 0; l < LEAVES; l++) {
        buf_t *b = buf_make(pool);

        for (i = 0; i < ROWS; i++) {
            char v[LEN];
            int k;

            if (!def[i])
                continue;
            for (k = 0; k < LEN; k++)
                v[k] = (char)(' ' + rng_below(&r, 95));
            buf_le(b, LEN, 4);
            buf_put(b, v, LEN);
        }
        data_page(pool, &f.cols[0][l], PAGE_V1, UC_PQ_PLAIN, NULL, def, ROWS,
                  0, 1, b->p, b->len);
    }
    assert_ok(open_built(pool, &f, &file));

    serial = apr_array_make(pool, ROWS, sizeof(char *));
    assert_ok(rows_as_json(pool, file, 0,
                           (const uc_pq_node_t *const *)file->root->children,
                           LEAVES, NULL, serial));
    memset(&options, 0, sizeof(options));
    options.threads = 4;
    for (l = 0; l < 2; l++) {
        parallel = apr_array_make(pool, ROWS, sizeof(char *));
        if (l) {
            options.keep = pool;
            options.kept_leaves = (const uc_pq_node_t *const *)file->leaves;
            options.num_kept_leaves = LEAVES;
        }
        assert_ok(rows_as_json_ex(pool, file, 0,
                                  (const uc_pq_node_t *const *)
                                  file->root->children, LEAVES, NULL,
                                  &options, parallel));
        assert_int_equal(parallel->nelts, ROWS);
        for (i = 0; i < ROWS; i++)
            if (strcmp(APR_ARRAY_IDX(serial, i, const char *),
                       APR_ARRAY_IDX(parallel, i, const char *)) != 0)
                fail_msg("row %d differs when decoded by threads", i);
    }
    assert_ok(uc_pq_rows_open_ex(file, pool, 0,
                                 (const uc_pq_node_t *const *)
                                 file->root->children, LEAVES, &options,
                                 &rows));
    assert_int_equal(uc_pq_rows_values(rows, file->leaves[5]), present);
    assert_true(uc_pq_rows_kept_bytes(rows)
                >= (apr_size_t)LEAVES * present * LEN);
    /* An error in one thread's leaf is the error of all. */
    {
        size_t size;
        unsigned char *data;

        f.cols[0][6].pages = NULL;
        f.cols[0][6].num_values = 0;
        data_page(pool, &f.cols[0][6], PAGE_V1, UC_PQ_PLAIN, NULL, def, ROWS,
                  0, 1, "\x05\0\0\0", 4);
        data = build(pool, &f, &size);
        assert_ok(uc_pq_open(pool, "t", data, size, &file));
        assert_err(uc_pq_rows_open_ex(file, pool, 0,
                                      (const uc_pq_node_t *const *)
                                      file->root->children, LEAVES, &options,
                                      &rows), 400, "MALFORMED_PARQUET");
    }
}

/* --- mangled fixtures ---------------------------------------------------- */

/* parquet-mr with Snappy and dictionaries; parquet-rs, uncompressed. */
static const char *const fuzz_fixtures[] = {
    "dv-partitioned-with-checkpoint/_delta_log/"
    "00000000000000000010.checkpoint.parquet",
    "table_failed_last_checkpoint_update/_delta_log/"
    "00000000000000000001.checkpoint.parquet",
};

typedef struct fuzz {
    int tried, refused, bad_levels;
} fuzz_t;

/* Either read whole or refused as malformed; never a crash (ASan), never
 * another error. */
static int fuzz_one(apr_pool_t *pool, const unsigned char *data, size_t size,
                    fuzz_t *z, const char *what)
{
    apr_pool_t *sub;
    uc_error_t *err;

    apr_pool_create(&sub, pool);
    err = exercise(sub, exact(sub, data, size), size, &z->bad_levels);
    if (err && !is_malformed(err))
        fail_msg("%s: error %d %s: %s", what, err->status,
                 err->code ? err->code : "(null)", err->message);
    z->tried++;
    z->refused += err != NULL;
    apr_pool_destroy(sub);
    return err != NULL;
}

static apr_size_t footer_length(const unsigned char *data, size_t size)
{
    return (apr_size_t)data[size - 8] | (apr_size_t)data[size - 7] << 8
           | (apr_size_t)data[size - 6] << 16
           | (apr_size_t)data[size - 5] << 24;
}

static void test_fuzz_truncation(void **state)
{
    apr_pool_t *pool = *state;
    size_t k;

    alarm(600);
    for (k = 0; k < sizeof(fuzz_fixtures) / sizeof(*fuzz_fixtures); k++) {
        const unsigned char *data;
        size_t size, n, footer;
        fuzz_t z;
        unsigned char *cut;

        memset(&z, 0, sizeof(z));
        open_fixture(pool, fuzz_fixtures[k], &data, &size);
        assert_int_equal(fuzz_one(pool, data, size, &z, "whole"), 0);
        /* Every prefix. */
        for (n = 0; n < size; n++)
            fuzz_one(pool, data, n, &z, "prefix");
        /* Every prefix of the footer, framed again: each must be refused,
         * the FileMetaData struct being incomplete. */
        footer = footer_length(data, size);
        cut = apr_palloc(pool, size);
        for (n = 0; n < footer; n++) {
            size_t body = size - 8 - footer + n;

            memcpy(cut, data, body);
            cut[body] = (unsigned char)n;
            cut[body + 1] = (unsigned char)(n >> 8);
            cut[body + 2] = (unsigned char)(n >> 16);
            cut[body + 3] = (unsigned char)(n >> 24);
            memcpy(cut + body + 4, "PAR1", 4);
            if (!fuzz_one(pool, cut, body + 8, &z, "cut footer"))
                fail_msg("%s: a footer cut to %zu of %zu bytes was read",
                         fuzz_fixtures[k], n, footer);
        }
        print_message("%s: %d truncations, %d refused\n", fuzz_fixtures[k],
                      z.tried, z.refused);
        if (z.bad_levels)
            fail_msg("%s: %d truncations were read with levels above their "
                     "maxima", fuzz_fixtures[k], z.bad_levels);
    }
    alarm(0);
}

static void test_fuzz_corruption(void **state)
{
    apr_pool_t *pool = *state;
    size_t k;

    alarm(600);
    for (k = 0; k < sizeof(fuzz_fixtures) / sizeof(*fuzz_fixtures); k++) {
        const unsigned char *data;
        size_t size, footer;
        unsigned char *mangled;
        rng_t r = { 0x5eed0000ULL + k };
        fuzz_t z;
        int i;

        memset(&z, 0, sizeof(z));
        open_fixture(pool, fuzz_fixtures[k], &data, &size);
        footer = footer_length(data, size);
        mangled = apr_palloc(pool, size);
        for (i = 0; i < 2000; i++) {
            /* Half anywhere, half in the footer; single bytes (random or
             * one bit flipped) and runs of 2..16 bytes. */
            size_t lo = i % 2 ? size - 8 - footer : 0;
            size_t at = lo + rng_below(&r, size - lo);
            size_t run = i % 4 < 2 ? 1 : 2 + rng_below(&r, 15), j;

            memcpy(mangled, data, size);
            for (j = 0; j < run && at + j < size; j++) {
                if (run == 1 && i % 8 < 4)
                    mangled[at] ^= (unsigned char)(1u << rng_below(&r, 8));
                else
                    mangled[at + j] = (unsigned char)rng_next(&r);
            }
            fuzz_one(pool, mangled, size, &z,
                     apr_psprintf(pool, "corruption %d at %lu", i,
                                  (unsigned long)at));
        }
        print_message("%s: %d corruptions, %d refused, %d read\n",
                      fuzz_fixtures[k], z.tried, z.refused,
                      z.tried - z.refused);
        if (z.bad_levels)
            fail_msg("%s: %d corruptions were read with levels above their "
                     "maxima", fuzz_fixtures[k], z.bad_levels);
    }
    alarm(0);
}

/* --- the JSON writer's length-bounded calls ------------------------------ */

static const char *jw_text(uc_jw_t *w)
{
    return apr_pstrmemdup(w->pool, w->buf, w->len);
}

static void jw_string(uc_jw_t *w, const char *s, size_t n)
{
    uc_jw_reset(w);
    uc_jw_string_n(w, (const char *)exact(w->pool, s, n), n);
}

static void test_jw_string_n(void **state)
{
    apr_pool_t *pool = *state;
    uc_jw_t *w = uc_jw_make(pool, 16);
    static const struct {
        const char *in;
        size_t len;
        const char *out;
    } cases[] = {
        { "a\0b", 3, "\"a\\u0000b\"" },              /* NUL inside */
        { "\0", 1, "\"\\u0000\"" },
        { "abc", 2, "\"ab\"" },                      /* the length bounds */
        { "", 0, "\"\"" },
        { "q\"\\\n\t\r\x1f/", 8, "\"q\\\"\\\\\\n\\t\\r\\u001f/\"" },
        { "x\xc3\xa9", 3, "\"x\xc3\xa9\"" },           /* whole sequences */
        { "\xe2\x82\xac", 3, "\"\xe2\x82\xac\"" },
        { "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"" },
        /* Cut at the end of the bytes: each byte left becomes U+FFFD. */
        { "x\xc3\xa9", 2, "\"x\xef\xbf\xbd\"" },
        { "\xe2\x82\xac", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
        { "\xf0\x9f\x98\x80", 3,
          "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
        { "\xf0\x9f\x98\x80", 1, "\"\xef\xbf\xbd\"" },
        /* Invalid: stray continuation, overlong, surrogate, over U+10FFFF,
         * a lead byte that is never valid. */
        { "\x80z", 2, "\"\xef\xbf\xbdz\"" },
        { "\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
        { "\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
        { "\xf4\x90\x80\x80", 4,
          "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
        { "\xff", 1, "\"\xef\xbf\xbd\"" },
        { "\xc3\0", 2, "\"\xef\xbf\xbd\\u0000\"" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        json_t *v;

        jw_string(w, cases[i].in, cases[i].len);
        if (strcmp(jw_text(w), cases[i].out) != 0)
            fail_msg("case %zu: %s, want %s", i, jw_text(w), cases[i].out);
        v = parse_json(jw_text(w));
        assert_true(json_is_string(v));
        json_decref(v);
    }
    /* In an array: separators. */
    uc_jw_reset(w);
    uc_jw_begin_array(w);
    uc_jw_string_n(w, (const char *)exact(pool, "a", 1), 1);
    uc_jw_string_n(w, (const char *)exact(pool, "", 0), 0);
    uc_jw_string_n(w, (const char *)exact(pool, "\0", 1), 1);
    uc_jw_end_array(w);
    assert_string_equal(jw_text(w), "[\"a\",\"\",\"\\u0000\"]");
}

static void test_jw_key_n_and_real(void **state)
{
    apr_pool_t *pool = *state;
    uc_jw_t *w = uc_jw_make(pool, 16);
    json_t *v, *a;

    /* Keys from data are escaped like strings (jansson cannot take a NUL
     * in a key, so that one is compared as text only). */
    uc_jw_begin_object(w);
    uc_jw_key_n(w, (const char *)exact(pool, "k\"\0", 3), 3);
    uc_jw_int(w, 1);
    uc_jw_end_object(w);
    assert_string_equal(jw_text(w), "{\"k\\\"\\u0000\":1}");
    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_key_n(w, (const char *)exact(pool, "\xc3", 1), 1);
    uc_jw_null(w);
    uc_jw_key_n(w, (const char *)exact(pool, "a\nb", 2), 2);
    uc_jw_bool(w, 1);
    uc_jw_key_n(w, (const char *)exact(pool, "", 0), 0);
    /* Reals: NaN and infinities are null; the rest round-trips. */
    uc_jw_begin_array(w);
    uc_jw_real(w, NAN);
    uc_jw_real(w, INFINITY);
    uc_jw_real(w, -INFINITY);
    uc_jw_real(w, 1.5);
    uc_jw_real(w, 0.1);
    uc_jw_real(w, -1e300);
    uc_jw_real(w, 5e-324);
    uc_jw_real(w, -0.75);
    uc_jw_end_array(w);
    uc_jw_end_object(w);
    assert_string_equal(jw_text(w),
                        "{\"\xef\xbf\xbd\":null,\"a\\n\":true,\"\":"
                        "[null,null,null,1.5,0.10000000000000001,"
                        "-1.0000000000000001e+300,4.9406564584124654e-324,"
                        "-0.75]}");
    v = parse_json(jw_text(w));
    a = json_object_get(v, "");
    assert_true(json_is_null(json_array_get(a, 0)));
    assert_true(json_real_value(json_array_get(a, 4)) == 0.1);
    assert_true(json_real_value(json_array_get(a, 5)) == -1e300);
    assert_true(json_real_value(json_array_get(a, 6)) == 5e-324);
    assert_true(json_real_value(json_array_get(a, 7)) == -0.75);
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_thrift_varints),
        UC_POOL_TEST(test_thrift_field_ids),
        UC_POOL_TEST(test_thrift_bools_and_binary),
        UC_POOL_TEST(test_thrift_lists),
        UC_POOL_TEST(test_thrift_skip),
        UC_POOL_TEST(test_thrift_truncated),
        UC_POOL_TEST(test_thrift_depth),
        UC_POOL_TEST(test_hybrid_rle_runs),
        UC_POOL_TEST(test_hybrid_bit_packed),
        UC_POOL_TEST(test_hybrid_malformed),
        UC_POOL_TEST(test_bit_packed_levels),
        UC_POOL_TEST(test_plain_fixed),
        UC_POOL_TEST(test_plain_byte_array),
        UC_POOL_TEST(test_rle_booleans),
        UC_POOL_TEST(test_dictionary_indices),
        UC_POOL_TEST(test_delta_binary_packed),
        UC_POOL_TEST(test_delta_binary_packed_malformed),
        UC_POOL_TEST(test_delta_length_byte_array),
        UC_POOL_TEST(test_delta_byte_array),
        UC_POOL_TEST(test_byte_stream_split),
        UC_POOL_TEST(test_codecs_round_trip),
        UC_POOL_TEST(test_codecs_special),
        UC_POOL_TEST(test_snappy_elements),
        UC_POOL_TEST(test_snappy_hand_made),
        UC_POOL_TEST(test_file_types_and_encodings),
        UC_POOL_TEST(test_file_maps_and_lists),
        UC_POOL_TEST(test_fixture_checkpoints),
        UC_POOL_TEST(test_fixture_dumps),
        UC_POOL_TEST(test_synthetic_files),
        UC_POOL_TEST(test_hostile_framing),
        UC_POOL_TEST(test_hostile_metadata),
        UC_POOL_TEST(test_hostile_values_bomb),
        UC_POOL_TEST(test_hostile_second_schema),
        UC_POOL_TEST(test_hostile_schema_depth),
        UC_POOL_TEST(test_hostile_pages),
        UC_POOL_TEST(test_hostile_cut_pages),
        UC_POOL_TEST(test_hostile_row_start),
        UC_POOL_TEST(test_hostile_def_above_max),
        UC_POOL_TEST(test_hostile_rep_above_max),
        UC_POOL_TEST(test_hostile_map_levels_disagree),
        UC_POOL_TEST(test_rows_parallel),
        UC_POOL_TEST(test_fuzz_truncation),
        UC_POOL_TEST(test_fuzz_corruption),
        UC_POOL_TEST(test_jw_string_n),
        UC_POOL_TEST(test_jw_key_n_and_real),
    };
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("parquet", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
