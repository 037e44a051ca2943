/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_redact.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "../core/uc_percent.h"

/* A copy of the input being made with its secrets replaced: the pieces
 * before `copied`, none until a secret is found (most requests hold
 * none, and then cost no allocation). */
typedef struct redaction {
    apr_pool_t *pool;
    const char *copied;
    apr_array_header_t *pieces;    /* struct iovec */
} redaction_t;

static void piece(redaction_t *rd, const char *at, apr_size_t len)
{
    struct iovec *v = apr_array_push(rd->pieces);

    v->iov_base = (void *)at;
    v->iov_len = len;
}

/* Replaces [from, to) of the input; spans come in the input's order. */
static void hide(redaction_t *rd, const char *from, const char *to)
{
    if (!rd->pieces)
        rd->pieces = apr_array_make(rd->pool, 5, sizeof(struct iovec));
    piece(rd, rd->copied, (apr_size_t)(from - rd->copied));
    piece(rd, UC_REDACTED, sizeof(UC_REDACTED) - 1);
    rd->copied = to;
}

static const char *redacted(redaction_t *rd, const char *input)
{
    if (!rd->pieces)
        return input;
    piece(rd, rd->copied, strlen(rd->copied));
    return apr_pstrcatv(rd->pool, (const struct iovec *)rd->pieces->elts,
                        (apr_size_t)rd->pieces->nelts, NULL);
}

/* Whether [s, end), percent-decoded, is `name` (lower case) in any
 * case. */
static int spells(const char *s, const char *end, const char *name)
{
    for (; s < end; s++, name++) {
        int c = (unsigned char)*s, hi, lo;

        if (c == '%' && end - s > 2 && (hi = uc_hex_digit(s[1])) >= 0 &&
            (lo = uc_hex_digit(s[2])) >= 0) {
            c = hi * 16 + lo;
            s += 2;
        }
        if (!*name || apr_tolower(c) != *name)
            return 0;
    }
    return !*name;
}

/* The next '/' of [s, end), or an encoded one, and its length in *len;
 * NULL when there is none. */
static const char *separator(const char *s, const char *end, int *len)
{
    for (; s < end; s++) {
        if (*s == '/') {
            *len = 1;
            return s;
        }
        if (*s == '%' && end - s > 2 && s[1] == '2' &&
            (s[2] == 'F' || s[2] == 'f')) {
            *len = 3;
            return s;
        }
    }
    return NULL;
}

/* Either name, each letter of it one byte or three (percent-encoded): a
 * segment of another length is neither, whatever its bytes. */
#define ACTIVATION_MIN (sizeof(UC_ACTIVATION_SEGMENT) - 1)
#define ACTIVATION_MAX (3 * (sizeof(UC_ACTIVATION_INFO_SEGMENT) - 1))

static int is_activation_segment(const char *s, const char *end)
{
    apr_size_t n = (apr_size_t)(end - s);

    return n >= ACTIVATION_MIN && n <= ACTIVATION_MAX &&
           (spells(s, end, UC_ACTIVATION_SEGMENT) ||
            spells(s, end, UC_ACTIVATION_INFO_SEGMENT));
}

/* Everything after the first activation segment of the path [s, end),
 * dot segments and all, for a nonce may come after them. */
static void hide_nonce(redaction_t *rd, const char *s, const char *end)
{
    const char *sep;
    int len;

    for (; (sep = separator(s, end, &len)); s = sep + len)
        if (is_activation_segment(s, sep) && sep + len < end) {
            hide(rd, sep + len, end);
            return;
        }
}

/* The value of every signature of the query [s, end). */
static void hide_signatures(redaction_t *rd, const char *s, const char *end)
{
    while (s < end) {
        const char *amp = memchr(s, '&', (apr_size_t)(end - s));
        const char *pair_end = amp ? amp : end;
        const char *eq = memchr(s, '=', (apr_size_t)(pair_end - s));

        if (eq && eq + 1 < pair_end && spells(s, eq, UC_SIGNATURE_PARAM))
            hide(rd, eq + 1, pair_end);
        if (!amp)
            return;
        s = amp + 1;
    }
}

static void hide_in_target(redaction_t *rd, const char *s, const char *end)
{
    const char *query = memchr(s, '?', (apr_size_t)(end - s));

    hide_nonce(rd, s, query ? query : end);
    if (query)
        hide_signatures(rd, query + 1, end);
}

/* The request line [line, end): its target, between the method and the
 * protocol. */
static void hide_in_request_line(redaction_t *rd, const char *line,
                                 const char *end)
{
    const char *target = memchr(line, ' ', (apr_size_t)(end - line));
    const char *last;

    if (!target)
        return;
    while (*target == ' ')
        target++;
    last = strrchr(target, ' ');
    if (last && strncmp(last + 1, "HTTP/", 5) == 0)
        end = last;
    hide_in_target(rd, target, end);
}

static const char *redact_with(apr_pool_t *pool, const char *s,
                               void (*hide_in)(redaction_t *, const char *,
                                               const char *))
{
    redaction_t rd = { pool, s, NULL };

    if (s)
        hide_in(&rd, s, s + strlen(s));
    return redacted(&rd, s);
}

const char *uc_redact_path(apr_pool_t *pool, const char *path)
{
    return redact_with(pool, path, hide_nonce);
}

const char *uc_redact_query(apr_pool_t *pool, const char *query)
{
    return redact_with(pool, query, hide_signatures);
}

const char *uc_redact_target(apr_pool_t *pool, const char *target)
{
    return redact_with(pool, target, hide_in_target);
}

const char *uc_redact_request_line(apr_pool_t *pool, const char *line)
{
    return redact_with(pool, line, hide_in_request_line);
}
