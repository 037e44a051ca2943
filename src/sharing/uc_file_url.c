/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_file_url.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_jw.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"
#include "../http/uc_query.h"
#include "../http/uc_redact.h"
#include "../store/uc_securables.h"

#define FILE_URL_PURPOSE "file-url"
#define FILE_GRANT_PURPOSE "file-grant"
/* The value of the `scope` parameter that marks a grant. */
#define GRANT_SCOPE "prefix"
/* Log paths are short; this bounds the work a hostile URL can ask for. */
#define KEY_MAX 4096

/* Segments that could climb out of the root, or name it. */
static int is_unsafe_segment(const char *s, apr_size_t n)
{
    return n == 0 || (n == 1 && s[0] == '.') ||
           (n == 2 && s[0] == '.' && s[1] == '.');
}

static int is_safe_key_n(const char *key, apr_size_t len)
{
    const char *p = key, *end = key + len;

    if (!len || len > KEY_MAX)
        return 0;
    for (;;) {
        const char *slash = memchr(p, '/', (apr_size_t)(end - p));
        apr_size_t n = (apr_size_t)((slash ? slash : end) - p);

        if (is_unsafe_segment(p, n))
            return 0;
        if (!slash)
            return 1;
        p = slash + 1;
    }
}

static int is_safe_key(const char *key)
{
    return is_safe_key_n(key, strlen(key));
}

/* What a URL's signature covers: its table, expiry and key id, each on a
 * line (none holds a newline), padded with newlines to whole SHA-256
 * blocks, so that the signer of an answer hashes it once; then the file's
 * key. */
#define SIGNED_BLOCK 64

static const char *signed_fields(apr_pool_t *pool, const char *table_id,
                                 const char *exp, const char *kid,
                                 apr_size_t *len)
{
    const char *fields = apr_pstrcat(pool, table_id, "\n", exp, "\n", kid,
                                     "\n", NULL);
    apr_size_t n = strlen(fields);
    apr_size_t padded = (n + SIGNED_BLOCK - 1) / SIGNED_BLOCK * SIGNED_BLOCK;
    char *out = apr_palloc(pool, padded + 1);

    memcpy(out, fields, n);
    memset(out + n, '\n', padded - n);
    out[padded] = '\0';
    *len = padded;
    return out;
}

static uc_error_t *no_keys(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Local files are "
                         "handed out through URLs this server signs: its "
                         "administrator must set UnicatSecretKeyFile.");
}

struct uc_file_url_signer {
    uc_secret_hasher_t *hasher;
    const char *table_id;
    const char *kid;
    const char *exp;
    const char *prefix;            /* <files base>/<table id>/ */
    const char *query;             /* ?exp=<exp>&kid=<kid>&sig= */
    apr_size_t prefix_len, query_len;
};

uc_error_t *uc_file_url_signer_make(apr_pool_t *pool,
                                    const struct uc_secret_keys *keys,
                                    const char *files_base,
                                    const char *table_id, apr_int64_t expires,
                                    uc_file_url_signer_t **out)
{
    uc_file_url_signer_t *s;
    const char *fields;
    apr_size_t fields_len;

    if (!keys || !keys->n)
        return no_keys(pool);
    s = apr_pcalloc(pool, sizeof(*s));
    if (!(s->hasher = uc_secret_hasher_make(pool, &keys->keys[0],
                                            FILE_URL_PURPOSE)))
        return uc_error_because(pool, uc_error_internal(pool),
                                "HMAC-SHA256 failed");
    s->table_id = table_id;
    s->kid = keys->keys[0].id;
    s->exp = apr_psprintf(pool, "%" APR_INT64_T_FMT, expires);
    fields = signed_fields(pool, table_id, s->exp, s->kid, &fields_len);
    uc_secret_hasher_absorb(s->hasher, fields, fields_len);
    s->prefix = apr_pstrcat(pool, files_base, "/", table_id, "/", NULL);
    s->query = apr_pstrcat(pool, "?exp=", s->exp, "&kid=", s->kid,
                           "&" UC_SIGNATURE_PARAM "=", NULL);
    s->prefix_len = strlen(s->prefix);
    s->query_len = strlen(s->query);
    *out = s;
    return NULL;
}

int uc_file_url_signer_plain(const uc_file_url_signer_t *s)
{
    return uc_jw_is_plain(s->prefix, s->prefix_len)
        && uc_jw_is_plain(s->query, s->query_len);
}

/* One allocation for the URL of every file of an answer: prefix, key,
 * query and signature, each of a length known before. The signature is
 * left for the caller to write at `*sig`. */
