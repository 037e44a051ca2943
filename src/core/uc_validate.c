/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_validate.h"
#include "uc_json.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

uc_error_t *uc_validate_name(apr_pool_t *pool, const char *field,
                             const char *name, const char **out)
{
    return uc_validate_name_with(pool, field, name, "_", out);
}

uc_error_t *uc_validate_name_with(apr_pool_t *pool, const char *field,
                                  const char *name, const char *inner,
                                  const char **out)
{
    apr_size_t len = strlen(name), i;
    char *lower;

    if (len < 3 || len > UC_NAME_MAX)
        return uc_error_invalid(pool, "Invalid %s '%s': a name has 3 to %d "
                                "characters.", field, name, UC_NAME_MAX);
    lower = apr_pstrmemdup(pool, name, len);
    for (i = 0; i < len; i++) {
        char c = (char)apr_tolower(lower[i]);
        int ok = (c >= 'a' && c <= 'z') ||
                 (i > 0 && c >= '0' && c <= '9') ||
                 (i > 0 && i + 1 < len && c && strchr(inner, c));
        if (!ok)
            return uc_error_invalid(pool, "Invalid %s '%s': a name starts "
                                    "with a letter, continues with letters, "
                                    "digits or '%s' and ends with a letter "
                                    "or digit.", field, name, inner);
        lower[i] = c;
    }
    *out = lower;
    return NULL;
}

uc_error_t *uc_validate_full_name(apr_pool_t *pool, const char *field,
                                  const char *full_name, int parts,
                                  const char **names)
{
    const char *start = full_name;
    int n = 0;

    for (;;) {
        const char *dot = strchr(start, '.');
        const char *part;
        uc_error_t *err;

        if (n == parts || (dot == NULL) != (n == parts - 1))
            return uc_error_invalid(pool, "Invalid %s '%s': expected %d "
                                    "dot-separated names.", field, full_name,
                                    parts);
        part = dot ? apr_pstrmemdup(pool, start, (apr_size_t)(dot - start))
                   : start;
        if ((err = uc_validate_name(pool, field, part, &names[n])))
            return err;
        n++;
        if (!dot)
            return NULL;
        start = dot + 1;
    }
}

uc_error_t *uc_validate_label(apr_pool_t *pool, const char *field,
                              const char *text, apr_size_t max)
{
    const unsigned char *p = (const unsigned char *)text;
    int blank = 1;

    if (!*text || strlen(text) > max)
        return uc_error_invalid(pool, "Field '%s' must have 1 to %lu "
                                "bytes.", field, (unsigned long)max);
    for (; *p; p++) {
        /* U+0080 to U+009F are C2 80 to C2 9F in UTF-8. */
        if (apr_iscntrl(*p) || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return uc_error_invalid(pool, "Field '%s' must not hold control "
                                    "characters.", field);
        if (*p != ' ')
            blank = 0;
    }
    if (blank)
        return uc_error_invalid(pool, "Field '%s' must not be blank.", field);
    return NULL;
}

/* Unicode's format characters (general category Cf, as of Unicode 15):
 * they draw nothing, or reorder what follows, so "bob" and "bob" with a
 * zero-width space, a soft hyphen or a right-to-left mark look the same. */
static int is_format_character(unsigned cp)
{
    static const unsigned ranges[][2] = {
        { 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c },
        { 0x06dd, 0x06dd }, { 0x070f, 0x070f }, { 0x0890, 0x0891 },
        { 0x08e2, 0x08e2 }, { 0x180e, 0x180e }, { 0x200b, 0x200f },
        { 0x202a, 0x202e }, { 0x2060, 0x2064 }, { 0x2066, 0x206f },
        { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd },
        { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
        { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f }
    };
    size_t i;

    for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]) &&
                ranges[i][0] <= cp; i++)
        if (cp <= ranges[i][1])
            return 1;
    return 0;
}

