/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_json_read.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "uc_json.h"
#include "uc_percent.h"

/* One pass over the bytes, building the values through the builder's
 * table (the text is checked here, the builder only makes). Runs of
 * plain string bytes are skipped sixteen at a time; UTF-8 is decoded only
 * where a byte of 0x80 or more is. */
typedef struct reader {
    const uc_json_builder_t *build;
    void *baton;
    const unsigned char *start;
    const unsigned char *p;    /* the next byte */
    const unsigned char *end;
    size_t depth;              /* values open, the one being read included */
    /* Unescaped strings, as a stack: a key stays on it while its value is
     * read. An escape is never longer unescaped, so the input's length is
     * room for all (allocated at the first escape). */
    char *scratch;
    size_t scratch_used;
    const char *reason;        /* of the first fault, NULL while none */
    const unsigned char *fault;
} reader_t;

/* Classes of bytes: those a string's plain run stops at, and whitespace. */
#define STOP 1
#define SPACE 2

static const unsigned char byte_class[256] = {
    [0 ... '\t' - 1] = STOP, ['\t'] = STOP | SPACE, ['\n'] = STOP | SPACE,
    ['\n' + 1 ... '\r' - 1] = STOP, ['\r'] = STOP | SPACE,
    ['\r' + 1 ... 0x1f] = STOP, [' '] = SPACE, ['"'] = STOP, ['\\'] = STOP,
    [0x80 ... 0xff] = STOP,
};

/* Notes the first fault (a reader that gives up stops at it); NULL, for
 * the caller to return. */
static void *fail(reader_t *r, const unsigned char *where,
                  const char *reason)
{
    if (!r->reason) {
        r->reason = reason;
        r->fault = where;
    }
    return NULL;
}

static void skip_space(reader_t *r)
{
    const unsigned char *p = r->p;

    while (p < r->end && (byte_class[*p] & SPACE))
        p++;
    r->p = p;
}

static int at(const reader_t *r, unsigned char c)
{
    return r->p < r->end && *r->p == c;
}

static int is_digit(const reader_t *r, const unsigned char *p)
{
    return p < r->end && (unsigned)(*p - '0') < 10;
}

/* jansson reads a number or a literal one byte too far and puts that byte
 * back; a NUL put back is lost (its one-byte buffer takes a NUL for
 * "nothing kept"), so jansson skips one NUL right after such a token.
 * Skipped here too: the verdicts must be jansson's. */
static void skip_lost_nul(reader_t *r)
{
    if (at(r, '\0'))
        r->p++;
}

/* The first byte from p on that ends a plain run of string bytes: a
 * quote, a backslash, a control byte or a byte of a UTF-8 sequence; `end`
 * when none does. */
static const unsigned char *plain_run_end(const unsigned char *p,
                                          const unsigned char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);

    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* Signed: 0x80 and above are below 0x20 too. */
        unsigned stops = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                         _mm_cmpeq_epi8(v, backslash)),
            _mm_cmplt_epi8(v, space)));

        if (stops)
            return p + __builtin_ctz(stops);
        p += 16;
    }
#endif
    while (p < end && !(byte_class[*p] & STOP))
        p++;
    return p;
}

/* The length of the valid UTF-8 sequence at p, 0 when invalid or cut off
 * by `end` (uc_utf8_sequence reads up to four bytes). */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char tail[4] = { 0 };

    if (end - p >= 4)
        return uc_utf8_sequence(p);
    memcpy(tail, p, (size_t)(end - p));
    return uc_utf8_sequence(tail);
}

/* The four hex digits at p (up to `end`) as a number; -1 when they are
 * not. */
static long hex4(const unsigned char *p, const unsigned char *end)
{
    return end - p < 4 ? -1 : uc_hex4((const char *)p);
}

/* The \u escape at p (its backslash), with the low half that must follow
 * a high surrogate, into *o; returns the byte after it, NULL when it is
 * malformed, a lone surrogate or U+0000 (jansson takes no NUL without
 * JSON_ALLOW_NUL, in keys none at all). */
