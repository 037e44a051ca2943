/* SPDX-License-Identifier: Apache-2.0 */
/* Storage locations in their normal form (see uc_storage_url.h). Every check
 * on where data lives compares these texts, so every spelling of a place
 * must come out as the same text: a location that reached another
 * object's files through "..", "%2e" or a different case would pass the
 * overlap checks that its plain spelling fails. */
#include "uc_storage_url.h"
#include "uc_clouds.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "../core/uc_percent.h"
#include "../core/uc_validate.h"

#define MANAGED_PREFIX "__unitystorage"

/* What a segment keeps unencoded besides the unreserved characters: the
 * rest of RFC 3986's pchar. */
#define SEGMENT_KEEPS "!$&'()*+,;=:@"

typedef struct input {
    apr_pool_t *pool;
    const char *field;
    const char *url;
} input_t;

static uc_error_t *refused(const input_t *in, const char *why)
{
    return uc_error_invalid(in->pool, "Invalid %s '%s': %s.", in->field,
                            in->url, why);
}

static int names_managed_storage(const char *s, apr_size_t len)
{
    apr_size_t n = sizeof(MANAGED_PREFIX) - 1, i;

    for (i = 0; i + n <= len; i++)
        if (strncasecmp(s + i, MANAGED_PREFIX, n) == 0)
            return 1;
    return 0;
}

/* Blanks, control characters, queries and fragments have no place in a
 * location, raw or (control characters) encoded. */
static uc_error_t *check_characters(const input_t *in)
{
    const char *p;

    if (strlen(in->url) > UC_URL_MAX)
        return uc_error_invalid(in->pool, "Field '%s' is longer than %d "
                                "bytes.", in->field, UC_URL_MAX);
    for (p = in->url; *p; p++)
        if (apr_iscntrl(*p) || *p == ' ' || *p == '?' || *p == '#')
            return refused(in, "spaces, control characters, queries and "
                           "fragments are not allowed");
    return NULL;
}

typedef struct parts {
    const char *scheme;
    const char *authority;
    const char *path;
} parts_t;

static uc_error_t *read_scheme(const input_t *in, parts_t *out,
                               const char **rest)
{
    const char *colon = strchr(in->url, ':'), *p;
    char *scheme;
    int i;

    if (in->url[0] == '/') {
        out->scheme = "file";
        *rest = in->url;
        return NULL;
    }
    for (p = in->url; apr_isalnum(*p) || *p == '+' || *p == '-' ||
                      *p == '.'; p++)
        ;
    if (!colon || p != colon || p == in->url || !apr_isalpha(in->url[0]))
        return refused(in, "expected an absolute path or a URL such as "
                       "s3://bucket/path");
    scheme = apr_pstrmemdup(in->pool, in->url, (apr_size_t)(p - in->url));
    for (i = 0; scheme[i]; i++)
        scheme[i] = (char)apr_tolower(scheme[i]);
    if (!uc_clouds_of_scheme(scheme))
        return refused(in, apr_psprintf(in->pool, "unsupported URI scheme: "
                                        "%s", scheme));
    out->scheme = scheme;
    *rest = colon + 1;
    return NULL;
}

/* Whether the scheme's host is <container>@<account> (Azure) or
 * <bucket>@<account> (R2), where '@' is no user name's end. */
static int names_account(const char *scheme)
{
    return uc_clouds_of_scheme(scheme)->account_in_host;
}

/* A bucket, container@account or host: lower-cased, as DNS names are. No
 * port and no user name: a signer or a client would read them as such
 * ("s3://user@bucket" is the host "bucket" to libcurl), and two texts
 * would name one place. */
static uc_error_t *read_host(const input_t *in, const char *start,
                             apr_size_t len, parts_t *out)
{
    char *host = apr_pstrmemdup(in->pool, start, len);
    const char *at = memchr(start, '@', len);
    apr_size_t i;

    if (!len)
        return refused(in, "the URL names no bucket or container");
    for (i = 0; i < len; i++) {
        if (!apr_isalnum(host[i]) && !strchr("-._@", host[i]))
            return refused(in, "the bucket or host has characters other "
                           "than letters, digits and '-._' (a storage URL "
                           "takes no port)");
        host[i] = (char)apr_tolower(host[i]);
    }
    if (at && (!names_account(out->scheme) || at == start ||
               at == start + len - 1 ||
               memchr(at + 1, '@', len - (apr_size_t)(at - start) - 1)))
        return refused(in, "a storage URL takes no user name: '@' only "
                       "parts an Azure container or an R2 bucket from its "
                       "account, once");
    if (names_managed_storage(host, len))
        return refused(in, "it names the managed storage prefix "
                       MANAGED_PREFIX);
    out->authority = host;
    return NULL;
}

