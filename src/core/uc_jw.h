/* SPDX-License-Identifier: Apache-2.0 */
/* A JSON writer into one growing pool buffer. Hot responses (objects and
 * pages of them) are written straight through it instead of building and
 * then serialising a jansson tree; jansson values can still be embedded. */
#ifndef UC_JW_H
#define UC_JW_H

#include <string.h>
#include <apr_pools.h>
#include <jansson.h>

#define UC_JW_MAX_DEPTH 32

typedef struct uc_jw {
    apr_pool_t *pool;
    char *buf;
    apr_size_t len;
    apr_size_t cap;
    int depth;
    unsigned char first[UC_JW_MAX_DEPTH];   /* nothing written yet here */
} uc_jw_t;

uc_jw_t *uc_jw_make(apr_pool_t *pool, apr_size_t initial);
/* Makes room for `more` bytes beyond what was written, in one allocation,
 * when the caller can tell (a page of stored rows). */
void uc_jw_reserve(uc_jw_t *w, apr_size_t more);
/* Makes room for `more` bytes, doubling: what the writer's own calls do
 * when the buffer is full. */
void uc_jw_grow(uc_jw_t *w, apr_size_t more);
/* Forgets everything written (an operation failed half way). */
void uc_jw_reset(uc_jw_t *w);
/* `len` bytes of `text` (which must outlive the writer's pool's use of
 * them) as what was written, without a copy: the writer never writes into
 * them, a later write (or a reset and a write) works on a copy. */
void uc_jw_borrow(uc_jw_t *w, const char *text, apr_size_t len);

void uc_jw_begin_object(uc_jw_t *w);
void uc_jw_end_object(uc_jw_t *w);
void uc_jw_begin_array(uc_jw_t *w);
void uc_jw_end_array(uc_jw_t *w);
/* The key of the next member of the current object: a name the module
 * spells itself (never client input), written without escaping. */
void uc_jw_key(uc_jw_t *w, const char *key);

/* A key from data (a map key read from a file), escaped. */
void uc_jw_key_n(uc_jw_t *w, const char *key, apr_size_t len);

/* Values, in an array or after uc_jw_key. Strings are escaped, invalid
 * UTF-8 becomes U+FFFD, NULL becomes null. */
void uc_jw_string(uc_jw_t *w, const char *s);
/* The same for `len` bytes that need not end in NUL. */
void uc_jw_string_n(uc_jw_t *w, const char *s, apr_size_t len);
/* A string whose `len` bytes are already escaped (the body of a JSON
 * string from elsewhere): only quoted. */
void uc_jw_string_escaped(uc_jw_t *w, const char *body, apr_size_t len);
void uc_jw_null(uc_jw_t *w);
void uc_jw_bool(uc_jw_t *w, int value);
void uc_jw_int(uc_jw_t *w, apr_int64_t value);
/* NaN and infinities, which JSON cannot spell, become null. */
void uc_jw_real(uc_jw_t *w, double value);
/* A decimal integer held as text (as databases return it); NULL or text
 * that is not an integer becomes null. */
void uc_jw_int_text(uc_jw_t *w, const char *text);
/* JSON text the module wrote itself (stored properties): copied as is. */
void uc_jw_raw(uc_jw_t *w, const char *json);
/* The members of a compact JSON object the module wrote itself (stored
 * details), spliced into the current object, leaving out the keys listed
 * in `omit` (NULL-ended, may be NULL). */
void uc_jw_members(uc_jw_t *w, const char *object,
                   const char *const *omit);
void uc_jw_json(uc_jw_t *w, const json_t *value);

/* Ends a top-level value with a newline: the next one starts a line of
 * its own (NDJSON). */
void uc_jw_newline(uc_jw_t *w);
/* Pieces of a value whose shape the caller writes itself (a line of a
 * fixed shape, its constant text in runs): no separator is added and the
 * nesting is not tracked, so a line written so must be whole before the
 * writer's other calls go on. Text as it is; a string escaped and
 * quoted; an integer's digits. */
static inline void uc_jw_text_n(uc_jw_t *w, const char *text,
                                apr_size_t len)
{
    if (w->len + len > w->cap)
        uc_jw_grow(w, len);
    memcpy(w->buf + w->len, text, len);
    w->len += len;
}
void uc_jw_escaped_n(uc_jw_t *w, const char *s, apr_size_t len);
/* `len` bytes already escaped (a JSON string's body), only quoted. */
void uc_jw_quoted_n(uc_jw_t *w, const char *body, apr_size_t len);
/* Whether `len` bytes are JSON text as they are, between quotes:
 * printable ASCII without '"' or '\\'. */
int uc_jw_is_plain(const char *s, apr_size_t len);
void uc_jw_digits(uc_jw_t *w, apr_int64_t value);
/* Whole NDJSON lines written elsewhere, appended after the last line. */
void uc_jw_lines(uc_jw_t *w, const char *text, apr_size_t len);

/* What was written, as a C string (the writer stays usable). */
const char *uc_jw_text(uc_jw_t *w);

/* key + value in one call, for object members. */
void uc_jw_field_string(uc_jw_t *w, const char *key, const char *s);
void uc_jw_field_int(uc_jw_t *w, const char *key, apr_int64_t value);
void uc_jw_field_int_text(uc_jw_t *w, const char *key, const char *text);
void uc_jw_field_raw(uc_jw_t *w, const char *key, const char *json);

#endif
