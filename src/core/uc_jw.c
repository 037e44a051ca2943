/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_jw.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <apr_strings.h>

#include "uc_json.h"

uc_jw_t *uc_jw_make(apr_pool_t *pool, apr_size_t initial)
{
    uc_jw_t *w = apr_pcalloc(pool, sizeof(*w));

    w->pool = pool;
    w->cap = initial < 64 ? 64 : initial;
    w->buf = apr_palloc(pool, w->cap);
    w->first[0] = 1;
    return w;
}

void uc_jw_reset(uc_jw_t *w)
{
    w->len = 0;
    w->depth = 0;
    w->first[0] = 1;
}

void uc_jw_grow(uc_jw_t *w, apr_size_t more)
{
    char *grown;

    if (!w->cap)
        w->cap = 64;
    while (w->len + more > w->cap)
        w->cap *= 2;
    grown = apr_palloc(w->pool, w->cap);
    memcpy(grown, w->buf, w->len);
    w->buf = grown;
}

void uc_jw_borrow(uc_jw_t *w, const char *text, apr_size_t len)
{
    /* No room: the first write copies the text out, never into it. */
    w->buf = (char *)text;
    w->len = len;
    w->cap = 0;
}

static void reserve(uc_jw_t *w, apr_size_t more)
{
    if (w->len + more > w->cap)
        uc_jw_grow(w, more);
}

void uc_jw_reserve(uc_jw_t *w, apr_size_t more)
{
    if (w->len + more > w->cap) {
        char *grown = apr_palloc(w->pool, w->len + more);

        memcpy(grown, w->buf, w->len);
        w->buf = grown;
        w->cap = w->len + more;
    }
}

static void put(uc_jw_t *w, const char *s, apr_size_t n)
{
    uc_jw_text_n(w, s, n);
}

static void put_char(uc_jw_t *w, char c)
{
    reserve(w, 1);
    w->buf[w->len++] = c;
}

/* Separates a value from its predecessor in an array; after a key the
 * separator was already written. */
static void before_value(uc_jw_t *w)
{
    if (!w->first[w->depth])
        put_char(w, ',');
    w->first[w->depth] = 0;
}

static void open_container(uc_jw_t *w, char c)
{
    before_value(w);
    put_char(w, c);
    if (w->depth + 1 < UC_JW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_container(uc_jw_t *w, char c)
{
    put_char(w, c);
    if (w->depth > 0)
        w->depth--;
}

void uc_jw_begin_object(uc_jw_t *w) { open_container(w, '{'); }
void uc_jw_end_object(uc_jw_t *w) { close_container(w, '}'); }
void uc_jw_begin_array(uc_jw_t *w) { open_container(w, '['); }
void uc_jw_end_array(uc_jw_t *w) { close_container(w, ']'); }

/* The length of the valid UTF-8 sequence at p, 0 when invalid or cut off
 * by `end` (uc_utf8_sequence itself reads up to four bytes). */
static apr_size_t utf8_sequence_before(const unsigned char *p,
                                       const unsigned char *end)
{
    apr_size_t need = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;

    return need <= (apr_size_t)(end - p) ? uc_utf8_sequence(p) : 0;
}

/* The bytes JSON takes as they are: printable ASCII but '"' and '\\'.
 * A table: the scan is the inner loop of every long answer. */
static const unsigned char plain[256] = {
    [0x20 ... '"' - 1] = 1, ['"' + 1 ... '\\' - 1] = 1, ['\\' + 1 ... 0x7f] = 1,
};

#define BYTES_OF(b) (0x0101010101010101ULL * (b))

/* The high bit of every byte of `v` (eight bytes as they lie in memory)
 * that is not plain: below 0x20, '"', '\\' or above 0x7f. Borrows can mark
 * bytes after a marked one falsely, never one before: the first mark is
 * exact, and so is whether there is one. */
static apr_uint64_t care_marks(apr_uint64_t v)
{
    apr_uint64_t quote = v ^ BYTES_OF('"'), slash = v ^ BYTES_OF('\\');

    return (((quote - BYTES_OF(1)) & ~quote) |
            ((slash - BYTES_OF(1)) & ~slash) |
            ((v - BYTES_OF(0x20)) & ~v) | v) & BYTES_OF(0x80);
}

/* How many bytes come before the first marked one (marks not 0). */
static apr_size_t plain_before(apr_uint64_t marks)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (apr_size_t)__builtin_clzll(marks) >> 3;
#else
    return (apr_size_t)__builtin_ctzll(marks) >> 3;
#endif
}

#ifdef __SSE2__
/* Sixteen bytes at once where none is a control character or above 0x7f
 * (the stats of every file line are JSON text: quotes all along): the
 * quotes and backslashes among them get their backslash, the rest is
 * copied. `end` ends the input. Returns where the output ends, or NULL,
 * having written nothing, when a byte needs the byte-wise path. */
static char *escape_block(char *o, const unsigned char *p,
                          const unsigned char *end)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    unsigned slashed = (unsigned)_mm_movemask_epi8(_mm_or_si128(
        _mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
        _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    unsigned char near_end[32];
    const unsigned char *from = p;
    unsigned start = 0, k;

    /* Signed: 0x80 and above are below 0x20 too. */
    if (_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))))
        return NULL;
    if (!slashed) {
        _mm_storeu_si128((__m128i *)(void *)o, v);
        return o + 16;
    }
    /* Between marks, sixteen bytes are copied and as many kept as come
     * before the next mark (the reservation has room for the rest): a
     * step per quote, not per byte. The copies read up to 31 bytes on,
     * from a copy of the block when the input ends sooner. */
    if (end - p < 32) {
        _mm_storeu_si128((__m128i *)(void *)near_end, v);
        _mm_storeu_si128((__m128i *)(void *)(near_end + 16),
                         _mm_setzero_si128());
        from = near_end;
    }
    do {
        k = (unsigned)__builtin_ctz(slashed);
        _mm_storeu_si128((__m128i *)(void *)o,
            _mm_loadu_si128((const __m128i *)(const void *)(from + start)));
        o += k - start;
        *o++ = '\\';
        start = k;
        slashed &= slashed - 1;
    } while (slashed);
    _mm_storeu_si128((__m128i *)(void *)o,
        _mm_loadu_si128((const __m128i *)(const void *)(from + start)));
    return o + 16 - start;
}
#endif

