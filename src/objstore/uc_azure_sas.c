/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_azure_sas.h"

#include <string.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "../core/uc_bytes.h"
#include "../core/uc_percent.h"
#include "../core/uc_secret.h"

/* Every permission of a blob or container SAS, in the order Azure requires
 * them to be written. */
#define PERMISSION_ORDER "racwdxyltmeopi"

static int permissions_valid(const char *p)
{
    const char *at = PERMISSION_ORDER;

    if (!p || !*p)
        return 0;
    for (; *p; p++) {
        const char *found = strchr(at, *p);
        if (!found)
            return 0;
        at = found + 1;
    }
    return 1;
}

static const char *iso8601(apr_pool_t *pool, apr_time_t t)
{
    apr_time_exp_t x;
    char text[32];
    apr_size_t len;

    apr_time_exp_gmt(&x, t);
    apr_strftime(text, &len, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &x);
    return apr_pstrdup(pool, text);
}

/* base64(HMAC-SHA256(key, text)) with the decoded account key. */
static uc_error_t *sign(apr_pool_t *pool, const char *key_b64,
                        const char *text, const char **out)
{
    unsigned char mac[EVP_MAX_MD_SIZE], *key;
    unsigned int mac_len = 0;
    apr_size_t key_len;

    if (uc_base64_decode(pool, key_b64, &key, &key_len) || !key_len)
        return uc_error_invalid(pool, "The storage account key is not "
                                "base64.");
    HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)text,
         strlen(text), mac, &mac_len);
    uc_secret_wipe(key, key_len);
    *out = uc_base64_encode(pool, mac, mac_len);
    uc_secret_wipe(mac, sizeof(mac));
    return NULL;
}

uc_error_t *uc_azure_sas_sign(apr_pool_t *pool, const uc_azure_sas_t *sas,
                              const char **query)
{
    const char *start = sas->start ? iso8601(pool, sas->start) : "";
    const char *expiry = iso8601(pool, sas->expiry);
    const char *resource = sas->blob ? "b" : "c";
    const char *protocol = sas->allow_http ? "https,http" : "https";
    const char *canonical, *text, *sig = NULL;
    uc_error_t *err;

    if (!sas->account || !*sas->account || !sas->container ||
        !*sas->container || (sas->blob && !*sas->blob) || !sas->account_key)
        return uc_error_invalid(pool, "A SAS needs an account, a container "
                                "and its key.");
    if (!permissions_valid(sas->permissions))
        return uc_error_invalid(pool, "SAS permissions are letters of '%s', "
                                "in that order.", PERMISSION_ORDER);
    if (sas->expiry <= sas->start)
        return uc_error_invalid(pool, "A SAS must expire after it starts.");
    canonical = apr_pstrcat(pool, "/blob/", sas->account, "/",
                            sas->container, sas->blob ? "/" : "",
                            sas->blob ? sas->blob : "", NULL);
    /* Identifier, IP, snapshot time, encryption scope and the response
     * header overrides are not used: empty lines. */
    text = apr_pstrcat(pool, sas->permissions, "\n", start, "\n", expiry,
                       "\n", canonical, "\n\n\n", protocol, "\n",
                       UC_AZURE_SAS_VERSION, "\n", resource,
                       "\n\n\n\n\n\n\n", NULL);
    if ((err = sign(pool, sas->account_key, text, &sig)))
        return err;
    *query = apr_pstrcat(pool, "sv=", UC_AZURE_SAS_VERSION,
                         *start ? "&st=" : "",
                         *start ? uc_percent_encode(pool, start,
                                                    strlen(start), "")
                                : "",
                         "&se=", uc_percent_encode(pool, expiry,
                                                   strlen(expiry), ""),
                         "&sr=", resource, "&sp=", sas->permissions,
                         "&spr=", uc_percent_encode(pool, protocol,
                                                    strlen(protocol), ""),
                         "&sig=", uc_percent_encode(pool, sig, strlen(sig),
                                                    ""), NULL);
    return NULL;
}