static uc_error_t *lay_out(const uc_file_url_signer_t *s, apr_pool_t *pool,
                           const char *key, apr_size_t key_len,
                           const char **url, apr_size_t *url_len, char **sig)
{
    char *out, *o;

    if (!is_safe_key_n(key, key_len))
        return uc_error_invalid(pool, "The file '%s' cannot be shared: its "
                                "path is not inside the table.", key);
    out = apr_palloc(pool, s->prefix_len + 3 * key_len + s->query_len
                           + UC_SECRET_HASH_HEX + 1);
    memcpy(out, s->prefix, s->prefix_len);
    /* Each segment encoded on its own, the slashes between them kept: a
     * '/' inside a segment could never be read as a separator. */
    o = uc_percent_encode_into(out + s->prefix_len, key, key_len, "/");
    memcpy(o, s->query, s->query_len);
    o += s->query_len;
    *sig = o;
    *url = out;
    *url_len = (apr_size_t)(o - out) + UC_SECRET_HASH_HEX;
    return NULL;
}

uc_error_t *uc_file_url_sign(uc_file_url_signer_t *s, apr_pool_t *pool,
                             const char *key, apr_size_t key_len,
                             const char **url, apr_size_t *url_len)
{
    char *sig;
    uc_error_t *err = lay_out(s, pool, key, key_len, url, url_len, &sig);

    if (!err)
        uc_secret_hasher_hash(s->hasher, key, key_len, sig);
    return err;
}

uc_error_t *uc_file_url_sign2(uc_file_url_signer_t *s, apr_pool_t *pool,
                              const char *const key[2],
                              const apr_size_t key_len[2],
                              const char *url[2], apr_size_t url_len[2])
{
    const void *data[2] = { key[0], key[1] };
    char *sig[2];
    uc_error_t *err;

    if ((err = lay_out(s, pool, key[0], key_len[0], &url[0], &url_len[0],
                       &sig[0])) ||
        (err = lay_out(s, pool, key[1], key_len[1], &url[1], &url_len[1],
                       &sig[1])))
        return err;
    uc_secret_hasher_hash2(s->hasher, data, key_len, sig);
    return NULL;
}

uc_error_t *uc_file_grant_make(apr_pool_t *pool,
                               const struct uc_secret_keys *keys,
                               const char *files_base, const char *asset_id,
                               apr_int64_t expires, const char **root_url,
                               const char **query)
{
    const char *exp, *fields, *sig;
    apr_size_t fields_len;

    if (!keys || !keys->n)
        return no_keys(pool);
    exp = apr_psprintf(pool, "%" APR_INT64_T_FMT, expires);
    fields = signed_fields(pool, asset_id, exp, keys->keys[0].id,
                           &fields_len);
    if (!(sig = uc_secret_keyed_hash(pool, &keys->keys[0],
                                     FILE_GRANT_PURPOSE, fields,
                                     fields_len)))
        return uc_error_because(pool, uc_error_internal(pool),
                                "HMAC-SHA256 failed");
    *root_url = apr_pstrcat(pool, files_base, "/", asset_id, "/", NULL);
    *query = apr_pstrcat(pool, "exp=", exp, "&kid=", keys->keys[0].id,
                         "&scope=" GRANT_SCOPE "&" UC_SIGNATURE_PARAM "=",
                         sig, NULL);
    return NULL;
}

static uc_error_t *not_signed(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_PERMISSION_DENIED, "This URL is not one "
                         "this server signed.");
}

static uc_error_t *no_file(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "No such file.");
}

/* The decoded key of the path's segments after the table id: each
 * segment decoded alone, and none that decodes to a '/' (an encoded
 * separator), nothing that climbs. */
static uc_error_t *decode_key(apr_pool_t *pool, const char *encoded,
                              const char **key)
{
    const char *p = encoded, *out = "";

    if (strlen(encoded) > 3 * KEY_MAX)
        return no_file(pool);
    for (;;) {
        apr_size_t n = strcspn(p, "/");
        char *seg = uc_percent_decode(pool, apr_pstrndup(pool, p, n));

        if (!seg || strchr(seg, '/') || is_unsafe_segment(seg, strlen(seg)))
            return no_file(pool);
        out = apr_pstrcat(pool, out, *out ? "/" : "", seg, NULL);
        if (!p[n])
            break;
        p += n + 1;
    }
    *key = out;
    return NULL;
}

/* The key of a path after the id; under a grant, a path ending in '/' (or
 * none: the root) is a directory's listing. */
static uc_error_t *decode_target_key(apr_pool_t *pool, const char *encoded,
                                     uc_file_target_t *target)
{
    apr_size_t n = strlen(encoded);

    if (target->grant && (!n || encoded[n - 1] == '/')) {
        target->listing = 1;
        target->key = "";
        return n > 1 ? decode_key(pool, apr_pstrndup(pool, encoded, n - 1),
                                  &target->key)
                     : n ? no_file(pool) : NULL;
    }
    return decode_key(pool, encoded, &target->key);
}