static uc_error_t *split(const input_t *in, parts_t *out)
{
    const char *rest = NULL, *slash;
    apr_size_t len;
    uc_error_t *err;

    if ((err = read_scheme(in, out, &rest)))
        return err;
    out->authority = "";
    if (strncmp(rest, "//", 2) != 0) {
        /* Only file URLs may leave the authority out (file:/p). */
        if (strcmp(out->scheme, "file") != 0 || rest[0] != '/')
            return refused(in, apr_psprintf(in->pool, "expected %s://…",
                                            out->scheme));
        out->path = rest;
        return NULL;
    }
    rest += 2;
    slash = strchr(rest, '/');
    len = slash ? (apr_size_t)(slash - rest) : strlen(rest);
    out->path = rest + len;
    if (strcmp(out->scheme, "file") != 0)
        return read_host(in, rest, len, out);
    if ((len && strncasecmp(rest, "localhost", len) != 0) ||
        (len && len != sizeof("localhost") - 1) || !slash)
        return refused(in, "a file URL needs an absolute path (file:///…)");
    return NULL;
}

/* One segment, decoded: no NUL, control character or '/' may come out of
 * an escape, and every '%' must start one. */
static uc_error_t *decode_segment(const input_t *in, const char *s,
                                  apr_size_t len, char **out,
                                  apr_size_t *out_len)
{
    char *buf = apr_palloc(in->pool, len + 1), *w = buf;
    apr_size_t i;

    for (i = 0; i < len; i++) {
        int hi, lo;
        unsigned char c;

        if (s[i] != '%') {
            *w++ = s[i];
            continue;
        }
        if (i + 2 >= len || (hi = uc_hex_digit(s[i + 1])) < 0 ||
            (lo = uc_hex_digit(s[i + 2])) < 0)
            return refused(in, "a '%' must start an escape such as %25");
        c = (unsigned char)(hi * 16 + lo);
        if (c == '/')
            return refused(in, "an encoded '/' (%2F) is not allowed");
        if (c == 0 || apr_iscntrl(c))
            return refused(in, "encoded control characters are not allowed");
        *w++ = (char)c;
        i += 2;
    }
    *w = '\0';
    *out = buf;
    *out_len = (apr_size_t)(w - buf);
    return NULL;
}

/* Segment by segment: empty ones go (repeated and trailing slashes), "."
 * stays where it is, ".." takes the previous segment away. */
static uc_error_t *normal_path(const input_t *in, const char *path,
                               int refuse_managed, const char **out)
{
    apr_array_header_t *segs = apr_array_make(in->pool, 8, sizeof(char *));
    const char *p = path;
    apr_size_t total = 0;
    char *joined, *w;
    int i;

    while (*p) {
        const char *end = strchr(p, '/');
        apr_size_t len = end ? (apr_size_t)(end - p) : strlen(p), n = 0;
        char *seg = NULL;
        uc_error_t *err;

        if (len && (err = decode_segment(in, p, len, &seg, &n)))
            return err;
        p += len + (end ? 1 : 0);
        if (!len || (n == 1 && seg[0] == '.'))
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            if (!apr_array_pop(segs))
                return refused(in, "'..' climbs above the root");
            continue;
        }
        if (refuse_managed && names_managed_storage(seg, n))
            return refused(in, "the path contains the managed storage "
                           "prefix " MANAGED_PREFIX);
        APR_ARRAY_PUSH(segs, char *) = uc_percent_encode(in->pool, seg, n,
                                                         SEGMENT_KEEPS);
    }
    for (i = 0; i < segs->nelts; i++)
        total += 1 + strlen(APR_ARRAY_IDX(segs, i, char *));
    w = joined = apr_palloc(in->pool, total + 1);
    for (i = 0; i < segs->nelts; i++) {
        const char *seg = APR_ARRAY_IDX(segs, i, char *);
        apr_size_t n = strlen(seg);

        *w++ = '/';
        memcpy(w, seg, n);
        w += n;
    }
    *w = '\0';
    *out = joined;
    return NULL;
}

static uc_error_t *normalise(apr_pool_t *pool, const char *field,
                             const char *url, int refuse_managed,
                             const char **out)
{
    input_t in = { pool, field, url };
    parts_t parts = { NULL, NULL, NULL };
    const char *path = NULL, *result;
    uc_error_t *err;

    if ((err = check_characters(&in)) || (err = split(&in, &parts)) ||
        (err = normal_path(&in, parts.path, refuse_managed, &path)))
        return err;
    /* file:/// is the file-system root; s3://bucket has no path at all. */
    if (!*path && strcmp(parts.scheme, "file") == 0)
        path = "/";
    result = apr_pstrcat(pool, parts.scheme, "://", parts.authority, path,
                         NULL);
    if (strlen(result) > UC_URL_MAX)
        return uc_error_invalid(pool, "Field '%s' is longer than %d bytes "
                                "once normalised.", field, UC_URL_MAX);
    *out = result;
    return NULL;
}

uc_error_t *uc_storage_url_check(apr_pool_t *pool, const char *field,
                                 const char *url, const char **out)
{
    return normalise(pool, field, url, 1, out);
}

uc_error_t *uc_storage_url_derived(apr_pool_t *pool, const char *field,
                                   const char *url, const char **out)
{
    return normalise(pool, field, url, 0, out);
}

int uc_storage_url_within(const char *inner, const char *outer)
{
    apr_size_t n = strlen(outer);

    if (strncmp(inner, outer, n) != 0)
        return 0;
    /* file:/// ends with its '/': everything on the file system is in it. */
    return inner[n] == '\0' || inner[n] == '/' || (n && outer[n - 1] == '/');
}