static const unsigned char *unescape_unicode(reader_t *r,
                                             const unsigned char *p,
                                             char **o)
{
    long c = hex4(p + 2, r->end), low;

    if (c < 0)
        return fail(r, p, "invalid \\u escape");
    if (c == 0)
        return fail(r, p, "\\u0000 is not allowed");
    if (c >= 0xDC00 && c <= 0xDFFF)
        return fail(r, p, "lone low surrogate");
    if (c >= 0xD800 && c <= 0xDBFF) {
        low = r->end - p >= 8 && p[6] == '\\' && p[7] == 'u'
              ? hex4(p + 8, r->end) : -1;
        if (low < 0xDC00 || low > 0xDFFF)
            return fail(r, p, "high surrogate without its low half");
        c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        p += 6;
    }
    *o += uc_utf8_encode((unsigned)c, *o);
    return p + 6;
}

/* The escape at p (its backslash) into *o; returns the byte after it, or
 * NULL. */
static const unsigned char *unescape(reader_t *r, const unsigned char *p,
                                     char **o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e;

    if (r->end - p >= 2 && p[1] == 'u')
        return unescape_unicode(r, p, o);
    if (r->end - p < 2 || !p[1] || !(e = strchr(from, p[1])))
        return fail(r, p, "invalid escape");
    *(*o)++ = to[e - from];
    return p + 2;
}

/* The top of the scratch stack, allocated at the first escape. */
static char *scratch_top(reader_t *r)
{
    if (!r->scratch &&
        !(r->scratch = malloc((size_t)(r->end - r->start))))
        return fail(r, r->p, "out of memory");
    return r->scratch + r->scratch_used;
}

/* The string from r->p (past its opening quote) to its closing quote:
 * returns its content, in the input when it has no escape, else unescaped
 * and pushed on the scratch stack (the caller pops it by restoring
 * scratch_used); NULL when malformed. */
static const char *read_string(reader_t *r, size_t *len)
{
    const unsigned char *p = r->p, *copied = p;
    char *o = NULL, *s = NULL;
    size_t n;

    for (;;) {
        p = plain_run_end(p, r->end);
        if (p == r->end)
            return fail(r, p, "premature end of input");
        if (*p == '"')
            break;
        if (*p >= 0x80) {
            if (!(n = utf8_length(p, r->end)))
                return fail(r, p, "invalid UTF-8");
            p += n;
        } else if (*p < 0x20) {
            return fail(r, p, "control character in a string");
        } else {
            if (!o && !(o = s = scratch_top(r)))
                return NULL;
            memcpy(o, copied, (size_t)(p - copied));
            o += p - copied;
            if (!(p = copied = unescape(r, p, &o)))
                return NULL;
        }
    }
    r->p = p + 1;
    if (!o) {
        *len = (size_t)(p - copied);
        return (const char *)copied;
    }
    memcpy(o, copied, (size_t)(p - copied));
    o += p - copied;
    *len = (size_t)(o - s);
    r->scratch_used += *len;
    return s;
}