/* Input escaped per reservation: room for the worst case (six bytes out
 * for one in) is taken once for the lot, not per run. */
#define ESCAPE_CHUNK 4096

/* Escapes [p, stop) into the buffer; a UTF-8 sequence that starts before
 * `stop` is read whole (up to `end`). Returns where it stopped. */
static const unsigned char *escape_some(uc_jw_t *w, const unsigned char *p,
                                        const unsigned char *stop,
                                        const unsigned char *end)
{
    static const char hex[] = "0123456789abcdef";
    char *o;
    apr_size_t n;

    reserve(w, 6 * (apr_size_t)(stop - p) + 8);
    o = w->buf + w->len;
    while (p < stop) {
        apr_uint64_t v;

#ifdef __SSE2__
        if (stop - p >= 16) {
            char *next = escape_block(o, p, end);

            if (next) {
                o = next;
                p += 16;
                continue;
            }
        }
#endif

        /* Plain ASCII is copied eight bytes at a time (the inner loop of
         * every long answer): the whole word, of which the bytes before
         * the first one that is not plain count. The reservation has room
         * for the word's rest. */
        if (stop - p >= 8) {
            apr_uint64_t marks;

            memcpy(&v, p, 8);
            memcpy(o, p, 8);
            if (!(marks = care_marks(v))) {
                o += 8;
                p += 8;
                continue;
            }
            n = plain_before(marks);
            o += n;
            p += n;
        }
        else {
            while (p < stop && plain[*p])
                *o++ = (char)*p++;
            if (p == stop)
                break;
        }
        if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\t' ||
            *p == '\r') {
            o[0] = '\\';
            o[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : *p == '\r' ? 'r'
                 : (char)*p;
            o += 2;
            p++;
        }
        else if (*p < 0x20) {
            memcpy(o, "\\u00", 4);
            o[4] = hex[*p >> 4];
            o[5] = hex[*p & 15];
            o += 6;
            p++;
        }
        else if ((n = utf8_sequence_before(p, end)) > 0) {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
        else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    w->len = (apr_size_t)(o - w->buf);
    return p;
}

/* Escapes `len` bytes: text from the log or from Parquet is not
 * NUL-terminated and may hold NUL itself. */
static void put_escaped(uc_jw_t *w, const char *s, apr_size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + len;

    put_char(w, '"');
    while (p < end)
        p = escape_some(w, p, end - p > ESCAPE_CHUNK ? p + ESCAPE_CHUNK : end,
                        end);
    put_char(w, '"');
}

/* The separator, the key in quotes (a name of the code's, never escaped)
 * and the colon, in one reservation: every member of every answer has
 * one. */
void uc_jw_key(uc_jw_t *w, const char *key)
{
    apr_size_t n = strlen(key);
    char *o;

    reserve(w, n + 4);
    o = w->buf + w->len;
    if (!w->first[w->depth])
        *o++ = ',';
    *o++ = '"';
    memcpy(o, key, n);
    o += n;
    *o++ = '"';
    *o++ = ':';
    w->len = (apr_size_t)(o - w->buf);
    /* The value that follows needs no separator of its own. */
    w->first[w->depth] = 1;
}

void uc_jw_key_n(uc_jw_t *w, const char *key, apr_size_t len)
{
    before_value(w);
    put_escaped(w, key, len);
    put_char(w, ':');
    w->first[w->depth] = 1;
}

void uc_jw_real(uc_jw_t *w, double value)
{
    char text[32];
    int n;

    before_value(w);
    if (value != value || value - value != 0) {
        put(w, "null", 4);
        return;
    }
    /* The C library's: apr_snprintf's %g drops the 0 before the point
     * (".1", invalid JSON) and loses digits ("-0.e+79" for -1e300). */
    n = snprintf(text, sizeof(text), "%.17g", value);
    put(w, text, (apr_size_t)n);
}

void uc_jw_string(uc_jw_t *w, const char *s)
{
    before_value(w);
    if (s)
        put_escaped(w, s, strlen(s));
    else
        put(w, "null", 4);
}

void uc_jw_string_n(uc_jw_t *w, const char *s, apr_size_t len)
{
    before_value(w);
    put_escaped(w, s, len);
}

void uc_jw_string_escaped(uc_jw_t *w, const char *body, apr_size_t len)
{
    before_value(w);
    uc_jw_quoted_n(w, body, len);
}

void uc_jw_null(uc_jw_t *w)
{
    before_value(w);
    put(w, "null", 4);
}

void uc_jw_bool(uc_jw_t *w, int value)
{
    before_value(w);
    if (value)
        put(w, "true", 4);
    else
        put(w, "false", 5);
}

/* Digits written from the end: every line of a long answer has a few
 * numbers, and the formatter's generality costs more than they do. */
void uc_jw_int(uc_jw_t *w, apr_int64_t value)
{
    before_value(w);
    uc_jw_digits(w, value);
}

void uc_jw_int_text(uc_jw_t *w, const char *text)
{
    const char *p = text;

    if (p && *p == '-')
        p++;
    if (!p || !*p || strspn(p, "0123456789") != strlen(p)) {
        uc_jw_null(w);
        return;
    }
    before_value(w);
    put(w, text, strlen(text));
}

void uc_jw_raw(uc_jw_t *w, const char *json)
{
    before_value(w);
    put(w, json, strlen(json));
}

static int omitted(const char *key, apr_size_t len, const char *const *omit)
{
    for (; omit && *omit; omit++)
        if (strlen(*omit) == len && memcmp(*omit, key, len) == 0)
            return 1;
    return 0;
}

/* Whether none of the keys in `omit` occurs in `object` as a quoted
 * string, anywhere: then none is a member and nothing is left out. A
 * search for each is far cheaper than walking the members, whose values
 * (a table's columns) may be long. */
static int none_named(const char *object, const char *const *omit)
{
    char needle[66];

    for (; omit && *omit; omit++) {
        apr_size_t len = strlen(*omit);

        if (len + 3 > sizeof(needle))
            return 0;
        needle[0] = '"';
        memcpy(needle + 1, *omit, len);
        needle[len + 1] = '"';
        needle[len + 2] = '\0';
        if (strstr(object, needle))
            return 0;
    }
    return 1;
}

void uc_jw_members(uc_jw_t *w, const char *object, const char *const *omit)
{
    const char *p = object;
    apr_size_t n;

    if (!p || *p != '{')
        return;
    /* Nothing to leave out: the members go as they are, in one copy. */
    n = strlen(p);
    if (n > 2 && p[n - 1] == '}' && none_named(p, omit)) {
        before_value(w);
        put(w, p + 1, n - 2);
        return;
    }
    for (p++; *p == '"'; p++) {
        const char *key_end = uc_json_string_end(p), *end;

        if (*key_end != '"' || key_end[1] != ':')
            return;
        end = uc_json_value_end(key_end + 2);
        if (end == key_end + 2)
            return;
        if (!omitted(p + 1, (apr_size_t)(key_end - p - 1), omit)) {
            before_value(w);
            put(w, p, (apr_size_t)(end - p));
        }
        if (*end != ',')
            return;
        p = end;
    }
}

static int dump_into(const char *buffer, size_t size, void *data)
{
    put(data, buffer, size);
    return 0;
}

void uc_jw_json(uc_jw_t *w, const json_t *value)
{
    before_value(w);
    json_dump_callback(value, dump_into, w, JSON_COMPACT | JSON_ENCODE_ANY);
}

void uc_jw_field_string(uc_jw_t *w, const char *key, const char *s)
{
    uc_jw_key(w, key);
    uc_jw_string(w, s);
}

void uc_jw_field_int(uc_jw_t *w, const char *key, apr_int64_t value)
{
    uc_jw_key(w, key);
    uc_jw_int(w, value);
}

void uc_jw_field_int_text(uc_jw_t *w, const char *key, const char *text)
{
    uc_jw_key(w, key);
    uc_jw_int_text(w, text);
}

void uc_jw_field_raw(uc_jw_t *w, const char *key, const char *json)
{
    uc_jw_key(w, key);
    uc_jw_raw(w, json);
}

void uc_jw_escaped_n(uc_jw_t *w, const char *s, apr_size_t len)
{
    put_escaped(w, s, len);
}

void uc_jw_quoted_n(uc_jw_t *w, const char *body, apr_size_t len)
{
    reserve(w, len + 2);
    w->buf[w->len++] = '"';
    memcpy(w->buf + w->len, body, len);
    w->len += len;
    w->buf[w->len++] = '"';
}

int uc_jw_is_plain(const char *s, apr_size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    apr_size_t i;

    for (i = 0; i < len; i++)
        if (!plain[p[i]])
            return 0;
    return 1;
}

/* "00" to "99": two digits per division (a size and an expiry of 13
 * digits on every file line). */
#define DECIMAL_ROW(d) d "0" d "1" d "2" d "3" d "4" d "5" d "6" d "7" \
                       d "8" d "9"
static const char decimal_pairs[] =
    DECIMAL_ROW("0") DECIMAL_ROW("1") DECIMAL_ROW("2") DECIMAL_ROW("3")
    DECIMAL_ROW("4") DECIMAL_ROW("5") DECIMAL_ROW("6") DECIMAL_ROW("7")
    DECIMAL_ROW("8") DECIMAL_ROW("9");

/* The eight digits of `v` (< 10^8), leading zeros included, before `p`. */
static char *eight_digits(char *p, apr_uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++, v /= 100) {
        p -= 2;
        memcpy(p, decimal_pairs + 2 * (v % 100), 2);
    }
    return p;
}

/* How many digits `v` has: log10 from its bit length (1233 / 4096 is
 * log10(2) within 10^-5), one more when it reaches the next power of
 * ten. The first entry is 0, not 1: 0 too has a digit. */
static unsigned digit_count(apr_uint64_t v)
{
    static const apr_uint64_t powers[20] = {
        0ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
        10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
        100000000000ULL, 1000000000000ULL, 10000000000000ULL,
        100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL,
        10000000000000000000ULL
    };
    unsigned t = ((64 - (unsigned)__builtin_clzll(v | 1)) * 1233) >> 12;

    return t + (v >= powers[t]);
}

void uc_jw_digits(uc_jw_t *w, apr_int64_t value)
{
    apr_uint64_t magnitude = value < 0 ? 0 - (apr_uint64_t)value
                                       : (apr_uint64_t)value;
    unsigned n = digit_count(magnitude) + (value < 0);
    apr_uint32_t rest;
    char *p;

    /* Written in place from the last digit back: a copy from a buffer on
     * the stack would wait for the digits' stores to land. */
    reserve(w, n);
    p = w->buf + w->len + n;
    w->len += n;
    /* Eight digits at a time in 32 bits: 64-bit divisions cost more. */
    while (magnitude >= 100000000) {
        p = eight_digits(p, (apr_uint32_t)(magnitude % 100000000));
        magnitude /= 100000000;
    }
    for (rest = (apr_uint32_t)magnitude; rest >= 100; rest /= 100) {
        p -= 2;
        memcpy(p, decimal_pairs + 2 * (rest % 100), 2);
    }
    if (rest >= 10) {
        p -= 2;
        memcpy(p, decimal_pairs + 2 * rest, 2);
    }
    else
        *--p = (char)('0' + rest);
    if (value < 0)
        *--p = '-';
}

void uc_jw_lines(uc_jw_t *w, const char *text, apr_size_t len)
{
    put(w, text, len);
    w->depth = 0;
    w->first[0] = 1;
}

void uc_jw_newline(uc_jw_t *w)
{
    put_char(w, '\n');
    w->depth = 0;
    w->first[0] = 1;
}

const char *uc_jw_text(uc_jw_t *w)
{
    reserve(w, 1);
    w->buf[w->len] = '\0';
    return w->buf;
}