uc_error_t *uc_validate_principal_name(apr_pool_t *pool, const char *field,
                                       const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    uc_error_t *err = uc_validate_label(pool, field, name, UC_NAME_MAX);
    unsigned cp;
    apr_size_t n;

    for (; !err && *p; p += n) {
        if (!(n = uc_utf8_decode(p, &cp)))
            return uc_error_invalid(pool, "Field '%s' is not valid UTF-8.",
                                    field);
        if (is_format_character(cp))
            return uc_error_invalid(pool, "Field '%s' must not hold "
                                    "invisible format characters (U+%04X: "
                                    "Unicode category Cf).", field, cp);
    }
    return err;
}

uc_error_t *uc_validate_tag_text(apr_pool_t *pool, const char *field,
                                 const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    apr_size_t chars = 0, n;
    uc_error_t *err = uc_validate_label(pool, field, text, 4 * UC_TAG_TEXT_MAX);

    if (err)
        return err;
    if (apr_isspace(p[0]) || apr_isspace(p[strlen(text) - 1]))
        return uc_error_invalid(pool, "Field '%s' must not begin or end with "
                                "white space.", field);
    for (; *p; p += n, chars++) {
        if (!(n = uc_utf8_sequence(p)))
            return uc_error_invalid(pool, "Field '%s' is not valid UTF-8.",
                                    field);
        if (strchr("*./<>%&?\\=", *p))
            return uc_error_invalid(pool, "Field '%s' must not contain '%c' "
                                    "(nor any of * . / < > %% & ? \\ =).",
                                    field, *p);
    }
    if (chars > UC_TAG_TEXT_MAX)
        return uc_error_invalid(pool, "Field '%s' must have at most %d "
                                "characters.", field, UC_TAG_TEXT_MAX);
    return NULL;
}

uc_error_t *uc_validate_text(apr_pool_t *pool, const char *field,
                             const char *text, apr_size_t max)
{
    if (text && strlen(text) > max)
        return uc_error_invalid(pool, "Field '%s' is longer than %lu bytes.",
                                field, (unsigned long)max);
    return NULL;
}

/* What may follow the scheme: "//authority..." is a path that starts with
 * '/' as far as the pattern is concerned. */
static int uri_rest_ok(const char *rest)
{
    return !*rest || *rest == '/' || *rest == '?' || *rest == '#';
}

uc_error_t *uc_validate_uri(apr_pool_t *pool, const char *field,
                            const char *uri)
{
    const char *p = uri;
    int ok;

    if (!*uri || strlen(uri) > UC_URL_MAX)
        return uc_error_invalid(pool, "Field '%s' must be a URL of 1 to %d "
                                "bytes.", field, UC_URL_MAX);
    for (; *p; p++)
        if (apr_iscntrl(*p) || *p == ' ')
            return uc_error_invalid(pool, "Invalid %s '%s': blanks and "
                                    "control characters are not allowed.",
                                    field, uri);
    ok = uri_rest_ok(uri);
    if (!ok && apr_isalpha(uri[0])) {
        for (p = uri + 1; apr_isalnum(*p) || *p == '+' || *p == '-' ||
                          *p == '.'; p++)
            ;
        ok = *p == ':' && uri_rest_ok(p + 1);
    }
    if (!ok)
        return uc_error_invalid(pool, "Invalid %s '%s': expected a URL such "
                                "as https://host:port/path.", field, uri);
    return NULL;
}

uc_error_t *uc_validate_query_bool(apr_pool_t *pool, const char *field,
                                   const char *value, int dflt, int *out)
{
    if (!value || !*value) {
        *out = dflt;
        return NULL;
    }
    if (!strcasecmp(value, "true") || !strcmp(value, "1")) {
        *out = 1;
        return NULL;
    }
    if (!strcasecmp(value, "false") || !strcmp(value, "0")) {
        *out = 0;
        return NULL;
    }
    return uc_error_invalid(pool, "Query parameter '%s' must be true or "
                            "false.", field);
}