static void *read_string_value(reader_t *r)
{
    size_t mark = r->scratch_used, len;
    const char *s;
    void *value;

    r->p++;
    if (!(s = read_string(r, &len)))
        return NULL;
    value = r->build->string(r->baton, s, len);
    r->scratch_used = mark;
    return value ? value : fail(r, r->p, "out of memory");
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/* A real number as jansson reads it (strtod; an overflow to an infinity
 * refused, an underflow taken), in the C locale: httpd may share the
 * process with modules that call setlocale. */
static void *real_value(reader_t *r, const unsigned char *text, size_t n)
{
    char small[64], *copy;
    double d;
    int overflow;
    void *value;

    pthread_once(&c_locale_once, make_c_locale);
    if (!c_locale)
        return fail(r, text, "out of memory");
    /* strtod reads up to a NUL, which the input need not have. */
    if (!(copy = n < sizeof(small) ? small : malloc(n + 1)))
        return fail(r, text, "out of memory");
    memcpy(copy, text, n);
    copy[n] = '\0';
    errno = 0;
    d = strtod_l(copy, NULL, c_locale);
    overflow = (d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE;
    if (copy != small)
        free(copy);
    if (overflow)
        return fail(r, text, "real number overflow");
    value = r->build->real(r->baton, d);
    return value ? value : fail(r, text, "out of memory");
}

/* An integer as jansson reads it (strtoll): out of long long's range is
 * an error. */
static void *integer_value(reader_t *r, const unsigned char *text,
                           const unsigned char *end)
{
    int negative = *text == '-';
    unsigned long long v = 0, limit = (unsigned long long)LLONG_MAX + negative;
    const unsigned char *p;
    void *value;

    for (p = text + negative; p < end; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (v > (limit - d) / 10)
            return fail(r, text, negative ? "too big negative integer"
                                          : "too big integer");
        v = v * 10 + d;
    }
    value = r->build->integer(r->baton, negative && v
                                        ? -(long long)(v - 1) - 1
                                        : (long long)v);
    return value ? value : fail(r, text, "out of memory");
}

/* A number: '-'?, then 0 or digits without a leading zero, then an
 * optional fraction and exponent; an integer without either. */
static void *read_number(reader_t *r)
{
    const unsigned char *text = r->p, *p = text + (*text == '-');
    int real = 0;

    if (!is_digit(r, p))
        return fail(r, text, "invalid number");
    if (*p++ == '0') {
        if (is_digit(r, p))
            return fail(r, text, "invalid number");
    } else {
        while (is_digit(r, p))
            p++;
    }
    if (p < r->end && *p == '.') {
        if (!is_digit(r, ++p))
            return fail(r, text, "invalid number");
        while (is_digit(r, p))
            p++;
        real = 1;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < r->end && (*p == '+' || *p == '-'))
            p++;
        if (!is_digit(r, p))
            return fail(r, text, "invalid number");
        while (is_digit(r, p))
            p++;
        real = 1;
    }
    r->p = p;
    skip_lost_nul(r);
    return real ? real_value(r, text, (size_t)(p - text))
                : integer_value(r, text, p);
}

static void *read_literal(reader_t *r, const char *word,
                          uc_json_literal_t which)
{
    size_t n = strlen(word);
    void *value;

    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r, r->p, "invalid token");
    r->p += n;
    skip_lost_nul(r);
    value = r->build->literal(r->baton, which);
    return value ? value : fail(r, r->p, "out of memory");
}

static void *read_value(reader_t *r);

/* One element (r->p at it) appended to `array`. */
static int read_element(reader_t *r, void *array)
{
    void *value = read_value(r);

    if (value && r->build->append(r->baton, array, value))
        value = fail(r, r->p, "out of memory");
    return value != NULL;
}

/* One "key": value member (r->p at the key's quote) into `object`. */
static int read_member(reader_t *r, void *object)
{
    size_t mark = r->scratch_used, len;
    const unsigned char *key_at = r->p;
    const char *key;
    void *value;
    uc_json_set_t set;

    if (!at(r, '"')) {
        fail(r, r->p, "string or '}' expected");
        return 0;
    }
    r->p++;
    if (!(key = read_string(r, &len)))
        return 0;
    skip_space(r);
    if (!at(r, ':')) {
        fail(r, r->p, "':' expected");
        return 0;
    }
    r->p++;
    skip_space(r);
    value = read_value(r);
    /* The duplicate is found by the insertion's own lookup. */
    set = value ? r->build->set(r->baton, object, key, len, value)
                : UC_JSON_SET_DONE;
    if (set == UC_JSON_SET_DUPLICATE)
        value = fail(r, key_at, "duplicate object key");
    else if (set == UC_JSON_SET_NO_MEMORY)
        value = fail(r, r->p, "out of memory");
    r->scratch_used = mark;
    return value != NULL;
}

static void release(const reader_t *r, void *value)
{
    if (r->build->release)
        r->build->release(value);
}

/* An array or an object (r->p at its opening bracket) into `container`,
 * its items read by `read_item` up to `close`; released on any fault. */
static void *read_container(reader_t *r, void *container,
                            unsigned char close,
                            int (*read_item)(reader_t *, void *),
                            const char *expected)
{
    if (!container)
        return fail(r, r->p, "out of memory");
    r->p++;
    skip_space(r);
    if (at(r, close)) {
        r->p++;
        return container;
    }
    while (read_item(r, container)) {
        skip_space(r);
        if (at(r, close)) {
            r->p++;
            return container;
        }
        if (!at(r, ',')) {
            fail(r, r->p, expected);
            break;
        }
        r->p++;
        skip_space(r);
    }
    release(r, container);
    return NULL;
}

