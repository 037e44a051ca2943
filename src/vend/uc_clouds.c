/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_clouds.h"

#include <string.h>
#include <apr_strings.h>

extern const uc_cloud_t uc_cloud_file, uc_cloud_aws, uc_cloud_azure,
    uc_cloud_cloudflare, uc_cloud_gcp;

/* Adding a cloud is its file and a line here. */
const uc_cloud_t *const uc_clouds[] = {
    &uc_cloud_file,
    &uc_cloud_aws,
    &uc_cloud_azure,
    &uc_cloud_cloudflare,
    &uc_cloud_gcp,
    NULL
};

const uc_cloud_t *uc_clouds_of_scheme(const char *scheme)
{
    const char *const *s;
    int i;

    for (i = 0; scheme && uc_clouds[i]; i++)
        for (s = uc_clouds[i]->schemes; *s; s++)
            if (!strcmp(*s, scheme))
                return uc_clouds[i];
    return NULL;
}

const uc_cloud_t *uc_clouds_of_url(const char *url)
{
    const char *sep = strstr(url, "://");
    char scheme[16];

    if (url[0] == '/')
        return uc_clouds_of_scheme("file");
    if (!sep || sep == url || (apr_size_t)(sep - url) >= sizeof(scheme))
        return NULL;
    memcpy(scheme, url, (apr_size_t)(sep - url));
    scheme[sep - url] = '\0';
    return uc_clouds_of_scheme(scheme);
}

const uc_cloud_t *uc_clouds_of_type(const char *name,
                                    const uc_credential_type_t **type)
{
    const uc_credential_type_t *t;
    int i;

    for (i = 0; name && uc_clouds[i]; i++)
        for (t = uc_clouds[i]->types; t && t->name; t++)
            if (!strcmp(t->name, name)) {
                if (type)
                    *type = t;
                return uc_clouds[i];
            }
    return NULL;
}

const char *uc_clouds_schemes(apr_pool_t *pool,
                              int (*want)(const uc_cloud_t *cloud))
{
    const char *list = NULL;
    const char *const *s;
    int i;

    for (i = 0; uc_clouds[i]; i++)
        for (s = uc_clouds[i]->schemes; (!want || want(uc_clouds[i])) && *s;
             s++)
            list = list ? apr_pstrcat(pool, list, ", ", *s, "://", NULL)
                        : apr_pstrcat(pool, *s, "://", NULL);
    return list ? list : "";
}