static int is_decimal(const char *s)
{
    const char *p = s;

    while (*p >= '0' && *p <= '9')
        p++;
    return p != s && !*p && p - s <= 18;
}

uc_error_t *uc_file_url_verify(apr_pool_t *pool,
                               const struct uc_secret_keys *keys,
                               const char *path, const char *args,
                               apr_time_t now, uc_file_target_t *target)
{
    apr_table_t *query;
    const char *slash, *exp, *kid, *scope, *fields, *text;
    apr_size_t fields_len, text_len;
    uc_error_t *err;

    memset(target, 0, sizeof(*target));
    if (*path != '/' || !(slash = strchr(path + 1, '/')))
        return no_file(pool);
    target->id = apr_pstrndup(pool, path + 1,
                              (apr_size_t)(slash - path - 1));
    if (!uc_is_uuid(target->id))
        return no_file(pool);
    if (uc_query_parse(pool, args, &query))
        return not_signed(pool);
    scope = apr_table_get(query, "scope");
    if (scope && strcmp(scope, GRANT_SCOPE) != 0)
        return not_signed(pool);
    target->grant = scope != NULL;
    if ((err = decode_target_key(pool, slash + 1, target)))
        return err;
    exp = apr_table_get(query, "exp");
    kid = apr_table_get(query, "kid");
    if (!kid || !exp || !is_decimal(exp))
        return not_signed(pool);
    fields = signed_fields(pool, target->id, exp, kid, &fields_len);
    /* A grant signs its asset and expiry; a file's URL its file too. */
    text = target->grant ? fields : apr_pstrcat(pool, fields, target->key,
                                                NULL);
    text_len = fields_len + (target->grant ? 0 : strlen(target->key));
    if (!uc_secret_keyed_hash_matches(pool, keys, kid, target->grant
                                      ? FILE_GRANT_PURPOSE : FILE_URL_PURPOSE,
                                      text, text_len,
                                      apr_table_get(query,
                                                    UC_SIGNATURE_PARAM)))
        return not_signed(pool);
    target->expires = apr_atoi64(exp);
    if (target->expires <= (apr_int64_t)apr_time_sec(now))
        return uc_error_make(pool, UC_E_PERMISSION_DENIED, "This URL has "
                             "expired: ask the sharing server for the file "
                             "again.");
    return NULL;
}

/* The directory of a file:// location, decoded. */
static const char *root_of(apr_pool_t *pool, const char *location)
{
    const char *p = NULL;

    if (!strncmp(location, "file://localhost/", 17))
        p = location + 16;
    else if (!strncmp(location, "file:///", 8))
        p = location + 7;
    else if (!strncmp(location, "file:/", 6) && location[6] != '/')
        p = location + 5;
    return p ? uc_percent_decode(pool, p) : NULL;
}

uc_error_t *uc_file_url_resolve(apr_pool_t *pool, const char *location,
                                const char *key, int directory,
                                const char **path, const char **root_out)
{
    const char *root = location ? root_of(pool, location) : NULL;
    char real_root[PATH_MAX], real_file[PATH_MAX];
    struct stat st;
    apr_size_t n;

    if (!root || !realpath(root, real_root))
        return no_file(pool);
    if (!*key && directory)
        strcpy(real_file, real_root);
    else if (!is_safe_key(key) ||
             !realpath(apr_pstrcat(pool, root, "/", key, NULL), real_file))
        return no_file(pool);
    n = strlen(real_root);
    /* Inside the root after every link is followed, or not at all. */
    if (strncmp(real_file, real_root, n) != 0 ||
        (real_file[n] != '/' && real_file[n] && strcmp(real_root, "/")) ||
        stat(real_file, &st) != 0 ||
        !(directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
        return no_file(pool);
    *path = apr_pstrdup(pool, real_file);
    if (root_out)
        *root_out = apr_pstrdup(pool, real_root);
    return NULL;
}

/* The securables a URL may open: a table's files by their own URLs, a
 * volume's or a skill's under a grant. */
static int opens(const uc_file_target_t *target, const uc_securable_t *sec)
{
    if (!sec)
        return 0;
    if (!target->grant)
        return !strcmp(sec->kind, UC_KIND_TABLE);
    return !strcmp(sec->kind, UC_KIND_VOLUME) ||
           !strcmp(sec->kind, UC_KIND_AGENT_SKILL);
}

uc_error_t *uc_file_url_path(uc_store_t *store, apr_pool_t *pool,
                             const uc_file_target_t *target,
                             const char **path, const char **root)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_securable_by_id(store, pool, target->id, &sec);

    if (err)
        return err;
    return uc_file_url_resolve(pool, opens(target, sec)
                                     ? sec->storage_location : NULL,
                               target->key, target->listing, path, root);
}