/* The value at r->p (whitespace before it skipped). */
static void *read_value(reader_t *r)
{
    void *value;

    if (r->depth >= UC_JSON_READ_MAX_DEPTH)
        return fail(r, r->p, "maximum parsing depth reached");
    if (r->p == r->end)
        return fail(r, r->p, "premature end of input");
    r->depth++;
    switch (*r->p) {
    case '{':
        value = read_container(r, r->build->object(r->baton), '}',
                               read_member, "',' or '}' expected");
        break;
    case '[':
        value = read_container(r, r->build->array(r->baton), ']',
                               read_element, "',' or ']' expected");
        break;
    case '"': value = read_string_value(r); break;
    case 't': value = read_literal(r, "true", UC_JSON_LITERAL_TRUE); break;
    case 'f': value = read_literal(r, "false", UC_JSON_LITERAL_FALSE); break;
    case 'n': value = read_literal(r, "null", UC_JSON_LITERAL_NULL); break;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5':
    case '6': case '7': case '8': case '9':
        value = read_number(r);
        break;
    default: value = fail(r, r->p, "invalid token"); break;
    }
    r->depth--;
    return value;
}

/* Where the fault is, counted as jansson does: lines from 1 and, on its
 * line, the characters (UTF-8 sequences) up to and with the faulty one. */
static void locate(const reader_t *r, uc_json_read_error_t *error)
{
    const unsigned char *p, *line_start = r->start;
    size_t line = 1, column = 1;

    for (p = r->start; p < r->fault; p++)
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
    for (p = line_start; p < r->fault; p++)
        column += (*p & 0xC0) != 0x80;
    error->line = line < INT_MAX ? (int)line : INT_MAX;
    error->column = column < INT_MAX ? (int)column : INT_MAX;
    error->reason = r->reason;
}

void *uc_json_read_with(const char *data, size_t len,
                        const uc_json_builder_t *builder, void *baton,
                        uc_json_read_error_t *error)
{
    reader_t r = { .build = builder, .baton = baton,
                   .start = (const unsigned char *)data,
                   .p = (const unsigned char *)data,
                   .end = (const unsigned char *)data + len };
    void *value = NULL;

    skip_space(&r);
    if (!at(&r, '{') && !at(&r, '['))
        fail(&r, r.p, "'[' or '{' expected");
    else if ((value = read_value(&r))) {
        skip_space(&r);
        if (r.p != r.end) {
            fail(&r, r.p, "end of input expected");
            release(&r, value);
            value = NULL;
        }
    }
    free(r.scratch);
    if (!value)
        locate(&r, error);
    return value;
}

/* jansson's builders: its own constructors, the _nocheck ones where the
 * reader has checked the text. */
static void *jansson_string(void *baton, const char *s, size_t len)
{
    (void)baton;
    return json_stringn_nocheck(s, len);
}

_Static_assert(sizeof(json_int_t) == sizeof(long long),
               "jansson reads integers with strtoll");
static void *jansson_integer(void *baton, long long v)
{
    (void)baton;
    return json_integer(v);
}

static void *jansson_real(void *baton, double d)
{
    (void)baton;
    return json_real(d);
}

static void *jansson_literal(void *baton, uc_json_literal_t which)
{
    (void)baton;
    return which == UC_JSON_LITERAL_TRUE ? json_true()
           : which == UC_JSON_LITERAL_FALSE ? json_false() : json_null();
}

static void *jansson_object(void *baton)
{
    (void)baton;
    return json_object();
}

static void *jansson_array(void *baton)
{
    (void)baton;
    return json_array();
}

static int jansson_append(void *baton, void *array, void *value)
{
    (void)baton;
    return json_array_append_new(array, value);
}

/* A key already there has its value replaced and the size stays: the
 * duplicate is found by the one lookup of the insertion (a json_object_getn
 * before it would hash every key twice). */
static uc_json_set_t jansson_set(void *baton, void *object, const char *key,
                                 size_t len, void *value)
{
    size_t size = json_object_size(object);

    (void)baton;
    if (json_object_setn_new_nocheck(object, key, len, value))
        return UC_JSON_SET_NO_MEMORY;
    return json_object_size(object) == size ? UC_JSON_SET_DUPLICATE
                                            : UC_JSON_SET_DONE;
}

static void jansson_release(void *value)
{
    json_decref(value);
}

static const uc_json_builder_t jansson_builder = {
    jansson_string, jansson_integer, jansson_real, jansson_literal,
    jansson_object, jansson_array, jansson_append, jansson_set,
    jansson_release
};

json_t *uc_json_read_body(const char *data, size_t len,
                          uc_json_read_error_t *error)
{
    return uc_json_read_with(data, len, &jansson_builder, NULL, error);
}
