/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_file_url.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_percent.h"
#include "../core/uc_secret.h"

/* A MAC key of its own (core/uc_secret.h), apart from tokens' hashes. */
#define FILE_URL_PURPOSE "file-url"

uc_error_t *uc_file_url_sign(apr_pool_t *pool,
                             const struct uc_secret_keys *keys,
                             const char *files_base, const char *table_id,
                             const char *key, apr_int64_t expires,
                             const char **url)
{
    const char *signed_text, *sig;

    if (!keys || keys->n < 1)
        return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Data file "
                             "URLs cannot be signed: the server has no "
                             "UnicatSecretKeyFile.");
    /* Newlines apart: no table id holds one, and a key is a path of the
     * table, so no two triples hash the same text. */
    signed_text = apr_psprintf(pool, "%s%c%s%c%" APR_INT64_T_FMT, table_id,
                               '\n', key, '\n', expires);
    sig = uc_secret_keyed_hash(pool, &keys->keys[0], FILE_URL_PURPOSE,
                               signed_text, strlen(signed_text));
    *url = apr_psprintf(pool, "%s/%s/%s?exp=%" APR_INT64_T_FMT
                        "&kid=%s&sig=%s", files_base, table_id,
                        uc_percent_encode(pool, key, strlen(key), "/"),
                        expires, keys->keys[0].id, sig);
    return NULL;
}
